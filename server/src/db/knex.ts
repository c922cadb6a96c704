// The database: Knex over embedded SQLite (WAL) by default, or PostgreSQL when DATABASE_URL says so.
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import knex, { type Knex } from 'knex';
import { migrationSource } from './migrations/index.ts';

export type Database = Knex;

export interface DatabaseOptions {
  /** PostgreSQL schema to work in (tests give each suite its own). */
  schema?: string;
}

export function createDatabase(url: string, options: DatabaseOptions = {}): Database {
  if (url.startsWith('sqlite:')) {
    const filename = url.slice('sqlite:'.length);
    if (filename !== ':memory:') mkdirSync(path.dirname(path.resolve(filename)), { recursive: true });
    return knex({
      client: 'better-sqlite3',
      connection: { filename },
      useNullAsDefault: true,
      // better-sqlite3, not sqlite3: its queries run on this thread, without a hop through libuv's thread pool
      // and back for each (measured: customer read +42%, create +66% in req/s over sqlite3). One connection:
      // SQLite has one writer, and an in-memory database lives in its connection.
      pool: {
        min: 1,
        max: 1,
        afterCreate: (conn: { exec: (sql: string) => void }, done: (err: Error | null, conn: unknown) => void) => {
          try {
            // optimize=0x10002: the planner statistics, gathered now if a table outgrew them (SQLite's advice at open).
            conn.exec('PRAGMA foreign_keys = ON; PRAGMA journal_mode = WAL; PRAGMA busy_timeout = 5000; PRAGMA synchronous = NORMAL; PRAGMA optimize = 0x10002;');
            done(null, conn);
          } catch (error) {
            done(error as Error, conn);
          }
        },
      },
    });
  }
  return knex({
    client: 'pg',
    connection: url,
    pool: { min: 0, max: 10 },
    ...(options.schema ? { searchPath: [options.schema] } : {}),
  });
}

export const isPostgres = (db: Database): boolean => (db.client as { config: { client: string } }).config.client === 'pg';

/** Brings the schema to the latest version (safe with several instances: Knex takes a lock). */
export async function migrate(db: Database, schema?: string): Promise<void> {
  if (schema && isPostgres(db)) await db.raw('create schema if not exists ??', [schema]);
  await db.migrate.latest({ migrationSource, ...(schema && isPostgres(db) ? { schemaName: schema } : {}) });
}
