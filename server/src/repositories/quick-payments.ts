// Payment links and the payments they took (Knex only), keyed by id; the status, count and total are written
// by the link machine's adapter (services/quick-payment-machine.ts) under the engine's row lock.
import type { Knex } from 'knex';
import { type Cents, centsOfColumn, centsOrNullOfColumn } from '../platform/money.ts';
import { locked } from '../platform/transaction.ts';
import { pageOf, type ListQuery } from './paging.ts';

export type LinkStatus = 'Active' | 'Paid' | 'Expired' | 'Cancelled';

export interface QuickPaymentRecord {
  id: string;
  merchantId: string;
  amountCents: Cents;
  description: string | null;
  status: LinkStatus;
  transactionId: string | null;
  paidOn: string | null;
  expiresOn: string | null;
  createdOn: string;
  /** null: no limit. */
  maxPayments: number | null;
  paymentCount: number;
  collectedCents: Cents;
  quantity: number;
  /** The payer's choice of quantity, when the link allows one. */
  quantityRange: { min: number; max: number } | null;
  /** The payer's choice of amount, when the link allows one. */
  amountRange: { min: Cents; max: Cents } | null;
  redirectUrl: string | null;
  /** What the latest payment (transactionId) charged and was for; null before the first. */
  latest: { amountCents: Cents; quantity: number } | null;
}

/** A payment a link took. */
export interface LinkPaymentRecord {
  id: string;
  merchantId: string;
  quickPaymentId: string;
  /** Its number on the link: 1 for the first. */
  seq: number;
  transactionId: string;
  amountCents: Cents;
  quantity: number;
  paidOn: string;
}

export interface Row {
  id: string; merchant_id: string; amount_cents: number | string; description: string | null; status: LinkStatus;
  transaction_id: string | null; paid_on: string | null; expires_on: string | null; created_on: string;
  max_payments: number | null; payment_count: number | string; collected_cents: number | string; quantity: number | string;
  min_quantity: number | null; max_quantity: number | null; min_amount_cents: number | string | null; max_amount_cents: number | string | null;
  redirect_url: string | null; last_amount_cents: number | string | null; last_quantity: number | string | null;
}

interface PaymentRow {
  id: string; merchant_id: string; quick_payment_id: string; seq: number | string; transaction_id: string; amount_cents: number | string;
  quantity: number | string; paid_on: string;
}

export const recordOf = (row: Row): QuickPaymentRecord => ({
  id: row.id,
  merchantId: row.merchant_id,
  amountCents: centsOfColumn(row.amount_cents),
  description: row.description,
  status: row.status,
  transactionId: row.transaction_id,
  paidOn: row.paid_on,
  expiresOn: row.expires_on,
  createdOn: row.created_on,
  maxPayments: row.max_payments,
  paymentCount: Number(row.payment_count),
  collectedCents: centsOfColumn(row.collected_cents),
  quantity: Number(row.quantity),
  quantityRange: row.min_quantity === null || row.max_quantity === null ? null : { min: row.min_quantity, max: row.max_quantity },
  amountRange: rangeOf(centsOrNullOfColumn(row.min_amount_cents), centsOrNullOfColumn(row.max_amount_cents)),
  redirectUrl: row.redirect_url,
  latest: row.last_amount_cents === null || row.last_quantity === null ? null : { amountCents: centsOfColumn(row.last_amount_cents), quantity: Number(row.last_quantity) },
});

const rangeOf = (min: Cents | null, max: Cents | null): { min: Cents; max: Cents } | null => (min === null || max === null ? null : { min, max });

const rowOf = (link: QuickPaymentRecord): Row => ({
  id: link.id, merchant_id: link.merchantId, amount_cents: link.amountCents, description: link.description, status: link.status,
  transaction_id: link.transactionId, paid_on: link.paidOn, expires_on: link.expiresOn, created_on: link.createdOn,
  max_payments: link.maxPayments, payment_count: link.paymentCount, collected_cents: link.collectedCents, quantity: link.quantity,
  min_quantity: link.quantityRange?.min ?? null, max_quantity: link.quantityRange?.max ?? null,
  min_amount_cents: link.amountRange?.min ?? null, max_amount_cents: link.amountRange?.max ?? null, redirect_url: link.redirectUrl,
  last_amount_cents: link.latest?.amountCents ?? null, last_quantity: link.latest?.quantity ?? null,
});

const paymentOf = (row: PaymentRow): LinkPaymentRecord => ({
  id: row.id, merchantId: row.merchant_id, quickPaymentId: row.quick_payment_id, seq: Number(row.seq), transactionId: row.transaction_id,
  amountCents: centsOfColumn(row.amount_cents), quantity: Number(row.quantity), paidOn: row.paid_on,
});

export async function findQuickPayment(db: Knex, merchantId: string, id: string): Promise<QuickPaymentRecord | undefined> {
  const row = (await db('quick_payments').where({ merchant_id: merchantId, id }).first()) as Row | undefined;
  return row ? recordOf(row) : undefined;
}

/** A link by id alone: its public page names no merchant. */
export async function findPublicQuickPayment(db: Knex, id: string): Promise<QuickPaymentRecord | undefined> {
  const row = (await db('quick_payments').where({ id }).first()) as Row | undefined;
  return row ? recordOf(row) : undefined;
}

export async function insertQuickPayment(db: Knex, link: QuickPaymentRecord): Promise<void> {
  await db('quick_payments').insert(rowOf(link));
}

/** Writes a move's status and payment (its latest, its count and total); false when the link is gone. */
export async function updateQuickPayment(db: Knex, link: QuickPaymentRecord): Promise<boolean> {
  const changed = await db('quick_payments').where({ merchant_id: link.merchantId, id: link.id })
    .update({ status: link.status, transaction_id: link.transactionId, paid_on: link.paidOn, payment_count: link.paymentCount, collected_cents: link.collectedCents,
      last_amount_cents: link.latest?.amountCents ?? null, last_quantity: link.latest?.quantity ?? null });
  return changed === 1;
}

/** Records the payments links took (the machine's moves that are payments). */
export async function insertLinkPayments(db: Knex, payments: readonly LinkPaymentRecord[]): Promise<void> {
  if (payments.length === 0) return;
  await db('quick_payment_payments').insert(payments.map((p) => ({
    id: p.id, merchant_id: p.merchantId, quick_payment_id: p.quickPaymentId, seq: p.seq, transaction_id: p.transactionId,
    amount_cents: p.amountCents, quantity: p.quantity, paid_on: p.paidOn,
  })));
}

/** One of a link's payments, by its transaction; undefined when the transaction is no payment of that link. */
export async function findLinkPayment(db: Knex, merchantId: string, quickPaymentId: string, transactionId: string): Promise<LinkPaymentRecord | undefined> {
  const row = (await db('quick_payment_payments').where({ merchant_id: merchantId, quick_payment_id: quickPaymentId, transaction_id: transactionId }).first()) as PaymentRow | undefined;
  return row ? paymentOf(row) : undefined;
}

/** A page (zero-based) of a link's payments, oldest first, and how many it took. */
export async function listLinkPayments(db: Knex, merchantId: string, quickPaymentId: string, page: { page: number; pageSize: number }): Promise<{ items: LinkPaymentRecord[]; total: number }> {
  const where = { merchant_id: merchantId, quick_payment_id: quickPaymentId };
  const counted = (await db('quick_payment_payments').where(where).count({ n: '*' }).first()) as { n: number | string } | undefined;
  const rows = (await db('quick_payment_payments').where(where).orderBy('seq').offset(page.page * page.pageSize).limit(page.pageSize).select('*')) as PaymentRow[];
  return { items: rows.map(paymentOf), total: Number(counted?.n ?? 0) };
}


/**
 * The merchant's Active links whose expiry is at or before `until`, locked (`wait`: rows another transaction
 * holds are waited for; otherwise skipped, left to the instance that holds them).
 */
export async function claimExpiring(tx: Knex, merchantId: string, until: string, wait: boolean): Promise<QuickPaymentRecord[]> {
  const query = tx('quick_payments').where({ merchant_id: merchantId, status: 'Active' }).whereNotNull('expires_on')
    .andWhere('expires_on', '<=', until).orderBy('id');
  const rows = (await locked(tx, query, { strength: 'update', skip: !wait })) as Row[];
  return rows.map(recordOf);
}

/** Merchants with an Active link expiring at or before `until` (the furthest business time of any merchant). */
export async function merchantsWithExpiring(db: Knex, until: string): Promise<string[]> {
  const rows = (await db('quick_payments').distinct('merchant_id').where({ status: 'Active' }).whereNotNull('expires_on')
    .andWhere('expires_on', '<=', until)) as { merchant_id: string }[];
  return rows.map((r) => r.merchant_id);
}

export async function listQuickPayments(db: Knex, merchantId: string, list: ListQuery & { status?: LinkStatus }): Promise<{ items: QuickPaymentRecord[]; total: number }> {
  const query = db('quick_payments').where({ merchant_id: merchantId });
  if (list.status !== undefined) void query.where({ status: list.status });
  const { rows, total } = await pageOf(query, list, {
    orderable: { createdOn: 'created_on', amount: 'amount_cents', expiresOn: 'expires_on', paidOn: 'paid_on' },
    defaultOrder: 'createdOn',
    notNull: ['createdOn', 'amount'],
    searchable: ['description'],
    dateColumn: 'created_on',
    idColumn: 'id',
  });
  return { items: (rows as unknown as Row[]).map(recordOf), total };
}
