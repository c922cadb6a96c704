// Crash safety of idempotent payments: the server process is killed (SIGKILL) while 500 ACH debits with
// Idempotency-Keys are in flight; after a restart on the same database every request is retried with its
// key. Each key yields exactly one transaction, every debit answered before the kill is there with the
// same transactionId, and every transaction has exactly one payment.ach.scheduled event. On SQLite (a
// file) and on PostgreSQL (a database of its own) when PGW_TEST_DATABASE_URL is set.
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import knex, { type Knex } from 'knex';
import { afterAll, describe, expect, it } from 'vitest';
import { SqliteClient } from '../../src/db/sqlite-client.ts';
import { engines } from '../harness.ts';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..', '..');
const REQUESTS = 500;

interface Running { child: ChildProcess; baseUrl: string }

function start(env: NodeJS.ProcessEnv): Promise<Running> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'server/src/main.ts'], {
    cwd: root,
    env: { ...process.env, ...env, PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'info', PGW_WORKER_INTERVAL_MS: '0' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  return new Promise((resolve, reject) => {
    let buffer = '';
    const onData = (chunk: Buffer): void => {
      buffer += chunk.toString('utf8');
      const match = /"baseUrl":"(http:\/\/127\.0\.0\.1:\d+)"/.exec(buffer);
      if (match?.[1]) resolve({ child, baseUrl: match[1] });
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', (chunk: Buffer) => { buffer += chunk.toString('utf8'); });
    child.once('exit', (code) => { reject(new Error(`the server exited with ${String(code)}: ${buffer.slice(-2000)}`)); });
  });
}

async function kill(running: Running): Promise<void> {
  if (running.child.exitCode !== null || running.child.signalCode !== null) return;
  const exited = new Promise((resolve) => running.child.once('exit', resolve));
  running.child.kill('SIGKILL');
  await exited;
}

async function token(baseUrl: string, credentialsFile: string): Promise<string> {
  const merchant = (JSON.parse(readFileSync(credentialsFile, 'utf8')) as { merchants: { clientId: string; clientSecret: string }[] }).merchants[0];
  if (!merchant) throw new Error('no demo merchant');
  const res = await fetch(`${baseUrl}/oauth2/token`, {
    method: 'POST',
    body: new URLSearchParams({ grant_type: 'client_credentials', scope: 'offline_access', client_id: merchant.clientId, client_secret: merchant.clientSecret }),
  });
  return ((await res.json()) as { access_token: string }).access_token;
}

interface Attempt { key: string; body: string; transactionId?: string }

async function debit(baseUrl: string, bearer: string, attempt: Attempt): Promise<{ status: number; transactionId?: string; replayed: boolean }> {
  const res = await fetch(`${baseUrl}/pay-api/v1/transactions/ach/payment`, {
    method: 'POST',
    headers: { authorization: `Bearer ${bearer}`, 'content-type': 'application/json', 'idempotency-key': attempt.key },
    body: attempt.body,
  });
  const body = (await res.json()) as { transactionId?: string };
  return { status: res.status, replayed: res.headers.get('idempotent-replayed') === 'true', ...(body.transactionId ? { transactionId: body.transactionId } : {}) };
}

interface Target { env: NodeJS.ProcessEnv; db: () => Knex; cleanup: () => Promise<void> }

async function target(engine: 'sqlite' | 'postgres', dir: string): Promise<Target> {
  if (engine === 'sqlite') {
    const file = path.join(dir, 'crash.sqlite');
    return {
      env: { DATABASE_URL: `sqlite:${file}` },
      db: () => knex({ client: SqliteClient, connection: { filename: file }, useNullAsDefault: true }),
      cleanup: () => Promise.resolve(),
    };
  }
  const admin = process.env.PGW_TEST_DATABASE_URL ?? '';
  const name = `crash_${randomBytes(6).toString('hex')}`;
  const adminDb = knex({ client: 'pg', connection: admin });
  await adminDb.raw(`create database ${name}`);
  await adminDb.destroy();
  const url = new URL(admin);
  url.pathname = `/${name}`;
  return {
    env: { DATABASE_URL: url.toString() },
    db: () => knex({ client: 'pg', connection: url.toString() }),
    cleanup: async () => {
      const again = knex({ client: 'pg', connection: admin });
      await again.raw(`drop database if exists ${name} with (force)`);
      await again.destroy();
    },
  };
}

describe.each(engines())('a crash during 500 idempotent ACH debits (%s)', (engine) => {
  const dir = mkdtempSync(path.join(tmpdir(), 'pgw-crash-'));
  const running: Running[] = [];
  let cleanup: () => Promise<void> = () => Promise.resolve();
  afterAll(async () => {
    for (const r of running) await kill(r);
    await cleanup();
    rmSync(dir, { recursive: true, force: true });
  });

  // 28-39 s in CI's config unloaded, 74-91 s beside `stress --cpu 2`.
  it('acts once per key: retried after SIGKILL, every key has exactly one transaction and one scheduled event', { timeout: 360_000 }, async () => {
    const t = await target(engine, dir);
    cleanup = t.cleanup;
    const credentialsFile = path.join(dir, 'credentials.json');
    const env = { ...t.env, PGW_CREDENTIALS_FILE: credentialsFile };
    const first = await start(env);
    running.push(first);
    const bearer = await token(first.baseUrl, credentialsFile);
    const processor = (JSON.parse(readFileSync(credentialsFile, 'utf8')) as { merchants: { achProcessorId: string }[] }).merchants[0]?.achProcessorId;
    const attempts: Attempt[] = Array.from({ length: REQUESTS }, (_, i) => ({
      key: randomUUID(),
      body: JSON.stringify({
        amount: (1000 + i) / 100, paymentProcessorId: processor, secCode: 1, requesterIPaddress: '203.0.113.24',
        routingNumber: '021000021', accountNumber: `0001${String(i).padStart(8, '0')}`, accountType: 1, accountHolderType: 2,
        billingAddress: { city: 'Austin', countryId: 1, line1: '100 Congress Ave', postalCode: '78701', stateId: 44 },
        contactInfo: { firstName: 'Crash', lastName: `Test ${String(i)}` },
      }),
    }));

    // All 500 in flight at once; the kill comes once a fifth of them have been answered.
    let answered = 0;
    let killed: Promise<void> | undefined;
    const inFlight = attempts.map(async (attempt) => {
      try {
        const res = await debit(first.baseUrl, bearer, attempt);
        if (res.status === 200 && res.transactionId) attempt.transactionId = res.transactionId;
        answered += 1;
        if (answered === REQUESTS / 5) killed = kill(first);
      } catch { /* the connection died with the server */ }
    });
    await Promise.all(inFlight);
    await (killed ?? kill(first));
    const answeredBefore = attempts.filter((a) => a.transactionId !== undefined).length;
    expect(answeredBefore).toBeGreaterThan(0);
    expect(answeredBefore).toBeLessThan(REQUESTS);

    const second = await start(env);
    running.push(second);
    const bearer2 = await token(second.baseUrl, credentialsFile);
    let replayed = 0;
    let created = 0;
    for (let i = 0; i < attempts.length; i += 50) {
      await Promise.all(attempts.slice(i, i + 50).map(async (attempt) => {
        const res = await debit(second.baseUrl, bearer2, attempt);
        expect(res.status).toBe(200);
        if (attempt.transactionId !== undefined) expect(res.transactionId, 'an answered debit is present, with the same id').toBe(attempt.transactionId);
        if (res.replayed) replayed += 1;
        else created += 1;
        attempt.transactionId = res.transactionId;
      }));
    }
    await kill(second);

    const db = t.db();
    try {
      const transactions = await db('transactions').select<{ id: string }[]>('id');
      const events = await db('outbox_events').where({ type: 'payment.ach.scheduled' }).select<{ payload: string }[]>('payload');
      const perTransaction = new Map<string, number>();
      for (const e of events) {
        const id = (JSON.parse(e.payload) as { transactionId: string }).transactionId;
        perTransaction.set(id, (perTransaction.get(id) ?? 0) + 1);
      }
      const ids = new Set(attempts.map((a) => a.transactionId));
      expect(ids.size).toBe(REQUESTS);
      expect(transactions.length).toBe(REQUESTS);
      expect(new Set(transactions.map((r) => r.id))).toEqual(ids);
      expect([...perTransaction.values()].every((n) => n === 1)).toBe(true);
      expect(perTransaction.size).toBe(REQUESTS);
      console.log(`crash test (${engine}): ${String(REQUESTS)} debits in flight; ${String(answeredBefore)} answered 200 before SIGKILL; ` +
        `after restart ${String(replayed)} replayed and ${String(created)} acted (the rest); ${String(transactions.length)} transactions, ` +
        `${String(events.length)} payment.ach.scheduled events, one each`);
    } finally {
      await db.destroy();
    }
  });
});
