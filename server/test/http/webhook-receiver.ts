// A loopback webhook receiver for the tests: records every request (headers and raw body) and answers with
// the statuses it is told, in turn (the last one repeats), and counts connections. Each webhook of a test may
// use its own path.
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Received { path: string; headers: IncomingHttpHeaders; body: string; at: number }

export interface Receiver {
  url: string;
  /** The port it listens on. */
  port: number;
  received: Received[];
  /** TCP connections accepted so far (a refused target must leave this at zero). */
  readonly connections: number;
  /** The statuses to answer with, in turn; the last one repeats. */
  answer(...statuses: number[]): void;
  close(): Promise<void>;
}

export async function startReceiver(path = '/hooks', at: { host?: string; port?: number } = {}): Promise<Receiver> {
  const received: Received[] = [];
  let statuses = [200];
  let connections = 0;
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      received.push({ path: req.url ?? '', headers: req.headers, body: Buffer.concat(chunks).toString('utf8'), at: Date.now() });
      const status = statuses.length > 1 ? (statuses.shift() ?? 200) : (statuses[0] ?? 200);
      res.writeHead(status, { 'content-type': 'text/plain' }).end(`answered ${String(status)}`);
    });
  });
  server.on('connection', () => { connections += 1; });
  const host = at.host ?? '127.0.0.1';
  await new Promise<void>((resolve, reject) => { server.once('error', reject).listen(at.port ?? 0, host, resolve); });
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://${host}:${String(port)}${path}`,
    port,
    received,
    get connections() { return connections; },
    answer: (...next: number[]) => { statuses = next.length > 0 ? next : [200]; },
    close: () => new Promise((resolve) => { server.closeAllConnections(); server.close(() => { resolve(); }); }),
  };
}
