// Proration arithmetic, as arithmetic.ts checks invoice totals: a paid monthly subscription changed with
// proration ProrateNow answers a latestChange whose every amount is the spec's formula (SubscriptionPlanChange:
// amounts times the whole seconds left over the period's seconds, each in cents half away from zero) recomputed
// here from the answer's own times; the charge is a transaction of exactly chargedAmount, and a downgrade's
// credit is the subscription's creditAmount. Seeded amounts and times, so each run tries other numbers.
import { OperationId } from '@pgw/client/operations';
import { CheckFailure, CheckSkipped, bodyOf, expectStatus, expectThat, type Check, type CheckContext } from '../check.ts';
import { testCard } from '../fixtures.ts';

const cents = (usd: number): bigint => BigInt(Math.round(usd * 100));
const usd = (c: bigint): number => Number(c) / 100;
/** amount x num / den in cents, rounded half away from zero, exactly. */
const share = (amount: number, num: number, den: number): bigint => {
  const n = cents(amount) * BigInt(num);
  const d = BigInt(den);
  return 2n * (n % d) >= d ? n / d + 1n : n / d;
};

/** The spec's figures for a change from `previous` to `next` at `changedOn` over [periodStart, periodEnd). */
export function expectedProration(previous: number, next: number, periodStart: string, periodEnd: string, changedOn: string): Record<string, number> {
  const period = Math.floor((Date.parse(periodEnd) - Date.parse(periodStart)) / 1000);
  const remaining = Math.min(period, Math.max(0, Math.floor((Date.parse(periodEnd) - Date.parse(changedOn)) / 1000)));
  const credit = share(previous, remaining, period);
  const charge = share(next, remaining, period);
  const net = charge - credit;
  return {
    periodSeconds: period, remainingSeconds: remaining, unusedCredit: usd(credit), remainingCharge: usd(charge), netAmount: usd(net),
    chargedAmount: usd(net > 0n ? net : 0n), creditedAmount: usd(net < 0n ? -net : 0n),
  };
}

async function advance(ctx: CheckContext, seconds: number): Promise<void> {
  const moved = await ctx.call(OperationId.advanceSandboxClock, { body: { seconds } });
  if (moved.response?.status === 404) throw new CheckSkipped('the target has no sandbox clock (designed)');
  expectStatus(moved, 200, OperationId.advanceSandboxClock);
}

export const prorationChecks: readonly Check[] = [{
  id: 'arithmetic/subscription_proration',
  group: 'resources',
  title: "a prorated plan change's latestChange is the spec's formula to the cent (unused time credited, remaining time charged, by seconds); the charge is a transaction of exactly chargedAmount; a downgrade's credit is the subscription's creditAmount",
  tags: ['Subscriptions', OperationId.createSubscription, OperationId.updateSubscription, OperationId.getSubscription],
  designed: true,
  run: async (ctx) => {
    const pick = <T>(values: readonly T[]): T => values[Math.floor(ctx.random() * values.length)] as T;
    const customer = await ctx.call(OperationId.createCustomer, { body: { firstName: 'Proration', lastName: ctx.unique('prorate') } });
    expectStatus(customer, 200, OperationId.createCustomer);
    const customerId = String(bodyOf(customer).id);
    const card = await ctx.call(OperationId.addCardPaymentMethod, { path: { customerId }, body: { name: 'Proration', ...testCard() } });
    expectStatus(card, 200, OperationId.addCardPaymentMethod);
    const first = pick([9.99, 29.99, 33.33, 100, 0.05, 1234.56]);
    const made = await ctx.call(OperationId.createSubscription, { body: { customerId, paymentMethodId: String(bodyOf(card).id), amount: first, frequency: 'Monthly' } });
    expectStatus(made, 200, OperationId.createSubscription);
    const subscriptionId = String(bodyOf(made).subscriptionId);
    try {
      await advance(ctx, 1);
      await advance(ctx, Math.floor(ctx.random() * 20 * 86_400) + 1);
      let previous = first;
      // An upgrade (charged), then a downgrade below the first amount (credited).
      for (const next of [previous * 3 + pick([0.01, 0.5, 7.77]), pick([0.03, 1, 5.55])].map((n) => Math.round(n * 100) / 100)) {
        const changed = await ctx.call(OperationId.updateSubscription, { path: { subscriptionId }, body: { amount: next, proration: 'ProrateNow' } });
        expectStatus(changed, 200, `${OperationId.updateSubscription} with proration ProrateNow`);
        const body = bodyOf(changed);
        const change = body.latestChange as Record<string, unknown> | null | undefined;
        expectThat(change !== null && change !== undefined, 'the answer carries latestChange', changed);
        const want = expectedProration(previous, next, String(change.periodStart), String(change.periodEnd), String(change.changedOn));
        for (const [field, value] of Object.entries(want)) {
          if (change[field] !== value) throw new CheckFailure(`latestChange.${field} is ${JSON.stringify(change[field])}, the spec's formula gives ${String(value)} for ${String(previous)} -> ${String(next)} over ${String(change.periodStart)}..${String(change.periodEnd)} at ${String(change.changedOn)}`, changed);
        }
        if ((want.chargedAmount ?? 0) > 0) {
          const tx = await ctx.call(OperationId.getTransactionStatus, { path: { transactionId: String(change.transactionId) } });
          expectStatus(tx, 200, OperationId.getTransactionStatus);
          const t = bodyOf(tx);
          const amount = t.processedAmount ?? t.requestedAmount ?? t.amount;
          expectThat(amount === want.chargedAmount, `the prorated charge's transaction is of chargedAmount ${String(want.chargedAmount)} (got ${JSON.stringify(amount)})`, tx);
        } else {
          expectThat(change.transactionId === null, 'nothing charged: transactionId null', changed);
          expectThat(body.creditAmount === want.creditedAmount, `the subscription's creditAmount is the credited ${String(want.creditedAmount)} (got ${JSON.stringify(body.creditAmount)})`, changed);
        }
        previous = next;
      }
    } finally {
      await ctx.call(OperationId.cancelSubscription, { path: { subscriptionId }, body: { atPeriodEnd: false } });
    }
  },
}];
