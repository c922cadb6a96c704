// Shutdown: SIGTERM lets the requests in flight finish (each answered 200 and committed), stops the worker
// after its run in progress, closes the database and exits 0.
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import knex from 'knex';
import { afterAll, describe, expect, it } from 'vitest';
import { SqliteClient } from '../../src/db/sqlite-client.ts';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..', '..');

describe('SIGTERM', () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'pgw-shutdown-'));
  afterAll(() => { rmSync(dir, { recursive: true, force: true }); });

  it('drains the requests in flight and the worker, then exits 0', async () => {
    const credentialsFile = path.join(dir, 'credentials.json');
    const file = path.join(dir, 'db.sqlite');
    const child = spawn(process.execPath, ['--import', 'tsx', 'server/src/main.ts'], {
      cwd: root,
      env: { ...process.env, PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'info', DATABASE_URL: `sqlite:${file}`, PGW_CREDENTIALS_FILE: credentialsFile, PGW_WORKER_INTERVAL_MS: '20' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stderr.on('data', (c: Buffer) => { output += c.toString('utf8'); });
    const baseUrl = await new Promise<string>((resolve, reject) => {
      child.stdout.on('data', (c: Buffer) => {
        output += c.toString('utf8');
        const match = /"baseUrl":"(http:\/\/127\.0\.0\.1:\d+)"/.exec(output);
        if (match?.[1]) resolve(match[1]);
      });
      child.once('exit', (code) => { reject(new Error(`exited ${String(code)}: ${output}`)); });
    });
    const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
    const secrets = JSON.parse(readFileSync(credentialsFile, 'utf8')) as { merchants: { clientId: string; clientSecret: string; achProcessorId: string }[] };
    const merchant = secrets.merchants[0];
    if (!merchant) throw new Error('no demo merchant');
    const token = ((await (await fetch(`${baseUrl}/oauth2/token`, {
      method: 'POST',
      body: new URLSearchParams({ grant_type: 'client_credentials', scope: 'offline_access', client_id: merchant.clientId, client_secret: merchant.clientSecret }),
    })).json()) as { access_token: string }).access_token;
    const body = JSON.stringify({
      amount: 12.5, paymentProcessorId: merchant.achProcessorId, secCode: 1, requesterIPaddress: '203.0.113.24', routingNumber: '021000021',
      accountNumber: '000123456789', accountType: 1, accountHolderType: 2, contactInfo: { firstName: 'Term', lastName: 'Inated' },
      billingAddress: { city: 'Austin', countryId: 1, line1: '1 Main', postalCode: '78701', stateId: 44 },
    });
    const inFlight = Array.from({ length: 30 }, () => fetch(`${baseUrl}/pay-api/v1/transactions/ach/payment`, {
      method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body,
    }).then(async (res) => ({ status: res.status, id: ((await res.json()) as { transactionId?: string }).transactionId })));
    // Once the first is answered the others are in the server (SQLite runs them one at a time): stop it now.
    await Promise.race(inFlight);
    child.kill('SIGTERM');
    const answers = await Promise.all(inFlight);
    expect(await exited).toBe(0);
    expect(output).toContain('stopping: draining requests and the worker');
    expect(answers.map((a) => a.status)).toEqual(answers.map(() => 200));
    const db = knex({ client: SqliteClient, connection: { filename: file }, useNullAsDefault: true });
    try {
      const stored = await db('transactions').select<{ id: string }[]>('id');
      expect(new Set(stored.map((r) => r.id))).toEqual(new Set(answers.map((a) => a.id)));
    } finally {
      await db.destroy();
    }
  });
});
