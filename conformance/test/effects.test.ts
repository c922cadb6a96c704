// The defect classes of issue 41, each a defect that passed the suite: an answer's claim not borne out by its
// effects (a write's fields not read back, derived from the spec by the coverage walk), a schedule's arithmetic, an event describing the record before the change, a stream resumed with the
// event it resumed after. The checks pass against the bundled server; each mutant, planting one defect of a
// class, fails the check meant to catch it, for that reason (attribution by check id and message).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { effectChecks } from '../src/checks/effects.ts';
import { eventTimingChecks } from '../src/checks/event-timing.ts';
import { quickPaymentMachineChecks } from '../src/checks/quick-payment-machine.ts';
import { scheduleChecks } from '../src/checks/schedules.ts';
import { subscriptionMachineChecks } from '../src/checks/subscription-machine.ts';
import { walkChecks } from '../src/checks/walk.ts';
import type { Check } from '../src/check.ts';
import type { CheckResult } from '../src/runner.ts';
import { Spec } from '../src/spec.ts';
import { expectCaught } from './caught.ts';
import { runChecks, startBundledServer, type BundledServer, type Mutant } from './target.ts';

const spec = Spec.load();
const checks: Check[] = [...effectChecks, ...scheduleChecks(spec), ...subscriptionMachineChecks(spec), ...quickPaymentMachineChecks(spec), ...eventTimingChecks.filter((c) => c.id === 'webhooks/stream_positions'), ...walkChecks];
let server: BundledServer;

function run(baseUrl: string, ids: readonly string[] | undefined): Promise<CheckResult[]> {
  return runChecks(spec, server.credentialsFile, baseUrl, checks.filter((c) => ids === undefined || ids.includes(c.id)), 30_000);
}

beforeAll(async () => { server = await startBundledServer(); });
afterAll(async () => { await server.stop(); });

type JsonObject = Record<string, unknown>;
const json = (body: string): JsonObject => {
  try { return JSON.parse(body) as JsonObject; } catch { return {}; }
};
const SUBSCRIPTION = /^\/pay-api\/v1\/subscriptions\/([0-9a-f-]{36})$/;
const TRANSACTION = /^\/pay-api\/v1\/transactions\/[0-9a-f-]{36}$/;
const SANDBOX = /^\/sandbox\/v1\/merchants\/([0-9a-f-]{36})$/;

describe('issue 41 checks against the bundled server', () => {
  it('pass, and pass again on the same server', async () => {
    for (let round = 0; round < 2; round++) {
      const results = await run(server.baseUrl, undefined);
      expect(results.filter((r) => r.status !== 'passed').map((r) => `${r.id}: ${r.status} ${r.message ?? ''}`)).toEqual([]);
    }
  }, 300_000);
});

/** Changes a subscription keeps in the proxy only: they read back, and the server's payments never see them. */
const ignoredChanges = new Map<string, JsonObject>();
const deletedSandboxes = new Set<string>();
const relayed = new Map<string, string>();

const mutants: (Mutant & { checks: string[]; why: RegExp })[] = [
  {
    name: "a subscription's new amount and method read back, but its payments charge the old ones",
    checks: ['effects/subscription_change'], why: /charges that amount with that method/,
    request: (req) => {
      const id = SUBSCRIPTION.exec(req.path)?.[1];
      if (req.method !== 'PUT' || id === undefined) return req;
      ignoredChanges.set(id, { ...(ignoredChanges.get(id) ?? {}), ...json(req.body) });
      return { ...req, method: 'GET', body: '' };
    },
    reply: (req, reply) => {
      const id = SUBSCRIPTION.exec(req.path)?.[1];
      const kept = id === undefined ? undefined : ignoredChanges.get(id);
      return kept === undefined || reply.status !== 200 ? reply : { ...reply, body: JSON.stringify({ ...json(reply.body), ...kept }) };
    },
  },
  {
    name: 'an update answered 200 that changes nothing (a customer keeps its old name)',
    checks: ['coverage/walk'], why: /updateCustomer wrote what getCustomer does not read back: lastName/,
    request: (req) => (req.method === 'PUT' && /^\/pay-api\/v1\/customers\/[0-9a-f-]{36}$/.test(req.path) ? { ...req, method: 'GET', body: '' } : req),
  },
  {
    name: 'a partial refund marks the sale PartiallyRefunded while its refundedAmount stays 0',
    checks: ['effects/refund_remainder'], why: /reads refundedAmount 2\.5 and status 11; it reads 0 and 11/,
    reply: (req, reply) => (req.method === 'POST' && TRANSACTION.test(req.path) && json(reply.body).statusId === 11
      ? { ...reply, body: JSON.stringify({ ...json(reply.body), refundedAmount: 0 }) } : reply),
  },
  {
    name: "a deleted sandbox merchant leaves the list but its credentials still get tokens",
    checks: ['effects/sandbox_delete'], why: /deleted sandbox merchant's credentials answers 401; got 200/,
    request: (req) => {
      const id = SANDBOX.exec(req.path)?.[1];
      if (req.method !== 'DELETE' || id === undefined) return req;
      const again = deletedSandboxes.has(id);
      deletedSandboxes.add(id);
      return { ...req, method: 'GET', path: '/sandbox/v1/merchants', headers: { ...req.headers, 'x-mutant-delete': again ? 'again' : 'first' } };
    },
    reply: (req, reply) => {
      if (req.headers['x-mutant-delete'] === 'first') return { status: 200, headers: {}, body: '' };
      if (req.headers['x-mutant-delete'] === 'again') return { status: 404, headers: { 'content-type': 'application/json' }, body: '{"title":"Not Found","status":404}' };
      if (req.method !== 'GET' || !req.path.startsWith('/sandbox/v1/merchants') || reply.status !== 200) return reply;
      const body = json(reply.body);
      const items = Array.isArray(body.items) ? (body.items as JsonObject[]) : [];
      return { ...reply, body: JSON.stringify({ ...body, items: items.filter((i) => !deletedSandboxes.has(String(i.merchantId))) }) };
    },
  },
  {
    name: 'a sandbox reset answers 200 and leaves the records',
    checks: ['effects/sandbox_reset'], why: /after a reset, searchCustomers holds no customers/,
    request: (req) => (req.method === 'POST' && req.path === '/sandbox/v1/reset' ? { ...req, method: 'GET', path: '/sandbox/v1/clock', body: '', headers: { ...req.headers, 'x-mutant-reset': '1' } } : req),
    reply: (req, reply) => (req.headers['x-mutant-reset'] === '1' ? { status: 200, headers: {}, body: '' } : reply),
  },
  {
    name: 'a monthly subscription billed every three months while it reads Monthly',
    checks: ['schedules/subscription_frequencies'], why: /a Monthly subscription .*payment 2 falls due/,
    request: (req) => (req.method === 'POST' && req.path === '/pay-api/v1/subscriptions' ? { ...req, body: req.body.replace('"frequency":"Monthly"', '"frequency":"Quarterly","description":"mutant-monthly"') } : req),
    reply: (_req, reply) => (reply.body.includes('mutant-monthly') ? { ...reply, body: reply.body.replaceAll('"frequency":"Quarterly"', '"frequency":"Monthly"') } : reply),
  },
  {
    name: 'a failed payment retried 2 days after it instead of 1',
    checks: ['schedules/subscription_retries'], why: /attempt 1 of a payment .* fails/,
    reply: (req, reply) => {
      if (req.method !== 'GET' || !SUBSCRIPTION.test(req.path) || reply.status !== 200) return reply;
      const body = json(reply.body);
      return body.status === 'PastDue' && typeof body.nextPaymentDate === 'string'
        ? { ...reply, body: JSON.stringify({ ...body, nextPaymentDate: new Date(Date.parse(body.nextPaymentDate) + 86_400_000).toISOString() }) } : reply;
    },
  },
  {
    name: 'subscription.payment_failed and subscription.delinquent carry the subscription as it was before the failure',
    checks: ['machines/SubscriptionStatus:Subscription'], why: /subscription\.(payment_failed|delinquent) \S+ carries status \w+: the rows of SubscriptionStatus that emit it move to|says what a read of its record taken as it came says/,
    delivery: (body) => {
      const event = json(body);
      const data = event.data as JsonObject | undefined;
      if (!data || !['subscription.payment_failed', 'subscription.delinquent'].includes(String(event.type))) return body;
      const failed = Number(data.failedPaymentCount);
      return JSON.stringify({ ...event, data: { ...data, status: failed <= 1 ? 'Active' : 'PastDue', failedPaymentCount: failed - 1 } });
    },
  },
  {
    name: 'quick_payment.paid carries the link as it was before the payment',
    checks: ['machines/QuickPaymentStatus:QuickPayment'], why: /quick_payment\.paid .*status "Active"/,
    delivery: (body) => {
      const event = json(body);
      return event.type === 'quick_payment.paid' ? JSON.stringify({ ...event, data: { ...(event.data as JsonObject), status: 'Active', transactionId: null, paidOn: null } }) : body;
    },
  },
  {
    name: 'a stream resumed after an event sends that event again first',
    checks: ['webhooks/stream_positions'], why: /the resumed event itself again/,
    event: (req, message, index) => {
      const id = /^id: ?(.*)$/m.exec(message)?.[1];
      if (id !== undefined) relayed.set(id, message);
      const resumedAfter = req.headers['last-event-id'];
      const again = resumedAfter === undefined ? undefined : relayed.get(resumedAfter);
      return index === 0 && again !== undefined ? `${again}\n\n${message}` : message;
    },
  },
];

describe('issue 41 checks against mutants', () => {
  it.each(mutants.map((m) => [m.name, m] as const))('catch: %s', async (_name, mutant) => {
    await expectCaught(server.baseUrl, mutant, (baseUrl) => run(baseUrl, mutant.checks));
  }, 120_000);
});
