// The scope of one request or job: the merchant it acts for, that merchant's business clock, the wall clock,
// the database handle, the log, the configuration and the instances, as one value. Only the platform opens one
// (the request context, the worker's run for a merchant, the hosted pages and the dashboard), so a merchant id
// never travels apart from the clock it must agree with, and the business clock is built here only.
import type { Knex } from 'knex';
import { clockOffsetOf } from '../repositories/merchants.ts';
import type { Deps } from './deps.ts';
import type { Clock } from './time.ts';

/** A transaction: what a row lock, an outbox event or an engine move needs; the pool is not one. */
export type Tx = Knex.Transaction;

/** The dependencies of work for one merchant; `clock` is that merchant's business clock. */
export interface Scope extends Deps {
  readonly merchantId: string;
}

/** Dependencies (a scope, usually) working inside a transaction: the compiler tells them from the pool's. */
export type InTx<D extends Deps> = D & { readonly db: Tx };

/** What a scope is opened from: everything but the merchant and its clock. */
export type Platform = Omit<Deps, 'clock'>;

/** The offset a merchant's business time has: its sandbox offset in the sandbox; production is real time. */
const offsetIn = (platform: Pick<Deps, 'config'>, offsetMs: number): number => (platform.config.environment === 'sandbox' ? offsetMs : 0);

/** The business clock `offsetMs` ahead of `wall`. */
export function businessClock(platform: Pick<Deps, 'wall' | 'config'>, offsetMs: number): Clock {
  const offset = offsetIn(platform, offsetMs);
  if (offset === 0) return platform.wall;
  return { now: () => new Date(platform.wall.now().getTime() + offset) };
}

/** Business time at one wall instant, for a merchant `offsetMs` ahead (a clock advance, a worker pass). */
export const businessTimeAt = (platform: Pick<Deps, 'config'>, wallNow: Date, offsetMs: number): Date =>
  new Date(wallNow.getTime() + offsetIn(platform, offsetMs));

/** Opens the scope of `merchantId`, whose sandbox clock is `offsetMs` ahead. Only the platform calls this. */
export function openScope(platform: Platform, merchantId: string, offsetMs: number): Scope {
  // One literal, no spread: V8 gives a property added after a spread a new hidden class (~1 us each, issue 43).
  return {
    db: platform.db, log: platform.log, config: platform.config, wall: platform.wall, instances: platform.instances,
    resolveHost: platform.resolveHost, merchantId, clock: businessClock(platform, offsetMs),
  };
}

/** Opens the scope of a merchant no token named (a hosted invoice page, the dashboard): its offset read now. */
export async function openMerchantScope(platform: Platform, merchantId: string): Promise<Scope> {
  return openScope(platform, merchantId, platform.config.environment === 'sandbox' ? await clockOffsetOf(platform.db, merchantId) : 0);
}

/** The same dependencies working in a transaction. */
export const within = <D extends Deps>(deps: D, tx: Tx): InTx<D> => ({ ...deps, db: tx });

/**
 * The scope's work for what fell due at `at`, in a transaction: its business clock reads `at`, so a payment the
 * worker makes for a due time is made at that time (the clock advance runs a year of renewals in one pass).
 */
export const atDueTime = (scope: Scope, tx: Tx, at: Date): InTx<Scope> => ({ ...scope, db: tx, clock: { now: () => at } });
