// Reads of the event stream: a merchant's (or all of a partner's merchants') outbox events after a cursor, in
// commit order, never one that could still appear behind the cursor (the columns: migrations/011_event_stream.ts).
import type { Knex } from 'knex';
import { isPostgres } from '../db/knex.ts';
import type { StoredEvent } from '../platform/outbox.ts';

/**
 * A position in a merchant's stream: after the event (xid, seq); xid is a decimal string (64-bit on PostgreSQL).
 * `openedIn` (PostgreSQL, a stream opened without Last-Event-ID): the snapshot the stream opened in, whose
 * events past the position are older than the stream and are skipped (see streamStart).
 */
export interface StreamCursor { xid: string; seq: number; openedIn?: string }

export interface StreamedEvent extends StoredEvent { cursor: StreamCursor }

/**
 * Whose events a stream follows: one merchant's, or every merchant of a partner (those it creates while the
 * stream is open included: the set is read by each query, so a new sandbox merchant's merchant.created arrives).
 */
export type StreamOwner = { merchantId: string } | { partnerId: string };

/** The owner's condition on outbox_events, as SQL and bindings (the start query is raw SQL). */
function ownerSql(owner: StreamOwner): { sql: string; bindings: string[] } {
  return 'merchantId' in owner
    ? { sql: 'merchant_id = ?', bindings: [owner.merchantId] }
    : { sql: 'merchant_id in (select id from merchants where partner_id = ? and deleting_on is null)', bindings: [owner.partnerId] };
}

interface Row { id: string; merchant_id: string; type: string; payload: string; occurred_on: string; stream_xid: string | number; stream_seq: string | number }

const cursorOf = (row: Pick<Row, 'stream_xid' | 'stream_seq'>): StreamCursor => ({ xid: String(row.stream_xid), seq: Number(row.stream_seq) });

/**
 * Only rows final for every reader: on PostgreSQL those of transactions older than the oldest one still
 * running (a younger transaction's rows may commit, or roll back, later); on SQLite every committed row.
 */
function settled(db: Knex, query: Knex.QueryBuilder): Knex.QueryBuilder {
  return isPostgres(db) ? query.whereRaw('stream_xid < pg_snapshot_xmin(pg_current_snapshot())') : query;
}

/**
 * `allSettled`: the start names the newest event the opening saw. When false (PostgreSQL, a younger transaction
 * of the merchant's committed while an older one anywhere in the cluster still runs), the start names an older
 * event, and a client resuming from it receives events that predate the stream; the caller may ask again.
 */
export interface StreamStart { cursor: StreamCursor; afterId: string | undefined; allSettled: boolean }

/**
 * Where a stream opened now starts. On SQLite: after the merchant's last event. On PostgreSQL a position alone
 * cannot say it: the cursor may only stand on settled rows (older than every running transaction), yet events of
 * younger transactions that have committed already are as old as the stream's opening, and a transaction that
 * holds the oldest position (any connection's, on a busy database) can make that hundreds of events. So the start
 * is the last settled event AND the snapshot the opening read in (`openedIn`): past the cursor, what that
 * snapshot saw had happened before the stream opened and is never sent; what it did not see is.
 */
export async function streamStart(db: Knex, owner: StreamOwner): Promise<StreamStart> {
  const own = ownerSql(owner);
  if (!isPostgres(db)) {
    const row = await db('outbox_events').whereRaw(own.sql, own.bindings).orderBy('stream_seq', 'desc')
      .first<Pick<Row, 'id' | 'stream_xid' | 'stream_seq'> | undefined>('id', 'stream_xid', 'stream_seq');
    return row ? { cursor: cursorOf(row), afterId: row.id, allSettled: true } : { cursor: { xid: '0', seq: 0 }, afterId: undefined, allSettled: true };
  }
  // One statement: the settled position, the newest event seen and the snapshot come from the same view.
  const { rows } = await db.raw<{ rows: { id: string | null; stream_xid: string | null; stream_seq: string | null; newest_id: string | null; opened_in: string }[] }>(
    `select last.id, last.stream_xid, last.stream_seq, newest.id as newest_id, pg_current_snapshot()::text as opened_in
       from (select 1) as one
       left join lateral (select id, stream_xid, stream_seq from outbox_events
                           where ${own.sql} and stream_xid < pg_snapshot_xmin(pg_current_snapshot())
                           order by stream_xid desc, stream_seq desc limit 1) as last on true
       left join lateral (select id from outbox_events where ${own.sql}
                           order by stream_xid desc, stream_seq desc limit 1) as newest on true`, [...own.bindings, ...own.bindings]);
  const row = rows[0];
  if (!row) throw new Error('event stream: the start query answered no row');
  const openedIn = row.opened_in;
  const allSettled = row.newest_id === row.id;
  return row.id !== null && row.stream_xid !== null && row.stream_seq !== null
    ? { cursor: { ...cursorOf({ stream_xid: row.stream_xid, stream_seq: row.stream_seq }), openedIn }, afterId: row.id, allSettled }
    : { cursor: { xid: '0', seq: 0, openedIn }, afterId: undefined, allSettled };
}

/**
 * The position of one of the owner's events (for Last-Event-ID), kept after the event was deleted (a sandbox
 * reset or deleted: stream_tombstones); undefined when the owner never had such an event.
 */
export async function positionOf(db: Knex, owner: StreamOwner, eventId: string): Promise<StreamCursor | undefined> {
  const own = ownerSql(owner);
  const row = await db('outbox_events').where({ id: eventId }).whereRaw(own.sql, own.bindings)
    .first<Pick<Row, 'stream_xid' | 'stream_seq'> | undefined>('stream_xid', 'stream_seq');
  if (row) return cursorOf(row);
  const gone = await db('stream_tombstones').where({ event_id: eventId })
    .where('merchantId' in owner ? { merchant_id: owner.merchantId } : { partner_id: owner.partnerId })
    .first<Pick<Row, 'stream_xid' | 'stream_seq'> | undefined>('stream_xid', 'stream_seq');
  return gone ? cursorOf(gone) : undefined;
}

/** Whether the opening snapshot can still have seen events past this xid (it saw none from its xmax on). */
function stillOpening(openedIn: string | undefined, xid: string | number): openedIn is string {
  if (openedIn === undefined) return false;
  const xmax = openedIn.split(':')[1];
  return xmax === undefined || BigInt(String(xid)) < BigInt(xmax);
}

/** The owner's settled events after the cursor, of the given types (all when empty), oldest first. */
export async function eventsAfter(db: Knex, owner: StreamOwner, after: StreamCursor, types: readonly string[], limit: number): Promise<StreamedEvent[]> {
  const own = ownerSql(owner);
  let query = db('outbox_events').whereRaw(own.sql, own.bindings);
  query = isPostgres(db)
    ? query.whereRaw('(stream_xid, stream_seq) > (?::xid8, ?)', [after.xid, after.seq])
    : query.where('stream_seq', '>', after.seq);
  if (after.openedIn !== undefined) query = query.whereRaw('not pg_visible_in_snapshot(stream_xid, ?::pg_snapshot)', [after.openedIn]);
  if (types.length > 0) query = query.whereIn('type', [...types]);
  const rows = await settled(db, query)
    .orderBy([{ column: 'stream_xid', order: 'asc' }, { column: 'stream_seq', order: 'asc' }])
    .limit(limit)
    .select<Row[]>('id', 'merchant_id', 'type', 'payload', 'occurred_on', 'stream_xid', 'stream_seq');
  return rows.map((row) => ({
    id: row.id, merchantId: row.merchant_id, type: row.type, data: JSON.parse(row.payload) as unknown, occurredOn: row.occurred_on, cursor: { ...cursorOf(row), ...(stillOpening(after.openedIn, row.stream_xid) ? { openedIn: after.openedIn } : {}) },
  }));
}
