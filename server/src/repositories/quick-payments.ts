// Payment links (Knex only), keyed by id; the status is written by the link machine's adapter
// (services/quick-payment-machine.ts) under the engine's row lock.
import type { Knex } from 'knex';
import { type Cents, centsOfColumn } from '../platform/money.ts';
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
}

export interface Row {
  id: string; merchant_id: string; amount_cents: number | string; description: string | null; status: LinkStatus;
  transaction_id: string | null; paid_on: string | null; expires_on: string | null; created_on: string;
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
});

const rowOf = (link: QuickPaymentRecord): Row => ({
  id: link.id, merchant_id: link.merchantId, amount_cents: link.amountCents, description: link.description, status: link.status,
  transaction_id: link.transactionId, paid_on: link.paidOn, expires_on: link.expiresOn, created_on: link.createdOn,
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

/** Writes a move's status and payment; false when the link is gone. */
export async function updateQuickPayment(db: Knex, link: QuickPaymentRecord): Promise<boolean> {
  const changed = await db('quick_payments').where({ merchant_id: link.merchantId, id: link.id })
    .update({ status: link.status, transaction_id: link.transactionId, paid_on: link.paidOn });
  return changed === 1;
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
