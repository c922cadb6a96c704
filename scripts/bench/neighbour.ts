// The SQLite gateway after another connection's bulk write (issue 43: its connection slowed 6x once a bench had
// inserted 100,000 customers beside it). One gateway on a SQLite file; a customer read, a selective search and a
// customer create measured with wrk; then another process's connection inserts BENCH_CUSTOMERS (100,000) customers
// of the same merchant, as an import would (lib-db.ts cloneCustomers: 5,000 a transaction, the search index
// written as the gateway writes it); then the same three measured twice more. Prints req/s and p99 of each run
// and the ratio of each later run to the first, which an unaffected connection keeps near 1 (the search, which
// then finds among 100,000 more, is printed for what it is: it reads more). Exits 1 on failed answers.
// Settings: BENCH_SECONDS (5), BENCH_CONNECTIONS (10), BENCH_CUSTOMERS (100000).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { root } from '../lib/run.ts';
import { cloneCustomers, openDatabase } from './lib-db.ts';
import { cleanupOnSignals, onCleanup, progress, runCleanups } from './lib-procs.ts';
import { createOne, customerBody } from './lib-requests.ts';
import { startGateway, type Gateway } from './lib-servers.ts';
import { ms, renderTable, rps } from './lib-table.ts';
import { failures, measure, requireWrk, type Figures, type RequestShape } from './lib-wrk.ts';

const seconds = Number(process.env.BENCH_SECONDS ?? 5);
const connections = Number(process.env.BENCH_CONNECTIONS ?? 10);
const customerCount = Number(process.env.BENCH_CUSTOMERS ?? 100_000);

/** The requests measured at each stage: label and shape (with the gateway's headers). */
async function shapes(gateway: Gateway, customerId: string): Promise<[string, RequestShape][]> {
  const headers = await gateway.headers();
  return [
    ['customer read', { method: 'GET', path: `/pay-api/v1/customers/${customerId}`, headers }],
    ['search, selective', { method: 'GET', path: '/pay-api/v1/customers?search=Name4242&pageSize=20', headers }],
    ['customer create', { method: 'POST', path: '/pay-api/v1/customers', headers, body: customerBody }],
  ];
}

async function main(): Promise<void> {
  requireWrk();
  cleanupOnSignals();
  const dir = mkdtempSync(path.join(tmpdir(), 'pgw-bench-neighbour-'));
  onCleanup('temporary directory', () => { rmSync(dir, { recursive: true, force: true }); return Promise.resolve(); });
  try {
    const file = path.join(dir, 'neighbour.sqlite');
    const gateway = await startGateway('gateway SQLite', { gatewayRoot: root, dir, slug: 'sqlite', prepare: () => Promise.resolve(`sqlite:${file}`) });
    const customerId = await createOne(gateway, '/pay-api/v1/customers', customerBody);
    const stages: { stage: string; figures: Map<string, Figures> }[] = [];
    const run = async (stage: string): Promise<void> => {
      const figures = new Map<string, Figures>();
      for (const [label, shape] of await shapes(gateway, customerId)) {
        const measured = await measure(`${stage}: ${label}`, gateway.base, shape, { connections, seconds, warmup: 1 });
        if (failures(measured) > 0) process.exitCode = 1;
        figures.set(label, measured);
      }
      stages.push({ stage, figures });
    };
    await run('before');
    progress(`another connection inserts ${String(customerCount)} customers`);
    const started = performance.now();
    const db = openDatabase(gateway.databaseUrl);
    try {
      await cloneCustomers(db, customerId, customerCount);
    } finally {
      await db.destroy();
    }
    const bulkSeconds = (performance.now() - started) / 1000;
    await run('just after');
    await run('once more');
    const [before] = stages;
    const rows = stages.flatMap(({ stage, figures }) => [...figures].map(([label, f]) => {
      const base = before?.figures.get(label);
      return [stage, label, rps(f.rps), ms(f.p50), ms(f.p99), base && stage !== 'before' ? (f.rps / base.rps).toFixed(2) : '', failures(f) > 0 ? `FAILED ${String(failures(f))}` : ''];
    }));
    console.log(`The SQLite gateway before and after another connection inserted ${String(customerCount)} customers (${bulkSeconds.toFixed(1)} s); ${String(connections)} connections, ${String(seconds)} s a run`);
    console.log(renderTable([{ title: 'stage' }, { title: 'request' }, { title: 'req/s', right: true }, { title: 'p50 ms', right: true }, { title: 'p99 ms', right: true }, { title: 'x before', right: true }, { title: 'failures' }], rows));
  } finally {
    await runCleanups();
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
