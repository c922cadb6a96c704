// The worker's webhook deliveries: every tick it claims what fell due (under a lease) up to a bound of
// attempts in flight and starts them without waiting, so a slow receiver holds up only its own deliveries,
// never the engine (nor a sandbox clock advance, which only queues what fell due). Stopping it waits for
// the attempts in flight.
//
// Each attempt is recorded in a transaction of its own. Recording them in batches (one transaction for up to 100,
// 4 at once on PostgreSQL) was tried: the last of a batch waited for the round trips of the 99 before it, and
// under CI's load two instances then let 2-second leases lapse and made 32 of 1,000 attempts twice (the crash
// test). A batch needs set-based statements first (one lock for all, one insert of the attempts).
import type { Platform } from '../platform/scope.ts';
import { merchantsWithDueDeliveries } from '../repositories/webhook-deliveries.ts';
import { attemptDelivery, attemptsOf, attemptTimeOf, claimDeliveries } from '../services/webhook-delivery.ts';
import { businessTimes } from './run-due.ts';

export class DeliveryPump {
  private readonly inFlight = new Set<Promise<unknown>>();

  constructor(
    private readonly deps: Platform,
    private readonly maxInFlight = 200,
  ) {}

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
        const attempt = attemptDelivery(scope, delivery, attemptTimeOf(scope, delivery, times.of(merchantId)), loaded)
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
