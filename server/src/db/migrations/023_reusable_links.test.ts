// Migration 023 on a database that already holds payment links: a link paid before it is a single-use link that
// took its one payment (counted, totalled and listed among its payments), an unpaid one a single-use link that
// took none; undone and redone, the links stay as they were.
import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Knex } from 'knex';
import { afterAll, describe, expect, it } from 'vitest';
import { createDatabase, type Database } from '../knex.ts';
import { seedDemoData } from '../seed.ts';
import { systemClock } from '../../platform/time.ts';
import { migrationSource } from './index.ts';

const postgresUrl = process.env.PGW_TEST_DATABASE_URL;
if (!postgresUrl) console.warn('\n*** SKIPPING the PostgreSQL run of 023_reusable_links.test.ts: PGW_TEST_DATABASE_URL is not set ***\n');
const engines = postgresUrl ? (['sqlite', 'postgres'] as const) : (['sqlite'] as const);
const dir = mkdtempSync(path.join(tmpdir(), 'pgw-023-'));
afterAll(() => { rmSync(dir, { recursive: true, force: true }); });

const MIGRATION = '023_reusable_links';

/** The migrations up to (and without) `last`: the database as the previous release left it. */
function sourceBefore(last: string): Knex.MigrationSource<string> {
  const all = migrationSource('sandbox');
  return { ...all, getMigrations: async (loadExtensions) => (await all.getMigrations(loadExtensions)).filter((name) => name < last) };
}

/** The migrations up to `last`, itself included: later ones would be the first a rollback undoes. */
function sourceThrough(last: string): Knex.MigrationSource<string> {
  const all = migrationSource('sandbox');
  return { ...all, getMigrations: async (loadExtensions) => (await all.getMigrations(loadExtensions)).filter((name) => name <= last) };
}

describe.each(engines)('migration 023 (reusable payment links) on %s', (engine) => {
  const schema = `t_${randomBytes(6).toString('hex')}`;
  const open = async (): Promise<Database> => {
    if (engine === 'sqlite') return createDatabase(`sqlite:${path.join(dir, `${schema}.sqlite`)}`);
    const admin = createDatabase(postgresUrl ?? '');
    await admin.raw('create schema ??', [schema]);
    await admin.destroy();
    return createDatabase(postgresUrl ?? '', { schema });
  };
  const migrateOptions = engine === 'postgres' ? { schemaName: schema } : {};

  it('counts a link paid before it as one payment of a single-use link, listed; an unpaid one as none; undoes and redoes', async () => {
    const db = await open();
    try {
      await db.migrate.latest({ migrationSource: sourceBefore(MIGRATION), ...migrateOptions });
      const merchant = (await seedDemoData(db, systemClock, 'sandbox'))?.merchants[0];
      if (merchant === undefined) throw new Error('no demo merchant');
      const at = '2026-01-02T03:04:05.000Z';
      const transactionId = randomUUID();
      await db('transactions').insert({
        id: transactionId, merchant_id: merchant.merchantId, payment_method_type_id: 1, type_id: 2, status_id: 3, processor_id: merchant.cardProcessorId,
        creator_type_id: 5, amount_cents: 4950, created_on: at, modified_on: at,
      });
      const paid = { id: randomUUID(), merchant_id: merchant.merchantId, amount_cents: 4950, description: 'Paid before', status: 'Paid', transaction_id: transactionId, paid_on: at, expires_on: null, created_on: at };
      const unpaid = { ...paid, id: randomUUID(), description: 'Unpaid', status: 'Active', transaction_id: null, paid_on: null };
      await db('quick_payments').insert([paid, unpaid]);
      const before = await db('quick_payments').orderBy('id').select('*');

      await db.migrate.latest({ migrationSource: sourceThrough(MIGRATION), ...migrateOptions });
      const row = async (id: string): Promise<Record<string, unknown>> => (await db('quick_payments').where({ id }).first()) as Record<string, unknown>;
      const terms = (r: Record<string, unknown>): unknown[] => [r.max_payments, Number(r.payment_count), Number(r.collected_cents), Number(r.quantity), r.last_amount_cents === null ? null : Number(r.last_amount_cents), r.last_quantity, r.redirect_url];
      expect(terms(await row(paid.id))).toEqual([1, 1, 4950, 1, 4950, 1, null]);
      expect(terms(await row(unpaid.id))).toEqual([1, 0, 0, 1, null, null, null]);
      const listed = (await db('quick_payment_payments').select('*')) as Record<string, unknown>[];
      expect(listed.map((p) => [p.quick_payment_id, Number(p.seq), p.transaction_id, Number(p.amount_cents), Number(p.quantity), p.paid_on])).toEqual([[paid.id, 1, transactionId, 4950, 1, at]]);

      await db.migrate.down({ migrationSource: sourceThrough(MIGRATION), ...migrateOptions });
      expect(await db('quick_payments').orderBy('id').select('*')).toEqual(before);
      await db.migrate.latest({ migrationSource: sourceThrough(MIGRATION), ...migrateOptions });
      expect(terms(await row(paid.id))).toEqual([1, 1, 4950, 1, 4950, 1, null]);
    } finally {
      if (engine === 'postgres') await db.raw('drop schema ?? cascade', [schema]);
      await db.destroy();
    }
  });
});
