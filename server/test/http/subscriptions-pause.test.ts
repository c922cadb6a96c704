// Pause and resume over HTTP on both engines: a Paused subscription is not charged across its renewal dates, its
// retries stop and it never turns Delinquent; resume makes it Active with the next payment at the first date of
// its schedule at or after the resume (the spec's rule), and the schedule goes on from its anchor. Each command
// its status does not permit is refused with the table's errorCode, changing nothing.
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { subscriptionStateMachine } from '@pgw/client/state-machines';
import { engines, startServer, type ErrorBody, type TestServer } from '../harness.ts';
import { DECLINING_CARD, monthsAfter, plusDays, subscriptionCalls, subscriptionPayments, UNKNOWN, eventTypesOf, chargesState } from './subscription-helpers.ts';

const errorOf = (res: request.Response): [number, string | null] => [res.status, (res.body as ErrorBody).errorCode];

describe.each(engines())('subscription pause and resume (%s)', (engine) => {
  let s: TestServer;
  beforeAll(async () => { s = await startServer(engine); });
  afterAll(async () => { await s.close(); });
  const sub = subscriptionCalls(() => s);
  const types = (id: string): Promise<string[]> => eventTypesOf(s, id);
  const state = (): Promise<string> => chargesState(s);

  it('a pause across two renewal dates charges nothing; resume sets the next payment to the first schedule date after it', async () => {
    const customerId = await sub.customer();
    const card = await sub.card(customerId);
    const made = await sub.created({ customerId, paymentMethodId: card, amount: 10, frequency: 'Monthly' });
    await sub.advance(1);
    const start = made.startDate;
    expect((await sub.read(made.subscriptionId)).nextPaymentDate).toBe(monthsAfter(start, 1));
    const paused = await sub.pause(made.subscriptionId);
    expect(paused.status, paused.text).toBe(200);
    expect(paused.body).toMatchObject({ status: 'Paused', nextPaymentDate: null, pausedOn: expect.any(String) as string });
    expect(await sub.counts(customerId)).toEqual([1, 10]);
    // Across the renewals of months 1 and 2: nothing charged, no event.
    await sub.advanceTo(plusDays(monthsAfter(start, 2), 3));
    expect(await subscriptionPayments(s, customerId)).toHaveLength(1);
    expect(await sub.read(made.subscriptionId)).toMatchObject({ status: 'Paused', paymentsCount: 1 });
    expect(await types(made.subscriptionId)).toEqual(['subscription.created', 'subscription.paid']);
    const resumed = await sub.resume(made.subscriptionId);
    expect(resumed.status, resumed.text).toBe(200);
    expect(resumed.body).toMatchObject({ status: 'Active', pausedOn: null, nextPaymentDate: monthsAfter(start, 3), failedPaymentCount: 0 });
    // Nothing at the resume itself; the next payment on the schedule's date, then the one after.
    await sub.advance(3600);
    expect(await subscriptionPayments(s, customerId)).toHaveLength(1);
    await sub.advanceTo(monthsAfter(start, 4));
    expect((await subscriptionPayments(s, customerId)).map((p) => p.created_on)).toEqual([start, monthsAfter(start, 3), monthsAfter(start, 4)]);
    expect(await sub.read(made.subscriptionId)).toMatchObject({ status: 'Active', paymentsCount: 3, nextPaymentDate: monthsAfter(start, 5) });
  });

  it('resumed before its next date, the subscription keeps that date', async () => {
    const customerId = await sub.customer();
    const card = await sub.card(customerId);
    const made = await sub.created({ customerId, paymentMethodId: card, amount: 4, frequency: 'Weekly' });
    await sub.advance(1);
    expect((await sub.pause(made.subscriptionId)).status).toBe(200);
    await sub.advance(2 * 86_400);
    expect((await sub.resume(made.subscriptionId)).body).toMatchObject({ status: 'Active', nextPaymentDate: plusDays(made.startDate, 7) });
  });

  it('a PastDue subscription paused stops its retries and never turns Delinquent; resumed, its failing payment is not retried', async () => {
    const customerId = await sub.customer();
    const declining = await sub.card(customerId, DECLINING_CARD);
    const made = await sub.created({ customerId, paymentMethodId: declining, amount: 6, frequency: 'Monthly' });
    await sub.advance(1);
    expect((await sub.read(made.subscriptionId)).status).toBe('PastDue');
    expect((await sub.pause(made.subscriptionId)).body).toMatchObject({ status: 'Paused', nextPaymentDate: null });
    await sub.advance(20 * 86_400);
    expect(await sub.read(made.subscriptionId)).toMatchObject({ status: 'Paused', failedPaymentCount: 1 });
    expect(await subscriptionPayments(s, customerId)).toHaveLength(1);
    expect(await types(made.subscriptionId)).toEqual(['subscription.created', 'subscription.payment_failed']);
    const good = await sub.card(customerId);
    expect((await sub.update(made.subscriptionId, { paymentMethodId: good, amount: 8 })).body).toMatchObject({ status: 'Paused', amount: 8 });
    expect((await sub.resume(made.subscriptionId)).body).toMatchObject({ status: 'Active', failedPaymentCount: 0, nextPaymentDate: monthsAfter(made.startDate, 1) });
    await sub.advanceTo(monthsAfter(made.startDate, 1));
    expect((await subscriptionPayments(s, customerId)).map((p) => p.amount_cents)).toEqual([600, 800]);
    expect(await sub.read(made.subscriptionId)).toMatchObject({ status: 'Active', paymentsCount: 1 });
  });

  it('cancels a Paused subscription at once (even atPeriodEnd), charging nothing more', async () => {
    const customerId = await sub.customer();
    const card = await sub.card(customerId);
    const made = await sub.created({ customerId, paymentMethodId: card, amount: 3, frequency: 'Weekly' });
    await sub.advance(1);
    expect((await sub.pause(made.subscriptionId)).status).toBe(200);
    expect((await sub.cancel(made.subscriptionId, { atPeriodEnd: true })).body).toMatchObject({ status: 'Cancelled', pausedOn: null });
    await sub.advance(30 * 86_400);
    expect(await subscriptionPayments(s, customerId)).toHaveLength(1);
    expect(await sub.counts(customerId)).toEqual([0, 0]);
  });

  it('refuses pause and resume where the table has no row, with its errorCode, and another merchant\'s or an unknown id with 404; nothing changes', async () => {
    const customerId = await sub.customer();
    const card = await sub.card(customerId);
    const trialing = await sub.created({ customerId, paymentMethodId: card, amount: 3, frequency: 'Weekly', trialPeriodDays: 3 });
    const active = await sub.created({ customerId, paymentMethodId: card, amount: 3, frequency: 'Weekly', startDate: plusDays((await sub.now()).toISOString(), 1) });
    const cancelled = await sub.created({ customerId, paymentMethodId: card, amount: 3, frequency: 'Weekly', startDate: plusDays((await sub.now()).toISOString(), 1) });
    expect((await sub.cancel(cancelled.subscriptionId, undefined)).status).toBe(200);
    const paused = await sub.created({ customerId, paymentMethodId: card, amount: 3, frequency: 'Weekly', startDate: plusDays((await sub.now()).toISOString(), 1) });
    expect((await sub.pause(paused.subscriptionId)).status).toBe(200);
    const before = await state();
    const codes = subscriptionStateMachine.refusal.errorCodes;
    expect(errorOf(await sub.pause(trialing.subscriptionId))).toEqual([400, codes.pauseSubscription]);
    expect(errorOf(await sub.pause(cancelled.subscriptionId))).toEqual([400, codes.pauseSubscription]);
    expect(errorOf(await sub.pause(paused.subscriptionId))).toEqual([400, codes.pauseSubscription]);
    for (const id of [trialing, active, cancelled].map((x) => x.subscriptionId)) expect(errorOf(await sub.resume(id))).toEqual([400, codes.resumeSubscription]);
    expect(errorOf(await sub.pause(active.subscriptionId, 1))).toEqual([404, 'not_found']);
    expect(errorOf(await sub.resume(paused.subscriptionId, 1))).toEqual([404, 'not_found']);
    expect(errorOf(await sub.pause(UNKNOWN))).toEqual([404, 'not_found']);
    expect(await state()).toBe(before);
  });
});
