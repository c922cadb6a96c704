// Databases of the HTTP benchmark: a throwaway PostgreSQL database, and 100,000 cloned customers written
// straight into a running gateway's database (SQLite or PostgreSQL).
import { randomUUID } from 'node:crypto';
import knex, { type Knex } from 'knex';
import pg from 'pg';
import { SqliteClient } from '../../server/src/db/sqlite-client.ts';
import { indexPendingCustomers } from '../../server/src/repositories/customers.ts';
import { onCleanup, progress } from './lib-procs.ts';

/**
 * Creates `pgw_bench_<pid>_<slug>` on the server of `adminUrl` and returns its URL; the database is dropped at
 * cleanup (with force: a gateway that has not let go yet must not keep it alive).
 */
export async function createBenchDatabase(adminUrl: string, slug = 'gateway'): Promise<string> {
  // One per gateway of the run (the current version's and BENCH_BEFORE_ROOT's start at the same time).
  const name = `pgw_bench_${String(process.pid)}_${slug.replace(/[^a-z0-9_]/g, '_')}`;
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  try {
    await admin.query(`drop database if exists ${name} with (force)`);
    await admin.query(`create database ${name}`);
  } finally {
    await admin.end();
  }
  onCleanup(`database ${name}`, async () => {
    const dropper = new pg.Client({ connectionString: adminUrl });
    await dropper.connect();
    try {
      await dropper.query(`drop database if exists ${name} with (force)`);
      progress(`dropped database ${name}`);
    } finally {
      await dropper.end();
    }
  });
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return url.toString();
}

/** A second connection to the gateway's database, beside the gateway's own. */
export function openDatabase(databaseUrl: string): Knex {
  if (databaseUrl.startsWith('sqlite:')) {
    return knex({
      client: SqliteClient,
      connection: { filename: databaseUrl.slice('sqlite:'.length) },
      useNullAsDefault: true,
      pool: {
        min: 1,
        max: 1,
        // The gateway holds the file open in WAL mode; a second writer waits for its lock rather than failing.
        afterCreate: (conn: { exec: (sql: string) => void }, done: (err: Error | null, conn: unknown) => void) => {
          try {
            conn.exec('PRAGMA busy_timeout = 10000;');
            done(null, conn);
          } catch (error) {
            done(error as Error, conn);
          }
        },
      },
    });
  }
  return knex({ client: 'pg', connection: databaseUrl, pool: { min: 0, max: 2 } });
}

/**
 * Runs `work` again while SQLite answers that the database is locked: the gateway may still be working off
 * the previous load (a queue of requests, a due run of its worker) for longer than one busy timeout.
 */
async function retryWhileBusy<T>(work: () => Promise<T>, attempts = 10): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await work();
    } catch (error) {
      if (attempt >= attempts || !/database is locked|SQLITE_BUSY/i.test(String(error))) throw error;
      progress(`  the gateway holds the database (attempt ${String(attempt)} of ${String(attempts)}); waiting`);
      await new Promise((resolve) => setTimeout(resolve, 2000));
    }
  }
}

const REQUIRED = ['id', 'merchant_id', 'first_name', 'last_name', 'email', 'created_on', 'modified_on'] as const;
const YEAR_MS = 365 * 86_400_000;

/**
 * Clones the customer `templateId` (made through the API, so every column holds what the gateway writes)
 * `count` times for its merchant: new ids, names Name<i> / Surname<i>, email name<i>@example.com, createdOn
 * spread evenly over the past year. Copying the whole row keeps the clones valid when the schema gains a
 * column (BENCH_GATEWAY_ROOT may run another version); only the columns above must exist.
 */
export async function cloneCustomers(db: Knex, templateId: string, count: number): Promise<void> {
  const postgres = (db.client as { config: { client: string } }).config.client === 'pg';
  const tables = postgres
    ? (await db.raw<{ rows: { name: string }[] }>('select table_name as name from information_schema.tables where table_schema = current_schema()')).rows
    : await db.raw<{ name: string }[]>("select name from sqlite_master where type = 'table'");
  if (!tables.some((t) => t.name === 'customers')) throw new Error(`no customers table (tables: ${tables.map((t) => t.name).join(', ')})`);
  const noted = tables.some((t) => t.name === 'customers_search_pending');
  const template = (await db('customers').where({ id: templateId }).first()) as Record<string, unknown> | undefined;
  if (!template) throw new Error(`customer ${templateId} is not in the customers table`);
  const missing = REQUIRED.filter((column) => !(column in template));
  if (missing.length > 0) throw new Error(`customers lacks ${missing.join(', ')} (columns: ${Object.keys(template).join(', ')})`);

  // The payment_methods count in the list is a subquery; a customer needs no companion row to be listed.
  const start = Date.now() - YEAR_MS;
  const perTransaction = 5000;
  // SQLite allows 32,766 bound values a statement; 200 rows of ~20 columns stay far below on both engines.
  const perStatement = 200;
  const began = Date.now();
  for (let first = 0; first < count; first += perTransaction) {
    await retryWhileBusy(() => db.transaction(async (tx) => {
      for (let chunk = first; chunk < Math.min(first + perTransaction, count); chunk += perStatement) {
        const rows: Record<string, unknown>[] = [];
        for (let i = chunk; i < Math.min(chunk + perStatement, first + perTransaction, count); i++) {
          const created = new Date(start + Math.floor((i * YEAR_MS) / count));
          const modified = new Date(created.getTime() + (i % 1000) * 60_000);
          rows.push({
            ...template,
            id: randomUUID(),
            first_name: `Name${String(i)}`,
            last_name: `Surname${String(i)}`,
            email: `name${String(i)}@example.com`,
            created_on: created.toISOString(),
            modified_on: modified.toISOString(),
          });
        }
        await tx('customers').insert(rows);
      }
      // Migration 024: what the trigger noted is indexed before the commit, as the gateway's own writes are.
      if (noted) await indexPendingCustomers(tx);
    }));
    progress(`  ${String(Math.min(first + perTransaction, count))} of ${String(count)} customers inserted`);
  }
  // PostgreSQL's autovacuum would analyze the table within about a minute, and the gateway runs SQLite's
  // PRAGMA optimize every ten minutes, so a plan picked before or after that would depend on timing; a
  // production table has statistics, so give them now (the gateway's connection reads them at its next query).
  await db.raw(postgres ? 'analyze customers' : 'PRAGMA optimize = 0x10002');
  progress(`  inserted ${String(count)} customers in ${((Date.now() - began) / 1000).toFixed(1)} s`);
}
