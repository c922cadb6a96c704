// A loopback HTTP server for the CLI's tests: answers as told (or never), recording every request it received.
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Seen {
  method: string;
  url: string;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

export type Answer = (req: IncomingMessage, body: string) => [number, Record<string, string>, string] | undefined;

export interface LocalServer {
  url: string;
  seen: Seen[];
  close(): Promise<void>;
}

/** Listens on 127.0.0.1, an ephemeral port; `answer` returning undefined never answers (a time-out). */
export async function serve(answer: Answer): Promise<LocalServer> {
  const seen: Seen[] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      seen.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers, body });
      const reply = answer(req, body);
      if (reply === undefined) return;
      res.writeHead(reply[0], reply[1]).end(reply[2]);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${String((server.address() as AddressInfo).port)}`,
    seen,
    close: () => new Promise((resolve) => { server.closeAllConnections(); server.close(() => { resolve(); }); }),
  };
}

/** A URL on 127.0.0.1 where nothing listens (a port just freed). */
export async function closedPortUrl(): Promise<string> {
  const closed = await serve(() => [204, {}, '']);
  await closed.close();
  return closed.url;
}
