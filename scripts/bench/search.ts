// The customer search at scale, in process (issue 25: any search at 100,000 customers, p99 < 50 ms): a fresh
// database of each engine (SQLite in a file; PostgreSQL with BENCH_DATABASE_URL or PGW_TEST_DATABASE_URL) holding
// BENCH_CUSTOMERS (100,000) customers of one merchant, then each query of the HTTP benchmark's list rows and a
// few more timed through the repository, one at a time (BENCH_RUNS each, 30): p50 and max in ms, and the total.
import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createDatabase, migrate, type Database } from '../../server/src/db/knex.ts';
import { seedDemoData } from '../../server/src/db/seed.ts';
import { systemClock } from '../../server/src/platform/time.ts';
import { searchCustomers } from '../../server/src/repositories/customers.ts';
import { cloneCustomers } from './lib-db.ts';

const count = Number(process.env.BENCH_CUSTOMERS ?? 100_000);
const runs = Number(process.env.BENCH_RUNS ?? 30);
const postgresUrl = process.env.BENCH_DATABASE_URL ?? process.env.PGW_TEST_DATABASE_URL;

const QUERIES: [string, Record<string, string | number | boolean>][] = [
  ['list, first page', { pageSize: 20 }],
  ['search, selective', { search: 'Name4242', pageSize: 20 }],
  ['search, matching all', { search: 'example', pageSize: 20 }],
  ['search, matching all, page 40', { search: 'example', pageSize: 20, page: 40 }],
  ['search, matching all, by last name', { search: 'example', pageSize: 20, orderBy: 'lastName' }],
  ['search, matching 1 in 10', { search: 'name7', pageSize: 20 }],
  ['search, matching 1 in 100', { search: 'name42', pageSize: 20 }],
  ['search, matching none', { search: 'nobody-here', pageSize: 20 }],
];

async function measure(label: string, db: Database): Promise<void> {
  const secrets = await seedDemoData(db, systemClock, 'sandbox');
  const merchantId = secrets?.merchants[0]?.merchantId ?? '';
  const now = new Date().toISOString();
  const templateId = randomUUID();
  await db('customers').insert({ id: templateId, merchant_id: merchantId, first_name: 'Template', last_name: 'Customer', email: 'template@example.com', created_on: now, modified_on: now });
  await cloneCustomers(db, templateId, count);
  if (label.startsWith('PostgreSQL')) await db.raw('analyze');
  console.log(`\n== ${label}, ${String(count)} customers of one merchant, ${String(runs)} runs each ==`);
  for (const [name, query] of QUERIES) {
    const times: number[] = [];
    let total = 0;
    for (let i = 0; i < runs; i++) {
      const began = performance.now();
      total = (await searchCustomers(db, [merchantId], query)).total;
      times.push(performance.now() - began);
    }
    times.sort((a, b) => a - b);
    console.log(`${name.padEnd(38)} p50 ${(times[Math.floor(runs / 2)] ?? 0).toFixed(1).padStart(7)} ms  max ${(times[runs - 1] ?? 0).toFixed(1).padStart(7)} ms  total ${String(total)}`);
  }
}

const dir = mkdtempSync(path.join(tmpdir(), 'pgw-search-'));
try {
  const sqlite = createDatabase(`sqlite:${path.join(dir, 'search.db')}`);
  await migrate(sqlite, 'sandbox');
  await measure('SQLite', sqlite);
  await sqlite.destroy();
  if (postgresUrl) {
    const schema = `search_${randomBytes(4).toString('hex')}`;
    const pg = createDatabase(postgresUrl, { schema });
    try {
      await migrate(pg, 'sandbox', schema);
      await measure('PostgreSQL', pg);
    } finally {
      await pg.raw('drop schema if exists ?? cascade', [schema]);
      await pg.destroy();
    }
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}
