// Subscriptions (Knex only): rows in, records out, the list, what falls due for the worker, and the customer's
// counts of its live subscriptions. The status and schedule are written by the subscription machine's adapter
// (services/subscription-machine.ts) under the engine's row lock.
import type { Knex } from 'knex';
import type { components } from '@pgw/client/types';
import { type Cents, centsOfColumn } from '../platform/money.ts';
import { locked } from '../platform/transaction.ts';
import { pageOf, type ListQuery } from './paging.ts';

export type SubscriptionStatus = 'Active' | 'PastDue' | 'Delinquent' | 'Cancelled' | 'Completed' | 'Trialing' | 'Paused';

/** The statuses of a subscription that collects, or will (its customer and payment method are kept for it). */
export const LIVE_STATUSES: readonly SubscriptionStatus[] = ['Active', 'PastDue', 'Trialing', 'Paused'];
export type Frequency = 'Weekly' | 'BiWeekly' | 'Monthly' | 'Quarterly' | 'Yearly';

/** The latest plan change as the API shows it (SubscriptionPlanChange). */
export type PlanChange = components['schemas']['SubscriptionPlanChange'];

export interface SubscriptionRecord {
  id: string;
  merchantId: string;
  customerId: string;
  paymentMethodId: string;
  amountCents: Cents;
  frequency: Frequency;
  status: SubscriptionStatus;
  startDate: string;
  scheduleIndex: number;
  nextPaymentDate: string | null;
  dueAt: string | null;
  lastPaymentDate: string | null;
  failedPaymentCount: number;
  failuresBeforeAttempt: number;
  transactionId: string | null;
  paymentsCount: number;
  totalPayments: number | null;
  cancelAtPeriodEnd: boolean;
  cancelledOn: string | null;
  description: string | null;
  lineItemId: string | null;
  quantity: number | null;
  trialEnd: string | null;
  pausedOn: string | null;
  /** Payment n of the schedule falls due n intervals after it. */
  anchorDate: string;
  creditCents: Cents;
  latestChange: PlanChange | null;
  invoicePerPeriod: boolean;
  latestInvoiceId: string | null;
  createdOn: string;
}

export interface Row {
  id: string; merchant_id: string; customer_id: string; payment_method_id: string; amount_cents: number | string; frequency: Frequency;
  status: SubscriptionStatus; start_date: string; schedule_index: number | string; next_payment_date: string | null; due_at: string | null;
  last_payment_date: string | null; failed_payment_count: number | string; failures_before_attempt: number | string; transaction_id: string | null;
  payments_count: number | string; total_payments: number | string | null; cancel_at_period_end: boolean | number; cancelled_on: string | null;
  description: string | null; line_item_id: string | null; quantity: number | string | null; created_on: string;
  trial_end: string | null; paused_on: string | null; anchor_date: string | null; credit_cents: number | string; latest_change: string | null;
  invoice_per_period: boolean | number; latest_invoice_id: string | null;
}

const numberOrNull = (v: number | string | null): number | null => (v === null ? null : Number(v));

export const recordOf = (row: Row): SubscriptionRecord => ({
  id: row.id,
  merchantId: row.merchant_id,
  customerId: row.customer_id,
  paymentMethodId: row.payment_method_id,
  amountCents: centsOfColumn(row.amount_cents),
  frequency: row.frequency,
  status: row.status,
  startDate: row.start_date,
  scheduleIndex: Number(row.schedule_index),
  nextPaymentDate: row.next_payment_date,
  dueAt: row.due_at,
  lastPaymentDate: row.last_payment_date,
  failedPaymentCount: Number(row.failed_payment_count),
  failuresBeforeAttempt: Number(row.failures_before_attempt),
  transactionId: row.transaction_id,
  paymentsCount: Number(row.payments_count),
  totalPayments: numberOrNull(row.total_payments),
  cancelAtPeriodEnd: Boolean(row.cancel_at_period_end),
  cancelledOn: row.cancelled_on,
  description: row.description,
  lineItemId: row.line_item_id,
  quantity: numberOrNull(row.quantity),
  trialEnd: row.trial_end,
  pausedOn: row.paused_on,
  anchorDate: row.anchor_date ?? row.start_date,
  creditCents: centsOfColumn(row.credit_cents),
  latestChange: row.latest_change === null ? null : JSON.parse(row.latest_change) as PlanChange,
  invoicePerPeriod: Boolean(row.invoice_per_period),
  latestInvoiceId: row.latest_invoice_id,
  createdOn: row.created_on,
});

/** The columns a move may change (everything but the identity, the customer, the start and the creation). */
const changeable = (s: SubscriptionRecord): Record<string, unknown> => ({
  payment_method_id: s.paymentMethodId, amount_cents: s.amountCents, status: s.status, schedule_index: s.scheduleIndex,
  next_payment_date: s.nextPaymentDate, due_at: s.dueAt, last_payment_date: s.lastPaymentDate, failed_payment_count: s.failedPaymentCount,
  failures_before_attempt: s.failuresBeforeAttempt, transaction_id: s.transactionId, payments_count: s.paymentsCount,
  cancel_at_period_end: s.cancelAtPeriodEnd, cancelled_on: s.cancelledOn, paused_on: s.pausedOn,
  anchor_date: s.anchorDate, credit_cents: s.creditCents, latest_change: s.latestChange === null ? null : JSON.stringify(s.latestChange),
  frequency: s.frequency, line_item_id: s.lineItemId, quantity: s.quantity, latest_invoice_id: s.latestInvoiceId,
});

export async function insertSubscription(db: Knex, s: SubscriptionRecord): Promise<void> {
  await db('subscriptions').insert({
    id: s.id, merchant_id: s.merchantId, customer_id: s.customerId, start_date: s.startDate,
    total_payments: s.totalPayments, description: s.description, created_on: s.createdOn, invoice_per_period: s.invoicePerPeriod,
    trial_end: s.trialEnd,
    ...changeable(s),
  });
}

/** Writes a move's changes; false when the subscription is gone. */
export async function updateSubscription(db: Knex, s: SubscriptionRecord): Promise<boolean> {
  return (await db('subscriptions').where({ merchant_id: s.merchantId, id: s.id }).update(changeable(s))) === 1;
}

export async function findSubscription(db: Knex, merchantId: string, id: string): Promise<SubscriptionRecord | undefined> {
  const row = (await db('subscriptions').where({ merchant_id: merchantId, id }).first()) as Row | undefined;
  return row ? recordOf(row) : undefined;
}

export interface SubscriptionFilter {
  customerId?: string;
  status?: SubscriptionStatus;
}

export async function listSubscriptions(db: Knex, merchantId: string, list: ListQuery & SubscriptionFilter): Promise<{ items: SubscriptionRecord[]; total: number }> {
  const query = db('subscriptions').where({ merchant_id: merchantId });
  if (list.customerId !== undefined) void query.where({ customer_id: list.customerId });
  if (list.status !== undefined) void query.where({ status: list.status });
  const { rows, total } = await pageOf(query, list, {
    orderable: { createdOn: 'created_on', nextPaymentDate: 'next_payment_date', amount: 'amount_cents' },
    defaultOrder: 'createdOn',
    notNull: ['createdOn', 'amount'],
    searchable: ['description'],
    dateColumn: 'created_on',
    idColumn: 'id',
  });
  return { items: (rows as unknown as Row[]).map(recordOf), total };
}

/** The merchant's earliest due time at or before `until`, if any. */
export async function earliestDue(db: Knex, merchantId: string, until: string): Promise<string | undefined> {
  const row = (await db('subscriptions').where({ merchant_id: merchantId }).whereNotNull('due_at').where('due_at', '<=', until)
    .min({ at: 'due_at' }).first()) as { at: string | null } | undefined;
  return row?.at ?? undefined;
}

/**
 * The merchant's subscriptions due at `at`, locked by the caller's transaction (PostgreSQL skips those another
 * instance holds unless `wait`, so two instances never charge one payment twice).
 */
export async function claimDue(tx: Knex, merchantId: string, at: string, wait = false): Promise<SubscriptionRecord[]> {
  const query = tx('subscriptions').where({ merchant_id: merchantId, due_at: at }).orderBy('id');
  return ((await locked(tx, query, { strength: 'update', skip: !wait })) as Row[]).map(recordOf);
}

/** Nothing more falls due for the subscription. */
export async function clearDue(db: Knex, id: string): Promise<void> {
  await db('subscriptions').where({ id }).update({ due_at: null });
}

/** Merchants with a subscription due at or before `until`. */
export async function merchantsWithDue(db: Knex, until: string): Promise<string[]> {
  const rows = await db('subscriptions').whereNotNull('due_at').where('due_at', '<=', until).distinct('merchant_id').select<{ merchant_id: string }[]>();
  return rows.map((r) => r.merchant_id);
}

/** The live subscription whose latest attempt is the transaction, if any (a returned ACH debit's). */
export async function findByTransaction(db: Knex, transactionId: string): Promise<{ id: string; merchantId: string } | undefined> {
  const row = await db('subscriptions').where({ transaction_id: transactionId }).first<{ id: string; merchant_id: string } | undefined>('id', 'merchant_id');
  return row ? { id: row.id, merchantId: row.merchant_id } : undefined;
}

/** Whether a live (LIVE_STATUSES) subscription pays with the payment method. */
export async function paymentMethodInUse(db: Knex, paymentMethodId: string): Promise<boolean> {
  return (await db('subscriptions').where({ payment_method_id: paymentMethodId }).whereIn('status', LIVE_STATUSES).first('id')) !== undefined;
}

/** Adds to the customer's live subscription count and their payments' sum (negative: removes). */
export async function countOnCustomer(db: Knex, customerId: string, count: number, cents: number): Promise<void> {
  if (count === 0 && cents === 0) return;
  await db('customers').where({ id: customerId }).update({
    subscriptions_count: db.raw('subscriptions_count + ?', [count]),
    active_subscriptions_cents: db.raw('active_subscriptions_cents + ?', [cents]),
  });
}
