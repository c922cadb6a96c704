// The two throttle stores keep one contract: counting in windows, concurrent additions each seeing their own
// count, taking back, clearing after a success, sweeping; the PostgreSQL store also never deadlocks when
// requests lock the same two rows from opposite sides.
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDatabase, migrate, type Database } from '../db/knex.ts';
import { databaseStore, memoryStore, type ThrottleStore } from './auth-throttle.ts';

const postgresUrl = process.env.PGW_TEST_DATABASE_URL;
if (!postgresUrl) console.warn('\n*** SKIPPING the PostgreSQL store of auth-throttle.test.ts: PGW_TEST_DATABASE_URL is not set ***\n');

const WINDOW = 300_000;
const T0 = 1_800_000_000_000;

describe.each([
  ['memory', false],
  ['postgres', true],
] as const)('the %s store', (_name, postgres) => {
  let store: ThrottleStore;
  let db: Database | undefined;
  const schema = `t_${randomBytes(6).toString('hex')}`;
  beforeAll(async () => {
    if (!postgres) {
      store = memoryStore();
      return;
    }
    if (!postgresUrl) return;
    db = createDatabase(postgresUrl, { schema });
    await migrate(db, 'sandbox', schema);
    store = databaseStore(db);
  });
  afterAll(async () => {
    if (!db) return;
    await db.raw('drop schema if exists ?? cascade', [schema]);
    await db.destroy();
  });
  let n = 0;
  /** Fresh keys for each test (the store is shared by the file's tests). */
  const keys = (count: number): string[] => Array.from({ length: count }, () => `k${String(n++)}`.padEnd(43, '_'));
  const skip = postgres && !postgresUrl;
  const hitsOf = async (key: string, now: number): Promise<number | undefined> => (await store.liveCounters([key], now - WINDOW))[0]?.hits;

  it.skipIf(skip)('counts in a window that starts with the first hit, and starts a new one after it', async () => {
    const [a = '', b = ''] = keys(2);
    expect((await store.addHits([a, b], T0, T0 - WINDOW)).map((c) => [c.key, c.hits, c.windowStartMs]).sort())
      .toEqual([[a, 1, T0], [b, 1, T0]].sort());
    for (let i = 2; i <= 5; i++) expect((await store.addHits([a], T0 + i * 1000, T0 + i * 1000 - WINDOW))[0]).toMatchObject({ hits: i, windowStartMs: T0 });
    expect(await hitsOf(a, T0 + WINDOW - 1)).toBe(5);
    expect(await hitsOf(a, T0 + WINDOW)).toBeUndefined();
    const later = T0 + WINDOW;
    expect((await store.addHits([a], later, later - WINDOW))[0]).toMatchObject({ hits: 1, windowStartMs: later });
  });

  it.skipIf(skip)('gives each of many concurrent additions its own count', async () => {
    const [a = '', b = ''] = keys(2);
    const results = await Promise.all(Array.from({ length: 40 }, (_, i) => store.addHits(i % 2 === 0 ? [a, b] : [b, a], T0, T0 - WINDOW)));
    const countsOf = (key: string): number[] => results.map((r) => r.find((c) => c.key === key)?.hits ?? 0).sort((x, y) => x - y);
    expect(countsOf(a)).toEqual(Array.from({ length: 40 }, (_, i) => i + 1));
    expect(countsOf(b)).toEqual(Array.from({ length: 40 }, (_, i) => i + 1));
  });

  it.skipIf(skip)('takes hits back, never below zero', async () => {
    const [a = ''] = keys(1);
    await store.addHits([a], T0, T0 - WINDOW);
    await store.takeBack([a]);
    await store.takeBack([a]);
    expect(await hitsOf(a, T0) ?? 0).toBe(0);
    expect((await store.addHits([a], T0, T0 - WINDOW))[0]?.hits).toBe(1);
  });

  it.skipIf(skip)('clears the identity+address counter after a success and takes one hit back from the address', async () => {
    const [pair = '', address = ''] = keys(2);
    for (let i = 0; i < 4; i++) await store.addHits([pair, address], T0, T0 - WINDOW);
    await store.clearAfterSuccess(pair, address, T0);
    expect(await hitsOf(pair, T0) ?? 0).toBe(0);
    expect(await hitsOf(address, T0)).toBe(3);
  });

  it.skipIf(skip)('sweeps what has expired and keeps the rest', async () => {
    const [old = '', live = ''] = keys(2);
    await store.addHits([old], T0, T0 - WINDOW);
    await store.addHits([live], T0 + WINDOW, T0);
    await store.sweep(T0);
    expect(await store.liveCounters([old], 0)).toEqual([]);
    expect(await hitsOf(live, T0 + WINDOW)).toBe(1);
  });

  it.skipIf(skip)('never deadlocks when requests reserve, clear and take back the same rows concurrently', async () => {
    const [pair = '', address = ''] = keys(2);
    const work = Array.from({ length: 120 }, (_, i) => {
      switch (i % 4) {
        case 0: return store.addHits([pair, address], T0, T0 - WINDOW);
        case 1: return store.addHits([address, pair], T0, T0 - WINDOW);
        case 2: return store.clearAfterSuccess(pair, address, T0);
        default: return store.takeBack([address, pair]);
      }
    });
    await expect(Promise.all(work)).resolves.toBeDefined();
  });
});
