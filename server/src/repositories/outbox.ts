// The outbox's events (Knex only): written in the transaction of the change they report, read back by id
// when a delivery sends them. The rules (the contract guard, the fan-out) are platform/outbox.ts.
import type { Knex } from 'knex';
import { insertRow, insertRows } from './compiled.ts';

export interface EventRow { id: string; merchant_id: string; type: string; payload: string; occurred_on: string }

/** One event (the statement built once per dialect: every change writes one). */
export async function insertEvent(trx: Knex, row: EventRow): Promise<void> {
  await insertRow(trx, 'outbox_events', { ...row });
}

/** Many events, many rows a statement (a clock advance that settles thousands of transactions). */
export async function insertEvents(trx: Knex, rows: readonly EventRow[]): Promise<void> {
  await insertRows(trx, 'outbox_events', rows.map((row) => ({ ...row })));
}

export async function findEventRows(db: Knex, ids: readonly string[]): Promise<EventRow[]> {
  return db('outbox_events').whereIn('id', [...new Set(ids)]).select<EventRow[]>('*');
}
