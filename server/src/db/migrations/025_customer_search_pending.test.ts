// Migration 025 on SQLite: customers noted and not yet indexed are indexed when it is undone, and the search
// answers the same rows before it and after it is redone.
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { createDatabase, migrate } from '../knex.ts';
import { migrationSource } from './index.ts';
import { seedDemoData } from '../seed.ts';
import { systemClock } from '../../platform/time.ts';
import { searchCustomers } from '../../repositories/customers.ts';

describe('migration 025 (customer search index written once a commit) on sqlite', () => {
  it('undoes with noted customers indexed, and redoes', async () => {
    const db = createDatabase('sqlite::memory:');
    try {
      await migrate(db, 'sandbox');
      const merchantId = (await seedDemoData(db, systemClock, 'sandbox'))?.merchants[0]?.merchantId ?? '';
      const now = new Date().toISOString();
      await db('customers').insert(['Noted1', 'Noted2'].map((name) => ({ id: randomUUID(), merchant_id: merchantId, first_name: name, last_name: 'Migrated', created_on: now, modified_on: now })));
      const found = async (): Promise<string[]> => (await searchCustomers(db, [merchantId], { search: 'noted', pageSize: 20 })).items.map((c) => c.firstName ?? '').sort();
      expect(await found()).toEqual(['Noted1', 'Noted2']);
      // Migrations are taken back until 025 is (however many came after it).
      const pendingTable = async (): Promise<unknown[]> => db.raw<{ name: string }[]>("select name from sqlite_master where name = 'customers_search_pending'");
      for (let i = 0; i < 20 && (await pendingTable()).length > 0; i++) await db.migrate.down({ migrationSource: migrationSource('sandbox') });
      expect(await pendingTable()).toEqual([]);
      expect(await db('knex_migrations').max({ name: 'name' }).first()).toEqual({ name: '024_subscription_plans' });
      // The search of this version reads the table 025 makes: the index is read as the version before reads it.
      expect(await db.raw<{ n: number }[]>("select count(*) as n from customers_search where customers_search match '\"noted\"'")).toEqual([{ n: 2 }]);
      await db.migrate.latest({ migrationSource: migrationSource('sandbox') });
      await db('customers').insert({ id: randomUUID(), merchant_id: merchantId, first_name: 'Noted3', last_name: 'Migrated', created_on: now, modified_on: now });
      expect(await found()).toEqual(['Noted1', 'Noted2', 'Noted3']);
    } finally {
      await db.destroy();
    }
  });
});
