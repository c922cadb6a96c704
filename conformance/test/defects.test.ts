// The defect classes of issue 22 item 6 (each a planted defect that passed the suite): the checks written for
// them pass against the bundled server, and each mutant, planting exactly one defect, fails the check meant to
// catch it (attribution by check id).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { amountLimitChecks } from '../src/checks/amount-limits.ts';
import type { Check } from '../src/check.ts';
import type { CheckResult } from '../src/runner.ts';
import { Spec } from '../src/spec.ts';
import { runChecks, startBundledServer, startProxy, type BundledServer, type Mutant } from './target.ts';

const spec = Spec.load();
const checks: Check[] = [...amountLimitChecks];
let server: BundledServer;

function run(baseUrl: string, ids: readonly string[] | undefined): Promise<CheckResult[]> {
  return runChecks(spec, server.credentialsFile, baseUrl, checks.filter((c) => ids === undefined || ids.includes(c.id)));
}

beforeAll(async () => { server = await startBundledServer(); }, 60_000);
afterAll(async () => { await server.stop(); });

const json = (body: string): Record<string, unknown> => {
  try { return JSON.parse(body) as Record<string, unknown>; } catch { return {}; }
};

describe('defect-class checks against the bundled server', () => {
  it('pass', async () => {
    const results = await run(server.baseUrl, undefined);
    expect(results.filter((r) => r.status !== 'passed').map((r) => `${r.id}: ${r.status} ${r.message ?? ''}`)).toEqual([]);
  }, 120_000);
});

/** Turns a refusal with 103 into an approval (the command "accepted" above its limit). */
const accepts103 = (path: RegExp) => (req: { path: string }, reply: { status: number; headers: Record<string, string>; body: string }) =>
  (path.test(req.path) && json(reply.body).responseCode === '103' ? { ...reply, body: JSON.stringify({ ...json(reply.body), responseCode: '000', responseDescription: 'Approved' }) } : reply);

const mutants: (Mutant & { checks: string[] })[] = [
  { name: 'a capture above the authorized amount accepted', checks: ['amounts/limits'], reply: accepts103(/\/transactions\/card\/[^/]+\/capture$/) },
  { name: 'a refund above what is left accepted', checks: ['amounts/limits'], reply: accepts103(/\/transactions\/(card|ach)\/[^/]+\/refund$/) },
  {
    name: 'a partial approval reporting the requested amount as approved',
    checks: ['amounts/partial_approval'],
    reply: (req, reply) => {
      const body = json(reply.body);
      return /\/transactions\/card\/(authorization|sale)$/.test(req.path) && body.responseCode === '010' ? { ...reply, body: JSON.stringify({ ...body, approvedAmount: body.requestedAmount }) } : reply;
    },
  },
];

describe('defect-class checks against mutants', () => {
  it.each(mutants.map((m) => [m.name, m] as const))('catch: %s', async (_name, mutant) => {
    const proxy = await startProxy(server.baseUrl, mutant);
    try {
      const results = await run(proxy.baseUrl, mutant.checks);
      // Caught by the check meant to catch it: each named check fails (its message shown when it does not).
      expect(results.map((r) => [r.id, r.status === 'failed' ? 'failed' : `${r.status}: ${r.message ?? ''}`])).toEqual(mutant.checks.map((id) => [id, 'failed']));
    } finally {
      await proxy.stop();
    }
  }, 60_000);
});
