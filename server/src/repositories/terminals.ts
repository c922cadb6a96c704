// Payment terminals (Knex only), keyed by id and unique per merchant by serial number; the paper status is
// written by the terminal machine's adapter (services/terminal-machine.ts) under the engine's row lock.
import type { Knex } from 'knex';
import { pageOf, type ListQuery } from './paging.ts';

export type PaperStatus = 'Ok' | 'Low' | 'Empty';

export interface TerminalRecord {
  id: string;
  merchantId: string;
  serialNumber: string;
  model: string;
  name: string | null;
  paperStatus: PaperStatus;
  createdOn: string;
  lastSeenAt: string | null;
}

export interface Row { id: string; merchant_id: string; serial_number: string; model: string; name: string | null; paper_status: PaperStatus; created_on: string; last_seen_at: string | null }

export const recordOf = (row: Row): TerminalRecord => ({
  id: row.id,
  merchantId: row.merchant_id,
  serialNumber: row.serial_number,
  model: row.model,
  name: row.name,
  paperStatus: row.paper_status,
  createdOn: row.created_on,
  lastSeenAt: row.last_seen_at,
});

export async function findTerminal(db: Knex, merchantId: string, id: string): Promise<TerminalRecord | undefined> {
  const row = (await db('terminals').where({ merchant_id: merchantId, id }).first()) as Row | undefined;
  return row ? recordOf(row) : undefined;
}

/**
 * Inserts a terminal unless the merchant has one with its serial number (the unique index decides, so two
 * concurrent registrations cannot both win); true when it was inserted.
 */
export async function insertTerminal(db: Knex, terminal: TerminalRecord): Promise<boolean> {
  await db('terminals')
    .insert({
      id: terminal.id, merchant_id: terminal.merchantId, serial_number: terminal.serialNumber, model: terminal.model, name: terminal.name,
      paper_status: terminal.paperStatus, created_on: terminal.createdOn, last_seen_at: terminal.lastSeenAt,
    })
    .onConflict(['merchant_id', 'serial_number'])
    .ignore();
  return (await findTerminal(db, terminal.merchantId, terminal.id)) !== undefined;
}

/** Writes a report's paper status and time; false when the terminal is gone. */
export async function reportPaper(db: Knex, terminal: Pick<TerminalRecord, 'merchantId' | 'id' | 'paperStatus' | 'lastSeenAt'>): Promise<boolean> {
  const changed = await db('terminals').where({ merchant_id: terminal.merchantId, id: terminal.id })
    .update({ paper_status: terminal.paperStatus, last_seen_at: terminal.lastSeenAt });
  return changed === 1;
}

export async function listTerminals(db: Knex, merchantId: string, list: ListQuery & { paperStatus?: PaperStatus }): Promise<{ items: TerminalRecord[]; total: number }> {
  const query = db('terminals').where({ merchant_id: merchantId });
  if (list.paperStatus !== undefined) void query.where({ paper_status: list.paperStatus });
  const { rows, total } = await pageOf(query, list, {
    orderable: { createdOn: 'created_on', name: 'lower(name)', serialNumber: 'serial_number', lastSeenAt: 'last_seen_at' },
    defaultOrder: 'createdOn',
    notNull: ['createdOn', 'serialNumber'],
    searchable: ['serial_number', 'model', 'name'],
    dateColumn: 'created_on',
    idColumn: 'id',
  });
  return { items: (rows as unknown as Row[]).map(recordOf), total };
}
