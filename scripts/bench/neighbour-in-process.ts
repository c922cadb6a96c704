// The SQLite neighbour slowdown of issue 43, in one process: the app (createApp) on a SQLite file that another
// connection migrated and seeded first (as main.ts does), customer creates by wrk at 10 connections, SQLite's time
// a request by statement; then another process inserts BENCH_CUSTOMERS (100,000) customers (lib-db.ts
// cloneCustomers) and the creates are measured twice more. The cause it found: the connection had analyzed the
// seeded database at open, FTS5's customers_search_data counted at 2 rows, so FTS5's segment delete (prepared once
// per connection) was planned as a scan, and COMMIT, which merges the search index, went from ~60 us to ~2 ms a
// request. Since db/planner-statistics.ts no table counts below 1,000 rows and creates stay at 0.8-0.9x.
// Prints the table; asserts nothing. Settings: BENCH_CUSTOMERS, BENCH_SECONDS (5), BENCH_SAME_CONNECTION=1 (the
// app's own connection migrates and seeds).
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createApp } from '../../server/src/app.ts';
import { loadConfig } from '../../server/src/config.ts';
import { createDatabase, migrate, type Database } from '../../server/src/db/knex.ts';
import { SqliteConnection } from '../../server/src/db/sqlite-client.ts';
import { seedDemoData } from '../../server/src/db/seed.ts';
import { createLogger } from '../../server/src/platform/log.ts';
import { systemClock } from '../../server/src/platform/time.ts';
import { fetchToken } from './lib-servers.ts';
import { customerBody } from './lib-requests.ts';
import { measure, requireWrk } from './lib-wrk.ts';

const customers = Number(process.env.BENCH_CUSTOMERS ?? 100_000);
const seconds = Number(process.env.BENCH_SECONDS ?? 5);
const sameConnection = process.env.BENCH_SAME_CONNECTION === '1';

/** SQLite's time by statement text, summed over what the app runs (the driver's statements, timed here). */
const spent = new Map<string, { runs: number; ns: bigint }>();
const textOf = new WeakMap<object, string>();
function timeStatements(): void {
  // eslint-disable-next-line @typescript-eslint/unbound-method -- wrapped, and called with its own `this`
  const prepare = SqliteConnection.prototype.prepare;
  let wrapped = false;
  SqliteConnection.prototype.prepare = function (this: SqliteConnection, sql: string) {
    const statement = prepare.call(this, sql);
    textOf.set(statement, sql.replace(/\s+/g, ' ').slice(0, 80));
    if (!wrapped) {
      wrapped = true;
      const proto = Object.getPrototypeOf(statement) as Record<'run' | 'all', (...a: unknown[]) => unknown>;
      for (const method of ['run', 'all'] as const) {
        const original = proto[method];
        proto[method] = function (this: object, ...a: unknown[]) {
          const started = process.hrtime.bigint();
          try {
            return original.apply(this, a);
          } finally {
            const key = textOf.get(this) ?? '?';
            const entry = spent.get(key) ?? { runs: 0, ns: 0n };
            entry.runs += 1;
            entry.ns += process.hrtime.bigint() - started;
            spent.set(key, entry);
          }
        };
      }
    }
    return statement;
  };
}

async function main(): Promise<void> {
  requireWrk();
  timeStatements();
  const dir = mkdtempSync(path.join(tmpdir(), 'pgw-bench-neighbour-'));
  const url = `sqlite:${path.join(dir, 'neighbour.sqlite')}`;
  let db: Database | undefined;
  try {
    let prepared: Database = createDatabase(url);
    await migrate(prepared, 'sandbox');
    const secrets = await seedDemoData(prepared, systemClock, 'sandbox');
    if (!sameConnection) {
      await prepared.destroy();
      prepared = createDatabase(url);
    }
    db = prepared;
    const merchant = secrets?.merchants[0];
    if (!merchant) throw new Error('no demo merchant');
    const app = await createApp({ config: loadConfig({ PGW_ENV: 'sandbox', DATABASE_URL: url, PORT: '0', LOG_LEVEL: 'warn' }), db, log: createLogger('warn'), clock: systemClock });
    const server = app.listen(0, '127.0.0.1');
    await new Promise((resolve) => server.once('listening', resolve));
    const base = `http://127.0.0.1:${String((server.address() as { port: number }).port)}`;
    const headers = { authorization: `Bearer ${await fetchToken(base, merchant)}`, 'content-type': 'application/json' };
    const first = await fetch(`${base}/pay-api/v1/customers`, { method: 'POST', headers, body: customerBody });
    const templateId = ((await first.json()) as { id: string }).id;
    const stage = async (label: string): Promise<void> => {
      spent.clear();
      const figures = await measure(label, base, { method: 'POST', path: '/pay-api/v1/customers', headers, body: customerBody }, { connections: 10, seconds, warmup: 1 });
      console.log(`== ${label}: ${figures.rps.toFixed(0)} creates/s, p99 ${figures.p99.toFixed(1)} ms`);
      for (const [text, entry] of [...spent].sort((a, b) => Number(b[1].ns - a[1].ns)).slice(0, 3)) {
        console.log(`  ${(Number(entry.ns) / 1e3 / figures.requests).toFixed(1).padStart(8)} us a request, ${(entry.runs / figures.requests).toFixed(2)} runs a request: ${text}`);
      }
    };
    await stage('before');
    const clone = path.join(path.dirname(new URL(import.meta.url).pathname), 'clone-customers.ts');
    await new Promise<void>((resolve, reject) => {
      execFile(process.execPath, ['--import', 'tsx', clone, url, templateId, String(customers)], (error) => { if (error) reject(new Error(`the insert failed: ${error.message}`)); else resolve(); });
    });
    await stage(`after another process inserted ${String(customers)} customers`);
    await stage('once more');
    server.close();
    await app.close();
  } finally {
    await db?.destroy();
    rmSync(dir, { recursive: true, force: true });
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
