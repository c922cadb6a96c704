// The throttle's counters (Knex only): one atomic upsert adds to counters and returns them, so that instances
// on one PostgreSQL database share each budget (two adding at once both see the sum); the same SQL runs on SQLite.
import type { Knex } from 'knex';

export interface Counter { key: string; windowStartMs: number; hits: number }

interface Row { key: string; window_start_ms: number | string; hits: number | string }

const toCounter = (row: Row): Counter => ({ key: row.key, windowStartMs: Number(row.window_start_ms), hits: Number(row.hits) });

/**
 * Adds one to each counter and returns them. A counter whose window started at or before `expiredAt` starts
 * a new window at `now` with this one hit (the window of a counter starts with its first hit, not on a grid).
 */
export async function addHits(db: Knex, keys: readonly string[], now: number, expiredAt: number): Promise<Counter[]> {
  if (keys.length === 0) return [];
  const expired = db.raw('auth_throttle.window_start_ms <= ?', [expiredAt]);
  const rows = await db('auth_throttle')
    .insert(keys.map((key) => ({ key, window_start_ms: now, hits: 1 })))
    .onConflict('key')
    .merge({
      hits: db.raw('case when ? then 1 else auth_throttle.hits + 1 end', [expired]),
      window_start_ms: db.raw('case when ? then excluded.window_start_ms else auth_throttle.window_start_ms end', [expired]),
    })
    .returning<Row[]>(['key', 'window_start_ms', 'hits']);
  return rows.map(toCounter);
}

/** The counters of these keys whose window is still open (after `expiredAt`). */
export async function liveCounters(db: Knex, keys: readonly string[], expiredAt: number): Promise<Counter[]> {
  if (keys.length === 0) return [];
  const rows = await db('auth_throttle').whereIn('key', keys).where('window_start_ms', '>', expiredAt)
    .select<Row[]>('key', 'window_start_ms', 'hits');
  return rows.map(toCounter);
}

/** Takes one hit back from each counter (never below 0), and sets `reset` (if given) to 0. */
export async function takeBack(db: Knex, keys: readonly string[], reset?: string): Promise<void> {
  if (keys.length === 0) return;
  await db('auth_throttle').whereIn('key', reset === undefined ? keys : [...keys, reset]).update({
    hits: db.raw('case when key = ? then 0 when hits > 0 then hits - 1 else 0 end', [reset ?? '']),
  });
}

/** Removes the counters whose window started at or before `expiredAt`. */
export async function sweep(db: Knex, expiredAt: number): Promise<number> {
  return db('auth_throttle').where('window_start_ms', '<=', expiredAt).delete();
}
