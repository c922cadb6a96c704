// A subscription's life over a simulated year, driven by the sandbox clock alone: the first payment, 12 monthly
// renewals in one advance (in order, each a card sale with creator type Subscription), a failure, a recovery by a
// new payment method, and a delinquency after three failures, with its events, failedPaymentCount,
// nextPaymentDate and the customer's counts at each step. Then a returned ACH debit (the magic account) failing
// a subscription payment after it was collected, and two instances running the same due payments once.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AchTransactionStatus, CardTransactionStatus, TransactionCreatorType } from '@pgw/client/enums';
import { runDue } from '../../src/worker/run-due.ts';
import { engines, secondInstance, startServer, type TestServer } from '../harness.ts';
import { DECLINING_CARD, monthsAfter, plusDays, RETURNING_ACCOUNT, subscriptionCalls, subscriptionEvents, subscriptionPayments, type Subscription, eventTypesOf } from './subscription-helpers.ts';

describe.each(engines())('a subscription over a simulated year (%s)', (engine) => {
  let s: TestServer;
  beforeAll(async () => { s = await startServer(engine); });
  afterAll(async () => { await s.close(); });
  const sub = subscriptionCalls(() => s);
  const types = (id: string): Promise<string[]> => eventTypesOf(s, id);

  it('renews 12 times in one advance, fails, recovers with a new card, and turns delinquent after three failures', async () => {
    const customerId = await sub.customer();
    const good = await sub.card(customerId);
    const declining = await sub.card(customerId, DECLINING_CARD);
    const made = await sub.created({ customerId, paymentMethodId: good, amount: 29.99, frequency: 'Monthly', description: 'Gold plan' });
    const start = made.startDate;
    expect(made).toMatchObject({ status: 'Active', nextPaymentDate: start, paymentsCount: 0, failedPaymentCount: 0, transactionId: null, lastPaymentDate: null, amount: 29.99 });
    expect(await sub.counts(customerId)).toEqual([1, 29.99]);
    expect(await types(made.subscriptionId)).toEqual(['subscription.created']);

    // The first payment is due at once (startDate now).
    expect((await sub.advance(1)).ran.subscriptionPayments).toBe(1);
    const first = await sub.read(made.subscriptionId);
    expect(first).toMatchObject({ status: 'Active', paymentsCount: 1, lastPaymentDate: start, nextPaymentDate: monthsAfter(start, 1), failedPaymentCount: 0 });

    // A year: the 12 renewals of months 1..12 run in one advance, in order, each at its due time.
    const year = await sub.advanceTo(monthsAfter(start, 12));
    expect(year.ran.subscriptionPayments).toBe(12);
    const renewed = await sub.read(made.subscriptionId);
    expect(renewed).toMatchObject({ status: 'Active', paymentsCount: 13, lastPaymentDate: monthsAfter(start, 12), nextPaymentDate: monthsAfter(start, 13), failedPaymentCount: 0 });
    const payments = await subscriptionPayments(s, customerId);
    expect(payments.map((p) => p.created_on)).toEqual(Array.from({ length: 13 }, (_, n) => monthsAfter(start, n)));
    expect(payments.every((p) => p.creator_type_id === TransactionCreatorType.Subscription && p.amount_cents === 2999)).toBe(true);
    expect(renewed.transactionId).toBe(payments.at(-1)?.id);
    const paid = (await subscriptionEvents(s, made.subscriptionId)).filter(([type]) => type === 'subscription.paid').map(([, d]) => d);
    expect(paid.map((d) => [d.paymentsCount, d.lastPaymentDate, d.nextPaymentDate])).toEqual(
      Array.from({ length: 13 }, (_, n) => [n + 1, monthsAfter(start, n), monthsAfter(start, n + 1)]));
    expect(await sub.counts(customerId)).toEqual([1, 29.99]);

    // A failure: the next payment on the declining card -> PastDue, retried a day later; it still counts.
    expect((await sub.update(made.subscriptionId, { paymentMethodId: declining })).status).toBe(200);
    const due13 = monthsAfter(start, 13);
    expect((await sub.advanceTo(due13)).ran.subscriptionPayments).toBe(1);
    const failed = await sub.read(made.subscriptionId);
    expect(failed).toMatchObject({ status: 'PastDue', failedPaymentCount: 1, nextPaymentDate: plusDays(due13, 1), paymentsCount: 13, lastPaymentDate: monthsAfter(start, 12) });
    const declined = (await subscriptionPayments(s, customerId)).at(-1);
    expect([declined?.status_id, declined?.creator_type_id, failed.transactionId]).toEqual([CardTransactionStatus.Declined, TransactionCreatorType.Subscription, declined?.id]);
    expect(await sub.counts(customerId)).toEqual([1, 29.99]);

    // The recovery: the merchant changes the card; the retry uses it and succeeds; the schedule keeps its anchor.
    expect((await sub.update(made.subscriptionId, { paymentMethodId: good })).status).toBe(200);
    expect((await sub.advanceTo(plusDays(due13, 1))).ran.subscriptionPayments).toBe(1);
    expect(await sub.read(made.subscriptionId)).toMatchObject({ status: 'Active', failedPaymentCount: 0, paymentsCount: 14, lastPaymentDate: plusDays(due13, 1), nextPaymentDate: monthsAfter(start, 14) });

    // A delinquency: three failures of the next payment (its due date, +1 day, +3 days), then nothing more is due.
    expect((await sub.update(made.subscriptionId, { paymentMethodId: declining })).status).toBe(200);
    const due14 = monthsAfter(start, 14);
    await sub.advanceTo(due14);
    expect(await sub.read(made.subscriptionId)).toMatchObject({ status: 'PastDue', failedPaymentCount: 1, nextPaymentDate: plusDays(due14, 1) });
    await sub.advanceTo(plusDays(due14, 1));
    expect(await sub.read(made.subscriptionId)).toMatchObject({ status: 'PastDue', failedPaymentCount: 2, nextPaymentDate: plusDays(due14, 3) });
    await sub.advanceTo(plusDays(due14, 3));
    const delinquent = await sub.read(made.subscriptionId);
    expect(delinquent).toMatchObject({ status: 'Delinquent', failedPaymentCount: 3, nextPaymentDate: null, paymentsCount: 14 });
    expect(await sub.counts(customerId)).toEqual([0, 0]);
    expect((await sub.advance(90 * 86_400)).ran.subscriptionPayments).toBe(0);

    expect(await types(made.subscriptionId)).toEqual([
      'subscription.created', ...Array<string>(13).fill('subscription.paid'), 'subscription.payment_failed', 'subscription.paid',
      'subscription.payment_failed', 'subscription.payment_failed', 'subscription.delinquent',
    ]);
    const last = (await subscriptionEvents(s, made.subscriptionId)).at(-1)?.[1];
    expect(last).toEqual(delinquent);
    const all = await subscriptionPayments(s, customerId);
    expect(all).toHaveLength(13 + 1 + 1 + 3);
    expect(all.every((p) => p.creator_type_id === TransactionCreatorType.Subscription)).toBe(true);
  }, 120_000);

  it('fails a collected ACH payment when the bank returns it (the magic account), retries it, and turns delinquent at the third', async () => {
    const customerId = await sub.customer(1);
    const account = await sub.bankAccount(customerId, RETURNING_ACCOUNT, 1);
    const made = await sub.created({ customerId, paymentMethodId: account, amount: 10, frequency: 'Monthly' }, 1);
    // The debit is accepted (Scheduled): the payment counts as collected until the bank returns it.
    await sub.advance(1, 1);
    const collected = await sub.read(made.subscriptionId, 1);
    expect(collected).toMatchObject({ status: 'Active', paymentsCount: 1, failedPaymentCount: 0 });
    // Submission at the next batch slot, clearing a day later: returned R01 -> PastDue, the payment collected no more.
    const step = async (): Promise<Subscription> => { await sub.advance(6 * 3600, 1); return sub.read(made.subscriptionId, 1); };
    let after = collected;
    for (let i = 0; i < 12 && after.status === 'Active'; i += 1) after = await step();
    expect(after).toMatchObject({ status: 'PastDue', paymentsCount: 0, failedPaymentCount: 1 });
    const debits = await subscriptionPayments(s, customerId);
    expect(debits.map((d) => [d.status_id, d.creator_type_id])).toEqual([[AchTransactionStatus.Failed, TransactionCreatorType.Subscription]]);
    expect(after.nextPaymentDate).not.toBeNull();
    // Each retry's debit is accepted (paid) and returned in turn, until the third failed attempt: Delinquent.
    for (let i = 0; i < 80 && after.status !== 'Delinquent'; i += 1) after = await step();
    expect(after).toMatchObject({ status: 'Delinquent', failedPaymentCount: 3, nextPaymentDate: null, paymentsCount: 0 });
    expect(await types(made.subscriptionId)).toEqual([
      'subscription.created', 'subscription.paid', 'subscription.payment_failed', 'subscription.paid', 'subscription.payment_failed',
      'subscription.paid', 'subscription.delinquent',
    ]);
    expect((await subscriptionPayments(s, customerId)).map((d) => d.status_id)).toEqual(Array<number>(3).fill(AchTransactionStatus.Failed));
    expect(await sub.counts(customerId, 1)).toEqual([0, 0]);
  }, 120_000);

  it.runIf(engine === 'postgres')('charges each due payment once when two instances run the same merchant at once', async () => {
    const customerId = await sub.customer();
    const card = await sub.card(customerId);
    const ids = await Promise.all(Array.from({ length: 8 }, () => sub.created({ customerId, paymentMethodId: card, amount: 5, frequency: 'Weekly' })));
    const second = await secondInstance(s);
    try {
      const at = new Date(s.clock.now().getTime() + 60_000);
      const [a, b] = await Promise.all([runDue({ ...s, wall: s.clock }, at), runDue({ ...s, db: second.db, wall: s.clock }, at)]);
      expect(a.subscriptionPayments + b.subscriptionPayments).toBe(ids.length);
      for (const made of ids) expect((await sub.read(made.subscriptionId)).paymentsCount).toBe(1);
      expect(await subscriptionPayments(s, customerId)).toHaveLength(ids.length);
    } finally {
      await second.close();
    }
  }, 60_000);
});
