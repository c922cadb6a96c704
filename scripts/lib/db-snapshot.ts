// Every row of every table, summarised per table, so a test can say which tables a request changed ("a refused
// request changes nothing"), or what one merchant holds; on SQLite and PostgreSQL alike. Shared by the server's and
// the conformance suite's tests (neither imports the other's test tree).
import { createHash } from 'node:crypto';
import type { Knex } from 'knex';

/** Tables whose rows move without any request's doing (leases renewed by a timer). */
/** auth_throttle (PostgreSQL): failed-credential counters per client id and address in wall-clock windows, no merchant's. */
const MOVING = new Set(['instance_leases', 'key_state_instances', 'knex_migrations', 'knex_migrations_lock', 'auth_throttle']);

/**
 * Tables compared by what their rows mean rather than the rows: a merchant's customer count is kept in slots on
 * PostgreSQL (migration 019: which slot a change lands in depends on the connection), so it is its sum.
 */
const LOGICAL: Readonly<Record<string, (query: Knex.QueryBuilder) => Knex.QueryBuilder>> = {
  customer_counts: (q) => q.select('merchant_id').sum({ total: 'total' }).groupBy('merchant_id'),
};
const rowsOf = (query: Knex.QueryBuilder, table: string): Knex.QueryBuilder => {
  const logical = LOGICAL[table];
  return logical ? logical(query) : query.select('*');
};
/** One line per row, the same for the same values on both engines (a sum is text on PostgreSQL). */
const lineOf = (row: Record<string, unknown>): string =>
  JSON.stringify(row, (_key, value: unknown) => (typeof value === 'bigint' ? value.toString() : value instanceof Date ? value.toISOString() : typeof value === 'number' ? String(value) : value));

export class Snapshot {
  constructor(readonly digests: ReadonlyMap<string, string>) {}

  /** The tables whose rows differ from `before`'s. */
  changedSince(before: Snapshot): string[] {
    const names = new Set([...this.digests.keys(), ...before.digests.keys()]);
    return [...names].filter((name) => this.digests.get(name) !== before.digests.get(name)).sort();
  }
}

async function tableNames(db: Knex): Promise<string[]> {
  if ((db.client as { config: { client: string } }).config.client === 'pg') {
    const rows = await db.raw<{ rows: { name: string }[] }>('select table_name as name from information_schema.tables where table_schema = current_schema()');
    return rows.rows.map((r) => r.name);
  }
  const rows = await db.raw<{ name: string }[]>("select name from sqlite_master where type = 'table' and name not like 'sqlite_%'");
  return rows.map((r) => r.name);
}

/** A digest of each table's rows (in a stable order). */
export async function snapshot(db: Knex): Promise<Snapshot> {
  const digests = new Map<string, string>();
  for (const name of (await tableNames(db)).filter((n) => !MOVING.has(n))) {
    const rows = (await rowsOf(db(name), name)) as Record<string, unknown>[];
    const lines = rows.map(lineOf).sort();
    digests.set(name, createHash('sha256').update(lines.join('\n')).digest('hex'));
  }
  return new Snapshot(digests);
}

/** Tables whose rows belong to a merchant through a parent row (child table -> its column and the parent table). */
const OWNED_THROUGH: Readonly<Record<string, { column: string; parent: string }>> = {
  webhook_attempts: { column: 'delivery_id', parent: 'webhook_deliveries' },
  invoice_history: { column: 'invoice_id', parent: 'invoices' },
  invoice_line_items: { column: 'invoice_id', parent: 'invoices' },
  transaction_history: { column: 'transaction_id', parent: 'transactions' },
};

/**
 * Tables that belong to no merchant (shared), with why. SQLite's full-text shadow tables of the customer search
 * (and the rowids it has yet to index, migration 025) change with any merchant's customers and hold no merchant id: they are left out of per-merchant comparisons;
 * so are the throttle's counters (PostgreSQL), keyed by an HMAC of a client id, user name or address, and the
 * event stream's tombstones: the positions of deleted events (ids and numbers, no data), which outlive a reset or
 * a deleted sandbox so that a stream resumes after one of them (migration 022).
 */
const SHARED = new Set(['partners', 'signing_keys', 'customers_search', 'customers_search_config', 'customers_search_data',
  'customers_search_docsize', 'customers_search_idx', 'customers_search_pending', 'auth_throttle', 'stream_tombstones', ...MOVING]);

async function columnsOf(db: Knex, table: string): Promise<string[]> {
  if ((db.client as { config: { client: string } }).config.client === 'pg') {
    const rows = await db.raw<{ rows: { name: string }[] }>('select column_name as name from information_schema.columns where table_schema = current_schema() and table_name = ?', [table]);
    return rows.rows.map((r) => r.name);
  }
  return (await db.raw<{ name: string }[]>(`pragma table_info('${table.replaceAll("'", "''")}')`)).map((r) => r.name);
}

/**
 * How each table's rows are told apart by merchant: `merchant_id`, the merchants table's own id, a parent row's,
 * or the Idempotency-Key tenant. Throws on a table it cannot place, so that a new table is placed here too.
 */
async function ownership(db: Knex): Promise<Map<string, (query: Knex.QueryBuilder, merchantId: string, mine: boolean) => Knex.QueryBuilder>> {
  const ways = new Map<string, (query: Knex.QueryBuilder, merchantId: string, mine: boolean) => Knex.QueryBuilder>();
  for (const table of await tableNames(db)) {
    if (SHARED.has(table)) continue;
    const through = OWNED_THROUGH[table];
    if (table === 'merchants') ways.set(table, (q, m, mine) => (mine ? q.where('id', m) : q.whereNot('id', m)));
    else if (table === 'idempotency_keys') ways.set(table, (q, m, mine) => (mine ? q.where('tenant', `merchant:${m}`) : q.whereNot('tenant', `merchant:${m}`)));
    else if (through) {
      ways.set(table, (q, m, mine) => {
        const parents = db(through.parent).where('merchant_id', m).select('id');
        return mine ? q.whereIn(through.column, parents) : q.whereNotIn(through.column, parents);
      });
    } else if ((await columnsOf(db, table)).includes('merchant_id')) {
      // A partner's own key has no merchant: it is every merchant's "other" row.
      ways.set(table, (q, m, mine) => (mine ? q.where('merchant_id', m) : q.where((w) => { void w.whereNot('merchant_id', m).orWhereNull('merchant_id'); })));
    } else {
      throw new Error(`db-snapshot: the table ${table} is neither shared nor placed with a merchant`);
    }
  }
  return ways;
}

/** The number of rows of each table that belong to the merchant (tables with none left out). */
export async function merchantRowCounts(db: Knex, merchantId: string): Promise<Record<string, number>> {
  const counts: Record<string, number> = {};
  for (const [table, select] of await ownership(db)) {
    const row = (await select(db(table), merchantId, true).count({ n: '*' }).first()) as { n: number | string } | undefined;
    const n = Number(row?.n ?? 0);
    if (n > 0) counts[table] = n;
  }
  return counts;
}

/** Digests of each table's rows that belong (or, with `mine` false, do not belong) to the merchant. */
async function ownedDigests(db: Knex, merchantId: string, mine: boolean): Promise<Map<string, string>> {
  const digests = new Map<string, string>();
  for (const [table, select] of await ownership(db)) {
    const rows = (await rowsOf(select(db(table), merchantId, mine), table)) as Record<string, unknown>[];
    const lines = rows.map(lineOf).sort();
    digests.set(table, createHash('sha256').update(lines.join('\n')).digest('hex'));
  }
  return digests;
}

/** A digest of every table's rows that do NOT belong to the merchant: what its reset or deletion must not touch. */
export async function snapshotOthers(db: Knex, merchantId: string): Promise<Snapshot> {
  const digests = await ownedDigests(db, merchantId, false);
  for (const table of ['partners', 'signing_keys']) {
    const rows = (await db(table).select('*')) as Record<string, unknown>[];
    digests.set(table, createHash('sha256').update(rows.map((r) => JSON.stringify(r)).sort().join('\n')).digest('hex'));
  }
  return new Snapshot(digests);
}

/**
 * A digest of every table's rows that DO belong to the merchant (its clock included, on its merchants row): what a
 * conformance run in clean-up or sandbox mode must leave as it found it.
 */
export async function snapshotMerchant(db: Knex, merchantId: string): Promise<Snapshot> {
  return new Snapshot(await ownedDigests(db, merchantId, true));
}
