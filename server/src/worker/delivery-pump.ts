// The worker's webhook deliveries: every tick it claims what fell due (under a lease) up to a bound of
// attempts in flight and starts them without waiting, so a slow receiver holds up only its own deliveries,
// never the engine (nor a sandbox clock advance, which only queues what fell due). The attempts' results are
// recorded in batches, one transaction each. Stopping it waits for the attempts in flight.
import { isPostgres } from '../db/knex.ts';
import type { Platform } from '../platform/scope.ts';
import { merchantsWithDueDeliveries } from '../repositories/webhook-deliveries.ts';
import { attemptsOf, attemptTimeOf, claimDeliveries, makeAttempt, recordMoves, type PendingMove } from '../services/webhook-delivery.ts';
import { businessTimes } from './run-due.ts';

/** The most attempts one recording transaction holds. */
const RECORD_BATCH = 100;
/**
 * Recording transactions at once: on PostgreSQL several (a batch waits on round trips, not on the database, and
 * one recorder at a time falls behind two instances' attempts until leases lapse); on SQLite one (one writer).
 */
const RECORDERS = { postgres: 4, sqlite: 1 } as const;

interface Waiting { move: PendingMove; resolve: () => void; reject: (error: unknown) => void }

export class DeliveryPump {
  private readonly inFlight = new Set<Promise<unknown>>();
  /** Results waiting for the next recording transaction, and whether one is running or about to. */
  private readonly waiting: Waiting[] = [];
  private recorders = 0;
  private readonly maxRecorders: number;

  constructor(
    private readonly deps: Platform,
    private readonly maxInFlight = 200,
  ) {
    this.maxRecorders = isPostgres(deps.db) ? RECORDERS.postgres : RECORDERS.sqlite;
  }

  get attemptsInFlight(): number {
    return this.inFlight.size;
  }

  /** Claims due deliveries while there is room and starts their attempts; returns how many it started. */
  async tick(): Promise<number> {
    const wallNow = this.deps.wall.now();
    const times = await businessTimes(this.deps, wallNow);
    let started = 0;
    for (const merchantId of await merchantsWithDueDeliveries(this.deps.db, times.furthest)) {
      const room = this.maxInFlight - this.inFlight.size;
      if (room <= 0) break;
      const scope = times.scopeOf(merchantId);
      const claimed = await claimDeliveries(scope, times.of(merchantId), wallNow, room);
      const loaded = await attemptsOf(this.deps.db, claimed);
      for (const delivery of claimed) {
        const attempt = makeAttempt(scope, delivery, attemptTimeOf(scope, delivery, times.of(merchantId)), loaded)
          .then(({ move }) => this.record(move))
          .catch((error: unknown) => { this.deps.log.error({ err: error, deliveryId: delivery.id }, 'webhook attempt failed to record; its lease lapses and it is tried again'); })
          .finally(() => { this.inFlight.delete(attempt); });
        this.inFlight.add(attempt);
        started += 1;
      }
    }
    return started;
  }

  /**
   * Records an attempt's result with the others that finished meanwhile: one commit for many (on PostgreSQL a
   * commit per attempt was most of a delivery's cost). Settles once the result is committed.
   */
  private record(move: PendingMove): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      this.waiting.push({ move, resolve, reject });
      if (this.recorders >= this.maxRecorders) return;
      this.recorders += 1;
      // One turn of the event loop first: the attempts answered in the same turn join the batch.
      setImmediate(() => { void this.recordWaiting(); });
    });
  }

  private async recordWaiting(): Promise<void> {
    try {
      while (this.waiting.length > 0) {
        const batch = this.waiting.splice(0, RECORD_BATCH);
        try {
          await recordMoves(this.deps.db, batch.map((w) => w.move));
          for (const w of batch) w.resolve();
        } catch {
          // One result that cannot be recorded (a deadlock with a sandbox removal, say) must not lose the others.
          for (const w of batch) await recordMoves(this.deps.db, [w.move]).then(w.resolve, w.reject);
        }
      }
    } finally {
      this.recorders -= 1;
    }
  }

  /** Waits for every attempt in flight (and its recording). */
  async drain(): Promise<void> {
    while (this.inFlight.size > 0) await Promise.allSettled([...this.inFlight]);
  }
}
