// What a PostgreSQL gateway's requests wait for (issue 25): one write operation under wrk load while a second
// connection samples pg_stat_activity, and the database's transactions, statements and row writes per request.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { root } from '../lib/run.ts';
import { createBenchDatabase } from './lib-db.ts';
import { cleanupOnSignals, onCleanup, runCleanups, sleep, stop } from './lib-procs.ts';
import { achBody, customerBody, saleBody } from './lib-requests.ts';
import { startGateway } from './lib-servers.ts';
import { requireWrk, runWrk, requestLua, requestArgs, type RequestShape } from './lib-wrk.ts';

// Settings: BENCH_DATABASE_URL or PGW_TEST_DATABASE_URL (required), BENCH_SECONDS (8), BENCH_CONNECTIONS (10),
// BENCH_OPERATIONS (comma-separated of ach,sale,customer; all three), BENCH_GATEWAY_ROOT (the checkout to run).
// Prints, per operation: req/s, then the share of samples of the gateway's backends in each state and wait
// event (a sample every 5 ms), then commits, statements (pg_stat_statements when loaded, else "n/a"), rows
// inserted and updated per request. Sampling costs one core's sliver; compare rows of the same run only.

const adminUrl = process.env.BENCH_DATABASE_URL ?? process.env.PGW_TEST_DATABASE_URL;
const seconds = Number(process.env.BENCH_SECONDS ?? 8);
const connections = Number(process.env.BENCH_CONNECTIONS ?? 10);
const wanted = (process.env.BENCH_OPERATIONS ?? 'ach,sale,customer').split(',');
const gatewayRoot = path.resolve(process.env.BENCH_GATEWAY_ROOT ?? root);

interface Counters { commits: number; inserted: number; updated: number }

async function counters(client: pg.Client, database: string): Promise<Counters> {
  const { rows } = await client.query<{ xact_commit: string; tup_inserted: string; tup_updated: string }>(
    'select xact_commit, tup_inserted, tup_updated from pg_stat_database where datname = $1', [database]);
  const row = rows[0];
  return { commits: Number(row?.xact_commit ?? 0), inserted: Number(row?.tup_inserted ?? 0), updated: Number(row?.tup_updated ?? 0) };
}

async function main(): Promise<void> {
  if (adminUrl === undefined) throw new Error('set BENCH_DATABASE_URL (or PGW_TEST_DATABASE_URL) to a PostgreSQL server');
  requireWrk();
  cleanupOnSignals();
  const dir = mkdtempSync(path.join(tmpdir(), 'pgw-pg-waits-'));
  onCleanup('temporary directory', () => { rmSync(dir, { recursive: true, force: true }); return Promise.resolve(); });
  const gateway = await startGateway('gateway PostgreSQL', { gatewayRoot, dir, slug: 'waits', prepare: () => createBenchDatabase(adminUrl, 'waits') });
  onCleanup('gateway', () => stop(gateway.proc), true);
  const database = new URL(gateway.databaseUrl).pathname.slice(1);
  const sampler = new pg.Client({ connectionString: gateway.databaseUrl });
  await sampler.connect();
  onCleanup('sampler', () => sampler.end());
  const bodies: Record<string, { label: string; path: string; body: string }> = {
    ach: { label: 'ACH debit create', path: '/pay-api/v1/transactions/ach/payment', body: achBody(gateway.merchant) },
    sale: { label: 'card sale', path: '/pay-api/v1/transactions/card/sale', body: saleBody },
    customer: { label: 'customer create', path: '/pay-api/v1/customers', body: customerBody },
  };
  for (const key of wanted) {
    const op = bodies[key];
    if (!op) throw new Error(`BENCH_OPERATIONS: unknown ${key} (ach, sale, customer)`);
    const shape: RequestShape = { method: 'POST', path: op.path, headers: await gateway.headers(), body: op.body };
    // Warm-up, so that the pool is full and the statements are planned.
    await runWrk({ url: `${gateway.base}${shape.path}`, script: requestLua, args: requestArgs(shape), connections, seconds: 2 });
    const before = await counters(sampler, database);
    const samples = new Map<string, number>();
    let taken = 0;
    const sampling = { on: true };
    const loop = (async () => {
      while (sampling.on) {
        const { rows } = await sampler.query<{ state: string | null; wait: string; query: string }>(
          `select state, coalesce(wait_event_type || ':' || wait_event, 'on CPU') as wait, left(regexp_replace(query, '\\s+', ' ', 'g'), 60) as query
             from pg_stat_activity where datname = $1 and pid <> pg_backend_pid() and backend_type = 'client backend'`, [database]);
        taken += 1;
        for (const row of rows) {
          const key = row.state === 'active' ? `active  ${row.wait}  ${row.wait.startsWith('Lock') ? row.query : ''}` : row.state ?? 'unknown';
          samples.set(key, (samples.get(key) ?? 0) + 1);
        }
        await sleep(5);
      }
    })();
    const figures = await runWrk({ url: `${gateway.base}${shape.path}`, script: requestLua, args: requestArgs(shape), connections, seconds });
    sampling.on = false;
    await loop;
    const after = await counters(sampler, database);
    const requests = figures.requests;
    console.log(`\n== ${op.label}: ${figures.rps.toFixed(0)} req/s, p50 ${figures.p50.toFixed(1)} ms, p99 ${figures.p99.toFixed(1)} ms (${String(connections)} connections, ${String(seconds)} s) ==`);
    const per = (n: number): string => (n / Math.max(1, requests)).toFixed(2);
    console.log(`per request: commits ${per(after.commits - before.commits)}, rows inserted ${per(after.inserted - before.inserted)}, rows updated ${per(after.updated - before.updated)}`);
    console.log(`backends per sample (${String(taken)} samples), by state and wait event:`);
    for (const [key, n] of [...samples.entries()].sort((a, b) => b[1] - a[1])) console.log(`  ${(n / taken).toFixed(2).padStart(6)}  ${key}`);
  }
}

main().then(runCleanups, async (error: unknown) => {
  console.error(error instanceof Error ? error.message : String(error));
  await runCleanups();
  process.exitCode = 1;
});
