// Queries built with Knex once per database (in its dialect) and run again with new values: the builder makes
// the same SQL text on every call, and on a customer read that cost more than running the query (8% against 9%
// of the request's CPU, profiled). A compiled query takes named values; its SQL and the order of its bindings are
// Knex's own, taken from `toSQL()` of the query built with a marker for each value.
import type { Knex } from 'knex';

import { clientConfigOf, isPostgres } from '../db/knex.ts';
import { runOnPgConnection, sendOnPgConnection } from '../db/pg-direct.ts';
import { runOnConnection } from '../db/sqlite-direct.ts';
import { insertLater } from '../platform/transaction.ts';

const MARK = '\u0000pgw-value:';

type Binding = { kind: 'value'; name: string } | { kind: 'constant'; value: unknown };

interface Compiled {
  sql: string;
  readonly bindings: readonly Binding[];
  /** PostgreSQL: the statement still selects `*` (the columns are named at its first run, expandStars). */
  stars?: boolean;
}

/**
 * The SQL Knex makes of a query built with markers for its values, and where each value goes: on PostgreSQL in
 * its own form (`$n` placeholders), which db/pg-direct.ts sends as it is.
 */
function compile(db: Knex, query: Knex.QueryBuilder): Compiled {
  const { sql, bindings } = isPostgres(db) ? query.toSQL().toNative() : query.toSQL();
  return {
    sql,
    bindings: bindings.map((value): Binding => typeof value === 'string' && value.startsWith(MARK)
      ? { kind: 'value', name: value.slice(MARK.length) }
      : { kind: 'constant', value }),
  };
}

/** The values of a compiled statement in its bindings' order (each one the statement takes must be given). */
function bindingsOf(compiled: Compiled, values: Readonly<Record<string, unknown>>): Knex.RawBinding[] {
  return compiled.bindings.map((b) => {
    if (b.kind === 'constant') return b.value;
    if (!(b.name in values)) throw new Error(`compiled query: no value for ${b.name}`);
    return values[b.name];
  }) as Knex.RawBinding[];
}

/** A `*` of a select list, alone or qualified (`"c".*`), as Knex writes them. */
const STAR = /(?<=^select\s+(?:distinct\s+)?|,\s*)(?:"((?:[^"]|"")+)"\.)?\*(?=\s*,|\s+from\s)/gi;
/** The tables of a statement's FROM and JOINs with their aliases, as Knex writes them. */
const TABLES = /\b(?:from|join)\s+"((?:[^"]|"")+)"(?:\s+as\s+"((?:[^"]|"")+)")?/gi;
const unquote = (name: string): string => name.replace(/""/g, '"');
const quote = (name: string): string => `"${name.replace(/"/g, '""')}"`;

/**
 * The statement with each `*` of its select list replaced by the columns it stands for, in the table's order (read
 * once from the schema the connection works in). PostgreSQL keeps a statement prepared by name (db/pg-session.ts)
 * only when its result's columns cannot change under it; a `*` statement was parsed and planned on every run: a
 * customer read cost PostgreSQL 238 us of CPU so, 60 us named with its columns (4,000 runs each, measured at the
 * backends). The columns are those of the schema when the statement first runs: the server migrates before it serves.
 */
async function expandStars(db: Knex, sql: string): Promise<string> {
  const aliases = new Map<string, string>();
  let only: string | undefined;
  for (const [, table = '', alias] of sql.matchAll(TABLES)) {
    aliases.set(unquote(alias ?? table), unquote(table));
    only = only === undefined ? unquote(table) : '';
  }
  const wanted = [...new Set([...sql.matchAll(STAR)].map(([, alias]) => (alias === undefined ? only ?? '' : aliases.get(unquote(alias)) ?? '')))];
  if (wanted.length === 0) return sql;
  if (wanted.includes('')) throw new Error(`compiled query: cannot tell which table a * stands for in: ${sql}`);
  const result: unknown = await db.raw('select table_name, column_name from information_schema.columns where table_schema = current_schema() and table_name = any(?) order by ordinal_position', [wanted]);
  const columns = new Map<string, string[]>();
  for (const row of rowsOf<{ table_name: string; column_name: string }>(result)) columns.set(row.table_name, [...(columns.get(row.table_name) ?? []), row.column_name]);
  return sql.replace(STAR, (_star, alias: string | undefined) => {
    const table = alias === undefined ? only ?? '' : aliases.get(unquote(alias)) ?? '';
    const names = columns.get(table);
    if (names === undefined || names.length === 0) throw new Error(`compiled query: the table ${table} has no columns in the current schema`);
    return names.map((c) => (alias === undefined ? quote(c) : `${quote(unquote(alias))}.${quote(c)}`)).join(', ');
  });
}

/**
 * Runs a compiled statement with its named values (each one the statement takes must be given) straight on the
 * connection: db/sqlite-direct.ts, db/pg-direct.ts (prepared by name there).
 */
async function run(db: Knex, compiled: Compiled, values: Readonly<Record<string, unknown>>): Promise<unknown> {
  if (!isPostgres(db)) return runOnConnection(db, compiled.sql, bindingsOf(compiled, values));
  if (compiled.stars === true) {
    compiled.sql = await expandStars(db, compiled.sql);
    compiled.stars = false;
  }
  return runOnPgConnection(db, compiled.sql, bindingsOf(compiled, values));
}

/**
 * The statements compiled for each database, kept with it: by its client configuration, which its transactions
 * share and which lives as long as it does. No two databases share a statement, and none outlives its database.
 */
const statementsByDatabase = new WeakMap<object, Map<object | string, Compiled>>();

/** The statement `key` names for the handle's database, compiled by `make` the first time. */
function statementOf(db: Knex, key: object | string, make: () => Compiled): Compiled {
  const config = clientConfigOf(db);
  let statements = statementsByDatabase.get(config);
  if (!statements) statementsByDatabase.set(config, (statements = new Map<object | string, Compiled>()));
  let compiled = statements.get(key);
  if (!compiled) {
    compiled = make();
    statements.set(key, compiled);
  }
  return compiled;
}

/** What `db.raw` answers for a statement: rows in an array (SQLite) or in `rows` (PostgreSQL). */
function rowsOf<Row>(result: unknown): Row[] {
  if (Array.isArray(result)) return result as Row[];
  const rows = (result as { rows?: unknown } | undefined)?.rows;
  if (!Array.isArray(rows)) throw new Error('compiled query: the driver answered without rows');
  return rows as Row[];
}

/**
 * A SELECT built once per database. `build` receives the handle and a stand-in for each named value; it must
 * use every value as a binding (in `where`, `whereIn` of a fixed length, `limit`...), never to decide the
 * query's shape, since it runs once.
 */
export function compiledSelect<Values extends Record<string, string | number | boolean | null>, Row>(
  build: (db: Knex, values: { readonly [K in keyof Values]: Values[K] }) => Knex.QueryBuilder,
): (db: Knex, values: Values) => Promise<Row[]> {
  // This query's key among a database's statements.
  const key = {};
  const stand = new Proxy({}, { get: (_target, name) => `${MARK}${String(name)}` }) as { readonly [K in keyof Values]: Values[K] };
  return async (db, values) => {
    const compiled = statementOf(db, key, () => ({ ...compile(db, build(db, stand)), stars: isPostgres(db) }));
    return rowsOf<Row>(await run(db, compiled, values));
  };
}

/**
 * Inserts one new row as `db(table).insert(row)` does (a column whose value is `undefined` gets Knex's literal
 * for it: DEFAULT, or NULL on SQLite), with the statement built once per table and set of columns. Inside a
 * PostgreSQL transaction the insert is held and sent with the transaction's next statement (`insertLater`):
 * for rows made here, whose insert the caller never expects to fail.
 */
export async function insertRow(db: Knex, table: string, row: Readonly<Record<string, unknown>>): Promise<void> {
  const columns = Object.keys(row);
  // Keyed by table and the row's columns (those with a value, and those without).
  const key = `insert\u0000${table}\u0000${columns.map((c) => (row[c] === undefined ? `${c}\u0000u` : c)).join('\u0000')}`;
  const compiled = statementOf(db, key, () => compile(db, db(table).insert(Object.fromEntries(columns.map((c) => [c, row[c] === undefined ? undefined : `${MARK}${c}`])))));
  // On PostgreSQL held in a transaction, as insertLater holds (platform/transaction.ts).
  if (isPostgres(db)) await sendOnPgConnection(db, compiled.sql, bindingsOf(compiled, row));
  else await runOnConnection(db, compiled.sql, bindingsOf(compiled, row));
}

/** Rows a statement of a many-row insert on SQLite (its values are bound one by one). */
const SQLITE_ROWS_PER_STATEMENT = 200;

/** Whether every row has the columns of the first, each with a value JSON carries as it is (no DEFAULT, no Date). */
function sameFlatColumns(rows: readonly Readonly<Record<string, unknown>>[], columns: readonly string[]): boolean {
  return rows.every((row) => Object.keys(row).length === columns.length && columns.every((c) => {
    const value = row[c];
    return value === null || typeof value === 'string' || typeof value === 'boolean' || (typeof value === 'number' && Number.isFinite(value));
  }));
}

/**
 * Inserts new rows (held as `insertRow`'s): one with its kept statement, several in statements built for them.
 * On PostgreSQL, rows of the same plain columns go as one statement with one value, their JSON, which the table's
 * own row type reads (json_populate_recordset). A clock advance writes 10,000 history rows and events at once:
 * bound one by one they were 80,000 values to serialize, renumber and plan, the advance's largest cost in Node
 * (profiled); as JSON they are one string. Columns not given keep their defaults (the insert names its columns).
 */
export async function insertRows(db: Knex, table: string, rows: readonly Readonly<Record<string, unknown>>[]): Promise<void> {
  const [first] = rows;
  if (first === undefined) return;
  if (rows.length === 1) {
    await insertRow(db, table, first);
    return;
  }
  const columns = Object.keys(first);
  if (isPostgres(db) && sameFlatColumns(rows, columns)) {
    const names = columns.map((c) => db.raw('??', [c]).toQuery()).join(', ');
    await insertLater(db, db.raw(`insert into ?? (${names}) select ${names} from json_populate_recordset(null::??, ?::json)`, [table, table, JSON.stringify(rows)]));
    return;
  }
  for (let i = 0; i < rows.length; i += SQLITE_ROWS_PER_STATEMENT) await insertLater(db, db(table).insert(rows.slice(i, i + SQLITE_ROWS_PER_STATEMENT)));
}
