// Migration 020 on a database that already holds events: their stream numbers, ids and the stream's order survive
// it (and its undoing), new events are numbered after them, and the events list reads its new index.
import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Knex } from 'knex';
import { afterAll, describe, expect, it } from 'vitest';
import { createDatabase, type Database } from '../knex.ts';
import { seedDemoData } from '../seed.ts';
import { systemClock } from '../../platform/time.ts';
import { eventsAfter, streamStart } from '../../repositories/event-stream.ts';
import { insertEvent, insertEvents, type EventRow } from '../../repositories/outbox.ts';
import { migrationSource } from './index.ts';

const postgresUrl = process.env.PGW_TEST_DATABASE_URL;
if (!postgresUrl) console.warn('\n*** SKIPPING the PostgreSQL run of 020_outbox_stream_rowid.test.ts: PGW_TEST_DATABASE_URL is not set ***\n');
const engines = postgresUrl ? (['sqlite', 'postgres'] as const) : (['sqlite'] as const);
const dir = mkdtempSync(path.join(tmpdir(), 'pgw-020-'));
afterAll(() => { rmSync(dir, { recursive: true, force: true }); });

const MIGRATION = '020_outbox_stream_rowid';

/** The migrations up to (and without) `last`, so a database can be left as the previous release left it. */
function sourceBefore(last: string): Knex.MigrationSource<string> {
  const all = migrationSource('sandbox');
  return { ...all, getMigrations: async (loadExtensions) => (await all.getMigrations(loadExtensions)).filter((name) => name < last) };
}

const event = (merchantId: string, n: number): EventRow => ({
  id: randomUUID(), merchant_id: merchantId, type: 'customer.created', payload: JSON.stringify({ n }), occurred_on: new Date(Date.UTC(2026, 0, 1, 0, 0, n)).toISOString(),
});

/**
 * Events after a cursor once `settledCount(...)` of them are settled: on PostgreSQL an event is streamed only when
 * every older transaction of the cluster has ended, and other test files' may still run (an empty answer was seen
 * on a loaded machine).
 */
async function settledAfter(db: Database, merchantId: string, after: { xid: string; seq: number }, expected: () => Promise<number>): Promise<Awaited<ReturnType<typeof eventsAfter>>> {
  const deadline = Date.now() + 30_000;
  for (;;) {
    const events = await eventsAfter(db, { merchantId }, after, [], 1000);
    if (events.length >= await expected() || Date.now() > deadline) return events;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

async function streamed(db: Database, merchantId: string): Promise<{ id: string; seq: number }[]> {
  const all = async (): Promise<number> => Number(((await db('outbox_events').where({ merchant_id: merchantId }).count({ n: '*' }).first()) as { n: number | string } | undefined)?.n ?? 0);
  const events = await settledAfter(db, merchantId, { xid: '0', seq: 0 }, all);
  return events.map((e) => ({ id: e.id, seq: e.cursor.seq }));
}

describe.each(engines)('migration 020 (outbox numbering and indexes) on %s', (engine) => {
  const schema = `t_${randomBytes(6).toString('hex')}`;
  const open = async (): Promise<Database> => {
    if (engine === 'sqlite') return createDatabase(`sqlite:${path.join(dir, `${schema}.sqlite`)}`);
    const admin = createDatabase(postgresUrl ?? '');
    await admin.raw('create schema ??', [schema]);
    await admin.destroy();
    return createDatabase(postgresUrl ?? '', { schema });
  };
  const migrateOptions = engine === 'postgres' ? { schemaName: schema } : {};

  it('keeps every event, its number and the stream\'s order; numbers new events after them; undoes and redoes', async () => {
    const db = await open();
    try {
      await db.migrate.latest({ migrationSource: sourceBefore(MIGRATION), ...migrateOptions });
      const merchantId = (await seedDemoData(db, systemClock, 'sandbox'))?.merchants[0]?.merchantId;
      if (merchantId === undefined) throw new Error('no demo merchant');
      // Events as the previous release wrote them: one at a time and several in one statement.
      await insertEvent(db, event(merchantId, 1));
      await insertEvents(db, [event(merchantId, 2), event(merchantId, 3), event(merchantId, 4)]);
      const before = await streamed(db, merchantId);
      expect(before).toHaveLength(4);

      await db.migrate.latest({ migrationSource: migrationSource('sandbox'), ...migrateOptions });
      expect(await streamed(db, merchantId)).toEqual(before);
      const columns = Object.keys(await db('outbox_events').columnInfo());
      expect(columns).not.toContain('dispatched_on');
      if (engine === 'sqlite') {
        const triggers = await db('sqlite_master').where({ type: 'trigger', tbl_name: 'outbox_events' }).select('name');
        expect(triggers).toEqual([]);
      }

      // New events come after the old ones, in the order they were written, each number once.
      const later = [event(merchantId, 5), event(merchantId, 6)];
      await insertEvents(db, later);
      await insertEvent(db, event(merchantId, 7));
      const after = await streamed(db, merchantId);
      expect(after.slice(0, 4)).toEqual(before);
      expect(after.slice(4, 6).map((e) => e.id)).toEqual(later.map((e) => e.id));
      const seqs = after.map((e) => e.seq);
      expect(seqs).toEqual([...seqs].sort((a, b) => a - b));
      expect(new Set(seqs).size).toBe(seqs.length);

      // An event's id stays unique.
      const first = before[0];
      if (first === undefined) throw new Error('no first event');
      await expect(insertEvent(db, { ...event(merchantId, 8), id: first.id })).rejects.toThrow();
      // A reader that stopped at the last event sees only what is written after it.
      const start = await streamStart(db, { merchantId });
      expect(start.afterId).toBe(after.at(-1)?.id);
      const next = event(merchantId, 9);
      await insertEvent(db, next);
      expect((await settledAfter(db, merchantId, start.cursor, () => Promise.resolve(1))).map((e) => e.id)).toEqual([next.id]);

      if (engine === 'sqlite') {
        // VACUUM renumbers rowids that no column names; stream_seq names it, so the numbers stay.
        const numbered = await streamed(db, merchantId);
        await db.raw('vacuum');
        expect(await streamed(db, merchantId)).toEqual(numbered);
      }

      // Undone and redone, the events keep their numbers.
      const kept = await streamed(db, merchantId);
      await db.migrate.down({ migrationSource: migrationSource('sandbox'), ...migrateOptions });
      expect(await streamed(db, merchantId)).toEqual(kept);
      await insertEvent(db, event(merchantId, 10));
      await db.migrate.latest({ migrationSource: migrationSource('sandbox'), ...migrateOptions });
      const redone = await streamed(db, merchantId);
      expect(redone.slice(0, kept.length)).toEqual(kept);
      expect(redone).toHaveLength(kept.length + 1);
    } finally {
      if (engine === 'postgres') await db.raw('drop schema ?? cascade', [schema]);
      await db.destroy();
    }
  });

  it('the events list of a merchant reads its index in order instead of sorting all of the merchant\'s events', async () => {
    if (engine === 'postgres') {
      // PostgreSQL's planner picks by table size; the index's presence is what the migration owes.
      const db = await open();
      try {
        await db.migrate.latest({ migrationSource: migrationSource('sandbox'), ...migrateOptions });
        const indexes = await db('pg_indexes').where({ schemaname: schema, tablename: 'outbox_events' }).pluck('indexdef');
        expect(indexes.some((d: string) => d.includes('(merchant_id, occurred_on, id)'))).toBe(true);
        expect(indexes.some((d: string) => d.includes('dispatched_on'))).toBe(false);
      } finally {
        await db.raw('drop schema ?? cascade', [schema]);
        await db.destroy();
      }
      return;
    }
    const db = createDatabase(`sqlite:${path.join(dir, `${schema}-plan.sqlite`)}`);
    try {
      await db.migrate.latest({ migrationSource: migrationSource('sandbox') });
      const plan = await db.raw<{ detail: string }[]>("explain query plan select id, type, occurred_on from outbox_events where merchant_id = 'm' order by occurred_on desc, id desc limit 20");
      const details = plan.map((row) => row.detail).join('\n');
      expect(details).toContain('outbox_events_merchant_occurred');
      expect(details).not.toContain('TEMP B-TREE');
    } finally {
      await db.destroy();
    }
  });
});
