// The payments of subscriptions, when they fall due on the merchant's business clock (the worker runs them, the
// sandbox clock advance among it): a card sale of the stored card or an ACH debit of the stored bank account
// through the payment services, creator type Subscription, and the subscription's move with its event, in one
// transaction with the subscription row locked. Also the ACH machine's return of a subscription's debit.
import { AchTransactionStatus, CardTransactionStatus, PaymentMethodType, SecCode, TransactionCreatorType, TransactionType } from '@pgw/client/enums';
import { ApiError } from '../platform/errors.ts';
import { type Cents, fromCents, minCents, minusCents } from '../platform/money.ts';
import type { InTx, Scope, Tx } from '../platform/scope.ts';
import { iso } from '../platform/time.ts';
import { inSavepoint } from '../platform/transaction.ts';
import { findPaymentMethod } from '../repositories/payment-methods.ts';
import * as repo from '../repositories/subscriptions.ts';
import type { SubscriptionRecord } from '../repositories/subscriptions.ts';
import type { TransactionRecord } from '../repositories/transactions.ts';
import { createAch } from './ach.ts';
import { createCard } from './card.ts';
import * as engine from './engine.ts';
import { processorFor } from './payments.ts';
import { subscriptionFamily, type SubscriptionChange } from './subscription-machine.ts';
import { paymentDate, retryAt } from './subscription-schedule.ts';
import { dunningOf, INITIAL_DUNNING } from './subscription-settings.ts';
import { periodInvoice, periodPaidElsewhere, settlePeriodInvoice } from './subscription-invoices.ts';
import type { DunningSettings } from '../repositories/subscription-settings.ts';

/** The payment's transaction (undefined: none could be made, e.g. the payment method is gone) and whether it collected. */
interface Attempt {
  readonly transaction: TransactionRecord | undefined;
  readonly collected: boolean;
}

/** Charges `cents` to the subscription's payment method at the scope's time (a payment's due time, a proration's). */
export async function chargeSubscription(scope: InTx<Scope>, s: SubscriptionRecord, cents: Cents, invoiceId: string | null = null): Promise<Attempt> {
  const method = await findPaymentMethod(scope.db, s.customerId, s.paymentMethodId);
  if (!method) return { transaction: undefined, collected: false };
  const amount = fromCents(cents);
  try {
    // A refusal of the payment service (no processor any more) fails the attempt and writes nothing of it.
    return await inSavepoint(scope.db, async (tx) => {
      const within: InTx<Scope> = { ...scope, db: tx };
      if (method.kind === 'card') {
        const { record } = await createCard(within, 'createCardSale', {
          amount, tipAmount: 0, customerId: s.customerId, paymentMethodId: method.id, ...(s.description === null ? {} : { description: s.description }),
        }, { creatorTypeId: TransactionCreatorType.Subscription, partialAllowed: false, invoiceId });
        return { transaction: record, collected: record.statusId === CardTransactionStatus.Captured };
      }
      const processor = await processorFor(tx, scope.merchantId, PaymentMethodType.ElectronicCheck, undefined);
      const record = await createAch(within, {
        amount, paymentProcessorId: processor.id, secCode: SecCode.PPD, requesterIPaddress: 'subscription', customerId: s.customerId, paymentMethodId: method.id,
      }, { typeId: TransactionType.AchDebit, creatorTypeId: TransactionCreatorType.Subscription, customerId: s.customerId, invoiceId });
      return { transaction: record, collected: record.statusId === AchTransactionStatus.Scheduled };
    });
  } catch (error) {
    if (!(error instanceof ApiError) || error.status >= 500) throw error;
    scope.log.warn({ subscriptionId: s.id, errorCode: error.code }, 'a subscription payment could not be made');
    return { transaction: undefined, collected: false };
  }
}

/** The next scheduled payment's date, not before `at` (a recovery after the anchor passed collects at once). */
function nextScheduled(s: SubscriptionRecord, index: number, at: Date): string {
  const date = paymentDate(new Date(s.anchorDate), s.frequency, index);
  return iso(date < at ? at : date);
}

/** The move after a collected payment: a renewal (Active), or Completed after the last of totalPayments. */
function collectedChange(s: SubscriptionRecord, scheduleIndex: number, transaction: TransactionRecord | undefined, at: Date): { to: 'Active' | 'Completed'; change: SubscriptionChange } {
  const paymentsCount = s.paymentsCount + 1;
  const completed = s.totalPayments !== null && paymentsCount >= s.totalPayments;
  const next = completed ? null : nextScheduled(s, scheduleIndex, at);
  return {
    to: completed ? 'Completed' : 'Active',
    change: {
      scheduleIndex, paymentsCount, failedPaymentCount: 0, failuresBeforeAttempt: s.failedPaymentCount, lastPaymentDate: iso(at),
      transactionId: transaction?.id ?? null, nextPaymentDate: next, dueAt: next,
    },
  };
}

/**
 * The move after the `failures`-th failed attempt at one payment: PastDue with its retry by the merchant's
 * schedule, or after the last, Delinquent or Cancelled as the merchant's afterLastFailure says.
 */
function failedChange(dunning: DunningSettings, failures: number, scheduleIndex: number, transactionId: string | null, at: Date): { to: 'PastDue' | 'Delinquent' | 'Cancelled'; change: SubscriptionChange } {
  const retry = retryAt(at, failures, dunning.retryDays);
  const next = retry === undefined ? null : iso(retry);
  const change: SubscriptionChange = { scheduleIndex, failedPaymentCount: failures, transactionId, nextPaymentDate: next, dueAt: next };
  if (retry !== undefined) return { to: 'PastDue', change };
  return dunning.afterLastFailure === 'Cancelled' ? { to: 'Cancelled', change: { ...change, cancelledOn: iso(at) } } : { to: 'Delinquent', change };
}

/**
 * Runs one locked subscription that fell due at the scope's time: cancels it at period end, or charges the
 * payment (a scheduled one or a retry) and moves it by the outcome. True when a payment was attempted.
 */
async function runOne(scope: InTx<Scope>, s: SubscriptionRecord, dunning: DunningSettings): Promise<boolean> {
  const at = scope.clock.now();
  const db = { db: scope.db };
  if (s.cancelAtPeriodEnd) {
    await engine.transition(db, subscriptionFamily, s, 'time.periodEnded', at, { cancelledOn: iso(at), nextPaymentDate: null, dueAt: null });
    return false;
  }
  if (s.status === 'Trialing') {
    // The trial is over: Active now, and its first scheduled payment is made at once, as any Active one's.
    const active = await engine.transition(db, subscriptionFamily, s, 'time.trialEnded', at, {});
    return active === undefined ? false : runOne(scope, active, dunning);
  }
  // A scheduled payment moves the schedule on; a retry (PastDue) does not.
  const scheduleIndex = s.status === 'Active' ? s.scheduleIndex + 1 : s.scheduleIndex;
  // Credit of a prorated downgrade is taken off first; a payment it covers whole is collected without a charge.
  const credit = minCents(s.creditCents, s.amountCents);
  const due = minusCents(s.amountCents, credit);
  // A retry whose period's invoice was paid another way (its page, the API) charges nothing: the period is paid.
  if (await periodPaidElsewhere(scope, s)) {
    const { to, change } = collectedChange(s, scheduleIndex, undefined, at);
    await engine.transition(db, subscriptionFamily, s, 'payment.collected', at, change, { to });
    return false;
  }
  // The period's invoice (invoicePerPeriod): of what is charged, or of the amount when the credit covers it.
  const invoice = await periodInvoice(scope, s, due === 0 ? s.amountCents : due);
  const { transaction, collected } = due === 0 ? { transaction: undefined, collected: true } : await chargeSubscription(scope, s, due, invoice?.id ?? null);
  if (invoice) await settlePeriodInvoice(scope, invoice, transaction, collected, due);
  const invoiced = invoice === undefined ? {} : { latestInvoiceId: invoice.id };
  if (collected) {
    const { to, change } = collectedChange(s, scheduleIndex, transaction, at);
    await engine.transition(db, subscriptionFamily, s, 'payment.collected', at, { ...change, ...invoiced, creditCents: minusCents(s.creditCents, credit) }, { to });
  } else {
    const { to, change } = failedChange(dunning, s.failedPaymentCount + 1, scheduleIndex, transaction?.id ?? null, at);
    await engine.transition(db, subscriptionFamily, s, 'payment.failed', at, { ...change, ...invoiced }, { to });
  }
  return true;
}

/** Runs the merchant's subscriptions due at the scope's time, locked by the caller; returns the payments attempted. */
export async function runDueSubscriptions(scope: InTx<Scope>, due: readonly SubscriptionRecord[]): Promise<number> {
  let attempted = 0;
  // The merchant's settings in force at these failures (read once for what falls due together).
  const dunning = due.length === 0 ? INITIAL_DUNNING : await dunningOf(scope.db, scope.merchantId);
  for (const s of due) {
    if (s.status !== 'Active' && s.status !== 'PastDue' && s.status !== 'Trialing') {
      // A due time left on a subscription that stopped collecting: nothing more falls due.
      await repo.clearDue(scope.db, s.id);
      continue;
    }
    if (await runOne(scope, s, dunning)) attempted += 1;
  }
  return attempted;
}

/**
 * A debit that a subscription counted as collected is returned (or fails at the network) afterwards: the payment
 * is failed after all (Active -> PastDue with its retry, or Delinquent or Cancelled when it was the last attempt). Runs in
 * the transaction of the debit's change; any other transaction changes nothing.
 */
export async function subscriptionPaymentReturned(tx: Tx, record: TransactionRecord, at: Date): Promise<void> {
  if (record.creatorTypeId !== TransactionCreatorType.Subscription || record.typeId !== TransactionType.AchDebit) return;
  const found = await repo.findByTransaction(tx, record.id);
  if (!found) return;
  const s = await engine.lock({ db: tx }, subscriptionFamily, { merchant_id: found.merchantId, id: found.id });
  // Only the latest attempt of an Active subscription (the machine has no other row for a return).
  if (!s || s.transactionId !== record.id || !engine.permits(subscriptionFamily, s, 'payment.returned', at)) return;
  const { to, change } = failedChange(await dunningOf(tx, found.merchantId), s.failuresBeforeAttempt + 1, s.scheduleIndex, record.id, at);
  // The returned payment is collected no more; if it was the last of totalPayments, the schedule has none left.
  await engine.transition({ db: tx }, subscriptionFamily, s, 'payment.returned', at, { ...change, paymentsCount: Math.max(0, s.paymentsCount - 1) }, { to });
}
