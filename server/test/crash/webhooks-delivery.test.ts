// Webhook delivery across processes: two server instances on one PostgreSQL database deliver 1,000 events
// to a loopback receiver, each attempt once (no delivery is claimed by both within a lease); and a server
// killed with SIGKILL during a delivery burst delivers every event after its restart (at least once: the
// lapsed leases of the killed process are taken over), on SQLite and on PostgreSQL.
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import knex from 'knex';
import { afterAll, describe, expect, it } from 'vitest';
import { engines } from '../harness.ts';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..', '..');
const postgres = process.env.PGW_TEST_DATABASE_URL;

interface Instance { child: ChildProcess; baseUrl: string }

function start(env: NodeJS.ProcessEnv): Promise<Instance> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'server/src/main.ts'], {
    cwd: root,
    env: { ...process.env, PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'info', PGW_WORKER_INTERVAL_MS: '50', PGW_WEBHOOK_LEASE_MS: '2000', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  return new Promise((resolve, reject) => {
    let buffer = '';
    child.stdout.on('data', (c: Buffer) => {
      buffer += c.toString('utf8');
      const match = /"baseUrl":"(http:\/\/127\.0\.0\.1:\d+)"/.exec(buffer);
      if (match?.[1]) resolve({ child, baseUrl: match[1] });
      if (buffer.length > 100_000) buffer = buffer.slice(-10_000);
    });
    child.stderr.on('data', (c: Buffer) => { buffer += c.toString('utf8'); });
    child.once('exit', (code) => { reject(new Error(`exited ${String(code)}: ${buffer.slice(-2000)}`)); });
  });
}

async function stop(instance: Instance, signal: NodeJS.Signals = 'SIGTERM'): Promise<void> {
  if (instance.child.exitCode !== null || instance.child.signalCode !== null) return;
  const exited = new Promise((resolve) => instance.child.once('exit', resolve));
  instance.child.kill(signal);
  await exited;
}

interface Receiver {
  url: string;
  /** The webhook-id of every request, in arrival order. */
  ids: string[];
  /** While set, requests are counted and held unanswered; unset, the held ones are answered. */
  hold(on: boolean): void;
  /** Resolves once `done(ids)` holds (checked at each request), or after `ms` (the test's assertions then say what came). */
  until(done: (ids: string[]) => boolean, ms: number): Promise<void>;
  close: () => Promise<void>;
}

/** A receiver that counts every request by webhook-id, answering 200 after `delayMs` (or once released). */
async function receiver(delayMs: number): Promise<Receiver> {
  const ids: string[] = [];
  const waiting = new Set<() => void>();
  let held: (() => void)[] | undefined;
  const server: Server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      ids.push(String(req.headers['webhook-id']));
      for (const check of [...waiting]) check();
      const answer = (): void => { setTimeout(() => res.writeHead(200).end('ok'), delayMs); };
      if (held) held.push(answer); else answer();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${String((server.address() as AddressInfo).port)}/hooks`,
    ids,
    hold(on) {
      if (on) { held ??= []; return; }
      const answers = held ?? [];
      held = undefined;
      for (const answer of answers) answer();
    },
    until: (done, ms) => new Promise((resolve) => {
      const end = (): void => { clearTimeout(timer); waiting.delete(check); resolve(); };
      const check = (): void => { if (done(ids)) end(); };
      const timer = setTimeout(end, ms);
      waiting.add(check);
      check();
    }),
    close: () => new Promise((resolve) => { held = undefined; server.closeAllConnections(); server.close(() => { resolve(); }); }),
  };
}

async function token(baseUrl: string, file: string): Promise<string> {
  const m = (JSON.parse(readFileSync(file, 'utf8')) as { merchants: { clientId: string; clientSecret: string }[] }).merchants[0];
  if (!m) throw new Error('no merchant');
  const res = await fetch(`${baseUrl}/oauth2/token`, { method: 'POST', body: new URLSearchParams({ grant_type: 'client_credentials', scope: 'offline_access', client_id: m.clientId, client_secret: m.clientSecret }) });
  return ((await res.json()) as { access_token: string }).access_token;
}

const json = (bearer: string): Record<string, string> => ({ authorization: `Bearer ${bearer}`, 'content-type': 'application/json' });
const sale = JSON.stringify({ amount: 12.34, card: { pan: '4111111111111111', expirationMonth: 12, expirationYear: 2030 } });

/** Emits `count` payment.card.captured events (card sales), spread over the instances, 20 at a time. */
async function emit(targets: { baseUrl: string; bearer: string }[], count: number): Promise<void> {
  let next = 0;
  await Promise.all(Array.from({ length: 20 }, async () => {
    for (let i = next++; i < count; i = next++) {
      const t = targets[i % targets.length];
      if (!t) return;
      const res = await fetch(`${t.baseUrl}/pay-api/v1/transactions/card/sale`, { method: 'POST', headers: json(t.bearer), body: sale });
      if (res.status !== 200) throw new Error(`sale answered ${String(res.status)}`);
      await res.arrayBuffer();
    }
  }));
}

async function database(engine: 'sqlite' | 'postgres', dir: string): Promise<{ url: string; drop: () => Promise<void> }> {
  if (engine === 'sqlite') return { url: `sqlite:${path.join(dir, `${randomUUID()}.sqlite`)}`, drop: () => Promise.resolve() };
  const name = `hooks_${randomBytes(6).toString('hex')}`;
  const admin = knex({ client: 'pg', connection: postgres });
  await admin.raw(`create database ${name}`);
  await admin.destroy();
  const url = new URL(postgres ?? '');
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    drop: async () => {
      const again = knex({ client: 'pg', connection: postgres });
      await again.raw(`drop database if exists ${name} with (force)`);
      await again.destroy();
    },
  };
}

async function subscribe(baseUrl: string, bearer: string, url: string): Promise<void> {
  const res = await fetch(`${baseUrl}/v2/webhooks/endpoints`, { method: 'POST', headers: json(bearer), body: JSON.stringify({ name: 'Burst', endpointUrl: url, eventTypes: ['payment.card.captured'] }) });
  if (res.status !== 200) throw new Error(`endpoint create answered ${String(res.status)}`);
}

const dir = mkdtempSync(path.join(tmpdir(), 'pgw-hooks-'));
const cleanups: (() => Promise<void>)[] = [];
afterAll(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup();
  rmSync(dir, { recursive: true, force: true });
});

// What a test waits for here took ~6-40 s in CI's config unloaded, and up to 94 s beside `stress --cpu 2`.
const WAIT_MS = 240_000;

describe.skipIf(!postgres)('two instances on one PostgreSQL database', () => {
  it('deliver 1,000 events, each attempt once', { timeout: 2 * WAIT_MS }, async () => {
    const db = await database('postgres', dir);
    cleanups.push(db.drop);
    const hooks = await receiver(0);
    cleanups.push(hooks.close);
    const file = path.join(dir, 'two.json');
    // No instance crashes here, so no lease needs to lapse: a lease of 10 s, not the crash tests' 2 s. Under CI's
    // load on a slow machine (this test took 24 s there, 6 s alone) an attempt was recorded more than 2 s after its
    // claim, its lease lapsed and the other instance sent it again (78 of 1,000): at least once, as documented,
    // but not what this test asserts, which is that two instances never claim the same delivery at once.
    const a = await start({ DATABASE_URL: db.url, PGW_CREDENTIALS_FILE: file, PGW_WEBHOOK_LEASE_MS: '10000' });
    cleanups.push(() => stop(a));
    const b = await start({ DATABASE_URL: db.url, PGW_CREDENTIALS_FILE: file, PGW_WEBHOOK_LEASE_MS: '10000' });
    cleanups.push(() => stop(b));
    const targets = [{ baseUrl: a.baseUrl, bearer: await token(a.baseUrl, file) }, { baseUrl: b.baseUrl, bearer: await token(b.baseUrl, file) }];
    await subscribe(a.baseUrl, targets[0]?.bearer ?? '', hooks.url);
    const started = Date.now();
    await emit(targets, 1000);
    await hooks.until((ids) => new Set(ids).size >= 1000, WAIT_MS);
    const seconds = (Date.now() - started) / 1000;
    const distinct = new Set(hooks.ids);
    const check = knex({ client: 'pg', connection: db.url });
    try {
      // An attempt is recorded once its answer is in: the receiver can count a request a moment before its
      // attempt row commits, so wait (briefly) for the rows rather than read them the instant the last request lands.
      const recorded = async (): Promise<number> => Number((await check('webhook_attempts').count<{ n: string }[]>({ n: '*' }))[0]?.n);
      const settleUntil = Date.now() + 60_000;
      while ((await recorded()) < 1000 && Date.now() < settleUntil) await new Promise((resolve) => setTimeout(resolve, 100));
      const attempts = await check('webhook_attempts').count<{ n: string }[]>({ n: '*' });
      const doubled = await check('webhook_attempts').select('delivery_id', 'attempt_number').count({ n: '*' }).groupBy('delivery_id', 'attempt_number').havingRaw('count(*) > 1');
      expect(distinct.size).toBe(1000);
      expect(hooks.ids).toHaveLength(1000);
      expect(Number(attempts[0]?.n)).toBe(1000);
      expect(doubled).toEqual([]);
      console.log(`two instances: 1,000 events delivered in ${seconds.toFixed(1)} s (events emitted meanwhile); ${String(hooks.ids.length)} requests received, ` +
        `${String(distinct.size)} distinct webhook-ids, ${String(attempts[0]?.n)} attempts recorded, none made twice`);
    } finally {
      await check.destroy();
    }
  });
});
if (!postgres) console.warn('\n*** SKIPPING the two-instance webhook test: PGW_TEST_DATABASE_URL is not set (.ci/run sets it) ***\n');

describe.each(engines())('SIGKILL during a delivery burst (%s)', (engine) => {
  it('delivers every event after a restart', { timeout: 2 * WAIT_MS }, async () => {
    const db = await database(engine, dir);
    cleanups.push(db.drop);
    // A slow receiver; it holds every request while the second process runs, so that attempts are in flight when
    // that process dies, and it cannot have made them all (it has at most 200 in flight).
    const hooks = await receiver(100);
    cleanups.push(hooks.close);
    const file = path.join(dir, `${engine}-kill.json`);
    // No worker (interval 0): nothing is delivered, not even on the wake-up a commit gives.
    const first = await start({ DATABASE_URL: db.url, PGW_CREDENTIALS_FILE: file, PGW_WORKER_INTERVAL_MS: '0' });
    cleanups.push(() => stop(first));
    const bearer = await token(first.baseUrl, file);
    await subscribe(first.baseUrl, bearer, hooks.url);
    await emit([{ baseUrl: first.baseUrl, bearer }], 300);
    await stop(first, 'SIGKILL');
    // Its worker did not run: restart with one, and kill it again mid-burst.
    hooks.hold(true);
    const second = await start({ DATABASE_URL: db.url, PGW_CREDENTIALS_FILE: file });
    await hooks.until((ids) => ids.length >= 30, WAIT_MS);
    await stop(second, 'SIGKILL');
    hooks.hold(false);
    const before = new Set(hooks.ids).size;
    expect(before).toBeGreaterThanOrEqual(30);
    expect(before).toBeLessThan(300);
    const third = await start({ DATABASE_URL: db.url, PGW_CREDENTIALS_FILE: file });
    cleanups.push(() => stop(third));
    await hooks.until((ids) => new Set(ids).size >= 300, WAIT_MS);
    expect(new Set(hooks.ids).size).toBe(300);
    console.log(`SIGKILL (${engine}): 300 events; ${String(before)} delivered before the kill mid-burst; after the restart all 300 delivered ` +
      `(${String(hooks.ids.length)} requests: at least once, receivers dedupe by webhook-id)`);
  });
});

describe.each(engines())('a delivery starts when its event commits (%s)', (engine) => {
  it('is made without waiting for the next poll', { timeout: 2 * WAIT_MS }, async () => {
    const db = await database(engine, dir);
    cleanups.push(db.drop);
    const hooks = await receiver(0);
    cleanups.push(hooks.close);
    const file = path.join(dir, `${engine}-wake.json`);
    // The worker's delivery poll would come after 1,000 s: only the wake-up of the commit can send these.
    const server = await start({ DATABASE_URL: db.url, PGW_CREDENTIALS_FILE: file, PGW_WORKER_INTERVAL_MS: '1000000', PGW_DELIVERY_INTERVAL_MS: '1000000' });
    cleanups.push(() => stop(server));
    const bearer = await token(server.baseUrl, file);
    await subscribe(server.baseUrl, bearer, hooks.url);
    await emit([{ baseUrl: server.baseUrl, bearer }], 25);
    await hooks.until((ids) => new Set(ids).size >= 25, WAIT_MS);
    expect(new Set(hooks.ids).size).toBe(25);
  });
});
