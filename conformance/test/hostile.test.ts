// The hostile-input checks (money spellings, impossible dates, non-UTF-8 bodies), the token-throttling check
// and the fuzz phase against the bundled server, where they pass, and against mutants: proxies that each plant
// one defect of a class these checks exist for, each of which must fail the check meant to catch it.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Check } from '../src/check.ts';
import { hostileChecks } from '../src/checks/hostile.ts';
import { throttleChecks } from '../src/checks/throttle.ts';
import { fuzzChecks } from '../src/fuzz/checks.ts';
import type { CheckResult } from '../src/runner.ts';
import { Spec } from '../src/spec.ts';
import { runChecks, startBundledServer, startProxy, type BundledServer, type Mutant } from './target.ts';

const spec = Spec.load();

/**
 * The spec as it reads once the token services document 429 (the server's throttling is being built): the
 * throttling check exists only for a spec that promises it.
 */
function throttledSpec(): Spec {
  const document = structuredClone(spec.document) as { paths: Record<string, Record<string, { responses: Record<string, unknown> }>> };
  for (const [path, item] of Object.entries(document.paths)) {
    if (!path.includes('oauth2') || !item.post) continue;
    item.post.responses['429'] = { description: 'Too many failed attempts', headers: { 'Retry-After': { schema: { type: 'string' } } }, content: { 'application/json': { schema: { type: 'object' } } } };
  }
  return new Spec(document);
}

let server: BundledServer;
beforeAll(async () => { server = await startBundledServer(); });
afterAll(async () => { await server.stop(); });

function run(baseUrl: string, checks: readonly Check[], ids: readonly string[], withSpec = spec): Promise<CheckResult[]> {
  return runChecks(withSpec, server.credentialsFile, baseUrl, checks.filter((c) => ids.includes(c.id) || ids.includes(c.id.split(':')[0] ?? '')), 20_000);
}

const internal500 = (): string => JSON.stringify({ errors: null, details: null, statusCode: 500, source: 'm', exceptionType: 'InternalException', correlationId: randomUUID(), entityId: null, errorCode: 'internal_error' });

describe('hostile-input checks against the bundled server', () => {
  it('pass: every refused spelling, impossible date and non-UTF-8 body answers 400 naming the field, and changes nothing', async () => {
    const checks = hostileChecks(spec);
    const results = await run(server.baseUrl, checks, ['hostile/money', 'hostile/dates', 'hostile/utf8']);
    expect(results.filter((r) => r.status !== 'passed').map((r) => `${r.id}: ${r.message ?? ''}`)).toEqual([]);
    // Derived from the spec: every kind on many operations, hundreds of cases.
    for (const kind of ['money', 'dates', 'utf8']) expect(results.filter((r) => r.id.startsWith(`hostile/${kind}:`)).length).toBeGreaterThanOrEqual(10);
    expect(results.reduce((n, r) => n + r.requests, 0)).toBeGreaterThan(900);
    // The witness of "nothing changed" read the events of each change (a webhook endpoint's deliveries).
    expect(results.find((r) => r.id === 'hostile/money:createCardSale')?.operations.listDeliveryLogs?.calls).toBeGreaterThan(10);
  }, 180_000);
});

const CARD_SALE = '/pay-api/v1/transactions/card/sale';
const mutants: (Mutant & { checks: string[]; says?: RegExp })[] = [
  {
    name: 'a mantissa-charging amount parser (4.99e25 charged as 4.99)',
    checks: ['hostile/money:createCardSale'],
    request: (req) => (req.path === CARD_SALE && req.body.includes('4.99e25') ? { ...req, body: req.body.replace('4.99e25', '4.99') } : req),
    says: /amount: exponent \(huge\) 4\.99e25: expected 400, got 200.*changed what the gateway shows/,
  },
  {
    name: 'a 500 that commits (the refused spelling is accepted, the client told 500)',
    checks: ['hostile/money:createCardSale'],
    request: (req) => (req.path === CARD_SALE && req.body.includes('4.99e25') ? { ...req, body: req.body.replace('4.99e25', '4.99'), headers: { ...req.headers, 'x-mutant-500': '1' } } : req),
    reply: (req, reply) => (req.headers['x-mutant-500'] === '1' ? { status: 500, headers: { 'content-type': 'application/json' }, body: internal500() } : reply),
    says: /expected 400, got 500.*changed what the gateway shows/,
  },
  {
    name: 'rounding instead of refusing (a unit price of 1.005 kept as 1.01)',
    checks: ['hostile/money:createLineItem'],
    request: (req) => (req.method === 'POST' && req.path === '/pay-int-api/line-items' ? { ...req, body: req.body.replace(/"unitPrice":1\.005([,}])/, '"unitPrice":1.01$1') } : req),
    says: /unitPrice: more than 2 decimal places 1\.005: expected 400, got 200/,
  },
  {
    name: 'an impossible date stored (2030-02-30 kept as 2030-03-02)',
    checks: ['hostile/dates:createInvoice'],
    request: (req) => (req.method === 'POST' && req.path === '/pay-int-api/invoices' ? { ...req, body: req.body.replaceAll('2030-02-30', '2030-03-02') } : req),
    says: /dueDate: 2030-02-30T00:00:00Z: expected 400, got 200/,
  },
  {
    name: 'a refusal that names no field (a 400 without errors for a refused spelling)',
    checks: ['hostile/money:createLineItem'],
    reply: (req, reply) => (req.path === '/pay-int-api/line-items' && reply.status === 400 ? { ...reply, body: JSON.stringify({ ...(JSON.parse(reply.body) as object), errors: {} }) } : reply),
    says: /the errors do not name unitPrice/,
  },
  {
    name: 'a non-UTF-8 body read as Latin-1 and accepted',
    checks: ['hostile/utf8:createCustomer'],
    request: (req) => (req.method === 'POST' && req.path === '/pay-api/v1/customers' && req.body.includes('\uFFFD') ? { ...req, body: req.body.replaceAll('\uFFFD', '?') } : req),
    says: /body not UTF-8: .*expected 400, got 200/,
  },
];

describe('hostile-input checks against mutants', () => {
  it.each(mutants.map((m) => [m.name, m] as const))('catch: %s', async (_name, mutant) => {
    const proxy = await startProxy(server.baseUrl, mutant);
    try {
      const results = await run(proxy.baseUrl, hostileChecks(spec), mutant.checks);
      expect(results.map((r) => [r.id, r.status])).toEqual(mutant.checks.map((id) => [id, 'failed']));
      if (mutant.says) expect(results[0]?.message).toMatch(mutant.says);
    } finally {
      await proxy.stop();
    }
  }, 60_000);
});

/** A gateway that throttles wrong client secrets: after 10 failures per client id (or per address), 429. */
function throttling(per: 'client' | 'address'): Mutant {
  const failures = new Map<string, number>();
  return {
    name: `throttling per ${per}`,
    reply: (req, reply) => {
      if (req.method !== 'POST' || !req.path.endsWith('/oauth2/token')) return reply;
      const key = per === 'address' ? 'the address' : new URLSearchParams(req.body).get('client_id') ?? '';
      const seen = failures.get(key) ?? 0;
      if (seen >= 10) return { status: 429, headers: { 'content-type': 'application/json', 'retry-after': '300' }, body: JSON.stringify({ error: 'invalid_client', error_description: 'too many failed attempts; retry later' }) };
      if (reply.status === 401) failures.set(key, seen + 1);
      return reply;
    },
  };
}

/** Whether the bundled server throttles wrong secrets itself (per client id and address: it does). */
async function serverThrottles(): Promise<boolean> {
  const clientId = `pgw_ck_probe${randomUUID().slice(0, 8)}`;
  for (let i = 0; i < 30; i++) {
    const res = await fetch(`${server.baseUrl}/oauth2/token`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams({ grant_type: 'client_credentials', scope: 'offline_access', client_id: clientId, client_secret: `wrong${String(i)}` }) });
    await res.arrayBuffer();
    if (res.status === 429) return true;
  }
  return false;
}

describe('the token-throttling check', () => {
  const throttled = throttledSpec();
  const checks = throttleChecks(throttled);
  /**
   * The throttling gateway: per client id, the bundled server itself (it must throttle); per address, a proxy
   * planting a per-address limit that also counts the suite's own client (the defect the check must name).
   */
  async function throttlingTarget(per: 'client' | 'address' = 'client'): Promise<{ baseUrl: string; stop(): Promise<void> }> {
    if (per === 'address') return startProxy(server.baseUrl, throttling(per));
    expect(await serverThrottles(), 'the bundled server answers 429 after repeated wrong secrets').toBe(true);
    return { baseUrl: server.baseUrl, stop: () => Promise.resolve() };
  }

  it('exists only when the spec documents 429 on a token service', () => {
    expect(throttleChecks(spec).length).toBe(spec.operation('requestToken').responses['429'] ? 1 : 0);
    expect(checks.map((c) => c.id)).toEqual(['auth/token_throttling']);
  });

  it('passes against a gateway that throttles per client id, and the suite keeps its own tokens', async () => {
    const target = await throttlingTarget();
    try {
      const results = await run(target.baseUrl, checks, ['auth/token_throttling'], throttled);
      expect(results.map((r) => [r.id, r.status, r.message])).toEqual([['auth/token_throttling', 'passed', undefined]]);
      // Bounded: ten or so failures per service, never the 50 allowed.
      expect(results[0]?.requests).toBeLessThan(60);
    } finally {
      await target.stop();
    }
  }, 60_000);

  it.each([
    ['no 429 (every 429 of the token service turned into a 401)', 'client', /never answered 429/],
    ['a 429 without Retry-After', 'client', /no valid Retry-After/],
    ['a limit per address that locks the suite\'s own client out', 'address', /locked out merchant A's own client/],
  ] as const)('catch: %s', async (name, per, says) => {
    const target = await throttlingTarget(per);
    const mutant: Mutant = {
      name,
      reply: (_req, reply) => {
        if (reply.status !== 429) return reply;
        if (name.startsWith('no 429')) return { status: 401, headers: { 'content-type': 'application/json' }, body: JSON.stringify({ error: 'invalid_client', error_description: 'Client authentication failed.' }) };
        if (name.startsWith('a 429 without')) return { ...reply, headers: Object.fromEntries(Object.entries(reply.headers).filter(([k]) => k !== 'retry-after')) };
        return reply;
      },
    };
    const proxy = await startProxy(target.baseUrl, mutant);
    try {
      const results = await run(proxy.baseUrl, checks, ['auth/token_throttling'], throttled);
      expect(results.map((r) => [r.id, r.status])).toEqual([['auth/token_throttling', 'failed']]);
      expect(results[0]?.message).toMatch(says);
    } finally {
      await proxy.stop();
      await target.stop();
    }
  }, 60_000);
});

describe('the fuzz phase', () => {
  it('catches a 500 that commits on large unit prices, and shrinks the request to the one field that matters', async () => {
    const proxy = await startProxy(server.baseUrl, {
      name: 'a line item over 1000 is stored, the client told 500',
      reply: (req, reply) => {
        if (req.method !== 'POST' || req.path !== '/pay-int-api/line-items' || reply.status !== 200) return reply;
        const price = Number((JSON.parse(req.body) as { unitPrice?: unknown }).unitPrice);
        return price > 1000 ? { status: 500, headers: { 'content-type': 'application/json' }, body: internal500() } : reply;
      },
    });
    try {
      const results = await run(proxy.baseUrl, fuzzChecks(spec, { runs: 100, seed: 3 }), ['fuzz/createLineItem']);
      expect(results.map((r) => [r.id, r.status])).toEqual([['fuzz/createLineItem', 'failed']]);
      const result = results[0];
      // Shrunk: only unitPrice changed from the valid base, to the smallest price that fails.
      expect(result?.message).toMatch(/^a valid request \(unitPrice\): not_a_server_error: 500 .*fuzz seed 3, failed at request \d+ and shrunk in \d+ steps; replay: --fuzz 100 --seed 3 --only fuzz\/createLineItem/);
      expect(result?.exchange?.request.body).toMatch(/"unitPrice":1000\.01\b/);
    } finally {
      await proxy.stop();
    }
  }, 120_000);

  it('catches a gateway that accepts a refused spelling when fuzzing (rounding 1.005-like amounts)', async () => {
    const proxy = await startProxy(server.baseUrl, {
      name: 'more decimals than the step rounded',
      request: (req) => (req.method === 'POST' && req.path === '/pay-int-api/line-items' ? { ...req, body: req.body.replace(/"unitPrice":(\d+)\.(\d\d)\d+/, '"unitPrice":$1.$2') } : req),
    });
    try {
      const results = await run(proxy.baseUrl, fuzzChecks(spec, { runs: 100, seed: 4 }), ['fuzz/createLineItem']);
      expect(results.map((r) => [r.id, r.status])).toEqual([['fuzz/createLineItem', 'failed']]);
      expect(results[0]?.message).toMatch(/^an invalid request \(body\.unitPrice: .*\): expected a 4xx refusal, got 200/);
    } finally {
      await proxy.stop();
    }
  }, 120_000);
});
