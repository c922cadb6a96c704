// The suite against a long-lived server (issue 22): one bundled server whose merchants A and B already hold
// 10,000 customers, 2,000 invoices, 50 API keys and 20 webhook endpoints each; the suite runs again and again in
// clean-up mode (on the merchants given) and in sandbox mode, every run green, and each merchant's rows compared,
// table by table, before and after. One test file per engine (long-lived-sqlite/-postgres.test.ts), so that CI's two
// workers run the two at once.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Knex } from 'knex';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { snapshotMerchant, type Snapshot } from '../../scripts/lib/db-snapshot.ts';
import { main } from '../src/cli.ts';
import { freshSchema } from './fresh-schema.ts';
import { openDatabase, seedMerchant } from './seed.ts';
import { startBundledServer, type BundledServer } from './target.ts';

/**
 * Runs in clean-up mode, each the whole suite: 2 on each engine (the run on the seeded data, and the same run
 * again on what the first left), then a sandbox-mode run on each. CI's 20 minutes decide the counts: a run took
 * 41-45 s on SQLite and 48-62 s on PostgreSQL in CI's configuration, and the whole of `npm test` took 1,007 s on
 * a machine of this session's kind with 3 runs on SQLite (1,204 s on another with 5 and 3). A defect that needs
 * more runs to show (one went red first on a fifth run, issue 22) is a class of the data a merchant accumulates:
 * PGW_LONG_LIVED_RUNS=20 runs that many on both engines.
 */
const RUNS = Number(process.env.PGW_LONG_LIVED_RUNS ?? 2);
const SANDBOX_RUNS = 1;
/**
 * What a run of the suite may take: over 84 s each in CI's config unloaded (5 runs passed 420 s), 117-178 s on
 * SQLite and 131-260 s on PostgreSQL beside `stress --cpu 2`.
 */
const RUN_MS = 360_000;
const SEED = { customers: 10_000, invoices: 2_000, apiKeys: 50, webhookEndpoints: 20 };

/**
 * What a clean-up run cannot undo through the interface, and so may change (the run's report names each):
 * transactions and their history (no delete exists), invoices that left Draft (published ones refuse a delete)
 * with their lines and history and numbers, the events and deliveries of what the run did, Idempotency-Keys, the
 * merchant's clock (its row), devices, terminals and payment links with their payments (no delete), subscriptions (no delete; a subscription ends Cancelled), notifications of invoices sent, the settlement batches of a
 * moved clock, the merchant's contact info copied onto invoices, and its invoice and subscription settings (changed in place,
 * the subscription walk writes back what it read, but the row it first made stays). Every
 * other table, the customers, payment methods and catalogue among them, must hold exactly the rows it held before.
 * API keys and webhook endpoints are deleted by deactivation (the gateway keeps the row, inactive, for the history
 * that refers to it): their ACTIVE rows must be exactly those of before (a key's last use aside).
 */
const NOT_UNDOABLE = new Set(['transactions', 'transaction_history', 'invoices', 'invoice_line_items', 'invoice_history', 'invoice_number_sequences',
  'outbox_events', 'webhook_deliveries', 'webhook_attempts', 'idempotency_keys', 'merchants', 'devices', 'terminals', 'quick_payments', 'subscriptions', 'notifications',
  'settlement_batches', 'contact_infos', 'invoice_settings', 'quick_payment_payments', 'subscription_settings']);
const DEACTIVATED: Readonly<Record<string, { omit: string[] }>> = { api_keys: { omit: ['last_used_at'] }, webhook_endpoints: { omit: [] } };
const MUST_BE_UNCHANGED = ['customers', 'customer_counts', 'payment_methods', 'categories', 'line_items'];

/** The active rows of a table that deactivates instead of deleting, without the columns that move with use. */
async function activeRows(db: Knex, table: string, merchantId: string, omit: readonly string[]): Promise<string[]> {
  const rows = (await db(table).where({ merchant_id: merchantId }).whereIn('is_active', [true, 1])) as Record<string, unknown>[];
  return rows.map((row) => JSON.stringify(Object.fromEntries(Object.entries(row).filter(([k]) => !omit.includes(k))))).sort();
}

/** The suite on a long-lived server of one engine (`url`: a PostgreSQL server to make a fresh schema on). */
export function longLivedSuite(engine: 'sqlite' | 'postgres', url: string | undefined): void {
  describe(`the suite on a long-lived server (${engine})`, () => {
    let server: BundledServer;
    let schema: Awaited<ReturnType<typeof freshSchema>> | undefined;
    let dir: string;
    let db: Knex;
    let merchants: { merchantId: string; clientId: string; clientSecret: string }[];
    const snapshots = async (): Promise<Snapshot[]> => Promise.all(merchants.map((m) => snapshotMerchant(db, m.merchantId)));
    const sandboxCount = async (): Promise<number> =>
      Number(((await db('merchants').whereNotIn('id', merchants.map((m) => m.merchantId)).count({ n: '*' }).first()) as { n: number | string } | undefined)?.n ?? 0);

    /** One run of the CLI, in this process; its output kept for the failure message. */
    const run = async (args: string[]): Promise<{ code: number; output: string }> => {
      const lines: string[] = [];
      const code = await main(['--credentials', server.credentialsFile, '--seed', '7', ...args], (l) => lines.push(l), (l) => lines.push(l));
      return { code, output: lines.filter((l) => !l.startsWith('PASS ')).join('\n') };
    };

    beforeAll(async () => {
      dir = mkdtempSync(path.join(tmpdir(), 'pgw-long-lived-'));
      schema = url === undefined ? undefined : await freshSchema(url, 'conformance_long');
      const databaseUrl = schema?.url ?? `sqlite:${path.join(dir, 'db.sqlite')}`;
      server = await startBundledServer({ databaseUrl });
      db = openDatabase(databaseUrl);
      merchants = (JSON.parse(readFileSync(server.credentialsFile, 'utf8')) as { merchants: typeof merchants }).merchants;
      for (const m of merchants) await seedMerchant(db, server.baseUrl, m.merchantId, m, SEED);
      // The server's start and the seeding: ~50 s beside `stress --cpu 2`.
    }, 300_000);
    afterAll(async () => {
      await db.destroy();
      await server.stop();
      await schema?.drop();
      rmSync(dir, { recursive: true, force: true });
    });

    it('holds the seeded data', async () => {
      for (const m of merchants) {
        for (const [table, n] of [['customers', SEED.customers], ['invoices', SEED.invoices], ['api_keys', SEED.apiKeys], ['webhook_endpoints', SEED.webhookEndpoints]] as const) {
          const row = (await db(table).where('merchant_id', m.merchantId).count({ n: '*' }).first()) as { n: number | string } | undefined;
          expect(Number(row?.n), `${table} of ${m.merchantId}`).toBeGreaterThanOrEqual(n);
        }
      }
    });

    it(`${String(RUNS)} runs in clean-up mode are green, and leave every record table of A and B as it was`, async () => {
      const before = await snapshots();
      const activeBefore = await Promise.all(merchants.map(async (m) => Promise.all(Object.entries(DEACTIVATED).map(([t, { omit }]) => activeRows(db, t, m.merchantId, omit)))));
      const seconds: number[] = [];
      for (let i = 1; i <= RUNS; i++) {
        const started = performance.now();
        const { code, output } = await run(['--no-sandbox', '--require-all']);
        seconds.push((performance.now() - started) / 1000);
        expect(code, `run ${String(i)} of ${String(RUNS)}:\n${output}`).toBe(0);
        expect(output).toMatch(/^mode: clean-up \(--no-sandbox\)/m);
        expect(output).toMatch(/^clean-up: deleted \d+ records the run created/m);
        if (i === 1) expect(output, 'the run says how far it moved the clock').toMatch(/moved merchant A's business clock by/);
      }
      // For CI's time budget: what the runs took, each the whole suite.
      console.info(`long-lived (${engine}): ${String(RUNS)} clean-up runs in ${seconds.reduce((a, b) => a + b, 0).toFixed(0)} s (${seconds.map((t) => t.toFixed(1)).join(', ')})`);
      const after = await snapshots();
      after.forEach((snapshot, i) => {
        const changed = snapshot.changedSince(before[i] as Snapshot);
        expect(changed.filter((t) => !NOT_UNDOABLE.has(t) && !(t in DEACTIVATED)), `merchant ${i === 0 ? 'A' : 'B'}: tables changed beyond what cannot be undone`).toEqual([]);
        for (const table of MUST_BE_UNCHANGED) expect(snapshot.digests.get(table), `${table} of merchant ${i === 0 ? 'A' : 'B'}`).toBe(before[i]?.digests.get(table));
      });
      const activeAfter = await Promise.all(merchants.map(async (m) => Promise.all(Object.entries(DEACTIVATED).map(([t, { omit }]) => activeRows(db, t, m.merchantId, omit)))));
      expect(activeAfter, 'the active API keys and webhook endpoints of A and B').toEqual(activeBefore);
    }, 120_000 + RUNS * RUN_MS);

    it(`${String(SANDBOX_RUNS)} runs in sandbox mode are green, touch no row or clock of A and B, and leave no sandbox`, async () => {
      const before = await snapshots();
      const sandboxesBefore = await sandboxCount();
      for (let i = 1; i <= SANDBOX_RUNS; i++) {
        const { code, output } = await run(['--require-all']);
        expect(code, `sandbox run ${String(i)}:\n${output}`).toBe(0);
        expect(output).toMatch(/^mode: sandbox \(merchants \S+ and \S+ created as the partner/m);
        expect(output).toMatch(/^sandbox: deleted /m);
      }
      const after = await snapshots();
      after.forEach((snapshot, i) => { expect(snapshot.changedSince(before[i] as Snapshot), `merchant ${i === 0 ? 'A' : 'B'}`).toEqual([]); });
      expect(await sandboxCount()).toBe(sandboxesBefore);
    }, 120_000 + SANDBOX_RUNS * RUN_MS);
  });
}
