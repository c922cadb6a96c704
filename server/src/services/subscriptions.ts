// Subscriptions: create (the machine's creation row, subscription.created, a trial), list, read, cancel (at once
// or at period end), pause and resume, each change through the one engine in one transaction with its event and
// the customer's counts. Plan changes are subscription-plans.ts; the payments subscription-payments.ts.
import { newId } from '../platform/ids.ts';
import { PaymentMethodType } from '@pgw/client/enums';
import { subscriptionStateMachine } from '@pgw/client/state-machines';
import type { components } from '@pgw/client/types';
import { ApiError, notFound } from '../platform/errors.ts';
import { type Cents, centsOfExact, fromCents, ZERO_CENTS } from '../platform/money.ts';
import type { ListQuery } from '../platform/paging.ts';
import type { Scope, Tx } from '../platform/scope.ts';
import { iso } from '../platform/time.ts';
import { withTransaction } from '../platform/transaction.ts';
import { findLineItem } from '../repositories/catalogue.ts';
import * as customers from '../repositories/customers.ts';
import { findPaymentMethod, type StoredPaymentMethod } from '../repositories/payment-methods.ts';
import * as repo from '../repositories/subscriptions.ts';
import type { SubscriptionFilter, SubscriptionRecord } from '../repositories/subscriptions.ts';
import * as engine from './engine.ts';
import { LARGEST_PAYMENT_CENTS, amountCents, processorFor } from './payments.ts';
import { subscriptionFamily, subscriptionView, type SubscriptionView } from './subscription-machine.ts';
import { firstScheduledFrom } from './subscription-schedule.ts';

type Schemas = components['schemas'];
export type Problems = Record<string, string[]>;
export const add = (errors: Problems, field: string, message: string): void => { (errors[field] ??= []).push(message); };

/** How far in the past a startDate may be and still be taken as now (the client's clock and the network's delay). */
const START_GRACE_MS = 60_000;

const kindOf = (method: StoredPaymentMethod): PaymentMethodType => (method.kind === 'card' ? PaymentMethodType.Card : PaymentMethodType.ElectronicCheck);

/** The stored card or bank account of the customer with that id; 400 naming the field otherwise. */
export async function methodOf(tx: Tx, scope: Scope, customerId: string, id: string, errors: Problems): Promise<StoredPaymentMethod | undefined> {
  const method = await findPaymentMethod(tx, customerId, id.toLowerCase());
  if (!method) {
    add(errors, 'paymentMethodId', 'is not a stored card or bank account of the customer');
    return undefined;
  }
  // The merchant must be able to charge it (a processor of its kind): refused now rather than at every payment.
  await processorFor(tx, scope.merchantId, kindOf(method), undefined);
  return method;
}

/** The amount of each payment: the amount given, or the line item's unitPrice times quantity. */
async function amountOf(tx: Tx, scope: Scope, body: Schemas['SubscriptionCreateRequest'], errors: Problems): Promise<Cents | undefined> {
  if ((body.amount === undefined) === (body.lineItemId === undefined)) {
    add(errors, body.amount === undefined ? 'amount' : 'lineItemId', 'give exactly one of amount and lineItemId');
    return undefined;
  }
  if (body.quantity !== undefined && body.lineItemId === undefined) add(errors, 'quantity', 'is allowed only with lineItemId');
  if (body.amount !== undefined) return amountCents(body.amount);
  const item = await findLineItem(tx, scope.merchantId, (body.lineItemId ?? '').toLowerCase());
  if (!item) {
    add(errors, 'lineItemId', "is not a line item of the merchant's catalogue");
    return undefined;
  }
  const price = item.unitPriceCents;
  if (price <= 0) add(errors, 'lineItemId', 'has no price above 0');
  return centsOfExact(BigInt(price) * BigInt(body.quantity ?? 1));
}

/**
 * Refuses (into errors, naming field) an amount no payment of the subscription could take: above the largest
 * payment, or above the merchant's maxTransactionAmount, where every payment would be declined.
 */
export async function checkPayable(tx: Tx, scope: Scope, cents: Cents, field: string, errors: Problems): Promise<void> {
  const each = `makes each payment ${String(fromCents(cents))} USD`;
  if (cents > LARGEST_PAYMENT_CENTS) {
    add(errors, field, `${each}, above ${String(fromCents(LARGEST_PAYMENT_CENTS))} USD, the largest payment`);
    return;
  }
  const limit = (await scope.instances.paymentSetups.of(tx, scope.merchantId))?.maxTransactionAmountCents ?? null;
  if (limit !== null && cents > limit) add(errors, field, `${each}, above the merchant's maxTransactionAmount (${String(fromCents(limit))} USD): every payment would be declined`);
}

/** The request field that set the amount, for an error about it. */
const amountField = (body: { amount?: number; quantity?: number }): string => (body.amount !== undefined ? 'amount' : body.quantity !== undefined ? 'quantity' : 'lineItemId');

const DAY_MS = 86_400_000;
/** The longest trial, in days (spec: trialPeriodDays' maximum, trialEnd's bound). */
const MAX_TRIAL_DAYS = 730;

/**
 * The trial's end a create request asks for (undefined: no trial), refusing into errors a trial with startDate,
 * both trial fields, or a trialEnd less than a minute ahead or more than MAX_TRIAL_DAYS ahead.
 */
function trialEndOf(body: Schemas['SubscriptionCreateRequest'], now: Date, errors: Problems): Date | undefined {
  if (body.trialPeriodDays !== undefined && body.trialEnd !== undefined) {
    add(errors, 'trialEnd', 'give at most one of trialPeriodDays and trialEnd');
    return undefined;
  }
  if (body.trialPeriodDays === undefined && body.trialEnd === undefined) return undefined;
  if (body.startDate !== undefined) add(errors, 'startDate', "is not allowed with a trial: the first payment falls due at the trial's end");
  if (body.trialPeriodDays !== undefined) return new Date(now.getTime() + body.trialPeriodDays * DAY_MS);
  const end = new Date(body.trialEnd ?? '');
  if (end.getTime() < now.getTime() + START_GRACE_MS) add(errors, 'trialEnd', "must be at least a minute after now (the merchant's business clock)");
  else if (end.getTime() > now.getTime() + MAX_TRIAL_DAYS * DAY_MS) add(errors, 'trialEnd', `must be at most ${String(MAX_TRIAL_DAYS)} days after now`);
  return end;
}

/** Creates an Active subscription whose first payment falls due at startDate (now when absent), or a Trialing one. */
export async function createSubscription(scope: Scope, body: Schemas['SubscriptionCreateRequest']): Promise<SubscriptionView> {
  const now = scope.clock.now();
  const customerId = body.customerId.toLowerCase();
  return withTransaction(scope.db, async (tx) => {
    // The customer's row is locked as its deletion locks it: a customer being deleted gets no subscription.
    const customer = (await customers.lockCustomer(tx, scope.merchantId, customerId)) ? await customers.findCustomer(tx, scope.merchantId, customerId) : undefined;
    if (!customer) throw notFound(body.customerId, 'customer');
    const errors: Problems = {};
    const methodId = body.paymentMethodId ?? customer.defaultCardId ?? customer.defaultAchId;
    let method: StoredPaymentMethod | undefined;
    if (methodId === null) add(errors, 'paymentMethodId', 'is required: the customer has no default card or bank account');
    else method = await methodOf(tx, scope, customerId, methodId, errors);
    const cents = await amountOf(tx, scope, body, errors);
    if (cents !== undefined) await checkPayable(tx, scope, cents, amountField(body), errors);
    let start = now;
    if (body.startDate !== undefined) {
      const given = new Date(body.startDate);
      if (given.getTime() < now.getTime() - START_GRACE_MS) add(errors, 'startDate', "must not be in the past (the merchant's business clock)");
      else if (given > now) start = given;
    }
    const trialEnd = trialEndOf(body, now, errors);
    if (Object.keys(errors).length > 0 || !method || cents === undefined) throw new ApiError('validation_failed', { errors });
    // With a trial, the first payment falls due at its end and the schedule is counted from there.
    const first = iso(trialEnd ?? start);
    const fresh: SubscriptionRecord = {
      id: newId(), merchantId: scope.merchantId, customerId, paymentMethodId: method.id, amountCents: cents, frequency: body.frequency,
      status: trialEnd === undefined ? 'Active' : 'Trialing', startDate: first, scheduleIndex: 0, nextPaymentDate: first, dueAt: first, lastPaymentDate: null,
      failedPaymentCount: 0, failuresBeforeAttempt: 0, transactionId: null, paymentsCount: 0, totalPayments: body.totalPayments ?? null,
      cancelAtPeriodEnd: false, cancelledOn: null, description: body.description ?? null,
      lineItemId: body.lineItemId === undefined ? null : body.lineItemId.toLowerCase(), quantity: body.lineItemId === undefined ? null : body.quantity ?? 1,
      trialEnd: trialEnd === undefined ? null : first, pausedOn: null, anchorDate: first, creditCents: ZERO_CENTS, latestChange: null,
      invoicePerPeriod: body.invoicePerPeriod ?? true, latestInvoiceId: null, createdOn: iso(now),
    };
    const { record } = await engine.create({ db: tx }, subscriptionFamily, fresh, 'createSubscription', now, {}, { to: trialEnd === undefined ? 'Active' : 'Trialing' });
    return subscriptionView(record);
  });
}

export async function getSubscription(scope: Scope, id: string): Promise<SubscriptionView> {
  const found = await repo.findSubscription(scope.db, scope.merchantId, id.toLowerCase());
  if (!found) throw notFound(id, 'subscription');
  return subscriptionView(found);
}

export async function listSubscriptions(scope: Scope, list: ListQuery & SubscriptionFilter): Promise<{ items: SubscriptionView[]; total: number }> {
  const { items, total } = await repo.listSubscriptions(scope.db, scope.merchantId, { ...list, ...(list.customerId === undefined ? {} : { customerId: list.customerId.toLowerCase() }) });
  return { items: items.map(subscriptionView), total };
}

/** What each command needs, for the refusal's details. */
const NEEDS = {
  updateSubscription: 'only an Active, PastDue, Trialing or Paused subscription can be changed',
  cancelSubscription: 'only an Active, PastDue, Trialing or Paused subscription can be cancelled',
  pauseSubscription: 'only an Active or PastDue subscription can be paused',
  resumeSubscription: 'only a Paused subscription can be resumed',
} as const;

/** The table's refusal of a command the subscription's status has no row for. */
export const notOpen = (trigger: keyof typeof NEEDS, s: SubscriptionRecord): ApiError =>
  new ApiError(subscriptionStateMachine.refusal.errorCodes[trigger], { details: `The subscription is ${s.status}: ${NEEDS[trigger]}.`, entityId: s.id });

/** Locks the merchant's subscription (404 when it has none with that id). */
export async function lockOwn(tx: Tx, scope: Scope, id: string): Promise<SubscriptionRecord> {
  const found = await engine.lock({ db: tx }, subscriptionFamily, { merchant_id: scope.merchantId, id: id.toLowerCase() });
  if (!found) throw notFound(id, 'subscription');
  return found;
}

/** Cancels at once, or (an Active or Trialing one, atPeriodEnd) when its next payment falls due (its trial ends). */
export async function cancelSubscription(scope: Scope, id: string, body: Schemas['SubscriptionCancelRequest'] | undefined): Promise<SubscriptionView> {
  const now = scope.clock.now();
  return withTransaction(scope.db, async (tx) => {
    const s = await lockOwn(tx, scope, id);
    const atPeriodEnd = body?.atPeriodEnd === true && (s.status === 'Active' || s.status === 'Trialing');
    // A Paused subscription's due time is already null; cancelled, it is no longer paused.
    // At period end no payment is made any more: the due time stays, as the time the subscription ends.
    const after = atPeriodEnd
      ? await engine.transition({ db: tx }, subscriptionFamily, s, 'cancelSubscription', now, { cancelAtPeriodEnd: true, nextPaymentDate: null }, { to: s.status })
      : await engine.transition({ db: tx }, subscriptionFamily, s, 'cancelSubscription', now, { cancelledOn: iso(now), nextPaymentDate: null, dueAt: null, pausedOn: null }, { to: 'Cancelled' });
    if (!after) throw notOpen('cancelSubscription', s);
    return subscriptionView(after);
  });
}

/** Pauses an Active or PastDue subscription: nothing falls due until it is resumed (no payment, no retry). */
export async function pauseSubscription(scope: Scope, id: string): Promise<SubscriptionView> {
  const now = scope.clock.now();
  return withTransaction(scope.db, async (tx) => {
    const s = await lockOwn(tx, scope, id);
    const after = await engine.transition({ db: tx }, subscriptionFamily, s, 'pauseSubscription', now, { pausedOn: iso(now), nextPaymentDate: null, dueAt: null });
    if (!after) throw notOpen('pauseSubscription', s);
    return subscriptionView(after);
  });
}

/**
 * Resumes a Paused subscription (the spec's resume rule): Active, the next payment at the first date of its
 * schedule at or after now; the periods that began while Paused are not charged, a failing payment not retried.
 */
export async function resumeSubscription(scope: Scope, id: string): Promise<SubscriptionView> {
  const now = scope.clock.now();
  return withTransaction(scope.db, async (tx) => {
    const s = await lockOwn(tx, scope, id);
    if (!engine.permits(subscriptionFamily, s, 'resumeSubscription', now)) throw notOpen('resumeSubscription', s);
    const { index, at } = firstScheduledFrom(s, now);
    const next = iso(at);
    const after = await engine.transition({ db: tx }, subscriptionFamily, s, 'resumeSubscription', now, {
      pausedOn: null, scheduleIndex: index, failedPaymentCount: 0, failuresBeforeAttempt: 0,
      // Cancelled at period end: no payment any more, but the subscription ends at that date (the worker's due time).
      nextPaymentDate: s.cancelAtPeriodEnd ? null : next, dueAt: next,
    });
    if (!after) throw notOpen('resumeSubscription', s);
    return subscriptionView(after);
  });
}
