// Webhook delivery benchmark (loopback receiver): deliveries per second draining a backlog of 2,000 events,
// and event-to-receipt latency (p50, p99) at a steady 100 events per second, on SQLite with one instance and
// on PostgreSQL with one and with two instances (when PGW_TEST_DATABASE_URL or BENCH_DATABASE_URL names a
// server), and the ratio of two PostgreSQL instances to one.
// Prints the figures; asserts nothing. Events are card sales (payment.card.captured).
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, openSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import knex from 'knex';
import { root } from '../lib/run.ts';

const BACKLOG = Number(process.env.BENCH_BACKLOG ?? 2000);
const STEADY = Number(process.env.BENCH_STEADY ?? 500);
const postgres = process.env.BENCH_DATABASE_URL ?? process.env.PGW_TEST_DATABASE_URL;

interface Instance { child: ChildProcess; baseUrl: string }

function start(dir: string, env: NodeJS.ProcessEnv, log: string): Promise<Instance> {
  const out = openSync(path.join(dir, log), 'w');
  // BENCH_PROFILE_DIR: each server writes a CPU profile there when it stops (what a delivery costs, and where).
  const profile = process.env.BENCH_PROFILE_DIR ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_PROFILE_DIR}`] : [];
  const child = spawn(process.execPath, [...profile, '--import', 'tsx', 'server/src/main.ts'], {
    cwd: root, env: { ...process.env, PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'info', ...env }, stdio: ['ignore', 'pipe', out],
  });
  return new Promise((resolve, reject) => {
    let buffer = '';
    child.stdout?.on('data', (c: Buffer) => {
      buffer += c.toString('utf8');
      const match = /"baseUrl":"(http:\/\/127\.0\.0\.1:\d+)"/.exec(buffer);
      if (match?.[1]) resolve({ child, baseUrl: match[1] });
    });
    child.once('exit', (code) => { reject(new Error(`the server exited with ${String(code)}`)); });
  });
}

const quantile = (sorted: number[], q: number): number => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? Number.NaN;

async function run(label: string, databaseUrl: string, instances: number, dir: string): Promise<number> {
  const receipts = new Map<string, number>();
  const receiver = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { data: { transactionId: string } };
      if (!receipts.has(body.data.transactionId)) receipts.set(body.data.transactionId, performance.now());
      res.writeHead(204).end();
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${String((receiver.address() as AddressInfo).port)}/hooks`;
  const file = path.join(dir, `${label}.json`);
  // No worker at all (a commit's wake-up would start deliveries otherwise).
  const quiet = { PGW_WORKER_INTERVAL_MS: '0' };
  const children: Instance[] = [];
  try {
    // Phase 1: a backlog made with no worker delivering, then drained by the instances.
    const maker = await start(dir, { DATABASE_URL: databaseUrl, PGW_CREDENTIALS_FILE: file, ...quiet }, `${label}-maker.log`);
    children.push(maker);
    const merchant = (JSON.parse(readFileSync(file, 'utf8')) as { merchants: { clientId: string; clientSecret: string }[] }).merchants[0];
    if (!merchant) throw new Error('no merchant');
    const token = async (base: string): Promise<string> => ((await (await fetch(`${base}/oauth2/token`, {
      method: 'POST', body: new URLSearchParams({ grant_type: 'client_credentials', scope: 'offline_access', client_id: merchant.clientId, client_secret: merchant.clientSecret }),
    })).json()) as { access_token: string }).access_token;
    const headers = { authorization: `Bearer ${await token(maker.baseUrl)}`, 'content-type': 'application/json' };
    await fetch(`${maker.baseUrl}/v2/webhooks/endpoints`, { method: 'POST', headers, body: JSON.stringify({ name: 'Bench', endpointUrl: url, eventTypes: ['payment.card.captured'] }) });
    const sale = JSON.stringify({ amount: 12.34, card: { pan: '4111111111111111', expirationMonth: 12, expirationYear: 2030 } });
    const emitted = new Map<string, number>();
    const emit = async (base: string): Promise<void> => {
      const res = await fetch(`${base}/pay-api/v1/transactions/card/sale`, { method: 'POST', headers, body: sale });
      const id = ((await res.json()) as { transactionId: string }).transactionId;
      emitted.set(id, performance.now());
    };
    let made = 0;
    await Promise.all(Array.from({ length: 20 }, async () => { while (made++ < BACKLOG) await emit(maker.baseUrl); }));
    maker.child.kill('SIGTERM');
    const drainers = await Promise.all(Array.from({ length: instances }, (_, i) => start(dir, { DATABASE_URL: databaseUrl, PGW_CREDENTIALS_FILE: file }, `${label}-${String(i)}.log`)));
    children.push(...drainers);
    const drainStart = performance.now();
    while (receipts.size < BACKLOG && performance.now() - drainStart < 120_000) await new Promise((r) => setTimeout(r, 20));
    const drained = receipts.size;
    const seconds = (performance.now() - drainStart) / 1000;
    // Phase 2: steady events, each timed from its sale's answer to its receipt.
    receipts.clear();
    emitted.clear();
    const targets = drainers.map((d) => d.baseUrl);
    for (let i = 0; i < STEADY; i++) {
      void emit(targets[i % targets.length] ?? '');
      await new Promise((r) => setTimeout(r, 10));
    }
    const waitStart = performance.now();
    while (receipts.size < STEADY && performance.now() - waitStart < 30_000) await new Promise((r) => setTimeout(r, 20));
    const latencies = [...emitted].flatMap(([id, at]) => { const got = receipts.get(id); return got === undefined ? [] : [got - at]; }).sort((a, b) => a - b);
    console.log(label);
    console.log(`  backlog of ${String(BACKLOG)} events drained: ${String(drained)} delivered in ${seconds.toFixed(2)} s = ${(drained / seconds).toFixed(0)} deliveries/s`);
    console.log(`  steady ${String(STEADY)} events at ~100/s: event-to-receipt p50 ${quantile(latencies, 0.5).toFixed(0)} ms, p99 ${quantile(latencies, 0.99).toFixed(0)} ms (${String(latencies.length)} received)`);
    return drained / seconds;
  } finally {
    for (const c of children) c.child.kill('SIGTERM');
    receiver.closeAllConnections();
    receiver.close();
  }
}

async function main(): Promise<void> {
  const dir = mkdtempSync(path.join(tmpdir(), 'pgw-bench-hooks-'));
  console.log(`webhook benchmark: node ${process.version}, loopback receiver, targets >= 1,000 deliveries/s and p99 < 250 ms (printed, not asserted)`);
  try {
    await run('SQLite, one instance', `sqlite:${path.join(dir, 'hooks.sqlite')}`, 1, dir);
    if (postgres) {
      const admin = knex({ client: 'pg', connection: postgres });
      // A fresh database for each row: the second does not start with the first one's 2,000 deliveries.
      const onFreshDatabase = async (label: string, instances: number): Promise<number> => {
        const name = `bench_${randomBytes(6).toString('hex')}`;
        await admin.raw(`create database ${name}`);
        const url = new URL(postgres);
        url.pathname = `/${name}`;
        try {
          return await run(label, url.toString(), instances, dir);
        } finally {
          await admin.raw(`drop database if exists ${name} with (force)`);
        }
      };
      try {
        const one = await onFreshDatabase('PostgreSQL, one instance', 1);
        const two = await onFreshDatabase('PostgreSQL, two instances', 2);
        console.log(`PostgreSQL backlog drain, two instances / one: ${(two / one).toFixed(2)}x (target >= 1.8x)`);
      } finally {
        await admin.destroy();
      }
    } else {
      console.log('PostgreSQL: skipped (set BENCH_DATABASE_URL or PGW_TEST_DATABASE_URL)');
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
