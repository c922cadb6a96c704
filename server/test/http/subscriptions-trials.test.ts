// Trials over HTTP on both engines: a subscription created with trialPeriodDays or trialEnd is Trialing and
// charges nothing until the trial ends on the sandbox clock; then exactly one first payment (or its failure),
// and the schedule counted from the trial's end across the next period boundaries. Cancelled during a trial (at
// once or at its end) it is never charged. Each bad trial request is refused naming the field, changing nothing.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { engines, fieldsOf, startServer, type TestServer } from '../harness.ts';
import { DECLINING_CARD, monthsAfter, plusDays, subscriptionCalls, subscriptionEvents, subscriptionPayments, eventTypesOf, chargesState } from './subscription-helpers.ts';

describe.each(engines())('subscription trials (%s)', (engine) => {
  let s: TestServer;
  beforeAll(async () => { s = await startServer(engine); });
  afterAll(async () => { await s.close(); });
  const sub = subscriptionCalls(() => s);
  const types = (id: string): Promise<string[]> => eventTypesOf(s, id);
  const state = (): Promise<string> => chargesState(s);

  it('trialPeriodDays: Trialing, nothing charged until the trial ends, then one payment and the schedule from the trial end', async () => {
    const customerId = await sub.customer();
    const card = await sub.card(customerId);
    const now = await sub.now();
    const made = await sub.created({ customerId, paymentMethodId: card, amount: 19.99, frequency: 'Monthly', trialPeriodDays: 14 });
    const trialEnd = made.trialEnd ?? '';
    expect(Math.abs(new Date(trialEnd).getTime() - (now.getTime() + 14 * 86_400_000))).toBeLessThan(5_000);
    expect(made).toMatchObject({ status: 'Trialing', startDate: trialEnd, nextPaymentDate: trialEnd, paymentsCount: 0, transactionId: null });
    expect(await subscriptionEvents(s, made.subscriptionId)).toEqual([['subscription.created', made]]);
    expect(await sub.counts(customerId)).toEqual([1, 19.99]);
    // A second before the trial's end: still nothing charged.
    await sub.advanceTo(new Date(new Date(trialEnd).getTime() - 3_000));
    expect(await subscriptionPayments(s, customerId)).toEqual([]);
    expect((await sub.read(made.subscriptionId)).status).toBe('Trialing');
    // Across the trial's end: exactly one payment, Active, the next one a month after the trial's end.
    await sub.advanceTo(trialEnd);
    const paid = await sub.read(made.subscriptionId);
    expect(paid).toMatchObject({ status: 'Active', paymentsCount: 1, nextPaymentDate: monthsAfter(trialEnd, 1), trialEnd, lastPaymentDate: trialEnd });
    expect((await subscriptionPayments(s, customerId)).map((p) => [p.amount_cents, p.created_on])).toEqual([[1999, trialEnd]]);
    expect(await types(made.subscriptionId)).toEqual(['subscription.created', 'subscription.paid']);
    // Two more period boundaries: two more payments, on the schedule counted from the trial's end.
    await sub.advanceTo(monthsAfter(trialEnd, 2));
    expect((await subscriptionPayments(s, customerId)).map((p) => p.created_on)).toEqual([trialEnd, monthsAfter(trialEnd, 1), monthsAfter(trialEnd, 2)]);
    expect(await sub.read(made.subscriptionId)).toMatchObject({ paymentsCount: 3, nextPaymentDate: monthsAfter(trialEnd, 3) });
  });

  it('trialEnd: the first payment at that time; a change during the trial applies to it; a declined one goes PastDue', async () => {
    const customerId = await sub.customer();
    const declining = await sub.card(customerId, DECLINING_CARD);
    const trialEnd = plusDays((await sub.now()).toISOString(), 3);
    const made = await sub.created({ customerId, paymentMethodId: declining, amount: 5, frequency: 'Weekly', trialEnd });
    expect(made).toMatchObject({ status: 'Trialing', trialEnd, startDate: trialEnd });
    const changed = await sub.update(made.subscriptionId, { amount: 7.5 });
    expect(changed.status, changed.text).toBe(200);
    expect(changed.body).toMatchObject({ status: 'Trialing', amount: 7.5 });
    await sub.advanceTo(trialEnd);
    expect(await sub.read(made.subscriptionId)).toMatchObject({ status: 'PastDue', failedPaymentCount: 1, paymentsCount: 0 });
    expect((await subscriptionPayments(s, customerId)).map((p) => p.amount_cents)).toEqual([750]);
    expect(await types(made.subscriptionId)).toEqual(['subscription.created', 'subscription.payment_failed']);
  });

  it('cancelled during the trial, at once or at its end, is never charged', async () => {
    const customerId = await sub.customer();
    const card = await sub.card(customerId);
    const now = await sub.created({ customerId, paymentMethodId: card, amount: 9, frequency: 'Monthly', trialPeriodDays: 7 });
    const atEnd = await sub.created({ customerId, paymentMethodId: card, amount: 9, frequency: 'Monthly', trialPeriodDays: 7 });
    const cancelled = await sub.cancel(now.subscriptionId, undefined);
    expect(cancelled.body).toMatchObject({ status: 'Cancelled', nextPaymentDate: null });
    const later = await sub.cancel(atEnd.subscriptionId, { atPeriodEnd: true });
    expect(later.body).toMatchObject({ status: 'Trialing', cancelAtPeriodEnd: true, nextPaymentDate: null });
    expect(await sub.counts(customerId)).toEqual([1, 9]);
    await sub.advance(40 * 86_400);
    expect(await sub.read(atEnd.subscriptionId)).toMatchObject({ status: 'Cancelled', cancelledOn: atEnd.trialEnd, paymentsCount: 0 });
    expect(await subscriptionPayments(s, customerId)).toEqual([]);
    expect(await types(now.subscriptionId)).toEqual(['subscription.created']);
    expect(await types(atEnd.subscriptionId)).toEqual(['subscription.created']);
    expect(await sub.counts(customerId)).toEqual([0, 0]);
  });

  it('refuses each bad trial naming the field, and changes nothing', async () => {
    const customerId = await sub.customer();
    const card = await sub.card(customerId);
    const now = await sub.now();
    const at = (ms: number): string => new Date(now.getTime() + ms).toISOString();
    const base = { customerId, paymentMethodId: card, amount: 5, frequency: 'Monthly' };
    const before = await state();
    const cases: [object, string[]][] = [
      [{ ...base, trialPeriodDays: 7, trialEnd: at(86_400_000) }, ['trialEnd']],
      [{ ...base, trialPeriodDays: 7, startDate: at(86_400_000) }, ['startDate']],
      [{ ...base, trialEnd: at(86_400_000), startDate: at(86_400_000) }, ['startDate']],
      [{ ...base, trialPeriodDays: 0 }, ['trialPeriodDays']],
      [{ ...base, trialPeriodDays: 731 }, ['trialPeriodDays']],
      [{ ...base, trialPeriodDays: -3 }, ['trialPeriodDays']],
      [{ ...base, trialEnd: at(-86_400_000) }, ['trialEnd']],
      [{ ...base, trialEnd: at(20_000) }, ['trialEnd']],
      [{ ...base, trialEnd: at(731 * 86_400_000) }, ['trialEnd']],
      [{ ...base, trialEnd: 'next week' }, ['trialEnd']],
    ];
    for (const [body, fields] of cases) {
      const res = await sub.create(body);
      expect(res.status, `${JSON.stringify(body)}: ${res.text}`).toBe(400);
      expect(fieldsOf(res.body), JSON.stringify(body)).toEqual(fields);
    }
    for (const wrong of [1.5, '7', null]) expect((await sub.create({ ...base, trialPeriodDays: wrong })).status).toBe(400);
    expect(await state()).toBe(before);
    // The bounds themselves are taken.
    expect((await sub.created({ ...base, trialPeriodDays: 730 })).status).toBe('Trialing');
    expect((await sub.created({ ...base, trialPeriodDays: 1 })).status).toBe('Trialing');
  });
});
