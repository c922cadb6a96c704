// The fuzz phase in CI: `--fuzz 20` with a fixed seed against the bundled server on SQLite, and on PostgreSQL
// (a fresh schema) when PGW_TEST_DATABASE_URL is set. Every operation is fuzzed, nothing fails, and the run
// says its seed, its number of requests and its time.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { main } from '../src/cli.ts';
import { freshSchema } from './fresh-schema.ts';
import { startBundledServer, type BundledServer } from './target.ts';

const postgresUrl = process.env.PGW_TEST_DATABASE_URL;
if (!postgresUrl) console.warn('\n*** SKIPPING the PostgreSQL fuzz run of fuzz.test.ts: PGW_TEST_DATABASE_URL is not set (.ci/run sets it) ***\n');

const engines = [['sqlite', undefined], ...(postgresUrl ? [['postgres', postgresUrl] as const] : [])] as const;

describe.each(engines)('fuzz phase against the bundled server (%s)', (_engine, url) => {
  let server: BundledServer;
  let schema: Awaited<ReturnType<typeof freshSchema>> | undefined;
  beforeAll(async () => {
    schema = url === undefined ? undefined : await freshSchema(url);
    server = await startBundledServer(schema ? { databaseUrl: schema.url } : {});
  });
  afterAll(async () => {
    await server.stop();
    await schema?.drop();
  });

  it('--fuzz 20 --seed 42: every operation fuzzed, none fails, the seed, requests and seconds said', async () => {
    const lines: string[] = [];
    const code = await main(['--credentials', server.credentialsFile, '--only', 'fuzz', '--fuzz', '20', '--seed', '42'], (l) => lines.push(l), (l) => lines.push(l));
    const out = lines.join('\n');
    expect(out).toContain('fuzz: 20 requests per operation, seed 42 (--seed 42 replays)');
    expect(out.match(/^FAIL .*$/gm) ?? []).toEqual([]);
    expect(code).toBe(0);
    const summary = /fuzz: (\d+) requests to (\d+) operations in ([\d.]+)s, seed 42, 0 failed/.exec(out);
    expect(summary).not.toBeNull();
    expect(Number(summary?.[2])).toBeGreaterThanOrEqual(70);
    expect(Number(summary?.[1])).toBeGreaterThanOrEqual(20 * 70);
  }, 240_000);
});
