// The worker's webhook deliveries: every tick it claims what fell due (under a lease) up to a bound of
// attempts in flight and starts them without waiting, so a slow receiver holds up only its own deliveries,
// never the engine (nor a sandbox clock advance, which only queues what fell due). Stopping it waits for
// the attempts in flight.
//
// Finished attempts are recorded together (group commit): while one batch is written, the attempts that finish
// meanwhile queue and form the next, so an idle engine records each at once and a busy one writes many a
// transaction, in a fixed number of statements (recordAttempts: one lock, one update and one insert a trigger).
// An earlier batching (cd94a1f, reverted) wrote a batch row by row: its last attempt waited for the 99 round
// trips before it, and under CI's load 2-second leases lapsed (32 of 1,000 attempts made twice).
import type { Knex } from 'knex';
import type { Platform } from '../platform/scope.ts';
import { merchantsWithDueDeliveries } from '../repositories/webhook-deliveries.ts';
import { attemptsOf, attemptTimeOf, claimDeliveries, makeAttempt, recordAttempts, type Attempted } from '../services/webhook-delivery.ts';
import { businessTimes } from './run-due.ts';

/** The most attempts one transaction records. */
const MAX_BATCH = 200;

/** Records finished attempts, many a transaction: the ones that finish while a batch is written form the next. */
export class AttemptRecorder {
  private queue: { attempted: Attempted; settle: (error?: unknown) => void }[] = [];
  private writing = false;

  constructor(private readonly db: Knex) {}

  /** Resolves once the attempt is recorded (committed), rejects when it could not be. */
  record(attempted: Attempted): Promise<void> {
    return new Promise((resolve, reject) => {
      this.queue.push({ attempted, settle: (error) => { if (error === undefined) resolve(); else reject(error instanceof Error ? error : new Error('the attempt was not recorded', { cause: error })); } });
      if (!this.writing) void this.write();
    });
  }

  private async write(): Promise<void> {
    this.writing = true;
    try {
      while (this.queue.length > 0) {
        const batch = this.queue.splice(0, MAX_BATCH);
        try {
          await recordAttempts(this.db, batch.map((b) => b.attempted));
          for (const b of batch) b.settle();
        } catch {
          // One attempt that cannot be recorded must not cost the others theirs: each alone, once.
          for (const b of batch) await recordAttempts(this.db, [b.attempted]).then(() => { b.settle(); }, (error: unknown) => { b.settle(error ?? new Error('not recorded')); });
        }
      }
    } finally {
      this.writing = false;
    }
  }
}

export class DeliveryPump {
  private readonly inFlight = new Set<Promise<unknown>>();
  private readonly recorder: AttemptRecorder;

  constructor(
    private readonly deps: Platform,
    private readonly maxInFlight = 200,
  ) {
    this.recorder = new AttemptRecorder(deps.db);
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
        const attempt = makeAttempt(scope, delivery, attemptTimeOf(scope, delivery, times.of(merchantId)), loaded).then((attempted) => this.recorder.record(attempted))
          .catch((error: unknown) => { this.deps.log.error({ err: error, deliveryId: delivery.id }, 'webhook attempt failed to record; its lease lapses and it is tried again'); })
          .finally(() => { this.inFlight.delete(attempt); });
        this.inFlight.add(attempt);
        started += 1;
      }
    }
    return started;
  }

  /** Waits for every attempt in flight. */
  async drain(): Promise<void> {
    while (this.inFlight.size > 0) await Promise.allSettled([...this.inFlight]);
  }
}
