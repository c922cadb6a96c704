// The SQLite customer search is planned the same whatever the planner's statistics say: from the trigram
// index's matches, then the matched rows by rowid, never a scan of every customer. A long-lived connection keeps
// the statistics it read when the table was small; after a bulk import they said "two customers", and each
// selective search at 100,000 scanned them all (17-80 ms instead of 1-2 ms).
import { randomUUID } from 'node:crypto';
import type { Knex } from 'knex';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDatabase, migrate, type Database } from '../db/knex.ts';
import { seedDemoData } from '../db/seed.ts';
import { systemClock } from '../platform/time.ts';
import { indexPendingCustomers, searchCustomers } from './customers.ts';

type Stat = { tbl: string; idx: string | null; stat: string };

describe('the SQLite customer search plan', () => {
  let db: Database;
  let merchantId: string;
  /** Statistics as a connection may hold them: none, those ANALYZE gathered when two customers existed, a million. */
  const statistics: Record<string, Stat[]> = { none: [] };
  beforeAll(async () => {
    db = createDatabase('sqlite::memory:');
    await migrate(db, 'sandbox');
    merchantId = (await seedDemoData(db, systemClock, 'sandbox'))?.merchants[0]?.merchantId ?? '';
    const now = new Date().toISOString();
    const early = Array.from({ length: 2 }, (_, i) => ({ id: randomUUID(), merchant_id: merchantId, first_name: `Early${String(i)}`, last_name: 'Customer', created_on: new Date().toISOString(), modified_on: new Date().toISOString() }));
    await db('customers').insert(early);
    await db.raw('analyze');
    statistics['two customers (read before an import)'] = (await db('sqlite_stat1').select('*')) as Stat[];
    statistics['a million customers'] = statistics['two customers (read before an import)'].map((s) => ({ ...s, stat: s.stat.replace(/^\d+/, '1000000') }));
    const rows = Array.from({ length: 300 }, (_, i) => ({ id: randomUUID(), merchant_id: merchantId, first_name: `Name${String(i)}`, last_name: `Surname${String(i)}`, email: `name${String(i)}@example.com`, created_on: now, modified_on: now }));
    for (let i = 0; i < rows.length; i += 100) await db('customers').insert(rows.slice(i, i + 100));
    // Indexed, as the gateway's own writes are before they commit: the plan read is the trigram index's.
    await indexPendingCustomers(db);
  });
  afterAll(async () => { await db.destroy(); });

  it.each(['none', 'two customers (read before an import)', 'a million customers'])('with statistics of %s: no statement scans the customers table', async (label) => {
    await db('sqlite_stat1').delete();
    const stats = statistics[label] ?? [];
    if (stats.length > 0) await db('sqlite_stat1').insert(stats);
    // The planner reads sqlite_stat1 again (what a new connection would read).
    await db.raw('analyze sqlite_schema');
    const statements: { sql: string; bindings: Knex.RawBinding[] }[] = [];
    const listen = (q: { sql: string; bindings: Knex.RawBinding[] }): void => { statements.push(q); };
    db.on('query', listen);
    let found;
    try {
      found = await searchCustomers(db, [merchantId], { search: 'Name42', pageSize: 20 });
    } finally {
      db.off('query', listen);
    }
    expect([found.total, found.totalIsExact, found.items.map((c) => c.firstName).sort()]).toEqual([1, true, ['Name42']]);
    expect(statements.length).toBeGreaterThan(0);
    for (const { sql, bindings } of statements) {
      const plan = (await db.raw<{ detail: string }[]>(`explain query plan ${sql}`, bindings)).map((p) => p.detail);
      expect(plan.filter((step) => /^SCAN (c|customers)\b/.test(step)), `${sql}\n${plan.join('\n')}`).toEqual([]);
    }
  });
});
