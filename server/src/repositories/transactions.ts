// Card and ACH transactions, their status history and card settlement batches (Knex only). Amounts are
// integer cents; date-times fixed-width ISO text.
import type { Knex } from 'knex';
import type { PaymentMethodType } from '@pgw/client/enums';
import { isPostgres } from '../db/knex.ts';
import { insertRow, insertRows } from './compiled.ts';
import { locked, lockRow, updateLater } from '../platform/transaction.ts';
import { type Cents, centsOrNullOfColumn } from '../platform/money.ts';

export type DueAction = 'submit' | 'clear' | 'settle' | 'expire';

export interface TransactionRecord {
  id: string;
  merchantId: string;
  paymentMethodTypeId: PaymentMethodType;
  typeId: number;
  statusId: number;
  processorId: string;
  creatorTypeId: number;
  amountCents: Cents;
  tipAmountCents: Cents;
  approvedAmountCents: Cents | null;
  processedAmountCents: Cents;
  refundedAmountCents: Cents;
  responseCode: string | null;
  responseDescription: string | null;
  authorizationCode: string | null;
  returnCode: string | null;
  customerId: string | null;
  paymentMethodId: string | null;
  invoiceId: string | null;
  panMask: string | null;
  cardType: number | null;
  avsResult: string | null;
  cvvResult: string | null;
  accountLast4: string | null;
  routingNumber: string | null;
  secCode: number | null;
  isFasterProcessing: boolean;
  sandboxOutcome: string | null;
  orderNumber: string | null;
  description: string | null;
  /** ACH: when the payer authorized the withdrawal (invoice payments), for the compliance audit. */
  authorizationConsentOn: string | null;
  createdOn: string;
  modifiedOn: string;
  submittedOn: string | null;
  settledOn: string | null;
  expiresAt: string | null;
  dueAction: DueAction | null;
  dueAt: string | null;
  settlementBatchId: string | null;
}

/** The columns a transition may change (besides the status). */
export type TransactionChanges = Partial<Omit<TransactionRecord, 'id' | 'merchantId' | 'paymentMethodTypeId' | 'typeId' | 'createdOn'>>;

const COLUMNS: Record<keyof TransactionRecord, string> = {
  id: 'id', merchantId: 'merchant_id', paymentMethodTypeId: 'payment_method_type_id', typeId: 'type_id', statusId: 'status_id',
  processorId: 'processor_id', creatorTypeId: 'creator_type_id', amountCents: 'amount_cents', tipAmountCents: 'tip_amount_cents',
  approvedAmountCents: 'approved_amount_cents', processedAmountCents: 'processed_amount_cents', refundedAmountCents: 'refunded_amount_cents',
  responseCode: 'response_code', responseDescription: 'response_description', authorizationCode: 'authorization_code',
  returnCode: 'return_code', customerId: 'customer_id', paymentMethodId: 'payment_method_id', invoiceId: 'invoice_id',
  panMask: 'pan_mask', cardType: 'card_type', avsResult: 'avs_result', cvvResult: 'cvv_result', accountLast4: 'account_last4',
  routingNumber: 'routing_number', secCode: 'sec_code', isFasterProcessing: 'is_faster_processing', sandboxOutcome: 'sandbox_outcome',
  orderNumber: 'order_number', description: 'description', authorizationConsentOn: 'authorization_consent_on', createdOn: 'created_on', modifiedOn: 'modified_on',
  submittedOn: 'submitted_on', settledOn: 'settled_on', expiresAt: 'expires_at', dueAction: 'due_action', dueAt: 'due_at',
  settlementBatchId: 'settlement_batch_id',
};

const CENTS = new Set<keyof TransactionRecord>(['amountCents', 'tipAmountCents', 'approvedAmountCents', 'processedAmountCents', 'refundedAmountCents']);

function columnsOf(values: Partial<TransactionRecord>): Record<string, unknown> {
  const row: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(values) as [keyof TransactionRecord, unknown][]) {
    if (value !== undefined) row[COLUMNS[key]] = value;
  }
  return row;
}

type Row = Record<string, unknown>;

/** How each field is read from its column: taken once (a clock advance reads 10,000 records at a time). */
const READS = (Object.entries(COLUMNS) as [keyof TransactionRecord, string][]).map(([key, column]) => ({
  key, column, kind: CENTS.has(key) ? 'cents' as const : key === 'isFasterProcessing' ? 'boolean' as const : 'value' as const,
}));

export function recordOf(row: Row): TransactionRecord {
  const record: Record<string, unknown> = {};
  for (const { key, column, kind } of READS) {
    const value = row[column];
    // PostgreSQL returns bigint as text; SQLite booleans as 0/1.
    record[key] = kind === 'cents' ? centsOrNullOfColumn(value as number | string | null | undefined) : kind === 'boolean' ? Boolean(value) : value ?? null;
  }
  return record as unknown as TransactionRecord;
}

export async function insertTransaction(db: Knex, record: TransactionRecord): Promise<void> {
  await insertRow(db, 'transactions', columnsOf(record));
}

export async function findTransaction(db: Knex, merchantId: string, id: string): Promise<TransactionRecord | undefined> {
  const row = (await db('transactions').where({ merchant_id: merchantId, id }).first()) as Row | undefined;
  return row ? recordOf(row) : undefined;
}

/** The transaction, locked until the transaction `tx` ends (through the one row-lock helper). */
export async function lockTransaction(tx: Knex.Transaction, merchantId: string, id: string): Promise<TransactionRecord | undefined> {
  const row = await lockRow<Row>(tx, 'transactions', { merchant_id: merchantId, id }, { strength: 'update' });
  return row ? recordOf(row) : undefined;
}

/** Changes every transaction of `ids` still in status `from` the same way; returns how many changed. */
export async function changeTransactions(db: Knex, ids: readonly string[], from: number, changes: TransactionChanges): Promise<number> {
  // PostgreSQL takes the ids as one array value: a clock advance moves 10,000 at once, 50 statements in chunks.
  if (isPostgres(db)) return db('transactions').whereRaw('id = any(?)', [[...ids]]).andWhere({ status_id: from }).update(columnsOf(changes));
  let count = 0;
  for (let i = 0; i < ids.length; i += CHUNK) {
    count += await db('transactions').whereIn('id', ids.slice(i, i + CHUNK)).andWhere({ status_id: from }).update(columnsOf(changes));
  }
  return count;
}

/** Rows per statement of the batch forms on SQLite (well under its bound on parameters). */
const CHUNK = 200;

export interface HistoryEntry {
  id: string;
  transactionId: string;
  fromStatusId: number | null;
  toStatusId: number;
  trigger: string;
  responseCode: string | null;
  returnCode: string | null;
  createdOn: string;
}

/** Appends history entries, many rows a statement. */
export async function addHistory(db: Knex, entries: readonly HistoryEntry[]): Promise<void> {
  await insertRows(db, 'transaction_history', entries.map((entry) => ({
    id: entry.id, transaction_id: entry.transactionId, from_status_id: entry.fromStatusId, to_status_id: entry.toStatusId,
    trigger: entry.trigger, response_code: entry.responseCode, return_code: entry.returnCode, created_on: entry.createdOn,
  })));
}

export async function historyOf(db: Knex, transactionId: string): Promise<HistoryEntry[]> {
  const rows = (await db('transaction_history').where({ transaction_id: transactionId }).orderBy([{ column: 'created_on' }, { column: 'id' }])) as Row[];
  return rows.map((r) => ({
    id: String(r.id), transactionId: String(r.transaction_id), fromStatusId: r.from_status_id === null ? null : Number(r.from_status_id),
    toStatusId: Number(r.to_status_id), trigger: String(r.trigger), responseCode: (r.response_code as string | null) ?? null,
    returnCode: (r.return_code as string | null) ?? null, createdOn: String(r.created_on),
  }));
}

/** The earliest due time of the merchant's transactions, at or before `until`; undefined when nothing is due. */
export async function earliestDue(db: Knex, merchantId: string, until: string): Promise<string | undefined> {
  const row = (await db('transactions').where({ merchant_id: merchantId }).andWhere('due_at', '<=', until).min({ at: 'due_at' }).first()) as { at: string | null } | undefined;
  return row?.at ?? undefined;
}

/**
 * Up to `limit` of the merchant's transactions due at exactly `at`, locked for this transaction. On
 * PostgreSQL the worker skips rows another transaction holds (two instances never take the same one), while
 * `wait` (the sandbox clock advance, which must run everything due before it answers) waits for them: a
 * command holding one only briefly, and a row another runner changed meanwhile is no longer due at `at`.
 */
export async function claimDue(tx: Knex, merchantId: string, at: string, limit: number, wait = false): Promise<TransactionRecord[]> {
  const query = tx('transactions').where({ merchant_id: merchantId, due_at: at }).orderBy('id').limit(limit);
  const rows = (await locked(tx, query, { strength: 'update', skip: !wait })) as Row[];
  return rows.map(recordOf);
}

/** Merchants with anything due at or before `until` (business time of a merchant whose clock is that far ahead). */
export async function merchantsWithDue(db: Knex, until: string): Promise<string[]> {
  const rows = (await db('transactions').distinct('merchant_id').whereNotNull('due_at').andWhere('due_at', '<=', until)) as { merchant_id: string }[];
  return rows.map((r) => r.merchant_id);
}

export interface BatchRecord {
  id: string;
  merchantId: string;
  processorId: string;
  openedOn: string;
  settledOn: string;
  transactionCount: number;
  saleAmountCents: Cents;
  refundAmountCents: Cents;
}

export async function insertBatch(db: Knex, batch: BatchRecord): Promise<void> {
  await db('settlement_batches').insert({
    id: batch.id, merchant_id: batch.merchantId, processor_id: batch.processorId, opened_on: batch.openedOn, settled_on: batch.settledOn,
    transaction_count: batch.transactionCount, sale_amount_cents: batch.saleAmountCents, refund_amount_cents: batch.refundAmountCents,
  });
}

/** The settled time of the processor's previous batch; undefined before the first. */
export async function previousBatchOn(db: Knex, merchantId: string, processorId: string): Promise<string | undefined> {
  const row = (await db('settlement_batches').where({ merchant_id: merchantId, processor_id: processorId }).max({ at: 'settled_on' }).first()) as { at: string | null } | undefined;
  return row?.at ?? undefined;
}

/** A customer's approved payment is counted on its record (transactionsCount, volume, last payment). */
export async function countCustomerPayment(db: Knex, customerId: string, amountCents: Cents, on: string): Promise<void> {
  await updateLater(db, db('customers').where({ id: customerId }).update({
    transactions_count: db.raw('transactions_count + 1'),
    transactions_volume_cents: db.raw('transactions_volume_cents + ?', [amountCents]),
    last_transaction_on: on,
    last_transaction_amount_cents: amountCents,
  }));
}

/** A counted payment that is voided, cancelled or returned no longer counts. */
export async function uncountCustomerPayment(db: Knex, customerId: string, amountCents: Cents): Promise<void> {
  await updateLater(db, db('customers').where({ id: customerId }).update({
    transactions_count: db.raw('case when transactions_count > 0 then transactions_count - 1 else 0 end'),
    transactions_volume_cents: db.raw('case when transactions_volume_cents >= ? then transactions_volume_cents - ? else 0 end', [amountCents, amountCents]),
  }));
}

/** Nothing more falls due for the transaction (its due action no longer applies to its status). */
export async function clearDue(db: Knex, id: string): Promise<void> {
  await db('transactions').where({ id }).update({ due_action: null, due_at: null });
}

/** Every merchant's sandbox clock offset (ms) above 0; production has none. */
export async function clockOffsets(db: Knex): Promise<Map<string, number>> {
  const rows = await db('merchants').where('clock_offset_ms', '>', 0).select<{ id: string; clock_offset_ms: number | string }[]>('id', 'clock_offset_ms');
  return new Map(rows.map((r) => [r.id, Number(r.clock_offset_ms)]));
}

export async function setClockOffset(db: Knex, merchantId: string, offsetMs: number): Promise<void> {
  await db('merchants').where({ id: merchantId }).update({ clock_offset_ms: offsetMs });
}
