// Test targets: the bundled server in a child process (ephemeral port, fresh SQLite), and proxies in front
// of it that each plant one defect (the mutants).
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Check } from '../src/check.ts';
import { Runner, type CheckResult } from '../src/runner.ts';
import type { Spec } from '../src/spec.ts';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');

export interface BundledServer {
  baseUrl: string;
  credentialsFile: string;
  stop(): Promise<void>;
}

/**
 * Starts `server/src/main.ts` on a free loopback port with a fresh SQLite file, or on `databaseUrl` (a
 * PostgreSQL URL naming a fresh schema, say), with `env` added to its environment.
 */
export async function startBundledServer(options: { databaseUrl?: string; env?: Record<string, string> } = {}): Promise<BundledServer> {
  const dir = mkdtempSync(path.join(tmpdir(), 'pgw-conformance-'));
  const credentialsFile = path.join(dir, 'credentials.json');
  const child: ChildProcess = spawn(process.execPath, ['--import', 'tsx', 'server/src/main.ts'], {
    cwd: root,
    env: { ...process.env, PORT: '0', HOST: '127.0.0.1', DATABASE_URL: options.databaseUrl ?? `sqlite:${path.join(dir, 'db.sqlite')}`, PGW_CREDENTIALS_FILE: credentialsFile, LOG_LEVEL: 'info',
      // Every test of a file fails credentials from 127.0.0.1 (auth checks, the throttling check, mutants): the
      // limit per address over all client ids is raised so that they do not lock each other out. The limit per
      // client id and address, which the throttling check tests, stays as configured.
      PGW_THROTTLE_ADDRESS_LIMIT: '100000', ...options.env },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const baseUrl = await new Promise<string>((resolve, reject) => {
    let buffer = '';
    const onData = (chunk: Buffer): void => {
      buffer += chunk.toString('utf8');
      const match = /"baseUrl":"(http:\/\/127\.0\.0\.1:\d+)"/.exec(buffer);
      if (!match?.[1]) return;
      // Found: the log that follows (a line per request, for as long as the server runs) is not kept nor searched.
      child.stdout?.off('data', onData);
      resolve(match[1]);
    };
    child.stdout?.on('data', onData);
    child.once('exit', (code) => { reject(new Error(`the server exited with ${String(code)}`)); });
  });
  child.stdout?.resume();
  return {
    baseUrl,
    credentialsFile,
    async stop() {
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      await exited;
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

export interface Exchange {
  method: string;
  path: string;
  headers: Record<string, string>;
  body: string;
}

export interface Reply {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/** A defect: may rewrite the request before it is forwarded, and the reply before it is returned. */
export interface Mutant {
  name: string;
  request?: (req: Exchange) => Exchange;
  reply?: (req: Exchange, reply: Reply) => Reply;
  /** Rewrites each message of a server-sent event stream (numbered from 0), which is forwarded as it comes. */
  event?: (req: Exchange, message: string, index: number) => string;
  /**
   * Rewrites each webhook delivery's body: the proxy points every webhook endpoint created or updated through
   * it at its own relay, which passes each delivery on to the endpoint's own address through this.
   */
  delivery?: (body: string) => string;
}

const RELAY = '/__relay?to=';
const ENDPOINTS = /^\/v2\/webhooks\/endpoints(\/[^/?]+)?$/;

/** A webhook endpoint's address pointed at the proxy's relay (create and update), the rest unchanged. */
function relayed(exchange: Exchange, base: string): Exchange {
  if (!ENDPOINTS.test(exchange.path) || !['POST', 'PUT'].includes(exchange.method)) return exchange;
  try {
    const body = JSON.parse(exchange.body) as Record<string, unknown>;
    if (typeof body.endpointUrl !== 'string') return exchange;
    return { ...exchange, body: JSON.stringify({ ...body, endpointUrl: `${base}${RELAY}${encodeURIComponent(body.endpointUrl)}` }) };
  } catch {
    return exchange;
  }
}

const read = (req: IncomingMessage): Promise<Buffer> =>
  new Promise((resolve) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => { resolve(Buffer.concat(chunks)); });
  });

/** A proxy on a free loopback port that forwards to `upstream` through the mutant. */
export async function startProxy(upstream: string, mutant: Mutant): Promise<{ baseUrl: string; stop(): Promise<void> }> {
  let base = '';
  const server: Server = createServer((req: IncomingMessage, res: ServerResponse) => {
    void (async () => {
      const headers = Object.fromEntries(Object.entries(req.headers).filter(([k, v]) => typeof v === 'string' && !['host', 'content-length', 'connection'].includes(k))) as Record<string, string>;
      const bytes = await read(req);
      const text = bytes.toString('utf8');
      let exchange: Exchange = { method: req.method ?? 'GET', path: req.url ?? '/', headers, body: text };
      if (mutant.delivery && exchange.path.startsWith(RELAY)) {
        const passed = await fetch(decodeURIComponent(exchange.path.slice(RELAY.length)), { method: 'POST', headers, body: mutant.delivery(text) });
        res.writeHead(passed.status).end(await passed.text());
        return;
      }
      if (mutant.delivery) exchange = relayed(exchange, base);
      if (mutant.request) exchange = mutant.request(exchange);
      // A body the mutant left alone is forwarded as the bytes that came (a body that is not UTF-8 stays so).
      const body = exchange.body === text ? bytes : exchange.body;
      const forwarded = await fetch(`${upstream}${exchange.path}`, {
        method: exchange.method, headers: exchange.headers, redirect: 'manual',
        ...(body.length === 0 || exchange.method === 'GET' ? {} : { body }),
      });
      const replyHeaders = Object.fromEntries([...forwarded.headers].filter(([k]) => !['content-length', 'content-encoding', 'transfer-encoding', 'connection'].includes(k)));
      // An event stream never ends: it is relayed message by message, through the mutant's `event`.
      if (/^text\/event-stream/.test(forwarded.headers.get('content-type') ?? '') && forwarded.body) {
        res.writeHead(forwarded.status, replyHeaders);
        const reader = forwarded.body.pipeThrough(new TextDecoderStream()).getReader();
        res.on('close', () => { void reader.cancel().catch(() => undefined); });
        let buffer = '';
        let index = 0;
        for (;;) {
          const { value, done } = await reader.read().catch(() => ({ value: undefined, done: true as const }));
          if (done) break;
          buffer += value;
          let end: number;
          while ((end = buffer.indexOf('\n\n')) >= 0) {
            const message = buffer.slice(0, end);
            buffer = buffer.slice(end + 2);
            // Only messages that carry data are events (comments and `retry:` advice pass unchanged and uncounted).
            const isEvent = message.split('\n').some((l) => l.startsWith('data:'));
            res.write(`${!isEvent || !mutant.event ? message : mutant.event(exchange, message, index++)}\n\n`);
          }
        }
        res.end();
        return;
      }
      let reply: Reply = {
        status: forwarded.status,
        headers: Object.fromEntries([...forwarded.headers].filter(([k]) => !['content-length', 'content-encoding', 'transfer-encoding', 'connection'].includes(k))),
        body: await forwarded.text(),
      };
      if (mutant.reply) reply = mutant.reply(exchange, reply);
      res.writeHead(reply.status, reply.headers).end(reply.body);
    })().catch((error: unknown) => {
      res.writeHead(502).end(String(error));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${String((server.address() as AddressInfo).port)}`;
  return {
    baseUrl: base,
    stop: () => new Promise((resolve) => { server.close(() => { resolve(); }); }),
  };
}

export const credentialsOf = (file: string): { merchants: { clientId: string; clientSecret: string }[] } =>
  JSON.parse(readFileSync(file, 'utf8')) as { merchants: { clientId: string; clientSecret: string }[] };

/** Runs checks, one after another, against `baseUrl` with the bundled server's credentials (merchants A, B, partner). */
export async function runChecks(spec: Spec, credentialsFile: string, baseUrl: string, checks: readonly Check[], timeoutMs = 10_000): Promise<CheckResult[]> {
  const { merchants, partner } = credentialsOf(credentialsFile) as ReturnType<typeof credentialsOf> & { partner?: { clientId: string; clientSecret: string } };
  const [a, b] = merchants;
  if (!a || !b || !partner) throw new Error('two merchants and a partner expected');
  const runner = new Runner(spec, { baseUrl, authUrl: baseUrl, crmAuthUrl: `${baseUrl}/crm`, credentials: { A: a, B: b, partner } }, 7, timeoutMs);
  await runner.prepare();
  const results: CheckResult[] = [];
  for (const check of checks) results.push(await runner.runCheck(check));
  return results;
}

