// Dunning per merchant over HTTP on both engines: the retry schedule (days after each failure) and what the last
// failure does (Delinquent or Cancelled) are the merchant's settings, read and changed through the API, bounded,
// and run by the sandbox clock: each retry at its time to the second, the last failure as the settings say, with
// its event; one merchant's settings never touch the other's.
import request from 'supertest';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { engines, fieldsOf, startServer, type TestServer } from '../harness.ts';
import { DECLINING_CARD, plusDays, RETURNING_ACCOUNT, subscriptionCalls, subscriptionPayments, eventTypesOf } from './subscription-helpers.ts';

describe.each(engines())('subscription dunning settings (%s)', (engine) => {
  let s: TestServer;
  beforeAll(async () => { s = await startServer(engine); });
  afterAll(async () => { await s.close(); });
  const sub = subscriptionCalls(() => s);
  const ok = (res: request.Response): unknown => {
    expect(res.status, res.text).toBe(200);
    return res.body;
  };
  afterEach(async () => { for (const who of [0, 1] as const) ok(await sub.settings({ retryDays: [1, 2], afterLastFailure: 'Delinquent' }, who)); });
  const types = (id: string): Promise<string[]> => eventTypesOf(s, id);
  const declining = async (): Promise<{ id: string; customerId: string; start: string }> => {
    const customerId = await sub.customer();
    const card = await sub.card(customerId, DECLINING_CARD);
    const made = await sub.created({ customerId, paymentMethodId: card, amount: 6, frequency: 'Monthly' });
    return { id: made.subscriptionId, customerId, start: made.startDate };
  };

  it('starts with retryDays [1, 2] and Delinquent; a change answers and reads back the settings', async () => {
    expect(ok(await sub.readSettings())).toEqual({ merchantId: s.secrets.merchants[0]?.merchantId, retryDays: [1, 2], afterLastFailure: 'Delinquent' });
    expect(ok(await sub.settings({ retryDays: [3, 5] }))).toMatchObject({ retryDays: [3, 5], afterLastFailure: 'Delinquent' });
    expect(ok(await sub.settings({ afterLastFailure: 'Cancelled' }))).toMatchObject({ retryDays: [3, 5], afterLastFailure: 'Cancelled' });
    expect(ok(await sub.readSettings())).toMatchObject({ retryDays: [3, 5], afterLastFailure: 'Cancelled' });
    // The other merchant's are its own.
    expect(ok(await sub.readSettings(1))).toMatchObject({ retryDays: [1, 2], afterLastFailure: 'Delinquent' });
  });

  it('retries at each configured day after the previous failure, then Cancelled with subscription.payment_failed', async () => {
    ok(await sub.settings({ retryDays: [2, 3, 5], afterLastFailure: 'Cancelled' }));
    const { id, customerId, start } = await declining();
    await sub.advance(1);
    const times = [start, plusDays(start, 2), plusDays(start, 5), plusDays(start, 10)];
    for (const [n, at] of times.slice(1).entries()) {
      // A second before the retry: nothing; past it: the retry.
      await sub.advanceTo(new Date(Date.parse(at) - 2_000));
      expect(await subscriptionPayments(s, customerId)).toHaveLength(n + 1);
      expect((await sub.read(id)).nextPaymentDate).toBe(at);
      await sub.advanceTo(at);
    }
    expect((await subscriptionPayments(s, customerId)).map((p) => p.created_on)).toEqual(times);
    expect(await sub.read(id)).toMatchObject({ status: 'Cancelled', cancelledOn: times[3], failedPaymentCount: 4, nextPaymentDate: null });
    expect(await types(id)).toEqual(['subscription.created', ...times.map(() => 'subscription.payment_failed')]);
    expect(await sub.counts(customerId)).toEqual([0, 0]);
    await sub.advance(60 * 86_400);
    expect(await subscriptionPayments(s, customerId)).toHaveLength(4);
  });

  it('with no retries the first failure is the last: Delinquent (subscription.delinquent) or Cancelled', async () => {
    ok(await sub.settings({ retryDays: [] }));
    const a = await declining();
    await sub.advance(1);
    expect(await sub.read(a.id)).toMatchObject({ status: 'Delinquent', failedPaymentCount: 1, nextPaymentDate: null });
    expect(await types(a.id)).toEqual(['subscription.created', 'subscription.delinquent']);
    ok(await sub.settings({ afterLastFailure: 'Cancelled' }));
    const b = await declining();
    await sub.advance(1);
    expect(await sub.read(b.id)).toMatchObject({ status: 'Cancelled', failedPaymentCount: 1 });
    expect(await types(b.id)).toEqual(['subscription.created', 'subscription.payment_failed']);
  });

  it('a change applies from the next failure; a retry already scheduled keeps its time', async () => {
    const { id, customerId, start } = await declining();
    await sub.advance(1);
    expect((await sub.read(id)).nextPaymentDate).toBe(plusDays(start, 1));
    ok(await sub.settings({ retryDays: [1, 7] }));
    expect((await sub.read(id)).nextPaymentDate).toBe(plusDays(start, 1));
    await sub.advanceTo(plusDays(start, 1));
    expect((await sub.read(id)).nextPaymentDate).toBe(plusDays(start, 8));
    await sub.advanceTo(plusDays(start, 8));
    expect(await sub.read(id)).toMatchObject({ status: 'Delinquent', failedPaymentCount: 3 });
    expect(await subscriptionPayments(s, customerId)).toHaveLength(3);
  });

  it('a returned debit that is the last failure follows afterLastFailure too', async () => {
    ok(await sub.settings({ retryDays: [], afterLastFailure: 'Cancelled' }));
    const customerId = await sub.customer();
    const account = await sub.bankAccount(customerId, RETURNING_ACCOUNT);
    const made = await sub.created({ customerId, paymentMethodId: account, amount: 6, frequency: 'Monthly' });
    await sub.advance(1);
    for (let i = 0; i < 20 && (await sub.read(made.subscriptionId)).status === 'Active'; i++) await sub.advance(6 * 3600);
    expect(await sub.read(made.subscriptionId)).toMatchObject({ status: 'Cancelled', failedPaymentCount: 1 });
    expect(await types(made.subscriptionId)).toEqual(['subscription.created', 'subscription.paid', 'subscription.payment_failed']);
  });

  it('refuses settings out of bounds naming the field, and changes nothing', async () => {
    ok(await sub.settings({ retryDays: [4], afterLastFailure: 'Cancelled' }));
    const cases: [object, string][] = [
      [{ retryDays: [1, 1, 1, 1, 1, 1, 1, 1, 1] }, 'retryDays'],
      [{ retryDays: [0] }, 'retryDays[0]'],
      [{ retryDays: [1, 31] }, 'retryDays[1]'],
      [{ retryDays: [1.5] }, 'retryDays[0]'],
      [{ retryDays: [30, 30, 1] }, 'retryDays'],
      [{ retryDays: '1,2' }, 'retryDays'],
      [{ afterLastFailure: 'Unpaid' }, 'afterLastFailure'],
      [{ retryDays: [1], coupon: 'x' }, 'coupon'],
      [{}, ''],
    ];
    for (const [body, field] of cases) {
      const res = await sub.settings(body);
      expect(res.status, `${JSON.stringify(body)}: ${res.text}`).toBe(400);
      if (field !== '') expect(fieldsOf(res.body).map((f) => f.replace(/^\$\./, '')), JSON.stringify(body)).toContain(field);
    }
    expect(ok(await sub.readSettings())).toMatchObject({ retryDays: [4], afterLastFailure: 'Cancelled' });
    // The bounds themselves are taken.
    expect(ok(await sub.settings({ retryDays: [30, 30] }))).toMatchObject({ retryDays: [30, 30] });
    expect(ok(await sub.settings({ retryDays: [1, 1, 1, 1, 1, 1, 1, 1] }))).toMatchObject({ retryDays: [1, 1, 1, 1, 1, 1, 1, 1] });
  });
});
