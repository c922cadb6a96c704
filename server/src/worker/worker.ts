// The worker that `npm start` runs beside the HTTP server, as loops: every PGW_WORKER_INTERVAL_MS the
// network's changes that fell due; every PGW_DELIVERY_INTERVAL_MS the webhook attempts that fell due, started
// without waiting on receivers, and at once when this process commits deliveries (platform/wakeups.ts); every SWEEP_INTERVAL_MS the expired sandbox merchants, deleted. Stopping it (SIGTERM) lets the runs in progress and the attempts in flight
// finish and starts no other.
import { isPostgres } from '../db/knex.ts';
import type { Platform } from '../platform/scope.ts';
import { optimize } from '../repositories/maintenance.ts';
import { sweepSandboxes } from '../services/sandboxes.ts';
import { DeliveryPump } from './delivery-pump.ts';
import { onDeliveriesDue } from '../platform/wakeups.ts';
import { runNetworkDue } from './run-due.ts';

/** The least time between two runs a wake-up starts: a busy engine's commits cost a run every few ms at most. */
const MIN_WAKE_GAP_MS = 5;

/**
 * A task run again `intervalMs` after each run ends, until stopped; stop waits for the run in progress. A
 * wake-up runs it sooner: at once when idle (no sooner than MIN_WAKE_GAP_MS after the last run began), or once
 * more right after the run in progress.
 */
class Loop {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;
  private stopped = true;
  private again = false;
  private lastStart = 0;

  constructor(private readonly task: () => Promise<void>, private readonly intervalMs: number) {}

  start(): void {
    this.stopped = false;
    this.schedule(this.intervalMs);
  }

  wake(): void {
    if (this.stopped) return;
    if (this.running) {
      this.again = true;
      return;
    }
    this.schedule(Math.max(0, this.lastStart + MIN_WAKE_GAP_MS - Date.now()));
  }

  private schedule(delayMs: number): void {
    if (this.stopped) return;
    if (this.timer) clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.lastStart = Date.now();
      this.running = this.task().finally(() => {
        this.running = undefined;
        const soon = this.again;
        this.again = false;
        this.schedule(soon ? Math.max(0, this.lastStart + MIN_WAKE_GAP_MS - Date.now()) : this.intervalMs);
      });
    }, delayMs);
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    await this.running;
  }
}

/** How often expired sandbox merchants are looked for (a sandbox outlives its expiry by at most this). */
export const SWEEP_INTERVAL_MS = 30_000;

/** How often SQLite's query planner statistics are brought up to date (PRAGMA optimize). */
const OPTIMIZE_INTERVAL_MS = 10 * 60_000;

export class Worker {
  private readonly pump: DeliveryPump;
  private readonly network: Loop;
  private readonly deliveries: Loop;
  private readonly maintenance: Loop | undefined;
  private readonly sweep: Loop;

  constructor(private readonly deps: Platform, intervalMs: number, deliveryIntervalMs = intervalMs, sweepIntervalMs = SWEEP_INTERVAL_MS) {
    this.pump = new DeliveryPump(deps);
    this.network = new Loop(() => this.guard(async () => {
      const counts = await runNetworkDue(this.deps, this.deps.wall.now());
      const ran = Object.values<number>(counts).reduce((a, b) => a + b, 0);
      if (ran > 0) this.deps.log.info({ ran: counts }, 'worker ran what fell due');
    }), intervalMs);
    this.deliveries = new Loop(() => this.guard(async () => { await this.pump.tick(); }), deliveryIntervalMs);
    this.sweep = new Loop(() => this.guard(async () => {
      const swept = await sweepSandboxes(this.deps);
      if (swept > 0) this.deps.log.info({ swept }, 'worker deleted expired sandbox merchants');
    }), sweepIntervalMs);
    // SQLite keeps no planner statistics unless asked (repositories/maintenance.ts); PostgreSQL's autovacuum
    // analyzes by itself.
    this.maintenance = isPostgres(deps.db) ? undefined
      : new Loop(() => this.guard(async () => { await optimize(this.deps.db); }), OPTIMIZE_INTERVAL_MS);
  }

  private async guard(task: () => Promise<void>): Promise<void> {
    try {
      await task();
    } catch (error) {
      this.deps.log.error({ err: error }, 'worker run failed; it is tried again at the next interval');
    }
  }

  private stopWaking: (() => void) | undefined;

  start(): void {
    this.network.start();
    this.deliveries.start();
    this.stopWaking = onDeliveriesDue(() => { this.deliveries.wake(); });
    this.sweep.start();
    this.maintenance?.start();
  }

  /** Starts no new run and waits for the runs in progress and the webhook attempts in flight. */
  async stop(): Promise<void> {
    this.stopWaking?.();
    await Promise.all([this.network.stop(), this.deliveries.stop(), this.sweep.stop(), this.maintenance?.stop()]);
    await this.pump.drain();
  }
}
