// The throttle's counters behind one interface, in two stores. On PostgreSQL (several instances): the table
// auth_throttle, where one atomic upsert adds to counters and returns them, so every instance shares each
// budget (two adding at once both see the sum). On SQLite (one process): a map in memory, exact because
// JavaScript runs one callback at a time. Measured on the token service (8 connections): the table on SQLite
// took it from ~1,800 to ~1,000-1,200 requests/s (three autocommit writes a request); the map keeps ~1,500-1,800.
import type { Knex } from 'knex';
import { locked } from '../platform/transaction.ts';

export interface Counter { key: string; windowStartMs: number; hits: number }

export interface ThrottleStore {
  /**
   * Adds one to each counter and returns them. A counter whose window started at or before `expiredAt` starts
   * a new window at `now` with this one hit (a counter's window starts with its first hit, not on a grid).
   */
  addHits(keys: readonly string[], now: number, expiredAt: number): Promise<Counter[]>;
  /** The counters of these keys whose window is still open (started after `expiredAt`). */
  liveCounters(keys: readonly string[], expiredAt: number): Promise<Counter[]>;
  /** Takes one hit back from each counter (never below 0). */
  takeBack(keys: readonly string[]): Promise<void>;
  /** After a successful check: the identity+address counter is cleared and one hit taken back from the address's. */
  clearAfterSuccess(pair: string, address: string, now: number): Promise<void>;
  /** Removes the counters whose window started at or before `expiredAt`. */
  sweep(expiredAt: number): Promise<void>;
}

interface Row { key: string; window_start_ms: number | string; hits: number | string }

const toCounter = (row: Row): Counter => ({ key: row.key, windowStartMs: Number(row.window_start_ms), hits: Number(row.hits) });

/**
 * The PostgreSQL store (Knex). Every statement that locks several rows locks them in key order (the rows of a
 * multi-row upsert are sorted), so two requests never wait on each other in a cycle (a deadlock).
 */
export function databaseStore(db: Knex): ThrottleStore {
  /** One upsert of these keys in key order; `update` is the new hits of an existing row (old values as `t.`). */
  const upsert = async (keys: readonly string[], now: number, hits: number, update: Knex.Raw, windowStart: Knex.Raw): Promise<Counter[]> => {
    if (keys.length === 0) return [];
    const rows = await db('auth_throttle as t')
      .insert([...new Set(keys)].sort().map((key) => ({ key, window_start_ms: now, hits })))
      .onConflict('key')
      .merge({ hits: update, window_start_ms: windowStart })
      .returning<Row[]>(['key', 'window_start_ms', 'hits']);
    return rows.map(toCounter);
  };
  return {
    addHits: (keys, now, expiredAt) => upsert(keys, now, 1,
      db.raw('case when t.window_start_ms <= ? then 1 else t.hits + 1 end', [expiredAt]),
      db.raw('case when t.window_start_ms <= ? then excluded.window_start_ms else t.window_start_ms end', [expiredAt])),
    async liveCounters(keys, expiredAt) {
      if (keys.length === 0) return [];
      const rows = await db('auth_throttle').whereIn('key', keys).where('window_start_ms', '>', expiredAt).select<Row[]>('key', 'window_start_ms', 'hits');
      return rows.map(toCounter);
    },
    async takeBack(keys) {
      // One row a statement: no lock order to keep (a fault's path, rare).
      for (const key of [...new Set(keys)].sort()) await db('auth_throttle').where({ key }).where('hits', '>', 0).decrement('hits', 1);
    },
    async clearAfterSuccess(pair, address, now) {
      // One statement for both rows (the success path is the token service's hot path). A row left at 0 is
      // swept with its window; a row swept meanwhile comes back at 0, harmlessly.
      await upsert([pair, address], now, 0,
        db.raw('case when t.key = ? then 0 else greatest(t.hits - 1, 0) end', [pair]), db.raw('t.window_start_ms'));
    },
    async sweep(expiredAt) {
      // Rows another request holds are left to the next sweep: the sweep never waits, so never deadlocks.
      await db('auth_throttle').whereIn('key', locked(db, db('auth_throttle').select('key').where('window_start_ms', '<=', expiredAt), { strength: 'update', skip: true })).delete();
    },
  };
}

/** Above this many counters, a sweep runs at once (a flood of fresh keys cannot grow the map without bound). */
const MEMORY_SWEEP_SIZE = 100_000;

/** The SQLite store: one process, so a map is one budget; every operation is atomic (no await inside). */
export function memoryStore(): ThrottleStore {
  const counters = new Map<string, { windowStartMs: number; hits: number }>();
  let lastExpiredAt = 0;
  const sweep = (expiredAt: number): void => {
    lastExpiredAt = expiredAt;
    for (const [key, c] of counters) if (c.windowStartMs <= expiredAt) counters.delete(key);
  };
  return {
    addHits(keys, now, expiredAt) {
      if (counters.size >= MEMORY_SWEEP_SIZE) sweep(Math.max(expiredAt, lastExpiredAt));
      return Promise.resolve(keys.map((key) => {
        const found = counters.get(key);
        const next = !found || found.windowStartMs <= expiredAt ? { windowStartMs: now, hits: 1 } : { windowStartMs: found.windowStartMs, hits: found.hits + 1 };
        counters.set(key, next);
        return { key, ...next };
      }));
    },
    liveCounters(keys, expiredAt) {
      return Promise.resolve(keys.flatMap((key) => {
        const found = counters.get(key);
        return found && found.windowStartMs > expiredAt ? [{ key, ...found }] : [];
      }));
    },
    takeBack(keys) {
      for (const key of keys) {
        const found = counters.get(key);
        if (found) found.hits = Math.max(0, found.hits - 1);
      }
      return Promise.resolve();
    },
    clearAfterSuccess(pair, address) {
      counters.delete(pair);
      const found = counters.get(address);
      if (found && found.hits <= 1) counters.delete(address);
      else if (found) found.hits -= 1;
      return Promise.resolve();
    },
    sweep(expiredAt) {
      sweep(expiredAt);
      return Promise.resolve();
    },
  };
}
