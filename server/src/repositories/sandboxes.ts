// Disposable sandbox merchants (Knex only): a merchant with `sandbox_expires_at` set; `deleting_on` marks one
// whose deletion has begun (it is then invisible to authentication, tenancy and these lists).
import type { Knex } from 'knex';
import { PaymentProcessorType } from '@pgw/client/enums';
import { locked } from '../platform/transaction.ts';
import { pageOf, type ListQuery } from './paging.ts';

export interface SandboxRecord {
  merchantId: string;
  name: string;
  cardProcessorId: string;
  achProcessorId: string;
  expiresAt: string;
  createdOn: string;
}

interface Row { id: string; company_name: string; sandbox_expires_at: string; created_on: string }

/** The partner's sandbox merchants that are not being deleted. */
const liveOf = (db: Knex, partnerId: string): Knex.QueryBuilder =>
  db('merchants').where({ partner_id: partnerId }).whereNotNull('sandbox_expires_at').whereNull('deleting_on');

/** The default processors of each merchant, by merchant id. */
async function processorsOf(db: Knex, merchantIds: readonly string[]): Promise<Map<string, { card: string; ach: string }>> {
  const rows = merchantIds.length === 0 ? [] : await db('payment_processors').whereIn('merchant_id', merchantIds)
    .orderBy([{ column: 'merchant_id' }, { column: 'is_default', order: 'asc' }, { column: 'id' }])
    .select<{ id: string; merchant_id: string; type_id: number }[]>('id', 'merchant_id', 'type_id');
  const found = new Map<string, { card: string; ach: string }>();
  // The default one comes last in each merchant's rows (false sorts first), so it wins.
  for (const row of rows) {
    const entry = found.get(row.merchant_id) ?? { card: '', ach: '' };
    if (row.type_id === PaymentProcessorType.CardProcessor) entry.card = row.id;
    else entry.ach = row.id;
    found.set(row.merchant_id, entry);
  }
  return found;
}

async function toRecords(db: Knex, rows: readonly Row[]): Promise<SandboxRecord[]> {
  const processors = await processorsOf(db, rows.map((r) => r.id));
  return rows.map((row) => ({
    merchantId: row.id,
    name: row.company_name,
    cardProcessorId: processors.get(row.id)?.card ?? '',
    achProcessorId: processors.get(row.id)?.ach ?? '',
    expiresAt: row.sandbox_expires_at,
    createdOn: row.created_on,
  }));
}

export async function countSandboxes(db: Knex, partnerId: string): Promise<number> {
  const row = (await liveOf(db, partnerId).count({ n: '*' }).first()) as { n: number | string } | undefined;
  return Number(row?.n ?? 0);
}

export async function listSandboxes(db: Knex, partnerId: string, list: ListQuery): Promise<{ items: SandboxRecord[]; total: number }> {
  const { rows, total } = await pageOf(liveOf(db, partnerId), list, {
    orderable: { createdOn: 'created_on', expiresAt: 'sandbox_expires_at', name: 'lower(company_name)' },
    defaultOrder: 'createdOn',
    searchable: ['company_name', 'id'],
    dateColumn: 'created_on',
    idColumn: 'id',
  });
  return { items: await toRecords(db, rows as unknown as Row[]), total };
}

export async function findSandbox(db: Knex, partnerId: string, merchantId: string): Promise<(SandboxRecord & { deleting: boolean }) | undefined> {
  const row = (await db('merchants').where({ id: merchantId, partner_id: partnerId }).whereNotNull('sandbox_expires_at').first()) as (Row & { deleting_on: string | null }) | undefined;
  if (!row) return undefined;
  const [record] = await toRecords(db, [row]);
  return record && { ...record, deleting: row.deleting_on !== null };
}

/** Marks the merchant as being deleted (once: an earlier mark stays). */
export async function markDeleting(db: Knex, merchantId: string, now: string): Promise<void> {
  await db('merchants').where({ id: merchantId }).whereNull('deleting_on').update({ deleting_on: now });
}

/** Sandboxes to sweep: expired ones, and deletions that did not finish (a crash), oldest first. */
export async function sweepable(db: Knex, wallNow: string, limit: number): Promise<string[]> {
  const rows = await db('merchants')
    .where((q) => { void q.whereNotNull('deleting_on').orWhere('sandbox_expires_at', '<=', wallNow); })
    .orderBy('created_on').limit(limit).select<{ id: string }[]>('id');
  return rows.map((r) => r.id);
}

/** Whether the merchant is gone or being deleted (a request that raced its deletion). */
export async function isGoneOrDeleting(db: Knex, merchantId: string): Promise<boolean> {
  const row = await db('merchants').where({ id: merchantId }).first<{ deleting_on: string | null } | undefined>('deleting_on');
  return !row || row.deleting_on !== null;
}

/**
 * Locks the merchant's row against every write of the merchant (PostgreSQL: FOR UPDATE conflicts with the key
 * share lock that inserting any row referring to it takes): a removal batch then runs while the merchant's
 * requests wait, rather than interleaving with them row by row (which deadlocked). SQLite has one writer.
 */
export async function lockMerchant(tx: Knex.Transaction, merchantId: string): Promise<void> {
  await locked(tx, tx('merchants').where({ id: merchantId }).first('id'), { strength: 'update' });
}
