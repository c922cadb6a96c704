// Plan changes over HTTP on both engines: amount, line item, quantity and frequency change; NextPeriod charges the
// new price from the next payment, ProrateNow charges (or credits) the difference at once to the cent by the
// spec's formula, recomputed here independently from the answer's times; a declined prorated charge changes
// nothing; each bad request is refused naming the field; a plan change racing a renewal is serialized (one
// renewal, one proration, amounts consistent with the order they took).
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { engines, fieldsOf, startServer, type ErrorBody, type TestServer } from '../harness.ts';
import { DECLINING_CARD, monthsAfter, plusDays, subscriptionCalls, subscriptionEvents, subscriptionPayments, type Subscription } from './subscription-helpers.ts';

interface PlanChange {
  changedOn: string; proration: string; previousAmount: number; amount: number; previousFrequency: string; frequency: string; periodStart: string | null;
  periodEnd: string | null; periodSeconds: number | null; remainingSeconds: number | null; unusedCredit: number; remainingCharge: number; netAmount: number;
  chargedAmount: number; creditedAmount: number; transactionId: string | null;
}
type Planned = Subscription & { creditAmount: number; latestChange: PlanChange | null };

const cents = (usd: number): bigint => BigInt(Math.round(usd * 100));
/** usd x num / den in cents, half away from zero, in integers (the spec's rounding, written apart from the server's). */
const share = (usd: number, num: number, den: number): number => {
  const n = cents(usd) * BigInt(num);
  const d = BigInt(den);
  return Number((2n * (n % d) >= d ? n / d + 1n : n / d)) / 100;
};
const errorOf = (res: request.Response): [number, string | null] => [res.status, (res.body as ErrorBody).errorCode];

describe.each(engines())('subscription plan changes (%s)', (engine) => {
  let s: TestServer;
  beforeAll(async () => { s = await startServer(engine); });
  afterAll(async () => { await s.close(); });
  const sub = subscriptionCalls(() => s);
  const state = async (): Promise<string> => JSON.stringify([
    await s.db('subscriptions').orderBy('id').select('*'),
    await s.db('outbox_events').orderBy('id').select('id'),
    await s.db('transactions').orderBy('id').select('id'),
  ]);
  const change = async (id: string, body: object): Promise<Planned> => {
    const res = await sub.update(id, body);
    expect(res.status, res.text).toBe(200);
    return res.body as Planned;
  };
  /** A monthly subscription whose first payment is collected (Active, its current period paid). */
  const paid = async (amount: number, extra: object = {}): Promise<{ made: Subscription; customerId: string }> => {
    const customerId = await sub.customer();
    const card = await sub.card(customerId);
    const made = await sub.created({ customerId, paymentMethodId: card, amount, frequency: 'Monthly', ...extra });
    await sub.advance(1);
    expect((await sub.read(made.subscriptionId)).paymentsCount).toBe(1);
    return { made, customerId };
  };
  /** Checks a ProrateNow answer's arithmetic against the formula, from its own times. */
  const checkProration = (p: PlanChange | null, previous: number, next: number): void => {
    if (!p) throw new Error('no latestChange');
    const period = Math.floor((Date.parse(p.periodEnd ?? '') - Date.parse(p.periodStart ?? '')) / 1000);
    const remaining = Math.min(period, Math.max(0, Math.floor((Date.parse(p.periodEnd ?? '') - Date.parse(p.changedOn)) / 1000)));
    const credit = share(previous, remaining, period);
    const charge = share(next, remaining, period);
    const net = Number(cents(charge) - cents(credit)) / 100;
    expect(p).toMatchObject({ proration: 'ProrateNow', previousAmount: previous, amount: next, periodSeconds: period, remainingSeconds: remaining, unusedCredit: credit, remainingCharge: charge, netAmount: net,
      chargedAmount: Math.max(0, net), creditedAmount: Math.max(0, -net) });
  };

  it('NextPeriod (the default): nothing charged now; the next renewal is of the new amount', async () => {
    const { made, customerId } = await paid(20);
    const after = await change(made.subscriptionId, { amount: 35 });
    expect(after).toMatchObject({ amount: 35, creditAmount: 0, nextPaymentDate: monthsAfter(made.startDate, 1) });
    expect(after.latestChange).toMatchObject({ proration: 'NextPeriod', previousAmount: 20, amount: 35, chargedAmount: 0, creditedAmount: 0, transactionId: null, periodStart: null });
    expect(await subscriptionPayments(s, customerId)).toHaveLength(1);
    await sub.advanceTo(monthsAfter(made.startDate, 1));
    expect((await subscriptionPayments(s, customerId)).map((p) => p.amount_cents)).toEqual([2000, 3500]);
  });

  it('ProrateNow: upgrades charged and a downgrade credited to the cent, the credit taken off the next renewal', async () => {
    const { made, customerId } = await paid(30);
    await sub.advance(9 * 86_400 + 4321);
    const steps: [number, number][] = [[30, 45.55], [45.55, 99.99], [99.99, 80]];
    for (const [previous, next] of steps) {
      const after = await change(made.subscriptionId, { amount: next, proration: 'ProrateNow' });
      checkProration(after.latestChange, previous, next);
      // The charge is a transaction of exactly chargedAmount, or none.
      const charged = after.latestChange?.chargedAmount ?? 0;
      const txs = await subscriptionPayments(s, customerId);
      if (charged > 0) expect(txs.find((t) => t.id === after.latestChange?.transactionId)?.amount_cents).toBe(Number(cents(charged)));
      else expect(after.latestChange?.transactionId).toBeNull();
      await sub.advance(86_400);
    }
    const now = (await sub.read(made.subscriptionId)) as Planned;
    const credited = now.latestChange?.creditedAmount ?? 0;
    expect(credited).toBeGreaterThan(0);
    expect(now.creditAmount).toBe(credited);
    expect(now.nextPaymentDate).toBe(monthsAfter(made.startDate, 1));
    // The renewal charges the new amount less the credit, and the credit is used up.
    const before = (await subscriptionPayments(s, customerId)).length;
    await sub.advanceTo(monthsAfter(made.startDate, 1));
    const renewal = (await subscriptionPayments(s, customerId)).slice(before);
    expect(renewal.map((t) => t.amount_cents)).toEqual([Number(cents(80) - cents(credited))]);
    expect(await sub.read(made.subscriptionId)).toMatchObject({ creditAmount: 0, paymentsCount: 2 });
  });

  it('a credit larger than a payment covers it without a charge, and the rest waits for the next', async () => {
    const { made, customerId } = await paid(500);
    const after = await change(made.subscriptionId, { amount: 1, proration: 'ProrateNow' });
    checkProration(after.latestChange, 500, 1);
    const credit = after.creditAmount;
    expect(credit).toBeGreaterThan(400);
    await sub.advanceTo(monthsAfter(made.startDate, 1));
    expect(await subscriptionPayments(s, customerId)).toHaveLength(1);
    expect(await sub.read(made.subscriptionId)).toMatchObject({ status: 'Active', paymentsCount: 2, transactionId: null, creditAmount: Number(cents(credit) - 100n) / 100 });
    expect((await subscriptionEvents(s, made.subscriptionId)).map(([t]) => t)).toEqual(['subscription.created', 'subscription.paid', 'subscription.paid']);
  });

  it('frequency: NextPeriod counts the new intervals from the next payment date; ProrateNow starts a new period now', async () => {
    const later = await paid(40);
    const weekly = await change(later.made.subscriptionId, { frequency: 'Weekly', amount: 10 });
    const next = monthsAfter(later.made.startDate, 1);
    expect(weekly).toMatchObject({ frequency: 'Weekly', nextPaymentDate: next });
    await sub.advanceTo(plusDays(next, 7));
    expect((await subscriptionPayments(s, later.customerId)).map((p) => [p.amount_cents, p.created_on])).toEqual([[4000, later.made.startDate], [1000, next], [1000, plusDays(next, 7)]]);

    const now = await paid(40);
    await sub.advance(10 * 86_400);
    const yearly = await change(now.made.subscriptionId, { frequency: 'Yearly', amount: 400, proration: 'ProrateNow' });
    const p = yearly.latestChange;
    const period = Math.floor((Date.parse(p?.periodEnd ?? '') - Date.parse(p?.periodStart ?? '')) / 1000);
    const remaining = Math.floor((Date.parse(p?.periodEnd ?? '') - Date.parse(p?.changedOn ?? '')) / 1000);
    expect(p).toMatchObject({ remainingCharge: 400, unusedCredit: share(40, remaining, period), chargedAmount: Number(40000n - cents(share(40, remaining, period))) / 100 });
    expect(yearly).toMatchObject({ frequency: 'Yearly', nextPaymentDate: monthsAfter(p?.changedOn ?? '', 12) });
  });

  it('line item and quantity: the price follows unitPrice x quantity; an amount ends the line item', async () => {
    const h = await s.as(0);
    const item = async (unitPrice: number): Promise<string> => ((await request(s.app).post('/pay-int-api/line-items').set(h).send({ productName: `Seat ${String(unitPrice)}`, unitPrice, unitTypeId: 1 })).body as { id: string }).id;
    const basic = await item(7.25);
    const pro = await item(19.9);
    const { made } = await paid(0, { amount: undefined, lineItemId: basic, quantity: 2 });
    expect(made.amount).toBe(14.5);
    expect(await change(made.subscriptionId, { quantity: 3 })).toMatchObject({ amount: 21.75, lineItemId: basic, quantity: 3 });
    expect(await change(made.subscriptionId, { lineItemId: pro })).toMatchObject({ amount: 59.7, lineItemId: pro, quantity: 3 });
    expect(await change(made.subscriptionId, { lineItemId: basic, quantity: 1 })).toMatchObject({ amount: 7.25, lineItemId: basic, quantity: 1 });
    expect(await change(made.subscriptionId, { amount: 12 })).toMatchObject({ amount: 12, lineItemId: null, quantity: null });
    expect(await sub.counts(made.customerId)).toEqual([1, 12]);
  });

  it('a declined prorated charge refuses the change and keeps nothing of it', async () => {
    const { made, customerId } = await paid(10);
    const declining = await sub.card(customerId, DECLINING_CARD);
    const before = await state();
    expect(errorOf(await sub.update(made.subscriptionId, { amount: 50, paymentMethodId: declining, proration: 'ProrateNow' }))).toEqual([400, 'subscription_proration_declined']);
    expect(await state()).toBe(before);
  });

  it('refuses each bad plan change naming the field, and changes nothing', async () => {
    const { made } = await paid(10);
    const h = await s.as(0);
    const item = ((await request(s.app).post('/pay-int-api/line-items').set(h).send({ productName: 'Big', unitPrice: 999_999.99, unitTypeId: 1 })).body as { id: string }).id;
    const customerId = await sub.customer();
    const card = await sub.card(customerId);
    const trialing = await sub.created({ customerId, paymentMethodId: card, amount: 5, frequency: 'Monthly', trialPeriodDays: 5 });
    const unpaid = await sub.created({ customerId, paymentMethodId: card, amount: 5, frequency: 'Monthly', startDate: plusDays((await sub.now()).toISOString(), 2) });
    const pausedOne = (await paid(5)).made;
    expect((await sub.pause(pausedOne.subscriptionId)).status).toBe(200);
    const ending = (await paid(5)).made;
    expect((await sub.cancel(ending.subscriptionId, { atPeriodEnd: true })).status).toBe(200);
    const declining = await sub.card(customerId, DECLINING_CARD);
    const pastDue = await sub.created({ customerId, paymentMethodId: declining, amount: 5, frequency: 'Monthly' });
    await sub.advance(1);
    const before = await state();
    const cases: [string, object, string[]][] = [
      [made.subscriptionId, { amount: 5, lineItemId: item }, ['lineItemId']],
      [made.subscriptionId, { amount: 5, quantity: 2 }, ['quantity']],
      [made.subscriptionId, { quantity: 2 }, ['quantity']],
      [made.subscriptionId, { lineItemId: '7c9e6679-7425-40de-944b-e07fc1f90ae7' }, ['lineItemId']],
      [made.subscriptionId, { lineItemId: item, quantity: 2 }, ['quantity']],
      [made.subscriptionId, { quantity: 0 }, ['quantity']],
      [made.subscriptionId, { quantity: 1001 }, ['quantity']],
      [made.subscriptionId, { frequency: 'Daily' }, ['frequency']],
      [made.subscriptionId, { amount: 5, proration: 'Always' }, ['proration']],
      [trialing.subscriptionId, { amount: 9, proration: 'ProrateNow' }, ['proration']],
      [unpaid.subscriptionId, { amount: 9, proration: 'ProrateNow' }, ['proration']],
      [pausedOne.subscriptionId, { amount: 9, proration: 'ProrateNow' }, ['proration']],
      [ending.subscriptionId, { amount: 9, proration: 'ProrateNow' }, ['proration']],
      [pastDue.subscriptionId, { amount: 9, proration: 'ProrateNow' }, ['proration']],
    ];
    for (const [id, body, fields] of cases) {
      const res = await sub.update(id, body);
      expect(res.status, `${JSON.stringify(body)}: ${res.text}`).toBe(400);
      expect(fieldsOf(res.body).map((f) => f.replace(/^\$\./, '')), JSON.stringify(body)).toEqual(fields);
    }
    expect(await state()).toBe(before);
  });

  it('a plan change racing the renewal: one renewal, one proration, amounts consistent with the order they took', async () => {
    const subs = await Promise.all([1, 2, 3, 4].map(async () => (await paid(30)).made));
    const renewal = monthsAfter(subs[0]?.startDate ?? '', 1);
    // Just before the renewals: the changes and the clock move that renews them race.
    await sub.advanceTo(new Date(Date.parse(renewal) - 5_000));
    const [, ...answers] = await Promise.all([
      sub.advance(60),
      ...subs.map((m) => sub.update(m.subscriptionId, { amount: 60, proration: 'ProrateNow' })),
    ]);
    for (const [i, m] of subs.entries()) {
      const answer = answers[i];
      expect(answer?.status, answer?.text).toBe(200);
      const p = (answer?.body as Planned).latestChange;
      const txs = await subscriptionPayments(s, m.customerId);
      const renewals = txs.filter((t) => t.created_on === monthsAfter(m.startDate, 1));
      const proration = txs.filter((t) => t.id === p?.transactionId);
      expect(renewals, JSON.stringify(txs)).toHaveLength(1);
      expect(txs).toHaveLength(1 + 1 + proration.length);
      if (p?.periodEnd === monthsAfter(m.startDate, 1)) {
        // The change took the lock first: it prorated the old period, and the renewal charged the new amount.
        checkProration(p, 30, 60);
        expect(renewals[0]?.amount_cents).toBe(6000);
      } else {
        // The renewal took it first: the renewal charged the old amount, the change prorated the new period.
        expect(p?.periodStart).toBe(monthsAfter(m.startDate, 1));
        checkProration(p, 30, 60);
        expect(renewals[0]?.amount_cents).toBe(3000);
      }
      const read = await sub.read(m.subscriptionId);
      expect(read).toMatchObject({ status: 'Active', amount: 60, paymentsCount: 2, nextPaymentDate: monthsAfter(m.startDate, 2) });
      expect((await subscriptionEvents(s, m.subscriptionId)).map(([t]) => t)).toEqual(['subscription.created', 'subscription.paid', 'subscription.paid']);
    }
  });
});
