// The database: Knex over embedded SQLite (WAL) by default, or PostgreSQL when DATABASE_URL says so.
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import knex, { type Knex } from 'knex';
import type { Environment } from '../config.ts';
import { migrationSource } from './migrations/index.ts';
import { installSession } from './pg-session.ts';
import { connectionRunner, refreshStatistics } from './planner-statistics.ts';
import { SqliteClient, type SqliteConnection } from './sqlite-client.ts';

export type Database = Knex;

export interface DatabaseOptions {
  /** PostgreSQL schema to work in (tests give each suite its own). */
  schema?: string;
}

/** Transaction control naming one of Knex's numbered savepoints (trxN): never the same text twice. */
const ONE_OFF = /^\s*(savepoint|release|rollback to)\b.*\btrx\d+/i;

/** Statements kept prepared at most, per connection (the oldest is dropped first). */
const STATEMENT_CACHE_SIZE = 1000;

/**
 * Prepares each SQL text once per connection: Knex's better-sqlite3 dialect prepares every query anew
 * (measured: 18.5 -> 16 us a simple indexed select, in a loop of 20,000). A statement is reused as it is:
 * SQLite runs it synchronously here (no two uses overlap) and prepares it again by itself after a schema
 * change; nothing here sets per-statement modes (safeIntegers, raw).
 */
function cachePreparedStatements(conn: SqliteConnection): void {
  const prepare = conn.prepare.bind(conn);
  const prepared = new Map<string, ReturnType<SqliteConnection['prepare']>>();
  conn.prepare = (sql: string) => {
    // Knex names a savepoint anew for each nested transaction: keeping those would only push out statements that
    // are used again (a group commit's members share one savepoint name, kept).
    if (ONE_OFF.test(sql)) return prepare(sql);
    let statement = prepared.get(sql);
    if (statement === undefined) {
      statement = prepare(sql);
      if (prepared.size >= STATEMENT_CACHE_SIZE) {
        const oldest = prepared.keys().next().value;
        if (oldest !== undefined) prepared.delete(oldest);
      }
    } else {
      prepared.delete(sql);
    }
    // Re-inserted: the map's order is the order of last use.
    prepared.set(sql, statement);
    return statement;
  };
}

/**
 * WAL pages between checkpoints (SQLite's default is 1,000). A checkpoint copies each page changed since the
 * last one back into the database file once and syncs it, in the commit that crosses the mark: a payment
 * writes ~40 pages, many of them the same index pages, so a longer WAL copies fewer pages per write.
 * Measured (HTTP benchmark requests, one machine): ACH debit create 680 -> 743-754 req/s, customer create
 * 1,167-1,238 -> 1,302-1,318 req/s; the commit that checkpoints takes ~30 ms instead of ~7 ms, 10 times less
 * often. A checkpoint thread (PASSIVE, its own connection) was tried and dropped: under steady writes it never
 * completes, so the WAL is never restarted and grew by 120 MB/s, and it left that commit's time as it was.
 */
const WAL_PAGES_BETWEEN_CHECKPOINTS = 10_000;
/** The WAL file is cut back to this size when it restarts after a checkpoint. */
const WAL_SIZE_LIMIT = 64 * 1024 * 1024;

export function createDatabase(url: string, options: DatabaseOptions = {}): Database {
  if (url.startsWith('sqlite:')) {
    const filename = url.slice('sqlite:'.length);
    const onDisk = filename !== ':memory:' && filename !== '';
    if (onDisk) mkdirSync(path.dirname(path.resolve(filename)), { recursive: true });
    return knex({
      client: SqliteClient,
      connection: { filename },
      useNullAsDefault: true,
      // A synchronous driver (db/sqlite-client.ts), not sqlite3: its queries run on this thread, without a hop
      // through libuv's thread pool and back for each (measured with better-sqlite3: customer read +42%, create
      // +66% in req/s over sqlite3). One connection: SQLite has one writer, and an in-memory database lives in
      // its connection.
      pool: {
        min: 1,
        max: 1,
        afterCreate: (conn: SqliteConnection, done: (err: Error | null, conn: unknown) => void) => {
          try {
            cachePreparedStatements(conn);
            conn.exec('PRAGMA foreign_keys = ON; PRAGMA journal_mode = WAL; PRAGMA busy_timeout = 5000; PRAGMA synchronous = NORMAL;');
            // The driver's SQLite is built with recursive triggers on and a 2 MB page cache; better-sqlite3's, which
            // the schema's triggers and the measured figures were made with, had them off and 16 MB.
            // temp_store MEMORY: a group commit's savepoints (platform/transaction.ts) keep the first version of each
            // page a member changes, and a statement that fires triggers keeps its own; past 64 KiB (a payment
            // changes ~40 pages) SQLite spilled them to a temporary file, a write per page. In memory, measured in
            // process, one request at a time, SQLite's time a request: ACH debit 769-809 -> 576-638 us, card
            // sale 399-403 -> 311-370 (issue 43). Sorts that outgrow the page cache stay in memory too.
            conn.exec('PRAGMA recursive_triggers = OFF; PRAGMA cache_size = -16000; PRAGMA temp_store = MEMORY;');
            if (onDisk) conn.exec(`PRAGMA wal_autocheckpoint = ${String(WAL_PAGES_BETWEEN_CHECKPOINTS)}; PRAGMA journal_size_limit = ${String(WAL_SIZE_LIMIT)};`);
          } catch (error) {
            done(error as Error, conn);
            return;
          }
          // optimize=0x10002: the planner statistics, gathered now if a table outgrew them (SQLite's advice at open).
          refreshStatistics(connectionRunner(conn), '0x10002').then(() => { done(null, conn); }, (error: unknown) => { done(error as Error, conn); });
        },
      },
    });
  }
  return knex({
    client: 'pg',
    connection: url,
    pool: {
      min: 0,
      max: 10,
      afterCreate: (conn: Parameters<typeof installSession>[0], done: (err: Error | null, conn: unknown) => void) => {
        installSession(conn);
        done(null, conn);
      },
    },
    ...(options.schema ? { searchPath: [options.schema] } : {}),
  });
}

/**
 * The client configuration of a handle: one object per database, shared by its transactions (Knex gives a
 * transaction's client the pool client's configuration itself), so it keys what belongs to one database.
 */
export const clientConfigOf = (db: Database): { client: unknown } => (db.client as { config: { client: unknown } }).config;

export const isPostgres = (db: Database): boolean => clientConfigOf(db).client === 'pg';

/**
 * Brings the schema to the latest version (safe with several instances: Knex takes a lock) as the server of
 * `environment` does it: API keys that predate their environment column become that environment's.
 */
export async function migrate(db: Database, environment: Environment, schema?: string): Promise<void> {
  if (schema && isPostgres(db)) await db.raw('create schema if not exists ??', [schema]);
  await db.migrate.latest({ migrationSource: migrationSource(environment), ...(schema && isPostgres(db) ? { schemaName: schema } : {}) });
}
