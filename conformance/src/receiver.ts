// The suite's own webhook receiver: records every delivery (headers and raw body) and answers with the status
// a check asks for, so the checks can verify signatures, ids, payloads and retries.
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Delivery {
  readonly path: string;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: string;
  readonly receivedAt: number;
}

export interface ReceiverOptions {
  /** Where to listen (default 127.0.0.1, any free port). */
  readonly host?: string;
  readonly port?: number;
  /** The host name the target must use to reach the receiver (default the listening host). */
  readonly publicHost?: string;
}

export class Receiver {
  /** The deliveries of each path, in arrival order: a walk waits on its path after every step (thousands a run). */
  private readonly byPath = new Map<string, Delivery[]>();
  /** Status to answer per path (default 204); a list is used up one answer at a time. */
  private readonly answers = new Map<string, number[]>();
  private server: Server | undefined;
  private base = '';
  /** Who waits for the next delivery (waitFor). */
  private readonly arrivals = new Set<() => void>();

  async start(options: ReceiverOptions = {}): Promise<void> {
    const host = options.host ?? '127.0.0.1';
    this.server = createServer((req: IncomingMessage, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const path = req.url ?? '/';
        const headers = Object.fromEntries(Object.entries(req.headers).filter((e): e is [string, string] => typeof e[1] === 'string'));
        const delivery: Delivery = { path, headers, body: Buffer.concat(chunks).toString('utf8'), receivedAt: Date.now() };
        const ofPath = this.byPath.get(path);
        if (ofPath) ofPath.push(delivery);
        else this.byPath.set(path, [delivery]);
        const waiting = [...this.arrivals];
        this.arrivals.clear();
        for (const wake of waiting) wake();
        const queued = this.answers.get(path);
        const status = queued && queued.length > 1 ? queued.shift() ?? 204 : queued?.[0] ?? 204;
        res.writeHead(status).end();
      });
    });
    await new Promise<void>((resolve, reject) => {
      this.server?.once('error', reject);
      this.server?.listen(options.port ?? 0, host, resolve);
    });
    const { port } = this.server.address() as AddressInfo;
    const shown = options.publicHost ?? host;
    this.base = `http://${shown.includes(':') ? `[${shown}]` : shown}:${String(port)}`;
  }

  /** A URL of the receiver; deliveries to it are told apart by its path. */
  url(path: string): string {
    return `${this.base}${path}`;
  }

  /** The statuses to answer at a path, in order; the last one stays. */
  answer(path: string, ...statuses: number[]): void {
    this.answers.set(path, statuses);
  }

  at(path: string): Delivery[] {
    return [...(this.byPath.get(path) ?? [])];
  }

  /** Waits until `count` deliveries reached a path (or the time is up), then returns them; woken by each arrival. */
  async waitFor(path: string, count: number, timeoutMs: number): Promise<Delivery[]> {
    const until = Date.now() + timeoutMs;
    while ((this.byPath.get(path)?.length ?? 0) < count && Date.now() < until) {
      await new Promise<void>((resolve) => {
        const timer = setTimeout(done, Math.max(0, until - Date.now()));
        function done(): void { clearTimeout(timer); resolve(); }
        this.arrivals.add(done);
      });
    }
    return this.at(path);
  }

  async stop(): Promise<void> {
    const server = this.server;
    if (!server) return;
    server.closeAllConnections();
    await new Promise<void>((resolve) => { server.close(() => { resolve(); }); });
  }
}
