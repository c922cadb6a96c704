// The report a CI reader sees (issue 22 item 5): summary groups and JUnit suites follow the check ids' prefixes,
// --list honours --only/--skip, "did you mean" keeps the check's own spelling, counts are singular or plural,
// and with --only the coverage table lists only what the selection could call.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { main } from '../src/cli.ts';
import { coverage, scopeOf } from '../src/coverage.ts';
import { count, junit, progressLine, summaryTable } from '../src/report.ts';
import { checksFor, type CheckResult } from '../src/runner.ts';
import { Spec } from '../src/spec.ts';
import { startBundledServer, type BundledServer } from './target.ts';

const spec = Spec.load();
const all = checksFor(spec);
const dir = mkdtempSync(path.join(tmpdir(), 'pgw-report-'));
afterAll(() => { rmSync(dir, { recursive: true, force: true }); });

async function run(args: string[]): Promise<{ code: number; out: string; lines: string[] }> {
  const lines: string[] = [];
  const code = await main(args, (l) => lines.push(...l.split('\n')), (l) => lines.push(...l.split('\n')));
  return { code, out: lines.join('\n'), lines };
}
const creds = ['--base-url', 'http://127.0.0.1:1', '--client-id', 'a', '--client-secret', 'sb-secret', '--client-id-b', 'c', '--client-secret-b', 'sd-secret'];

const result = (id: string, group: string, status: CheckResult['status'], requests = 2): CheckResult =>
  ({ id, group, title: id, status, durationMs: 10, problems: [], requests, operations: {}, ...(status === 'passed' ? {} : { message: 'why' }) });

describe('summary groups and JUnit suites', () => {
  // Checks whose declared group differs from their id's prefix: every such check of the suite, and made-up ones.
  const mismatched = all.filter((c) => c.group !== c.id.split('/')[0]);
  const results = [...mismatched.map((c) => result(c.id, c.group, 'passed')), result('zeta/limits', 'transitions', 'failed'), result('zeta/partial', 'transitions', 'skipped')];

  it('the suite has checks whose declared group is not their prefix (the case under test exists)', () => {
    expect(mismatched.length).toBeGreaterThan(5);
  });

  it('the summary has one row per id prefix, none per declared group that is not a prefix', () => {
    const rows = summaryTable(results).split('\n').slice(2, -1).map((l) => l.split('|')[1]?.trim());
    const prefixes = [...new Set(results.map((r) => r.id.split('/')[0]))];
    expect(rows).toEqual(prefixes);
    const zeta = summaryTable(results).split('\n').find((l) => l.startsWith('| zeta '));
    expect(zeta?.split('|').map((c) => c.trim()).slice(1, 6)).toEqual(['zeta', '2', '0', '1', '1']);
  });

  it('JUnit has one testsuite per id prefix, each holding exactly the checks with that prefix', () => {
    const xml = junit(results, 'run');
    const suites = [...xml.matchAll(/<testsuite name="([^"]+)" tests="(\d+)"/g)].map((m) => [m[1], Number(m[2])]);
    const prefixes = [...new Set(results.map((r) => r.id.split('/')[0] ?? ''))];
    expect(suites).toEqual(prefixes.map((p) => [p, results.filter((r) => r.id.startsWith(`${p}/`)).length]));
    for (const r of results) expect(xml).toContain(`classname="conformance.${r.id.split('/')[0] ?? ''}" name="${r.id}"`);
  });
});

describe('counts', () => {
  it.each([[0, 'checks'], [1, 'check'], [2, 'checks'], [21, 'checks']])('%i %s', (n, noun) => {
    expect(count(n, 'check')).toBe(`${String(n)} ${noun}`);
  });
  it('a progress line says "1 request", "2 requests"', () => {
    expect(progressLine(result('auth/x', 'auth', 'passed', 1))).toMatch(/, 1 request\)$/);
    expect(progressLine(result('auth/x', 'auth', 'passed', 2))).toMatch(/, 2 requests\)$/);
  });
});

describe('--list', () => {
  const listed = (lines: string[]): string[] => lines.filter((l) => /^[a-z]+\//.test(l)).map((l) => l.replace(/( \(designed\))?: .*$/, ''));

  it.each([
    [['--only', 'amounts'], all.filter((c) => c.id.startsWith('amounts/')).map((c) => c.id)],
    [['--only', 'amounts/limits'], ['amounts/limits']],
    [['--only', 'contract,amounts', '--skip', 'contract/no_store'], all.filter((c) => /^(contract|amounts)\//.test(c.id) && c.id !== 'contract/no_store').map((c) => c.id)],
    [['--skip', 'negative,hostile'], all.filter((c) => !/^(negative|hostile)\//.test(c.id)).map((c) => c.id)],
    [['--only', 'amounts', '--strict-seed'], []],
    [[], all.map((c) => c.id)],
  ])('with %j lists exactly what a run would run, and counts it', async (args, ids) => {
    const { code, lines } = await run(['--list', ...args]);
    expect(code).toBe(0);
    expect(listed(lines)).toEqual(ids);
    expect(lines[lines.length - 1]).toBe(count(ids.length, 'check'));
  });

  it('an unknown selector with --list is a usage error (exit 2), as in a run', async () => {
    const { code, out } = await run(['--list', '--only', 'amonts']);
    expect(code).toBe(2);
    expect(out).toMatch(/unknown --only\/--skip selector: amonts \(did you mean amounts\?\)/);
  });
});

describe('"did you mean" in the check\'s own spelling', () => {
  it.each([
    ['createcustomr', 'createCustomer'],
    ['CREATECUSTOMERX', 'createCustomer'],
    ['getSandboxClok', 'getSandboxClock'],
    ['Customer', 'Customers'],
    ['amounts/limit', 'amounts/limits'],
    ['machines/AchTransactionStatus:AchDebt', 'machines/AchTransactionStatus:AchDebit'],
  ])('%s -> %s', async (typed, meant) => {
    const { code, out } = await run([...creds, '--only', typed]);
    expect(code).toBe(2);
    expect(out).toContain(`${typed} (did you mean ${meant}?)`);
  });
});

describe('coverage with --only', () => {
  it('lists only the operations the selection could call, plus any it did call', () => {
    const selected = all.filter((c) => c.id === 'amounts/partial_approval');
    const scope = scopeOf(spec, selected);
    const rows = coverage(spec, [{ ...result('amounts/partial_approval', 'transitions', 'passed'), operations: { authorizeCard: { calls: 2, statuses: [200] }, getPaymentConfiguration: { calls: 1, statuses: [200] } } }], scope);
    const ids = rows.map((r) => r.operationId);
    expect(ids).toEqual(expect.arrayContaining(['authorizeCard', 'createCardSale', 'getTransactionStatus', 'getPaymentConfiguration']));
    expect(ids).not.toContain('createCustomer');
    expect(ids.length).toBeLessThan(spec.operations.size / 2);
  });

  it('a check naming no operation (it calls them all) keeps every operation in scope; no --only, every operation', () => {
    expect(scopeOf(spec, all.filter((c) => c.id === 'auth/ignored_auth')).size).toBe(spec.operations.size);
    expect(coverage(spec, []).length).toBe(spec.operations.size);
  });
});

describe('a run with --only against the bundled server', () => {
  let server: BundledServer;
  beforeAll(async () => { server = await startBundledServer(); });
  afterAll(async () => { await server.stop(); });

  it('says "1 check", groups by prefix in the summary and JUnit, and covers only what the selection could call', async () => {
    const junitFile = path.join(dir, 'only.xml');
    const { code, out, lines } = await run(['--credentials', server.credentialsFile, '--base-url', server.baseUrl, '--only', 'contract/no_store', '--junit', junitFile]);
    expect(out).toMatch(/^conformance: .*, 1 check, seed/m);
    expect(code).toBe(0);
    const table = lines.slice(lines.findIndex((l) => l.startsWith('operation ')) + 1, lines.findIndex((l) => l.startsWith('operations called:')));
    const operations = table.map((l) => l.split(/\s+/)[0]);
    expect(operations).toEqual(expect.arrayContaining(['requestToken', 'createApiKey', 'listWebhookEndpoints']));
    expect(operations).not.toContain('createCustomer');
    expect(operations.length).toBeLessThan(10);
    expect(lines.some((l) => /^\| contract +\| +1 \| +1 \| +0 \| +0 \|/.test(l))).toBe(true);
    expect(readFileSync(junitFile, 'utf8')).toMatch(/<testsuite name="contract" tests="1" failures="0"/);
  }, 60_000);
});
