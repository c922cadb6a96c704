// The defect classes of issue 22 item 6 (each a planted defect that passed the suite): the checks written for
// them pass against the bundled server, and each mutant, planting exactly one defect, fails the check meant to
// catch it (attribution by check id).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { amountLimitChecks } from '../src/checks/amount-limits.ts';
import { arithmeticChecks } from '../src/checks/arithmetic.ts';
import { prorationChecks } from '../src/checks/proration.ts';
import { authChecks } from '../src/checks/auth.ts';
import { contractDetailChecks } from '../src/checks/contract-details.ts';
import { eventTimingChecks } from '../src/checks/event-timing.ts';
import type { Check } from '../src/check.ts';
import type { CheckResult } from '../src/runner.ts';
import { Spec } from '../src/spec.ts';
import { expectCaught } from './caught.ts';
import { credentialsOf, runChecks, startBundledServer, type BundledServer, type Mutant } from './target.ts';

const spec = Spec.load();
const checks: Check[] = [...amountLimitChecks, ...eventTimingChecks, ...arithmeticChecks, ...prorationChecks, ...contractDetailChecks, ...authChecks.filter((c) => c.id === 'auth/ignored_auth')];
let server: BundledServer;

function run(baseUrl: string, ids: readonly string[] | undefined): Promise<CheckResult[]> {
  return runChecks(spec, server.credentialsFile, baseUrl, checks.filter((c) => ids === undefined || ids.includes(c.id)));
}

beforeAll(async () => { server = await startBundledServer(); });
afterAll(async () => { await server.stop(); });

const json = (body: string): Record<string, unknown> => {
  try { return JSON.parse(body) as Record<string, unknown>; } catch { return {}; }
};

describe('defect-class checks against the bundled server', () => {
  it('pass', async () => {
    const results = await run(server.baseUrl, undefined);
    expect(results.filter((r) => r.status !== 'passed').map((r) => `${r.id}: ${r.status} ${r.message ?? ''}`)).toEqual([]);
  }, 120_000);

  it('pass again on the same server, now holding earlier runs\' records and 120 more API keys of A (more than a page)', async () => {
    const { merchants } = credentialsOf(server.credentialsFile);
    const a = merchants[0];
    if (!a) throw new Error('merchant A expected');
    const issued = await fetch(`${server.baseUrl}/oauth2/token`, { method: 'POST', body: new URLSearchParams({ grant_type: 'client_credentials', scope: 'offline_access', client_id: a.clientId, client_secret: a.clientSecret }) });
    const token = String((await issued.json() as { access_token?: unknown }).access_token);
    for (let i = 0; i < 120; i++) {
      const made = await fetch(`${server.baseUrl}/pay-api/v1/merchants/tokens`, { method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body: JSON.stringify({ name: `existing-${String(i)}` }) });
      expect(made.status).toBe(200);
    }
    const results = await run(server.baseUrl, undefined);
    expect(results.filter((r) => r.status !== 'passed').map((r) => `${r.id}: ${r.status} ${r.message ?? ''}`)).toEqual([]);
  }, 120_000);
});

/** Turns a refusal with 103 into an approval (the command "accepted" above its limit). */
const accepts103 = (path: RegExp) => (req: { path: string }, reply: { status: number; headers: Record<string, string>; body: string }) =>
  (path.test(req.path) && json(reply.body).responseCode === '103' ? { ...reply, body: JSON.stringify({ ...json(reply.body), responseCode: '000', responseDescription: 'Approved' }) } : reply);

const secrets = new Map<string, string>();
const keysBy = new Map<string, unknown[]>();
const advancedBy = new Map<string, number>();
const mutants: (Mutant & { checks: string[]; why: RegExp })[] = [
  { name: 'a capture above the authorized amount accepted', checks: ['amounts/limits'], why: /captureCardTransaction of [\d.]+, above .* 103/, reply: accepts103(/\/transactions\/card\/[^/]+\/capture$/) },
  { name: 'a refund above what is left accepted', checks: ['amounts/limits'], why: /refund(Card|Ach)Transaction of [\d.]+, above .* 103/, reply: accepts103(/\/transactions\/(card|ach)\/[^/]+\/refund$/) },
  {
    name: 'a partial approval reporting the requested amount as approved',
    checks: ['amounts/partial_approval'],
    why: /approvedAmount is/,
    reply: (req, reply) => {
      const body = json(reply.body);
      return /\/transactions\/card\/(authorization|sale)$/.test(req.path) && body.responseCode === '010' ? { ...reply, body: JSON.stringify({ ...body, approvedAmount: body.requestedAmount }) } : reply;
    },
  },
  {
    name: 'a hold or unhold answer carrying processedAmount',
    checks: ['contract/documented_fields'],
    why: /of (un)?holdAchTransaction carries body\.processedAmount/,
    reply: (req, reply) => (/\/transactions\/ach\/[^/]+\/(hold|unhold)$/.test(req.path) && reply.status === 200 ? { ...reply, body: JSON.stringify({ ...json(reply.body), processedAmount: 12.34 }) } : reply),
  },
  {
    name: "an API key list that shows each key's secret",
    checks: ['contract/api_key_list'],
    why: /does not show a key's secret/,
    reply: (req, reply) => {
      if (req.method === 'POST' && req.path === '/pay-api/v1/merchants/tokens' && reply.status === 200) {
        const { clientId, clientSecret } = json(reply.body);
        if (typeof clientId === 'string' && typeof clientSecret === 'string') secrets.set(clientId, clientSecret);
      }
      if (req.method !== 'GET' || !req.path.startsWith('/pay-api/v1/merchants/tokens') || reply.status !== 200) return reply;
      const body = json(reply.body) as { items?: { clientId?: string; clientSecret?: string }[] };
      for (const item of body.items ?? []) item.clientSecret = secrets.get(item.clientId ?? '') ?? 'pgw_cs_unknown';
      return { ...reply, body: JSON.stringify(body) };
    },
  },
  {
    name: "an API key list showing another merchant's keys when unfiltered",
    checks: ['contract/api_key_list'],
    why: /B's key .* is not on any page of A's unfiltered key list/,
    reply: (req, reply) => {
      const caller = req.headers.authorization ?? '';
      if (req.method === 'POST' && req.path === '/pay-api/v1/merchants/tokens' && reply.status === 200) {
        const { clientId, name, createdOn } = json(reply.body);
        keysBy.set(caller, [...(keysBy.get(caller) ?? []), { clientId, name, createdOn, lastUsedAt: null, isActive: true }]);
      }
      if (req.method !== 'GET' || !/^\/pay-api\/v1\/merchants\/tokens(\?|$)/.test(req.path) || reply.status !== 200) return reply;
      const body = json(reply.body) as { items?: unknown[]; total?: number };
      const others = [...keysBy.entries()].filter(([who]) => who !== caller).flatMap(([, keys]) => keys);
      return { ...reply, body: JSON.stringify({ ...body, items: [...others, ...(body.items ?? [])], total: (body.total ?? 0) + others.length }) };
    },
  },
  {
    name: 'a 401 whose body says statusCode 403',
    checks: ['auth/ignored_auth'],
    why: /error_status_code: the error body says statusCode 403, the response is 401/,
    reply: (_req, reply) => (reply.status === 401 && json(reply.body).statusCode === 401 ? { ...reply, body: JSON.stringify({ ...json(reply.body), statusCode: 403 }) } : reply),
  },
  {
    name: 'a token answer without Cache-Control: no-store',
    checks: ['contract/no_store'],
    why: /200 of requestToken carries cache-control: no-store \(got none\)/,
    reply: (req, reply) => (req.path === '/oauth2/token' ? { ...reply, headers: Object.fromEntries(Object.entries(reply.headers).filter(([k]) => k !== 'cache-control')) } : reply),
  },
  {
    name: 'an invoice total one cent above its lines',
    checks: ['arithmetic/invoice_totals'],
    why: /totalAmount is .*(its lines give|got)/,
    reply: (req, reply) => {
      if (req.method !== 'GET' || !/^\/pay-int-api\/invoices\/[^/?]+(\?|$)/.test(req.path) || reply.status !== 200) return reply;
      const body = json(reply.body);
      return typeof body.totalAmount === 'number' ? { ...reply, body: JSON.stringify({ ...body, totalAmount: Math.round(body.totalAmount * 100 + 1) / 100 }) } : reply;
    },
  },
  {
    name: 'a prorated plan change charging a cent more than the formula',
    checks: ['arithmetic/subscription_proration'],
    why: /latestChange\.remainingCharge is .*the spec's formula gives/,
    reply: (req, reply) => {
      if (req.method !== 'PUT' || !/^\/pay-api\/v1\/subscriptions\/[^/?]+(\?|$)/.test(req.path) || reply.status !== 200) return reply;
      const body = json(reply.body);
      const change = body.latestChange as Record<string, unknown> | null | undefined;
      if (!change || typeof change.remainingCharge !== 'number') return reply;
      return { ...reply, body: JSON.stringify({ ...body, latestChange: { ...change, remainingCharge: Math.round(change.remainingCharge * 100 + 1) / 100 } }) };
    },
  },
  {
    name: "the event stream's payload type differing from its event: line past the first message",
    checks: ['webhooks/event_stream'],
    why: /message [2-9]: its event: line \(payment\.card\.\w+\) is its payload's type \(invoice\.paid\)/,
    event: (_req, message, index) => (index === 0 ? message : message.replace(/"type":"[^"]+"/, '"type":"invoice.paid"')),
  },
  {
    name: 'nextRetryAt one row off the retry schedule',
    checks: ['webhooks/retry_schedule'],
    why: /attempt \d is due \d+ s after the failed attempt/,
    reply: (req, reply) => {
      if (req.method !== 'GET' || !req.path.startsWith('/v2/webhooks/delivery-logs/') || reply.status !== 200) return reply;
      const body = json(reply.body) as { items?: { nextRetryAt?: string | null; attemptNumber?: number }[] };
      // The delay of the next row: attempt n is due after the delay of attempt n + 1.
      const delays = [60, 300, 1800, 7200, 28_800, 86_400];
      for (const item of body.items ?? []) {
        const row = (item.attemptNumber ?? 0) - 2;
        const now = delays[row];
        const next = delays[row + 1];
        if (typeof item.nextRetryAt === 'string' && now !== undefined && next !== undefined) item.nextRetryAt = new Date(Date.parse(item.nextRetryAt) + (next - now) * 1000).toISOString();
      }
      return { ...reply, body: JSON.stringify(body) };
    },
  },
  {
    name: "merchant A's clock advance also moving merchant B's clock",
    checks: ['tenancy/clock_isolation'],
    why: /B's clock stays when A advances its own/,
    // One clock for all: every merchant's reading runs ahead by what the others advanced.
    reply: (req, reply) => {
      const caller = req.headers.authorization ?? '';
      if (req.method === 'POST' && req.path === '/sandbox/v1/clock/advance' && reply.status === 200) advancedBy.set(caller, (advancedBy.get(caller) ?? 0) + Number(json(req.body).seconds));
      if (req.method !== 'GET' || req.path !== '/sandbox/v1/clock' || reply.status !== 200) return reply;
      const others = [...advancedBy.entries()].filter(([who]) => who !== caller).reduce((sum, [, s]) => sum + s, 0);
      const body = json(reply.body);
      return { ...reply, body: JSON.stringify({ ...body, now: new Date(Date.parse(String(body.now)) + others * 1000).toISOString() }) };
    },
  },
];

describe('defect-class checks against mutants', () => {
  it.each(mutants.map((m) => [m.name, m] as const))('catch: %s', async (_name, mutant) => {
    await expectCaught(server.baseUrl, mutant, (baseUrl) => run(baseUrl, mutant.checks));
  }, 60_000);
});
