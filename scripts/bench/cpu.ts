// Where a request's CPU goes (issue 25's profile of the targets not met): for customer read, customer create, ACH
// debit and card sale on the gateway over SQLite and over PostgreSQL, and for the Express hello-world, the CPU
// milliseconds a request costs the server process, PostgreSQL (every process named postgres: backends, WAL
// writer, checkpointer) and the rest of the machine (wrk, the kernel's share of loopback, anything else), read
// from /proc over one wrk run each. On a machine where all three share the cores, req/s is about
// cores / (machine CPU a request), so the ratio of two servers' machine CPU a request is the ratio of req/s they
// can reach: the "x hello" that CPU allows, whatever the load generator does.
// Prints the table; asserts nothing, but exits 1 when a run had non-2xx answers or socket errors. Linux only
// (/proc). Settings: BENCH_SECONDS (6), BENCH_CONNECTIONS (10), BENCH_DATABASE_URL or PGW_TEST_DATABASE_URL
// (PostgreSQL; without it, SQLite and the hello-world only), BENCH_OPERATIONS (only the operations whose label
// contains one of these comma-separated words: `create,sale`), BENCH_ENGINES (`sqlite`, `postgres` or both, the
// default), BENCH_GATEWAY_NODE_ARGS (node options of the gateways, space-separated: `--cpu-prof --cpu-prof-dir=DIR`
// writes each one's profile when it stops), BENCH_BEFORE_ROOT (a checkout of the version to compare with, its
// dependencies installed: each engine's gateway of that version is measured beside this one's, the two taking
// turns at going first), BENCH_ROUNDS (1: how many times the whole table is measured, to see the noise).
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import path from 'node:path';
import { root } from '../lib/run.ts';
import { createBenchDatabase, openDatabase } from './lib-db.ts';
import { cleanupOnSignals, onCleanup, runCleanups } from './lib-procs.ts';
import { createOne, customerBody, operations } from './lib-requests.ts';
import { startGateway, startHello, type Gateway, type Server } from './lib-servers.ts';
import { renderTable } from './lib-table.ts';
import { failures, measure, requireWrk, type RequestShape } from './lib-wrk.ts';

const seconds = Number(process.env.BENCH_SECONDS ?? 6);
const connections = Number(process.env.BENCH_CONNECTIONS ?? 10);
const postgresUrl = process.env.BENCH_DATABASE_URL ?? process.env.PGW_TEST_DATABASE_URL;
const only = (process.env.BENCH_OPERATIONS ?? '').split(',').map((w) => w.trim().toLowerCase()).filter((w) => w !== '');
const engines = (process.env.BENCH_ENGINES ?? 'sqlite,postgres').split(',').map((w) => w.trim());
const nodeArgs = (process.env.BENCH_GATEWAY_NODE_ARGS ?? '').split(' ').filter((a) => a !== '');
const beforeRoot = process.env.BENCH_BEFORE_ROOT ? path.resolve(process.env.BENCH_BEFORE_ROOT) : undefined;
const rounds = Math.max(1, Number(process.env.BENCH_ROUNDS ?? 1));
const TICKS_PER_SECOND = 100; // USER_HZ: /proc reports CPU time in these ticks on every Linux of the last decades

/**
 * utime + stime of one process, in ticks (0 once it is gone); with `children`, also what its ended children
 * spent (cutime + cstime, counted once the parent has waited for them).
 */
function processTicks(pid: number, children = false): number {
  try {
    const stat = readFileSync(`/proc/${String(pid)}/stat`, 'utf8');
    // The command may hold spaces and parentheses: the fields after it start at the last ')'.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return Number(fields[11]) + Number(fields[12]) + (children ? Number(fields[13]) + Number(fields[14]) : 0);
  } catch {
    return 0;
  }
}

/**
 * Ticks of every process named postgres, the ended ones included: a backend that exits during a run (a pool
 * closing an idle connection, another gateway's) takes its ticks out of the sum of live processes, and they
 * reappear as the postmaster's children's time. Without them a run could show negative PostgreSQL time.
 */
function postgresTicks(): number {
  let total = 0;
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (readFileSync(`/proc/${entry}/comm`, 'utf8').trim() === 'postgres') total += processTicks(Number(entry), true);
    } catch {
      // A process that ended between the listing and the read.
    }
  }
  return total;
}

/** Busy ticks of the whole machine (every core; idle and iowait left out). */
function machineTicks(): number {
  const line = readFileSync('/proc/stat', 'utf8').split('\n')[0] ?? '';
  const [user = 0, nice = 0, system = 0, , , irq = 0, softirq = 0, steal = 0] = line.trim().split(/\s+/).slice(1).map(Number);
  return user + nice + system + irq + softirq + steal;
}

interface Row { operation: string; server: string; rps: number; serverMs: number; postgresMs: number; restMs: number; machineMs: number; failures: number }

/** One wrk run against `target`, with the CPU each part of the machine spent meanwhile. */
async function measured(operation: string, target: Server, shape: RequestShape): Promise<Row> {
  const pid = target.proc.child.pid ?? 0;
  // A warm-up run of its own (measure's built-in one would fall between the counters' readings): the JIT and the
  // pools settle before anything is counted.
  await measure(`${target.label} (${operation}, warm-up)`, target.base, shape, { connections, seconds: 1, warmup: 0 });
  const before = { server: processTicks(pid), postgres: postgresTicks(), machine: machineTicks() };
  const figures = await measure(`${target.label} (${operation})`, target.base, shape, { connections, seconds, warmup: 0 });
  const after = { server: processTicks(pid), postgres: postgresTicks(), machine: machineTicks() };
  const perRequest = (ticks: number): number => (ticks / TICKS_PER_SECOND) * 1000 / Math.max(1, figures.requests);
  const server = perRequest(after.server - before.server);
  const postgres = perRequest(after.postgres - before.postgres);
  const machine = perRequest(after.machine - before.machine);
  // A run with failed answers measured other work than the request's: its row says so, and the exit status too.
  if (failures(figures) > 0) process.exitCode = 1;
  return { operation, server: target.label, rps: figures.rps, serverMs: server, postgresMs: postgres, restMs: Math.max(0, machine - server - postgres), machineMs: machine, failures: failures(figures) };
}

async function main(): Promise<void> {
  requireWrk();
  cleanupOnSignals();
  const dir = mkdtempSync(path.join(tmpdir(), 'pgw-bench-cpu-'));
  onCleanup('temporary directory', () => { rmSync(dir, { recursive: true, force: true }); return Promise.resolve(); });
  try {
    const hello = await startHello(root, dir);
    /** Each engine's gateways: this version's, then BENCH_BEFORE_ROOT's. */
    const engineGateways: Gateway[][] = [];
    const versions = [{ label: 'gateway', gatewayRoot: root, slug: '' }, ...(beforeRoot ? [{ label: 'before', gatewayRoot: beforeRoot, slug: '-before' }] : [])];
    if (engines.includes('sqlite')) {
      const pair: Gateway[] = [];
      for (const v of versions) pair.push(await startGateway(`${v.label} SQLite`, { gatewayRoot: v.gatewayRoot, dir, slug: `sqlite${v.slug}`, nodeArgs, prepare: () => Promise.resolve(`sqlite:${path.join(dir, `cpu${v.slug}.sqlite`)}`) }));
      engineGateways.push(pair);
    }
    if (postgresUrl && engines.includes('postgres')) {
      const pair: Gateway[] = [];
      for (const v of versions) {
        const postgres = await startGateway(`${v.label} PostgreSQL`, { gatewayRoot: v.gatewayRoot, dir, slug: `postgres${v.slug}`, nodeArgs, prepare: () => createBenchDatabase(postgresUrl, `cpu${v.slug.replace('-', '_')}`) });
        // The database was just migrated and filled with demo data: autovacuum would analyze its new tables during
        // the first rows measured and count as their PostgreSQL CPU. Done now, it is out of the way.
        const db = openDatabase(postgres.databaseUrl);
        await db.raw('vacuum analyze');
        await db.destroy();
        pair.push(postgres);
      }
      engineGateways.push(pair);
    }
    const gateways = engineGateways.flat();
    const customers = new Map<Gateway, string>();
    for (const gateway of gateways) customers.set(gateway, await createOne(gateway, '/pay-api/v1/customers', customerBody));

    const format = (row: Row, ratio: string): string[] => [row.operation, row.server, row.rps.toFixed(0), row.serverMs.toFixed(3), row.postgresMs.toFixed(3), row.restMs.toFixed(3), row.machineMs.toFixed(3), ratio, row.failures > 0 ? `FAILED ${String(row.failures)}` : ''];
    const rows: string[][] = [];
    const [first] = gateways;
    if (first === undefined) throw new Error(`BENCH_ENGINES=${engines.join(',')} names no engine to measure (PostgreSQL needs BENCH_DATABASE_URL)`);
    let turn = 0;
    for (let round = 0; round < rounds; round++) for (const operation of operations) {
      if (only.length > 0 && !only.some((word) => operation.label.toLowerCase().includes(word))) continue;
      // The hello-world gets the same body (the first gateway's), so that both read and parse as much.
      const helloBody = operation.body(first.merchant);
      const base = await measured(operation.label, hello, { method: operation.method, path: '/hello', headers: { 'content-type': 'application/json' }, ...(helloBody === undefined ? {} : { body: helloBody }) });
      rows.push(format(base, ''));
      // The two versions of an engine take turns at going first (a warmer or noisier minute favours neither).
      const order = engineGateways.flatMap((pair) => (turn % 2 === 0 ? pair : [...pair].reverse()));
      turn++;
      for (const gateway of order) {
        const body = operation.body(gateway.merchant);
        const shape: RequestShape = { method: operation.method, path: operation.path(customers.get(gateway) ?? ''), headers: await gateway.headers(), ...(body === undefined ? {} : { body }) };
        const row = await measured(operation.label, gateway, shape);
        rows.push(format({ ...row, operation: '' }, (base.machineMs / row.machineMs).toFixed(3)));
      }
    }
    console.log(`CPU a request, ${String(connections)} connections, ${String(seconds)} s a run, wrk on the same ${String(cpus().length)} cores; node ${process.version}`);
    console.log(renderTable([
      { title: 'operation' }, { title: 'server' }, { title: 'req/s', right: true }, { title: 'server ms', right: true }, { title: 'PostgreSQL ms', right: true },
      { title: 'wrk & rest ms', right: true }, { title: 'machine ms', right: true }, { title: 'x hello by CPU', right: true }, { title: 'failures' },
    ], rows));
    console.log('machine ms: busy CPU of every core over the run, per request; x hello by CPU: the hello-world\'s machine ms over the row\'s');
  } finally {
    await runCleanups();
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
