// The suite against the bundled server (all pass), its exit codes and reports, and against mutants: proxies
// that each plant one defect a real implementation could have. Every mutant must be caught.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { main } from '../src/cli.ts';
import { UNKNOWN_FIELD } from '../src/negative-cases.ts';
import { credentialsOf, startBundledServer, startProxy, type BundledServer, type Mutant, type Reply } from './target.ts';

let server: BundledServer;
const dir = mkdtempSync(path.join(tmpdir(), 'pgw-conformance-reports-'));

beforeAll(async () => { server = await startBundledServer(); });
afterAll(async () => {
  await server.stop();
  rmSync(dir, { recursive: true, force: true });
});

async function run(args: string[]): Promise<{ code: number; out: string }> {
  const lines: string[] = [];
  const code = await main(args, (l) => lines.push(l), (l) => lines.push(l));
  return { code, out: lines.join('\n') };
}

/** Rewrites a JSON reply; other replies pass unchanged. */
const json = (reply: Reply, change: (body: Record<string, unknown>) => unknown): Reply => {
  if (!/json/.test(reply.headers['content-type'] ?? '')) return reply;
  const body = JSON.parse(reply.body) as Record<string, unknown>;
  return { ...reply, body: JSON.stringify(change(body)) };
};
const isList = (path: string): boolean => /^\/(pay-api\/v1\/customers|pay-int-api\/(categories|line-items))(\?|$)/.test(path);

describe('against the bundled server', () => {
  it('passes every check, writes JUnit and JSON that agree, and exits 0', async () => {
    const junitFile = path.join(dir, 'junit.xml');
    const jsonFile = path.join(dir, 'report.json');
    // Clean-up mode, on the merchants given (long-lived-suite.ts runs both modes); nothing may skip.
    const { code, out } = await run(['--credentials', server.credentialsFile, '--junit', junitFile, '--json', jsonFile, '--seed', '7', '--no-sandbox', '--require-all']);
    expect(out).toMatch(/\n\d+ passed, 0 failed, 0 skipped in [\d.]+s$/);
    expect(out).not.toContain('does not keep what it is given');
    expect(code).toBe(0);
    // Every operation of the spec is exercised, and the table says so.
    expect(out).toMatch(/operations called: (\d+) of \1\n/);
    const report = JSON.parse(readFileSync(jsonFile, 'utf8')) as { summary: { total: number; passed: number; failed: number }; checks: { status: string }[]; coverage: { operationId: string; called: number }[] };
    expect(report.coverage.filter((r) => r.called === 0).map((r) => r.operationId)).toEqual([]);
    expect(report.coverage.length).toBeGreaterThanOrEqual(78);
    expect(report.summary.total).toBeGreaterThanOrEqual(30);
    expect(report.summary.passed).toBe(report.summary.total);
    const junit = readFileSync(junitFile, 'utf8');
    expect(junit).toContain(`<testsuites name="conformance ${server.baseUrl}" tests="${String(report.summary.total)}" failures="0" errors="0" skipped="0">`);
    // 100 s in CI's config unloaded.
  }, 600_000);

  it('skips the designed checks with --strict-seed, and says so in JUnit', async () => {
    const junitFile = path.join(dir, 'strict.xml');
    const { code, out } = await run(['--credentials', server.credentialsFile, '--strict-seed', '--only', 'tenancy,idempotency,auth', '--junit', junitFile]);
    expect(code).toBe(0);
    expect(out).toMatch(/SKIP tenancy\/other_merchant:customer .*designed behaviour/);
    expect(readFileSync(junitFile, 'utf8')).toMatch(/<skipped message="designed behaviour \(--strict-seed\)"\/>/);
  }, 60_000);

  it('exits 2 on a usage error and 3 when the target cannot be reached', async () => {
    expect((await run(['--credentials', '/nonexistent/credentials.json'])).code).toBe(2);
    expect((await run(['--base-url', server.baseUrl])).code).toBe(2);
    expect((await run(['--credentials', server.credentialsFile, '--only', 'no-such-check'])).code).toBe(2);
    const unreachable = await run(['--base-url', 'http://127.0.0.1:9', '--client-id', 'a', '--client-secret', 'b', '--client-id-b', 'c', '--client-secret-b', 'd']);
    expect(unreachable.code).toBe(3);
    const refused = await run(['--base-url', server.baseUrl, '--client-id', 'a', '--client-secret', 'b', '--client-id-b', 'c', '--client-secret-b', 'd']);
    expect(refused.code).toBe(3);
  }, 60_000);
});

describe('for CI', () => {
  it('sends --header on every request, token requests included; refuses a malformed one', async () => {
    const seen: { path: string; key: string | undefined }[] = [];
    const proxy = await startProxy(server.baseUrl, { name: 'records headers', request: (req) => { seen.push({ path: req.path, key: req.headers['x-gateway-key'] }); return req; } });
    try {
      const { code } = await run(['--base-url', proxy.baseUrl, '--auth-url', proxy.baseUrl, '--credentials', server.credentialsFile, '--only', 'families/devices', '--header', 'X-Gateway-Key: k-123']);
      expect(code).toBe(0);
      expect(seen.some((r) => r.path === '/oauth2/token')).toBe(true);
      expect(seen.filter((r) => r.key !== 'k-123')).toEqual([]);
    } finally {
      await proxy.stop();
    }
    expect((await run(['--credentials', server.credentialsFile, '--header', 'no colon here'])).code).toBe(2);
  }, 60_000);

  it('says first which selected checks could not run and why; --require-all makes that a failure', async () => {
    // Credentials without the partner: the check of a partner acting for its merchant cannot run.
    const file = path.join(dir, 'no-partner.json');
    const given = JSON.parse(readFileSync(server.credentialsFile, 'utf8')) as Record<string, unknown>;
    delete given.partner;
    writeFileSync(file, JSON.stringify(given));
    const args = ['--credentials', file, '--no-sandbox', '--only', 'identities/partner_acts_for_its_merchant,auth/token_client_credentials'];
    const quiet = await run(args);
    expect(quiet.code).toBe(0);
    expect(quiet.out).toMatch(/\n1 selected check could not run \(--require-all makes that a failure\):\n {2}SKIP identities\/partner_acts_for_its_merchant: no partner credentials/);
    // The block comes before the tables, where a reader looks first.
    expect(quiet.out.indexOf('could not run')).toBeLessThan(quiet.out.indexOf('| group'));
    const strict = await run([...args, '--require-all']);
    expect(strict.code).toBe(1);
    expect(strict.out).toMatch(/could not run \(--require-all: each fails the run\)/);
    // A check deselected by --skip is the caller's choice, not a check that could not run.
    const chosen = await run(['--credentials', server.credentialsFile, '--only', 'auth/token_client_credentials,auth/token_invalid_client', '--skip', 'auth/token_invalid_client', '--require-all']);
    expect([chosen.code, chosen.out.includes('could not run')]).toEqual([0, false]);
    // The bundled server's credentials carry what every check needs: in sandbox mode too, the CRM check runs.
    const crm = await run(['--credentials', server.credentialsFile, '--only', 'identities/crm_token_service', '--require-all']);
    expect(crm.out).toMatch(/^mode: sandbox/m);
    expect(crm.out).toMatch(/^PASS identities\/crm_token_service/m);
    expect(crm.code).toBe(0);
  }, 120_000);

  it('names a target that keeps nothing once, before the failures, with the evidence', async () => {
    // Every customer made is answered, and none is ever found again.
    const proxy = await startProxy(server.baseUrl, { name: 'keeps nothing', reply: (req, reply) => (req.method === 'GET' && /^\/pay-api\/v1\/customers\/[0-9a-f-]{36}$/.test(req.path)
      ? { status: 404, headers: { 'content-type': 'application/json' }, body: JSON.stringify({ title: 'Not Found', status: 404, errorCode: 'not_found' }) } : reply) });
    try {
      const { code, out } = await run(['--base-url', proxy.baseUrl, '--auth-url', proxy.baseUrl, '--credentials', server.credentialsFile, '--only', 'resources/ensure_resource_availability:customer']);
      expect(code).toBe(1);
      expect(out.match(/does not keep what it is given/g)).toHaveLength(1);
      expect(out).toMatch(/the target does not keep what it is given \(a stateless mock\?\): a customer made \(createCustomer answered 200, id [0-9a-f-]{36}\) reads back 404/);
      expect(out.indexOf('does not keep')).toBeLessThan(out.indexOf('FAIL resources/ensure_resource_availability:customer:'));
    } finally {
      await proxy.stop();
    }
  }, 60_000);

  it('stops at the first failure with --fail-fast, reporting the rest as skipped', async () => {
    const proxy = await startProxy(server.baseUrl, { name: '401 as 200', reply: (_req, reply) => (reply.status === 401 ? { status: 200, headers: { 'content-type': 'application/json' }, body: '{}' } : reply) });
    try {
      const { code, out } = await run(['--base-url', proxy.baseUrl, '--auth-url', proxy.baseUrl, '--credentials', server.credentialsFile, '--only', 'auth', '--fail-fast']);
      expect(code).toBe(1);
      expect(out).toMatch(/stopping: --fail-fast after \S+ failed/);
      expect(new Set([...out.matchAll(/^FAIL (\S+?):? /gm)].map((m) => m[1])).size).toBe(1);
      expect(out).toMatch(/not run \(--fail-fast after a failure\)/);
    } finally {
      await proxy.stop();
    }
  }, 60_000);
});

describe('against mutants', () => {
  // Each mutant names the checks meant to catch it (ids or id stems); it counts as caught only when one of
  // those fails, in a run of just those checks (so no other check's failure can be credited to it).
  const tokens: Record<string, string> = {};
  const mutants: (Mutant & { checks: string[] })[] = [
    {
      name: 'a required field dropped from a record',
      reply: (req, reply) => (/^\/pay-api\/v1\/customers\/[0-9a-f-]{36}$/.test(req.path) && req.method === 'GET' && reply.status === 200
        ? json(reply, (b) => { delete b.lastName; return b; }) : reply),
      checks: ['resources/ensure_resource_availability:customer'],
    },
    {
      name: 'a field of the wrong type (total as a string)',
      reply: (req, reply) => (isList(req.path) && req.method === 'GET' ? json(reply, (b) => ({ ...b, total: String(b.total) })) : reply),
      checks: ['pagination/pages:searchCustomers'],
    },
    {
      name: '200 where 404 is due',
      reply: (_req, reply) => (reply.status === 404 ? { ...reply, status: 200 } : reply),
      checks: ['errors/unknown_id:customer', 'resources/use_after_free:customer'],
    },
    {
      name: 'another tenant\'s record returned (merchant B acts as merchant A)',
      request: (req) => req.path === '/oauth2/token' && req.body.includes(`client_id=${credentialsOf(server.credentialsFile).merchants[1]?.clientId ?? '-'}`)
        ? { ...req, body: new URLSearchParams({ grant_type: 'client_credentials', scope: 'offline_access', client_id: credentialsOf(server.credentialsFile).merchants[0]?.clientId ?? '', client_secret: credentialsOf(server.credentialsFile).merchants[0]?.clientSecret ?? '' }).toString() }
        : req,
      checks: ['tenancy/other_merchant:customer'],
    },
    {
      name: 'an item duplicated across pages',
      reply: (req, reply) => (isList(req.path) && /[?&]page=[1-9]/.test(req.path) ? json(reply, (b) => {
        const items = Array.isArray(b.items) ? b.items as unknown[] : [];
        return items.length > 1 ? { ...b, items: [items[0], ...items.slice(0, -1)] } : b;
      }) : reply),
      checks: ['pagination/pages:searchCustomers'],
    },
    {
      name: 'a wrong total',
      reply: (req, reply) => (isList(req.path) && req.method === 'GET' ? json(reply, (b) => ({ ...b, total: typeof b.total === 'number' ? b.total + 1 : b.total })) : reply),
      checks: ['pagination/pages:searchCustomers'],
    },
    {
      name: 'another tenant\'s records in a plain list (merchant B\'s list calls answered with merchant A\'s)',
      request: (req) => (req.method === 'GET' && /^\/(pay-api\/v1|pay-int-api|v2)\/[a-z-]+(\/[a-z-]+)?(\?|$)/.test(req.path) && req.headers.authorization === `Bearer ${tokens.B ?? '-'}`
        ? { ...req, headers: { ...req.headers, authorization: `Bearer ${tokens.A ?? '-'}` } } : req),
      reply: (req, reply) => {
        // Learns each merchant's token from the token answers it relays.
        if (req.path === '/oauth2/token' && reply.status === 200) {
          const who = req.body.includes(`client_id=${credentialsOf(server.credentialsFile).merchants[1]?.clientId ?? '-'}`) ? 'B' : req.body.includes(`client_id=${credentialsOf(server.credentialsFile).merchants[0]?.clientId ?? '-'}`) ? 'A' : undefined;
          const token = (JSON.parse(reply.body) as { access_token?: string }).access_token;
          if (who !== undefined && token !== undefined) tokens[who] = token;
        }
        return reply;
      },
      checks: ['tenancy/every_list'],
    },
    {
      name: 'a deleted record still served (delete that does nothing)',
      // The DELETE is answered 200 but never reaches the server (it is sent on as a harmless GET).
      request: (req) => (req.method === 'DELETE' && /^\/pay-api\/v1\/customers\/[0-9a-f-]{36}$/.test(req.path)
        ? { ...req, method: 'GET', headers: { ...req.headers, 'x-mutant-was-delete': '1' } } : req),
      reply: (req, reply) => (req.headers['x-mutant-was-delete'] === '1' ? { status: 200, headers: {}, body: '' } : reply),
      checks: ['resources/use_after_free:customer'],
    },
    {
      name: 'a forbidden transition allowed (cancel / mark as paid answer 200)',
      reply: (req, reply) => (/^\/pay-int-api\/invoices\/[^/]+\/(cancel|mark-as-paid)$/.test(req.path) && reply.status === 400
        ? { status: 200, headers: {}, body: '' } : reply),
      checks: ['transitions/invoice_forbidden'],
    },
    {
      name: 'a 401 turned into 200',
      reply: (_req, reply) => (reply.status === 401 ? { status: 200, headers: { 'content-type': 'application/json' }, body: '{}' } : reply),
      checks: ['auth/ignored_auth'],
    },
    {
      name: 'unknown fields silently accepted (dropped before they are read)',
      request: (req) => (req.body.includes(UNKNOWN_FIELD) ? { ...req, body: JSON.stringify(JSON.parse(req.body, (key, value: unknown) => (key === UNKNOWN_FIELD ? undefined : value))) } : req),
      checks: ['negative/createCustomer'],
    },
    {
      name: 'text cut at a NUL (stored up to it)',
      request: (req) => (req.body.includes('\\u0000') ? { ...req, body: req.body.replace(/\\u0000[^"]*/g, '') } : req),
      checks: ['negative/createCustomer'],
    },
    {
      name: 'a required body sent empty taken as {}',
      request: (req) => (req.method === 'PUT' && req.body === '' ? { ...req, body: '{}' } : req),
      checks: ['negative/updateInvoiceSettings'],
    },
    {
      name: 'an invoice total past the largest payment taken (tax and fees dropped before they are read)',
      request: (req) => (req.method === 'POST' && req.path === '/pay-int-api/invoices' && req.body.includes('"taxPercentage":100')
        ? { ...req, body: req.body.replace('"taxPercentage":100', '"taxPercentage":0').replace('"feesPercentage":100', '"feesPercentage":0') } : req),
      checks: ['amounts/computed_totals'],
    },
    {
      name: 'an error body in the wrong shape',
      reply: (_req, reply) => (reply.status === 400 ? json(reply, (b) => ({ message: b.details ?? b.title ?? 'bad request' })) : reply),
      checks: ['errors/missing_required_field'],
    },
  ];

  it('catches every mutant (100% detection)', async () => {
    const table: string[] = [];
    let caught = 0;
    for (const mutant of mutants) {
      const proxy = await startProxy(server.baseUrl, mutant);
      try {
        // On the merchants given (--no-sandbox): some mutants are planted on their credentials.
        const { code, out } = await run(['--base-url', proxy.baseUrl, '--auth-url', proxy.baseUrl, '--credentials', server.credentialsFile, '--no-sandbox', '--only', mutant.checks.join(',')]);
        const failed = [...out.matchAll(/^FAIL (\S+?):? /gm)].map((m) => m[1] ?? '');
        const detected = code === 1 && failed.some((id) => mutant.checks.some((meant) => id === meant || id.split(':')[0] === meant));
        if (detected) caught++;
        table.push(`| ${mutant.name.padEnd(56)} | ${detected ? 'caught' : 'MISSED'} | exit ${String(code)} | ${String(new Set(failed).size).padStart(2)} checks failed, e.g. ${failed[0] ?? '-'} |`);
      } finally {
        await proxy.stop();
      }
    }
    const rate = (100 * caught) / mutants.length;
    console.log(`\nmutant detection: ${String(caught)} of ${String(mutants.length)} (${rate.toFixed(0)}%)\n| mutant | verdict | exit | failing checks |\n|---|---|---|---|\n${table.join('\n')}\n`);
    expect(rate).toBe(100);
  }, 300_000);
});
