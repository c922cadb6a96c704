// A subscription's plan change (updateSubscription): its payment method, amount, line item, quantity and
// frequency, charged from the next period or prorated now (subscription-proration.ts). The prorated charge, the
// change and the customer's counts go in one transaction under the subscription's row lock, which the renewal
// takes too: a change and a renewal due at once are serialized, the change prorating the period it finds.
import type { components } from '@pgw/client/types';
import { ApiError } from '../platform/errors.ts';
import { type Cents, centsOfExact, fractionOf, fromCents, minusCents, sumCents, ZERO_CENTS } from '../platform/money.ts';
import { type Scope, type Tx, within } from '../platform/scope.ts';
import { iso } from '../platform/time.ts';
import { withTransaction } from '../platform/transaction.ts';
import { findLineItem } from '../repositories/catalogue.ts';
import type { Frequency, PlanChange, SubscriptionRecord } from '../repositories/subscriptions.ts';
import * as engine from './engine.ts';
import { amountCents } from './payments.ts';
import { subscriptionFamily, subscriptionView, type SubscriptionChange, type SubscriptionView } from './subscription-machine.ts';
import { chargeSubscription } from './subscription-payments.ts';
import { prorate } from './subscription-proration.ts';
import { paymentDate } from './subscription-schedule.ts';
import { add, checkPayable, lockOwn, methodOf, notOpen, type Problems } from './subscriptions.ts';

type Update = components['schemas']['SubscriptionUpdateRequest'];

/** The price a plan change asks for: each payment's cents, and its line item and quantity (null: an amount). */
interface Price { cents: Cents; lineItemId: string | null; quantity: number | null; field: string }

/** The new price of the request (undefined: the price does not change), refusing into errors what cannot be priced. */
async function priceOf(tx: Tx, scope: Scope, s: SubscriptionRecord, body: Update, errors: Problems): Promise<Price | undefined> {
  if (body.amount !== undefined && body.lineItemId !== undefined) {
    add(errors, 'lineItemId', 'give at most one of amount and lineItemId');
    return undefined;
  }
  if (body.amount !== undefined) {
    if (body.quantity !== undefined) add(errors, 'quantity', 'is not allowed with amount');
    return { cents: amountCents(body.amount), lineItemId: null, quantity: null, field: 'amount' };
  }
  if (body.lineItemId !== undefined) {
    const item = await findLineItem(tx, scope.merchantId, body.lineItemId.toLowerCase());
    if (!item) {
      add(errors, 'lineItemId', "is not a line item of the merchant's catalogue");
      return undefined;
    }
    if (item.unitPriceCents <= 0) add(errors, 'lineItemId', 'has no price above 0');
    const quantity = body.quantity ?? s.quantity ?? 1;
    return { cents: centsOfExact(BigInt(item.unitPriceCents) * BigInt(quantity)), lineItemId: item.id, quantity, field: body.quantity === undefined ? 'lineItemId' : 'quantity' };
  }
  if (body.quantity === undefined) return undefined;
  if (s.lineItemId === null || s.quantity === null) {
    add(errors, 'quantity', 'the subscription is priced by an amount: give lineItemId with quantity');
    return undefined;
  }
  // The unit price fixed when the line item was chosen: the amount is exactly unitPrice x quantity.
  return { cents: fractionOf(s.amountCents, body.quantity, s.quantity), lineItemId: s.lineItemId, quantity: body.quantity, field: 'quantity' };
}

/** Why ProrateNow cannot apply to the subscription at `at` (undefined: it can). */
function unprorated(s: SubscriptionRecord, at: Date): string | undefined {
  if (s.status !== 'Active') return `needs an Active subscription (this one is ${s.status}); use NextPeriod`;
  if (s.paymentsCount < 1 || s.scheduleIndex < 1) return 'needs a paid current period (no payment was collected yet); use NextPeriod';
  if (s.cancelAtPeriodEnd) return 'is not allowed on a subscription cancelled at period end';
  if (s.dueAt === null || new Date(s.dueAt) <= at) return 'needs the next payment ahead (it is due now); use NextPeriod';
  return undefined;
}

/** The schedule after a change of frequency: NextPeriod counts from the next scheduled date, ProrateNow from now. */
function scheduleChange(s: SubscriptionRecord, frequency: Frequency, prorated: boolean, at: Date): SubscriptionChange {
  if (prorated) {
    const next = iso(paymentDate(at, frequency, 1));
    return { frequency, anchorDate: iso(at), scheduleIndex: 1, nextPaymentDate: next, dueAt: next };
  }
  return { frequency, anchorDate: iso(paymentDate(new Date(s.anchorDate), s.frequency, s.scheduleIndex)), scheduleIndex: 0 };
}

/**
 * Changes the payment method and/or plan of an Active, PastDue, Trialing or Paused subscription, charged as
 * `proration` says (the spec's SubscriptionPlanChange); the answer's latestChange says what was charged.
 */
export async function updateSubscription(scope: Scope, id: string, body: Update): Promise<SubscriptionView> {
  // A malformed amount is refused naming the field whatever the subscription's status.
  if (body.amount !== undefined) amountCents(body.amount);
  return withTransaction(scope.db, async (tx) => {
    const s = await lockOwn(tx, scope, id);
    // The time of the change, read with the lock held (a renewal that ran before it has moved the period).
    const at = scope.clock.now();
    if (!engine.permits(subscriptionFamily, s, 'updateSubscription', at)) throw notOpen('updateSubscription', s);
    const errors: Problems = {};
    const method = body.paymentMethodId === undefined ? undefined : await methodOf(tx, scope, s.customerId, body.paymentMethodId, errors);
    const price = await priceOf(tx, scope, s, body, errors);
    if (price) await checkPayable(tx, scope, price.cents, price.field, errors);
    const frequency = body.frequency !== undefined && body.frequency !== s.frequency ? body.frequency : undefined;
    const planChanged = price !== undefined || frequency !== undefined;
    const prorated = body.proration === 'ProrateNow';
    const refusal = prorated ? unprorated(s, at) : undefined;
    if (refusal !== undefined) add(errors, 'proration', refusal);
    if (Object.keys(errors).length > 0) throw new ApiError('validation_failed', { errors });

    const cents = price?.cents ?? s.amountCents;
    let change: SubscriptionChange = {
      ...(method === undefined ? {} : { paymentMethodId: method.id }),
      ...(price === undefined ? {} : { amountCents: price.cents, lineItemId: price.lineItemId, quantity: price.quantity }),
      ...(frequency === undefined ? {} : scheduleChange(s, frequency, prorated, at)),
    };
    if (planChanged) {
      const latest = await chargeChange(within(scope, tx), { ...s, ...change }, s, cents, frequency, prorated, at);
      change = { ...change, latestChange: latest.plan, creditCents: latest.credit };
    }
    const after = await engine.transition({ db: tx }, subscriptionFamily, s, 'updateSubscription', at, change);
    if (!after) throw notOpen('updateSubscription', s);
    return subscriptionView(after);
  });
}

/**
 * What the plan change charges or credits (NextPeriod: nothing now). A positive prorated difference is charged to
 * the (new) payment method now; a decline refuses the change, the whole transaction undone.
 */
async function chargeChange(
  scope: Parameters<typeof chargeSubscription>[0], changed: SubscriptionRecord, before: SubscriptionRecord, cents: Cents,
  frequency: Frequency | undefined, prorated: boolean, at: Date,
): Promise<{ plan: PlanChange; credit: Cents }> {
  const base = {
    changedOn: iso(at), previousAmount: fromCents(before.amountCents), amount: fromCents(cents), previousFrequency: before.frequency, frequency: frequency ?? before.frequency,
  };
  if (!prorated) {
    return {
      plan: { ...base, proration: 'NextPeriod', periodStart: null, periodEnd: null, periodSeconds: null, remainingSeconds: null, unusedCredit: 0, remainingCharge: 0, netAmount: 0, chargedAmount: 0, creditedAmount: 0, transactionId: null },
      credit: before.creditCents,
    };
  }
  const start = paymentDate(new Date(before.anchorDate), before.frequency, before.scheduleIndex - 1);
  const end = paymentDate(new Date(before.anchorDate), before.frequency, before.scheduleIndex);
  const p = prorate(before.amountCents, cents, start, end, at, frequency !== undefined);
  let transactionId: string | null = null;
  if (p.net > 0) {
    const { transaction, collected } = await chargeSubscription(scope, changed, p.net);
    if (!collected) {
      throw new ApiError('subscription_proration_declined', { details: `The prorated charge of ${String(fromCents(p.net))} USD was declined or failed; nothing changed.`, entityId: before.id });
    }
    transactionId = transaction?.id ?? null;
  }
  const credited = p.net < 0 ? minusCents(ZERO_CENTS, p.net) : ZERO_CENTS;
  return {
    plan: {
      ...base, proration: 'ProrateNow', periodStart: iso(start), periodEnd: iso(end), periodSeconds: p.periodSeconds, remainingSeconds: p.remainingSeconds,
      unusedCredit: fromCents(p.unusedCredit), remainingCharge: fromCents(p.remainingCharge), netAmount: fromCents(p.net),
      chargedAmount: fromCents(p.net > 0 ? p.net : ZERO_CENTS), creditedAmount: fromCents(credited), transactionId,
    },
    credit: sumCents(before.creditCents, credited),
  };
}
