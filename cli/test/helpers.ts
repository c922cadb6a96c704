// Test helpers of the CLI: the bundled server over real HTTP on 127.0.0.1, a configuration file for it, the
// `pgw` bin as a child process, a Standard Webhooks receiver, and a TCP proxy that can drop connections.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer as createHttpServer, type Server } from 'node:http';
import { createServer as createTcpServer, connect as tcpConnect, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Webhook } from 'standardwebhooks';
import { startServer, type TestServer } from '../../server/test/harness.ts';

export const BIN = fileURLToPath(new URL('../bin/pgw.mjs', import.meta.url));
export const ROOT = fileURLToPath(new URL('../..', import.meta.url));

const portOf = (server: { address(): AddressInfo | string | null }): number => (server.address() as AddressInfo).port;

export interface Gateway { s: TestServer; base: string; dir: string; config: string; close(): Promise<void> }

/** The bundled server (sandbox, SQLite in memory) listening on 127.0.0.1, and a config file naming it. */
export async function startGateway(): Promise<Gateway> {
  const s = await startServer('sqlite');
  const server = s.app.listen(0, '127.0.0.1');
  await new Promise((r) => server.once('listening', r));
  const base = `http://127.0.0.1:${String(portOf(server))}`;
  const dir = mkdtempSync(path.join(tmpdir(), 'pgw-cli-'));
  const config = path.join(dir, 'config.json');
  writeFileSync(config, JSON.stringify({ baseUrl: base, authUrl: base, merchants: s.secrets.merchants }), { mode: 0o600 });
  return {
    s, base, dir, config,
    async close() {
      server.closeAllConnections();
      await new Promise((r) => server.close(r));
      await s.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

export interface Run { code: number | null; signal: NodeJS.Signals | null; stdout: string; stderr: string }

/**
 * How long one `pgw` process may take to do what a test waits for (to end, to print a line, a receiver to get its
 * events): ~0.4-2.5 s on an idle 2-core machine, 5-15 s on a busy one (and under CI's three test files at once),
 * so a generous multiple of both. A test's own time limit must allow for every process it runs.
 */
export const PGW_LIMIT_MS = 120_000;

/** Runs `pgw args` to its end. */
export function pgw(args: string[], env: Record<string, string> = {}, timeoutMs = PGW_LIMIT_MS): Promise<Run> {
  const child = spawnPgw(args, env);
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => { child.process.kill('SIGKILL'); reject(new Error(`pgw ${args.join(' ')} did not end in ${String(timeoutMs)} ms:\n${child.stdout()}\n${child.stderr()}`)); }, timeoutMs);
    // 'close', not 'exit': the output may still be in its pipes when the process has exited.
    child.process.once('close', (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, stdout: child.stdout(), stderr: child.stderr() });
    });
  });
}

export interface Child { process: ChildProcess; stdout(): string; stderr(): string; waitFor(pattern: RegExp, ms?: number): Promise<void>; exit(): Promise<Run> }

export function spawnPgw(args: string[], env: Record<string, string> = {}): Child {
  const child = spawn(process.execPath, [BIN, ...args], { cwd: ROOT, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  child.stdout.on('data', (d: Buffer) => { out += d.toString('utf8'); });
  child.stderr.on('data', (d: Buffer) => { err += d.toString('utf8'); });
  // Ended: it exited and its output is all read ('exit' may come while some is still in the pipes).
  let closed = false;
  const exited = new Promise<Run>((resolve) => { child.once('close', (code, signal) => { closed = true; resolve({ code, signal, stdout: out, stderr: err }); }); });
  return {
    process: child,
    stdout: () => out,
    stderr: () => err,
    // On the output as it comes: resolves at the chunk that completes a match, fails when pgw has ended without
    // one or nothing matched within `ms` (the error carries what it printed).
    waitFor: (pattern, ms = PGW_LIMIT_MS) => new Promise<void>((resolve, reject) => {
      const settle = (error?: Error): void => {
        clearTimeout(timer);
        child.stdout.off('data', check);
        child.off('close', ended);
        if (error) reject(error); else resolve();
      };
      const check = (): void => { if (pattern.test(out)) settle(); };
      const ended = (): void => { settle(new Error(`pgw ended without printing ${String(pattern)}:\n${out}\n${err}`)); };
      const timer = setTimeout(() => { settle(new Error(`no ${String(pattern)} in pgw's output within ${String(ms)} ms:\n${out}\n${err}`)); }, ms);
      // Registered after the 'data' listener above, so `out` already holds the chunk.
      child.stdout.on('data', check);
      child.once('close', ended);
      if (pattern.test(out)) settle();
      else if (closed) ended();
    }),
    exit: () => exited,
  };
}

export interface Received { id: string; type: string; merchantId: string; body: string; verified: boolean; error: string | undefined }

export interface Receiver { url: string; received: Received[]; secret: string | undefined; waitForCount(n: number, ms?: number): Promise<void>; close(): Promise<void> }

/** A local webhook receiver: verifies each request with `standardwebhooks` and the secret it is given. */
export async function startReceiver(): Promise<Receiver> {
  const received: Received[] = [];
  // Who waits for a count: told at each request received.
  const waiting = new Set<() => void>();
  const receiver: Receiver = {
    url: '', received, secret: undefined,
    // Resolves once `n` requests have arrived, or after `ms` with fewer (the test's assertions then say which).
    waitForCount: (n, ms = PGW_LIMIT_MS) => new Promise<void>((resolve) => {
      const done = (): void => { clearTimeout(timer); waiting.delete(check); resolve(); };
      const check = (): void => { if (received.length >= n) done(); };
      const timer = setTimeout(done, ms);
      waiting.add(check);
      check();
    }),
    close: () => new Promise((r) => { server.closeAllConnections(); server.close(() => { r(); }); }),
  };
  const server: Server = createHttpServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      let verified = false;
      let error: string | undefined;
      try {
        new Webhook(receiver.secret ?? 'whsec_bm90IHNldA==').verify(body, req.headers as Record<string, string>);
        verified = true;
      } catch (e) {
        error = e instanceof Error ? e.message : String(e);
      }
      const parsed = JSON.parse(body) as { id: string; type: string; merchantId: string };
      received.push({ id: String(req.headers['webhook-id']), type: parsed.type, merchantId: parsed.merchantId, body, verified, error });
      for (const check of [...waiting]) check();
      res.writeHead(verified ? 204 : 400).end();
    });
  });
  server.listen(0, '127.0.0.1');
  await new Promise((r) => server.once('listening', r));
  receiver.url = `http://127.0.0.1:${String(portOf(server))}/hooks`;
  return receiver;
}

/** A TCP proxy in front of the gateway; `drop` cuts every connection and refuses new ones until `resume`. */
export async function startProxy(target: string): Promise<{ url: string; drop(): void; resume(): void; close(): Promise<void> }> {
  const { hostname, port } = new URL(target);
  const sockets = new Set<Socket>();
  let refusing = false;
  const server = createTcpServer((client) => {
    if (refusing) { client.destroy(); return; }
    const upstream = tcpConnect(Number(port), hostname);
    sockets.add(client).add(upstream);
    const done = (): void => { client.destroy(); upstream.destroy(); sockets.delete(client); sockets.delete(upstream); };
    client.on('error', done).on('close', done);
    upstream.on('error', done).on('close', done);
    client.pipe(upstream).pipe(client);
  });
  server.listen(0, '127.0.0.1');
  await new Promise((r) => server.once('listening', r));
  return {
    url: `http://127.0.0.1:${String(portOf(server))}`,
    drop() { refusing = true; for (const s of sockets) s.destroy(); sockets.clear(); },
    resume() { refusing = false; },
    close: () => new Promise((r) => { for (const s of sockets) s.destroy(); server.close(() => { r(); }); }),
  };
}
