// Webhook deliveries and their attempts (Knex only). A delivery is one event to one endpoint (Scheduled, from
// the event's fan-out; unique per event and endpoint) or a manual retry (Manual). Due times are business
// times of the merchant; leases are wall-clock times.
import { newId } from '../platform/ids.ts';
import type { Knex } from 'knex';
import { isPostgres } from '../db/knex.ts';
import { insertLater, locked } from '../platform/transaction.ts';
import { activeEndpoints } from './webhook-endpoints.ts';
import { pageOf, type ListQuery, type ListSpec } from './paging.ts';
import { insertRows } from './compiled.ts';

export type DeliveryStatus = 'Pending' | 'Succeeded' | 'Failed';

export interface DeliveryRecord {
  id: string;
  merchantId: string;
  endpointId: string;
  eventId: string;
  eventType: string;
  status: DeliveryStatus;
  triggerType: 'Scheduled' | 'Manual';
  attemptNumber: number;
  nextRetryAt: string | null;
  lastAttemptAt: string | null;
  responseStatusCode: number | null;
  responseDurationMs: number | null;
  createdOn: string;
}

export interface Row {
  id: string; merchant_id: string; endpoint_id: string; event_id: string; event_type: string; status: DeliveryStatus;
  trigger_type: 'Scheduled' | 'Manual'; attempt_number: number | string; next_retry_at: string | null; last_attempt_at: string | null;
  response_status_code: number | string | null; response_duration_ms: number | string | null; created_on: string;
}

export const recordOf = (r: Row): DeliveryRecord => ({
  id: r.id, merchantId: r.merchant_id, endpointId: r.endpoint_id, eventId: r.event_id, eventType: r.event_type, status: r.status,
  triggerType: r.trigger_type, attemptNumber: Number(r.attempt_number), nextRetryAt: r.next_retry_at, lastAttemptAt: r.last_attempt_at,
  responseStatusCode: r.response_status_code === null ? null : Number(r.response_status_code),
  responseDurationMs: r.response_duration_ms === null ? null : Number(r.response_duration_ms), createdOn: r.created_on,
});

const CHUNK = 200;

/**
 * The fan-out of a merchant's events: one Pending delivery, due at once, for each event and each active webhook
 * of the merchant that selects its type now. On PostgreSQL one insert reads the webhooks itself, held with the
 * events' own inserts (`insertLater`: no round trip of its own); on SQLite the webhooks are read, then inserted.
 */
/** Schedules the deliveries of events to the merchant's endpoints; false when it surely scheduled none. */
export async function insertFanOut(db: Knex, merchantId: string, events: readonly { eventId: string; eventType: string; at: string }[]): Promise<boolean> {
  if (!isPostgres(db)) {
    const endpoints = await activeEndpoints(db, merchantId);
    if (endpoints.length === 0) return false;
    const rows = events.flatMap((e) => endpoints.filter((p) => p.eventTypes.includes(e.eventType))
      .map((p) => ({ merchantId, endpointId: p.id, eventId: e.eventId, eventType: e.eventType, at: e.at })));
    await insertScheduled(db, rows);
    return rows.length > 0;
  }
  // The events as one JSON value (a clock advance fans out 10,000 at once).
  await insertLater(db, db.raw(`insert into webhook_deliveries (id, merchant_id, endpoint_id, event_id, event_type, status, trigger_type, attempt_number, next_retry_at, created_on)
    select gen_random_uuid()::text, e.merchant_id, e.id, v.event_id, v.event_type, 'Pending', 'Scheduled', 1, v.at, v.at
      from json_to_recordset(?::json) as v (event_id text, event_type text, at text)
      join webhook_endpoints e on e.merchant_id = ? and e.is_active and e.deleted_on is null and jsonb_exists(e.event_types::jsonb, v.event_type)`,
  [JSON.stringify(events.map((e) => ({ event_id: e.eventId, event_type: e.eventType, at: e.at }))), merchantId]));
  // Held to the commit with the rest (insertLater): how many it made is not known here.
  return true;
}

/** The fan-out's deliveries (SQLite), many rows a statement. */
async function insertScheduled(db: Knex, rows: readonly { merchantId: string; endpointId: string; eventId: string; eventType: string; at: string }[]): Promise<void> {
  await insertRows(db, 'webhook_deliveries', rows.map((r) => ({
    id: newId(), merchant_id: r.merchantId, endpoint_id: r.endpointId, event_id: r.eventId, event_type: r.eventType,
    status: 'Pending', trigger_type: 'Scheduled', attempt_number: 1, next_retry_at: r.at, created_on: r.at,
  })));
}

export async function insertManual(db: Knex, d: { merchantId: string; endpointId: string; eventId: string; eventType: string; at: string }): Promise<string> {
  const id = newId();
  await db('webhook_deliveries').insert({
    id, merchant_id: d.merchantId, endpoint_id: d.endpointId, event_id: d.eventId, event_type: d.eventType,
    status: 'Pending', trigger_type: 'Manual', attempt_number: 1, next_retry_at: null, created_on: d.at,
  });
  return id;
}

export async function findDelivery(db: Knex, merchantId: string, id: string): Promise<DeliveryRecord | undefined> {
  const row = await db('webhook_deliveries').where({ merchant_id: merchantId, id }).first<Row | undefined>();
  return row ? recordOf(row) : undefined;
}

/** A webhook's Pending deliveries, locked until the transaction ends (its deletion fails them through the machine). */
export async function lockPendingOf(tx: Knex.Transaction, endpointId: string): Promise<DeliveryRecord[]> {
  const rows = await locked(tx, tx('webhook_deliveries').where({ endpoint_id: endpointId, status: 'Pending' }).orderBy('id')).select<Row[]>();
  return rows.map(recordOf);
}

/** Merchants with Pending deliveries due at or before `until` (business time of the furthest clock). */
export async function merchantsWithDueDeliveries(db: Knex, until: string): Promise<string[]> {
  const rows = await db('webhook_deliveries').distinct('merchant_id').where({ status: 'Pending' }).andWhere('next_retry_at', '<=', until).select<{ merchant_id: string }[]>();
  return rows.map((r) => r.merchant_id);
}

/**
 * How many of the merchant's Pending deliveries to an active webhook are due at or before `until` (business
 * time): the attempts queued (one due while its webhook is paused fails without an attempt).
 */
export async function countDueDeliveries(db: Knex, merchantId: string, until: string): Promise<number> {
  const row = await db('webhook_deliveries as d').join('webhook_endpoints as e', 'e.id', 'd.endpoint_id')
    .where({ 'd.merchant_id': merchantId, 'd.status': 'Pending', 'e.is_active': true }).whereNull('e.deleted_on').andWhere('d.next_retry_at', '<=', until)
    .count<{ n: number | string }[]>({ n: '*' }).first();
  return Number(row?.n ?? 0);
}

/**
 * Claims up to `limit` of the merchant's Pending deliveries due at or before `until` whose lease is free
 * (none, or lapsed before `wallNow`), earliest first, leasing them until `leaseUntil` (wall clock). On
 * PostgreSQL the rows are read FOR UPDATE SKIP LOCKED, so two instances never claim the same delivery. In the
 * caller's transaction.
 */
export async function claimDue(tx: Knex.Transaction, merchantId: string, until: string, wallNow: string, leaseUntil: string, limit: number): Promise<DeliveryRecord[]> {
  const query = tx('webhook_deliveries').where({ merchant_id: merchantId, status: 'Pending' }).andWhere('next_retry_at', '<=', until)
    .andWhere((q) => { void q.whereNull('lease_until').orWhere('lease_until', '<', wallNow); })
    .orderBy([{ column: 'next_retry_at' }, { column: 'id' }]).limit(limit);
  const rows = await locked(tx, query, { strength: 'update', skip: true }).select<Row[]>('*');
  if (rows.length > 0) await tx('webhook_deliveries').whereIn('id', rows.map((r) => r.id)).update({ lease_until: leaseUntil });
  return rows.map(recordOf);
}

/**
 * Leases a Pending delivery the caller has locked until `leaseUntil` (wall clock), unless its lease is held (a
 * claim's attempt in flight): so the delivery engine does not claim it while a manual retry's attempt is made.
 * False when the lease is held. In the caller's transaction.
 */
export async function holdLease(tx: Knex.Transaction, id: string, wallNow: string, leaseUntil: string): Promise<boolean> {
  return (await tx('webhook_deliveries').where({ id, status: 'Pending' })
    .andWhere((q) => { void q.whereNull('lease_until').orWhere('lease_until', '<', wallNow); })
    .update({ lease_until: leaseUntil })) > 0;
}

/** Frees the lease `holdLease` took, if it is still that one (a move of the delivery frees it too). */
export async function releaseLease(db: Knex, id: string, leaseUntil: string): Promise<void> {
  await db('webhook_deliveries').where({ id, lease_until: leaseUntil }).update({ lease_until: null });
}

export interface AttemptRecord {
  deliveryId: string;
  attemptNumber: number;
  attemptedOn: string;
  responseStatusCode: number | null;
  durationMs: number;
  outcome: string;
  responseExcerpt: string | null;
}

/** The columns a move of a delivery writes, each with the SQL type its bound value is cast to. */
const MOVED: readonly (readonly [column: string, type: 'varchar(24)' | 'integer', value: (d: DeliveryRecord) => string | number | null])[] = [
  ['status', 'varchar(24)', (d) => d.status],
  ['attempt_number', 'integer', (d) => d.attemptNumber],
  ['next_retry_at', 'varchar(24)', (d) => d.nextRetryAt],
  ['last_attempt_at', 'varchar(24)', (d) => d.lastAttemptAt],
  ['response_status_code', 'integer', (d) => d.responseStatusCode],
  ['response_duration_ms', 'integer', (d) => d.responseDurationMs],
];

/**
 * Writes deliveries' state after moves of their machine (status, attempt number, next due time, the last attempt's
 * answer) and frees their leases: one statement for up to CHUNK of them (an UPDATE from a VALUES list, which
 * both engines name column1, column2, ...). Returns how many rows it changed (fewer when some are gone). Run it
 * in the transaction that locked them.
 */
export async function changeDeliveries(db: Knex, deliveries: readonly DeliveryRecord[]): Promise<number> {
  let changed = 0;
  for (let i = 0; i < deliveries.length; i += CHUNK) {
    const chunk = deliveries.slice(i, i + CHUNK);
    // Every value cast: PostgreSQL types a VALUES list by its first row, and a null there has no type.
    const row = `(cast(? as varchar(36)), ${MOVED.map(([, type]) => `cast(? as ${type})`).join(', ')})`;
    const sets = MOVED.map(([column], n) => `${column} = v.column${String(n + 2)}`).join(', ');
    changed += await db.raw(
      `update webhook_deliveries set ${sets}, lease_until = null from (values ${chunk.map(() => row).join(', ')}) as v where webhook_deliveries.id = v.column1`,
      chunk.flatMap((d) => [d.id, ...MOVED.map(([, , value]) => value(d))]),
    ).then((result: unknown) => rowsChanged(result));
  }
  return changed;
}

/** The row count of a raw UPDATE's result (pg: rowCount; SQLite through Knex: changes). */
function rowsChanged(result: unknown): number {
  const r = result as { rowCount?: unknown; changes?: unknown } | undefined;
  return Number(r?.rowCount ?? r?.changes ?? 0);
}

/** Records attempts (the deliveries' history), in the transaction of the deliveries' change: one statement for up to CHUNK. */
export async function insertAttempts(db: Knex, attempts: readonly AttemptRecord[]): Promise<void> {
  for (let i = 0; i < attempts.length; i += CHUNK) {
    await db('webhook_attempts').insert(attempts.slice(i, i + CHUNK).map((attempt) => ({
      id: newId(), delivery_id: attempt.deliveryId, attempt_number: attempt.attemptNumber, attempted_on: attempt.attemptedOn,
      response_status_code: attempt.responseStatusCode, duration_ms: attempt.durationMs, outcome: attempt.outcome, response_excerpt: attempt.responseExcerpt,
    })));
  }
}

export async function attemptsOf(db: Knex, deliveryId: string): Promise<AttemptRecord[]> {
  const rows = await db('webhook_attempts').where({ delivery_id: deliveryId }).orderBy('attempt_number').select<Record<string, unknown>[]>('*');
  return rows.map((r) => ({
    deliveryId: String(r.delivery_id), attemptNumber: Number(r.attempt_number), attemptedOn: String(r.attempted_on),
    responseStatusCode: r.response_status_code === null ? null : Number(r.response_status_code), durationMs: Number(r.duration_ms),
    outcome: String(r.outcome), responseExcerpt: (r.response_excerpt as string | null) ?? null,
  }));
}

export interface LogFilter { status?: string; eventType?: string; webhookId?: string }

const LOG: ListSpec = {
  orderable: { createdOn: 'created_on', lastAttemptAt: 'last_attempt_at', nextRetryAt: 'next_retry_at', eventType: 'event_type', status: 'status', attemptNumber: 'attempt_number' },
  defaultOrder: 'createdOn',
  searchable: ['event_type'],
  dateColumn: 'created_on',
  idColumn: 'id',
};

function filtered(db: Knex, merchantId: string, filter: LogFilter): Knex.QueryBuilder {
  const query = db('webhook_deliveries').where({ merchant_id: merchantId });
  if (filter.status) void query.andWhere({ status: filter.status });
  if (filter.eventType) void query.andWhere({ event_type: filter.eventType });
  if (filter.webhookId) void query.andWhere({ endpoint_id: filter.webhookId.toLowerCase() });
  return query;
}

export async function listDeliveries(db: Knex, merchantId: string, filter: LogFilter, list: ListQuery): Promise<{ items: DeliveryRecord[]; total: number }> {
  const { rows, total } = await pageOf(filtered(db, merchantId, filter), list, LOG);
  return { items: (rows as unknown as Row[]).map(recordOf), total };
}

/** Every matching entry (at most `limit`), oldest first, a page at a time: the export streams them. */
export async function* exportDeliveries(db: Knex, merchantId: string, filter: LogFilter, list: ListQuery, limit: number): AsyncGenerator<DeliveryRecord> {
  let sent = 0;
  for (let page = 0; sent < limit; page++) {
    const { rows } = await pageOf(filtered(db, merchantId, filter), { ...list, page, pageSize: 100, orderBy: 'createdOn', asc: true }, LOG);
    if (rows.length === 0) return;
    for (const row of rows as unknown as Row[]) {
      if (sent >= limit) return;
      sent += 1;
      yield recordOf(row);
    }
  }
}
