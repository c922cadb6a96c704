// The SQL of the API-key states' notifications and leases (PostgreSQL only): the channel of a schema, a
// change published in its transaction, the sync numbers, and the leases the listeners hold on their own
// connections. The protocol that uses them is platform/key-state-pg.ts.
import type { Knex } from 'knex';

/**
 * The notification channel of the connection's schema, in SQL (publishers and listeners compute it alike):
 * instances on other schemas of the same database (test suites) are not told.
 */
const CHANNEL = "'pgw_key_state_' || substr(encode(sha256(convert_to(current_schema(), 'UTF8')), 'hex'), 1, 16)";

/** The channel of the handle's schema. */
export async function channelOf(db: Knex): Promise<string> {
  const result = await db.raw<{ rows: { channel: string }[] }>(`select ${CHANNEL} as channel`);
  const channel = result.rows[0]?.channel;
  if (channel === undefined) throw new Error('API-key states: no notification channel');
  return channel;
}

/** Notifies the schema's channel; in a transaction, the notification is delivered when it commits. */
export async function notify(db: Knex, message: unknown): Promise<void> {
  await db.raw(`select pg_notify(${CHANNEL}, ?)`, [JSON.stringify(message)]);
}

/** The part of a pg client (a listener's own connection) used here. */
export interface PgClient {
  query: (sql: string, values?: unknown[]) => Promise<{ rows: Record<string, unknown>[] }>;
}

/** The pool as a client (statements whose `$n` placeholders each appear once, in order). */
export const poolClient = (db: Knex): PgClient => ({
  query: async (sql, values = []) => db.raw<{ rows: Record<string, unknown>[] }>(sql.replace(/\$\d+/g, '?'), values as Knex.RawBinding[]),
});

/** The next sync number. */
export async function nextSync(connection: PgClient): Promise<string> {
  const taken = await connection.query("select nextval('key_state_sync_seq') as seq");
  const seq = taken.rows[0]?.seq;
  // A bigint: pg answers it as text.
  return typeof seq === 'string' || typeof seq === 'number' ? String(seq) : '0';
}

/** Notifies the schema's channel at once (outside a transaction). */
export async function notifyNow(connection: PgClient, message: unknown): Promise<void> {
  await connection.query(`select pg_notify(${CHANNEL}, $1)`, [JSON.stringify(message)]);
}

/** How many instances hold an unexpired lease (database time) and have not yet handled sync number `seq`. */
export async function countBehind(connection: PgClient, seq: string): Promise<number> {
  const waiting = await connection.query('select count(*) as n from key_state_instances where lease_until > now() and synced_seq < $1', [seq]);
  return Number(waiting.rows[0]?.n ?? 0);
}

/** Names the connection after the channel (operators, and tests, tell the listeners in pg_stat_activity) and listens. */
export async function listen(connection: PgClient, channel: string): Promise<void> {
  await connection.query(`set application_name = '${channel}'`);
  await connection.query(`listen ${channel}`);
}

/**
 * Takes the instance's lease until now + `leaseMs` (database time), synced up to the sync numbers taken so far
 * (a listener that starts from nothing has handled every change committed before it).
 */
export async function takeLease(connection: PgClient, id: string, leaseMs: number): Promise<void> {
  await connection.query(`insert into key_state_instances (id, lease_until, synced_seq)
      select $1, now() + $2 * interval '1 millisecond', case when is_called then last_value else 0 end from key_state_sync_seq
      on conflict (id) do update set lease_until = excluded.lease_until, synced_seq = greatest(key_state_instances.synced_seq, excluded.synced_seq)`, [id, leaseMs]);
}

export async function renewLease(connection: PgClient, id: string, leaseMs: number): Promise<void> {
  await connection.query('update key_state_instances set lease_until = now() + $2 * interval \'1 millisecond\' where id = $1', [id, leaseMs]);
}

/** Records that the instance has handled every change committed before sync number `seq`. */
export async function recordSynced(connection: PgClient, id: string, seq: string): Promise<void> {
  await connection.query('update key_state_instances set synced_seq = greatest(synced_seq, $2) where id = $1', [id, seq]);
}

/** Gives the lease up (publishers stop waiting for the instance at once). */
export async function dropLease(connection: PgClient, id: string): Promise<void> {
  await connection.query('delete from key_state_instances where id = $1', [id]);
}
