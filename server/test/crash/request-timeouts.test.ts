// A request that trickles in is cut at PGW_REQUEST_TIMEOUT_SECONDS (its headers, or its body after them), answered
// 408 and closed, by the server `npm start` runs: one process on SQLite, and two instances on one port
// (PGW_INSTANCES=2, PostgreSQL), each of which creates its own HTTP server. A short limit (2 s) keeps the test short;
// it asserts only that the cut comes before the limit plus a margin, never an exact time.
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import knex from 'knex';
import { afterAll, describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config.ts';

const root = path.resolve(import.meta.dirname, '../../..');
const admin = process.env.PGW_TEST_DATABASE_URL;
if (!admin) console.warn('\n*** SKIPPING the cluster part of request-timeouts.test.ts: PGW_TEST_DATABASE_URL is not set ***\n');

/** The limit the servers run with, and how late the cut may come (Node checks every second; a loaded machine). */
const LIMIT_S = 2;
const MARGIN_MS = 4000;

interface Running { child: ChildProcess; baseUrl: string; output: () => string }

/** Starts `npm start`'s entry point with this environment and waits for its base URL. */
async function start(env: Record<string, string>): Promise<Running> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'server/src/main.ts'], {
    cwd: root, detached: true, stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'info', PGW_LOG_FORMAT: 'json', PGW_WORKER_INTERVAL_MS: '0', PGW_REQUEST_TIMEOUT_SECONDS: String(LIMIT_S), ...env },
  });
  let output = '';
  const baseUrl = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => { reject(new Error(`no base URL within 120 s: ${output.slice(-2000)}`)); }, 120_000);
    const collect = (chunk: Buffer): void => {
      output += chunk.toString('utf8');
      const match = /"baseUrl":"(http:\/\/127\.0\.0\.1:\d+)"[^\n]*"payment gateway listening"/.exec(output) ?? /"baseUrl":"(http:\/\/127\.0\.0\.1:\d+)"[^\n]*"instances"/.exec(output);
      if (match?.[1]) {
        clearTimeout(timer);
        resolve(match[1]);
      }
    };
    child.stdout.on('data', collect);
    child.stderr.on('data', collect);
    child.once('exit', (code) => { clearTimeout(timer); reject(new Error(`exited ${String(code)}: ${output.slice(-2000)}`)); });
  });
  return { child, baseUrl, output: () => output };
}

async function stop(running: Running | undefined): Promise<void> {
  const child = running?.child;
  if (!child || child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  if (child.pid !== undefined) process.kill(-child.pid, 'SIGKILL');
  await exited;
}

/**
 * Opens a raw connection, sends `head` at once and then `trickle` one byte a second, and records what comes back
 * and when the server closed the connection (ms after the first byte), or that it had not after `giveUpMs`.
 */
function trickle(baseUrl: string, head: string, trickled: string, giveUpMs: number): Promise<{ answer: string; closedAfterMs: number | undefined; sent: number }> {
  const { port } = new URL(baseUrl);
  return new Promise((resolve) => {
    const socket = connect(Number(port), '127.0.0.1');
    let answer = '';
    let sent = 0;
    const began = Date.now();
    let timer: NodeJS.Timeout | undefined;
    const finish = (closed: boolean): void => {
      clearInterval(timer);
      clearTimeout(giveUp);
      socket.destroy();
      resolve({ answer, closedAfterMs: closed ? Date.now() - began : undefined, sent });
    };
    const giveUp = setTimeout(() => { finish(false); }, giveUpMs);
    socket.on('data', (chunk: Buffer) => { answer += chunk.toString('utf8'); });
    socket.on('error', () => undefined);
    socket.on('close', () => { finish(true); });
    socket.on('connect', () => {
      socket.write(head);
      timer = setInterval(() => {
        if (sent >= trickled.length || socket.destroyed) return;
        socket.write(trickled[sent] ?? '');
        sent += 1;
      }, 1000);
    });
  });
}

/** The checks on one server: a trickled body and trickled headers are cut, answered 408; the server serves on. */
async function expectCut(baseUrl: string): Promise<void> {
  const body = 'grant_type=client_credentials&scope=offline_access&client_id=pgw_ck_0000000000000000&client_secret=x'.padEnd(200, '&');
  const head = `POST /oauth2/token HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: ${String(body.length)}\r\n\r\n`;
  const giveUpMs = LIMIT_S * 1000 + MARGIN_MS + 5000;
  // Headers at once, then the body a byte a second (200 bytes: 200 s if nothing cut it).
  const slowBody = await trickle(baseUrl, head, body, giveUpMs);
  expect(slowBody.closedAfterMs, `not closed within ${String(giveUpMs)} ms`).toBeDefined();
  expect(slowBody.closedAfterMs).toBeLessThan(LIMIT_S * 1000 + MARGIN_MS);
  expect(slowBody.answer).toMatch(/^HTTP\/1\.1 408 Request Timeout\r\n/);
  expect(slowBody.answer).toMatch(/\r\nConnection: close\r\n/i);
  expect(slowBody.sent).toBeLessThan(body.length);
  // The request line at once, then the headers a byte a second.
  const slowHeaders = await trickle(baseUrl, 'GET /healthz HTTP/1.1\r\n', 'Host: 127.0.0.1\r\nX-Slow: aaaaaaaaaaaaaaaaaaaaaaaaaaaaaa\r\n\r\n', giveUpMs);
  expect(slowHeaders.closedAfterMs, `not closed within ${String(giveUpMs)} ms`).toBeDefined();
  expect(slowHeaders.closedAfterMs).toBeLessThan(LIMIT_S * 1000 + MARGIN_MS);
  expect(slowHeaders.answer).toMatch(/^HTTP\/1\.1 408 Request Timeout\r\n/);
  // A request that arrives in time is served as ever, also a body sent in a few quick parts.
  expect((await fetch(`${baseUrl}/healthz`)).status).toBe(200);
  const quick = await trickle(baseUrl, 'GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n', '', 3000);
  expect(quick.answer).toMatch(/^HTTP\/1\.1 200 OK\r\n/);
}

describe('PGW_REQUEST_TIMEOUT_SECONDS', () => {
  it('defaults to 30 s, takes whole seconds of at least 1, and refuses anything else', () => {
    expect(loadConfig({}, '/tmp', false).requestTimeoutMs).toBe(30_000);
    expect(loadConfig({ PGW_REQUEST_TIMEOUT_SECONDS: '5' }, '/tmp', false).requestTimeoutMs).toBe(5000);
    for (const value of ['0', '-1', '1.5', 'ten', '1e3']) {
      expect(() => loadConfig({ PGW_REQUEST_TIMEOUT_SECONDS: value }, '/tmp', false), value).toThrow(ConfigError);
    }
  });
});

describe('a request that trickles in (one process, SQLite)', () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'pgw-timeouts-'));
  let running: Running | undefined;
  afterAll(async () => {
    await stop(running);
    rmSync(dir, { recursive: true, force: true });
  });

  it('is cut at the limit, answered 408, and the server serves on', { timeout: 120_000 }, async () => {
    running = await start({ DATABASE_URL: `sqlite:${path.join(dir, 'db.sqlite')}`, PGW_CREDENTIALS_FILE: path.join(dir, 'credentials.json') });
    await expectCut(running.baseUrl);
    expect(running.output()).toMatch(/request refused: it did not arrive within the request timeout/);
    // The request whose body never arrived ends quietly: no fault logged.
    expect(running.output()).not.toMatch(/"level":50/);
  });
});

describe.runIf(admin !== undefined)('a request that trickles in (two instances on one port, PostgreSQL)', () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'pgw-timeouts-cluster-'));
  const name = `timeouts_${randomBytes(6).toString('hex')}`;
  let running: Running | undefined;
  afterAll(async () => {
    await stop(running);
    const db = knex({ client: 'pg', connection: admin });
    await db.raw(`drop database if exists ${name} with (force)`);
    await db.destroy();
    rmSync(dir, { recursive: true, force: true });
  });

  it('is cut at the limit by whichever instance holds it, answered 408', { timeout: 300_000 }, async () => {
    const db = knex({ client: 'pg', connection: admin });
    await db.raw(`create database ${name}`);
    await db.destroy();
    const url = new URL(admin ?? '');
    url.pathname = `/${name}`;
    running = await start({ DATABASE_URL: url.toString(), PGW_INSTANCES: '2', PGW_CREDENTIALS_FILE: path.join(dir, 'credentials.json') });
    expect(running.output()).toMatch(/"instances":2/);
    // Connections go to the instances in turn: two of each kind reach both.
    await Promise.all([expectCut(running.baseUrl), expectCut(running.baseUrl)]);
    // The instances' log lines reach this output through a pipe, maybe after the answers: waited for.
    const output = running.output;
    const cutBy = (): Set<string | undefined> => new Set([...output().matchAll(/"instance":(\d+)[^\n]*request refused: it did not arrive within the request timeout/g)].map((m) => m[1]));
    for (let waited = 0; cutBy().size < 2 && waited < 30_000; waited += 200) await new Promise((resolve) => setTimeout(resolve, 200));
    expect(cutBy().size, output().slice(-3000)).toBe(2);
  });
});
