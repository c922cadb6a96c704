// The worker that `npm start` runs beside the HTTP server: every interval it runs the network's changes that
// fell due, then starts the webhook attempts that fell due (without waiting on receivers). Stopping it
// (SIGTERM) lets the run in progress and the attempts in flight finish and starts no other.
import type { Deps } from '../platform/deps.ts';
import { DeliveryPump } from './delivery-pump.ts';
import { runNetworkDue } from './run-due.ts';

export class Worker {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;
  private stopped = false;
  private readonly pump: DeliveryPump;

  constructor(
    private readonly deps: Pick<Deps, 'db' | 'config' | 'wall' | 'log'>,
    private readonly intervalMs: number,
  ) {
    this.pump = new DeliveryPump(deps);
  }

  start(): void {
    this.stopped = false;
    this.schedule();
  }

  private schedule(): void {
    if (this.stopped) return;
    this.timer = setTimeout(() => {
      this.running = this.tick().finally(() => {
        this.running = undefined;
        this.schedule();
      });
    }, this.intervalMs);
  }

  private async tick(): Promise<void> {
    try {
      const counts = await runNetworkDue(this.deps, this.deps.wall.now());
      const ran = Object.values<number>(counts).reduce((a, b) => a + b, 0);
      if (ran > 0) this.deps.log.info({ ran: counts }, 'worker ran what fell due');
      await this.pump.tick();
    } catch (error) {
      this.deps.log.error({ err: error }, 'worker run failed; it is tried again at the next interval');
    }
  }

  /** Starts no new run and waits for the one in progress and the webhook attempts in flight. */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    await this.running;
    await this.pump.drain();
  }
}
