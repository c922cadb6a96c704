// Reads of the event stream: a merchant's outbox events after a cursor, in commit order, never one that
// could still appear behind the cursor (the columns are explained in migrations/011_event_stream.ts).
import type { Knex } from 'knex';
import { isPostgres } from '../db/knex.ts';
import type { StoredEvent } from '../platform/outbox.ts';

/** A position in a merchant's stream: after the event (xid, seq); xid is a decimal string (64-bit on PostgreSQL). */
export interface StreamCursor { xid: string; seq: number }

export interface StreamedEvent extends StoredEvent { cursor: StreamCursor }

interface Row { id: string; merchant_id: string; type: string; payload: string; occurred_on: string; stream_xid: string | number; stream_seq: string | number }

const cursorOf = (row: Pick<Row, 'stream_xid' | 'stream_seq'>): StreamCursor => ({ xid: String(row.stream_xid), seq: Number(row.stream_seq) });

/**
 * Only rows final for every reader: on PostgreSQL those of transactions older than the oldest one still
 * running (a younger transaction's rows may commit, or roll back, later); on SQLite every committed row.
 */
function settled(db: Knex, query: Knex.QueryBuilder): Knex.QueryBuilder {
  return isPostgres(db) ? query.whereRaw('stream_xid < pg_snapshot_xmin(pg_current_snapshot())') : query;
}

/** Where a stream opened now starts: after the merchant's last settled event (its id, when it has one). */
export async function streamStart(db: Knex, merchantId: string): Promise<{ cursor: StreamCursor; afterId: string | undefined }> {
  const row = await settled(db, db('outbox_events').where({ merchant_id: merchantId }))
    .orderBy([{ column: 'stream_xid', order: 'desc' }, { column: 'stream_seq', order: 'desc' }])
    .first<Pick<Row, 'id' | 'stream_xid' | 'stream_seq'> | undefined>('id', 'stream_xid', 'stream_seq');
  return row ? { cursor: cursorOf(row), afterId: row.id } : { cursor: { xid: '0', seq: 0 }, afterId: undefined };
}

/** The position of one of the merchant's events (for Last-Event-ID); undefined when it has no such event. */
export async function positionOf(db: Knex, merchantId: string, eventId: string): Promise<StreamCursor | undefined> {
  const row = await db('outbox_events').where({ merchant_id: merchantId, id: eventId })
    .first<Pick<Row, 'stream_xid' | 'stream_seq'> | undefined>('stream_xid', 'stream_seq');
  return row ? cursorOf(row) : undefined;
}

/** The merchant's settled events after the cursor, of the given types (all when empty), oldest first. */
export async function eventsAfter(db: Knex, merchantId: string, after: StreamCursor, types: readonly string[], limit: number): Promise<StreamedEvent[]> {
  let query = db('outbox_events').where({ merchant_id: merchantId });
  query = isPostgres(db)
    ? query.whereRaw('(stream_xid, stream_seq) > (?::xid8, ?)', [after.xid, after.seq])
    : query.where('stream_seq', '>', after.seq);
  if (types.length > 0) query = query.whereIn('type', [...types]);
  const rows = await settled(db, query)
    .orderBy([{ column: 'stream_xid', order: 'asc' }, { column: 'stream_seq', order: 'asc' }])
    .limit(limit)
    .select<Row[]>('id', 'merchant_id', 'type', 'payload', 'occurred_on', 'stream_xid', 'stream_seq');
  return rows.map((row) => ({
    id: row.id, merchantId: row.merchant_id, type: row.type, data: JSON.parse(row.payload) as unknown, occurredOn: row.occurred_on, cursor: cursorOf(row),
  }));
}
