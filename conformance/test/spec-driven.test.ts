// The spec-driven checks (negative cases from the schemas, the coverage walk) against the bundled server, where
// they pass, and against mutants, each of which must fail the check meant to catch it (attribution by check id).
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { arithmeticChecks } from '../src/checks/arithmetic.ts';
import { familyChecks } from '../src/checks/families.ts';
import { identityChecks } from '../src/checks/identities.ts';
import { invoiceMachineChecks } from '../src/checks/invoice-machine.ts';
import { machineChecks } from '../src/checks/machines.ts';
import { negativeChecks } from '../src/checks/negative.ts';
import { quickPaymentMachineChecks } from '../src/checks/quick-payment-machine.ts';
import { terminalMachineChecks } from '../src/checks/terminal-machine.ts';
import { walkChecks } from '../src/checks/walk.ts';
import { webhookChecks } from '../src/checks/webhooks.ts';
import type { CheckResult } from '../src/runner.ts';
import { Spec } from '../src/spec.ts';
import type { Check } from '../src/check.ts';
import { runChecks, startBundledServer, startProxy, type BundledServer, type Mutant, type Reply } from './target.ts';

const spec = Spec.load();
const checks: Check[] = [...walkChecks, ...webhookChecks, ...machineChecks(spec), ...invoiceMachineChecks(spec), ...terminalMachineChecks(spec), ...quickPaymentMachineChecks(spec), ...familyChecks, ...arithmeticChecks, ...identityChecks, ...negativeChecks(spec)];
let server: BundledServer;

function run(baseUrl: string, ids: readonly string[] | undefined): Promise<CheckResult[]> {
  return runChecks(spec, server.credentialsFile, baseUrl, checks.filter((c) => ids === undefined || ids.includes(c.id)));
}

beforeAll(async () => { server = await startBundledServer(); });
afterAll(async () => { await server.stop(); });

describe('spec-driven checks against the bundled server', () => {
  it('pass: the walk calls every operation, and every negative case is refused as documented', async () => {
    const results = await run(server.baseUrl, undefined);
    const failed = results.filter((r) => r.status !== 'passed').map((r) => `${r.id}: ${r.message ?? ''}`);
    expect(failed).toEqual([]);
    expect(results.length).toBe(checks.length);
    // Each operation but the token services (exercised by the runner itself) has a negative check or none to make.
    expect(results.filter((r) => r.id.startsWith('negative/')).length).toBeGreaterThan(50);
    // 70 s in CI's config unloaded.
  }, 420_000);
});

const json = (body: string): Record<string, unknown> => {
  try { return JSON.parse(body) as Record<string, unknown>; } catch { return {}; }
};
const isList = (path: string): boolean => /^\/pay-api\/v1\/customers(\?|$)/.test(path);

/** Each mutant plants one defect of a class the spec-driven checks exist for, and names the check meant to catch it. */
const refreshTokens = new Map<string, string>();
let lastMerchant: string | undefined;
const replies = new Map<string, Reply>();
const mutants: (Mutant & { checks: string[] })[] = [
  {
    name: 'a network row that does not move the record (an ACH processing failure leaves it in flight)',
    checks: ['machines/AchTransactionStatus:AchDebit'],
    request: (req) => (req.path.endsWith('/simulate') && json(req.body).outcome === 'fail' ? { ...req, body: JSON.stringify({ outcome: 'submit' }) } : req),
  },
  {
    name: "a declining first row not taken (an ACH debit over the merchant's maxTransactionAmount is scheduled)",
    checks: ['machines/AchTransactionStatus:AchDebit'],
    request: (req) => (req.path === '/pay-api/v1/transactions/ach/payment' && Number(json(req.body).amount) > 1000 ? { ...req, body: JSON.stringify({ ...json(req.body), amount: 20 }) } : req),
  },
  {
    name: 'a transition that moves the record but emits no event (payment.ach.in_progress never sent)',
    checks: ['machines/AchTransactionStatus:AchDebit'],
    reply: (req, reply) => (/\/delivery-logs\/[^/?]+\?.*eventType=payment\.ach\.in_progress/.test(req.path) && reply.status === 200 ? { ...reply, body: JSON.stringify({ ...json(reply.body), items: [], total: 0 }) } : reply),
  },
  {
    name: 'an invoice whose ACH payment is returned stays Paid',
    checks: ['machines/InvoiceStatus:Invoice'],
    request: (req) => (req.path.endsWith('/simulate') && json(req.body).outcome === 'return' ? { ...req, body: JSON.stringify({ outcome: 'settle' }) } : req),
  },
  {
    name: 'an invoice command refused with another errorCode than the table names (cancel of a Paid invoice)',
    checks: ['machines/InvoiceStatus:Invoice'],
    reply: (req, reply) => (/\/pay-int-api\/invoices\/[^/]+\/cancel$/.test(req.path) && reply.status === 400
      ? { ...reply, body: JSON.stringify({ ...json(reply.body), errorCode: 'invoice_not_draft' }) } : reply),
  },
  {
    name: 'a card number failing the Luhn check is stored (a rule the spec states in words)',
    checks: ['negative/addCardPaymentMethod'],
    request: (req) => (req.method === 'POST' && req.path.endsWith('/payment-methods/cards') && req.body.includes('4111111111111112')
      ? { ...req, body: req.body.replace('4111111111111112', '4111111111111111') } : req),
  },
  {
    name: 'a refused update still changes the record',
    checks: ['negative/updateCustomer'],
    request: (req) => (req.method === 'PUT' && /^\/pay-api\/v1\/customers\/[^/]+$/.test(req.path) && JSON.stringify(json(req.body).lastName ?? '').length > 102
      ? { ...req, headers: { ...req.headers, 'x-mutant-refuse': '1' }, body: JSON.stringify({ firstName: 'Mallory', lastName: 'Changed' }) } : req),
    reply: (req, reply) => (req.headers['x-mutant-refuse'] === '1'
      ? { status: 400, headers: { 'content-type': 'application/json' }, body: JSON.stringify({ errors: { lastName: ['too long'] }, details: 'x', statusCode: 400, source: 'm', exceptionType: 'ValidationException', correlationId: randomUUID(), entityId: null, errorCode: 'validation_failed' }) } : reply),
  },
  {
    name: 'deliveries are not signed with the secret the endpoint shows',
    checks: ['webhooks/deliveries'],
    reply: (req, reply) => (req.method === 'POST' && req.path === '/v2/webhooks/endpoints' && reply.status === 200
      ? { ...reply, body: JSON.stringify({ ...json(reply.body), signingSecret: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw' }) } : reply),
  },
  {
    name: 'a forbidden transition is permitted (void of an ACH debit in any status answers 000)',
    checks: ['machines/AchTransactionStatus:AchDebit'],
    reply: (req, reply) => (/\/transactions\/ach\/[^/]+\/void$/.test(req.path) && reply.status === 200 ? { ...reply, body: reply.body.replace('"responseCode":"101"', '"responseCode":"000"') } : reply),
  },
  {
    // The gateway as it was before repeated refunds: a part refunds the payment whole, leaving nothing to refund.
    name: 'a partial refund closes the payment (Refunded after any part)',
    checks: ['machines/AchTransactionStatus:AchDebit', 'machines/CardTransactionStatus:Sale'],
    request: (req) => (/^\/pay-api\/v1\/transactions\/(card|ach)\/[^/]+\/refund$/.test(req.path) && json(req.body).amount !== undefined ? { ...req, body: '{}' } : req),
  },
  {
    name: 'a permitted command answers 000 but does not move the record (capture that captures nothing)',
    checks: ['machines/CardTransactionStatus:Authorization'],
    request: (req) => {
      const id = /^\/pay-api\/v1\/transactions\/card\/([^/]+)\/capture$/.exec(req.path)?.[1];
      return id === undefined ? req : { ...req, path: `/pay-api/v1/transactions/${id}`, body: '', headers: { ...req.headers, 'x-mutant-capture': id } };
    },
    reply: (req, reply) => (req.headers['x-mutant-capture'] === undefined ? reply : { ...reply, body: JSON.stringify({ ...json(reply.body), transactionId: req.headers['x-mutant-capture'], responseCode: '000' }) }),
  },
  {
    name: "a deleted API key's tokens keep working",
    checks: ['families/api_keys'],
    // Deletes nothing: the key stays active.
    request: (req) => (req.method === 'DELETE' && req.path.startsWith('/pay-api/v1/merchants/tokens/') ? { ...req, method: 'GET', path: '/pay-api/v1/merchants/tokens', headers: { ...req.headers, 'x-mutant-fake-delete': '1' } } : req),
    reply: (req, reply) => (req.headers['x-mutant-fake-delete'] === '1' ? { status: 200, headers: {}, body: '' } : reply),
  },
  {
    name: 'an update of a webhook endpoint is answered but not kept',
    checks: ['families/webhook_endpoints'],
    request: (req) => (req.method === 'PUT' && req.path.startsWith('/v2/webhooks/endpoints/') ? { ...req, method: 'GET', headers: { ...req.headers, 'x-mutant-fake-update': '1' } } : req),
  },
  {
    name: "a payment method list shows the whole card number",
    checks: ['families/payment_methods'],
    reply: (req, reply) => {
      if (!/\/payment-methods(\?|$)/.test(req.path) || req.method !== 'GET' || reply.status !== 200) return reply;
      const body = json(reply.body) as { items?: { panMask?: string | null }[] };
      for (const item of body.items ?? []) if (typeof item.panMask === 'string') item.panMask = '4111111111111111';
      return { ...reply, body: JSON.stringify(body) };
    },
  },
  {
    name: 'an amount rounded otherwise than the spec says (the ACH tax a cent off)',
    checks: ['arithmetic/invoice_totals'],
    reply: (req, reply) => {
      if (!/^\/pay-int-api\/invoices\/[^/?]+(\?|$)/.test(req.path) || reply.status !== 200) return reply;
      const body = json(reply.body) as { invoiceCalculations?: { ach?: { taxAmount: number } } };
      if (body.invoiceCalculations?.ach) body.invoiceCalculations.ach.taxAmount = Math.round(body.invoiceCalculations.ach.taxAmount * 100 + 1) / 100;
      return { ...reply, body: JSON.stringify(body) };
    },
  },
  {
    name: 'the PDF download is not a PDF',
    checks: ['arithmetic/invoice_totals'],
    reply: (req, reply) => (req.path.includes('/download-pdf') && reply.status === 200 ? { ...reply, body: 'PDF coming soon' } : reply),
  },
  {
    name: 'a refresh token is accepted as an access token',
    checks: ['identities/refresh_token_is_not_a_bearer'],
    request: (req) => {
      const bearer = /^Bearer (.+)$/.exec(req.headers.authorization ?? '')?.[1];
      const access = bearer === undefined ? undefined : refreshTokens.get(bearer);
      return access === undefined ? req : { ...req, headers: { ...req.headers, authorization: `Bearer ${access}` } };
    },
    reply: (req, reply) => {
      if (req.path === '/oauth2/token' && reply.status === 200) {
        const body = json(reply.body);
        if (typeof body.refresh_token === 'string' && typeof body.access_token === 'string') refreshTokens.set(body.refresh_token, body.access_token);
      }
      return reply;
    },
  },
  {
    name: "an Idempotency-Key replays across tenants (B gets A's response)",
    checks: ['identities/idempotency_key_per_tenant'],
    reply: (req, reply) => {
      const key = req.headers['idempotency-key'];
      if (key === undefined) return reply;
      const first = replies.get(key);
      if (first) return { ...first, headers: { ...first.headers, 'idempotent-replayed': 'true' } };
      replies.set(key, reply);
      return reply;
    },
  },
  {
    name: 'a partner may act on a merchant that is not its own',
    checks: ['identities/partner_acts_for_its_merchant'],
    // Acts on the last merchant it was asked for, whoever owns the one named now.
    request: (req) => {
      const named = req.headers['x-merchant-id'];
      if (named === undefined) return req;
      if (named !== '5f0e2c3d-4b1a-4c9e-8d7f-6a5b4c3d2e1f') { lastMerchant = named; return req; }
      return lastMerchant === undefined ? req : { ...req, headers: { ...req.headers, 'x-merchant-id': lastMerchant } };
    },
  },
  {
    name: 'accepts a lastName over its maxLength (a length rule not enforced)',
    checks: ['negative/createCustomer'],
    reply: (req, reply) => (req.method === 'POST' && req.path === '/pay-api/v1/customers' && JSON.stringify(json(req.body).lastName ?? '').length > 102
      ? { status: 200, headers: { 'content-type': 'application/json' }, body: JSON.stringify({ id: randomUUID() }) } : reply),
  },
  {
    name: 'refuses, but without naming the field',
    checks: ['negative/createCategory'],
    reply: (req, reply) => (req.path.startsWith('/pay-int-api/categories') && reply.status === 400
      ? { ...reply, body: JSON.stringify({ ...json(reply.body), errors: { request: ['is invalid'] } }) } : reply),
  },
  {
    name: "a body whose statusCode is not the response's status",
    checks: ['negative/createLineItem'],
    reply: (req, reply) => (req.path.startsWith('/pay-int-api/line-items') && reply.status === 400 ? { ...reply, body: JSON.stringify({ ...json(reply.body), statusCode: 422 }) } : reply),
  },
  {
    name: 'answers another media type with 400 instead of 415',
    checks: ['negative/createWebhookEndpoint'],
    reply: (req, reply) => (req.path.startsWith('/v2/webhooks/endpoints') && reply.status === 415 ? { ...reply, status: 400, body: JSON.stringify({ ...json(reply.body), statusCode: 400 }) } : reply),
  },
  {
    name: 'clamps pageSize 101 to 100 instead of refusing it (a query bound not enforced)',
    checks: ['negative/searchCustomers'],
    request: (req) => (isList(req.path) ? { ...req, path: req.path.replace('pageSize=101', 'pageSize=100') } : req),
  },
  {
    name: 'a refused create still creates (validation after the write)',
    checks: ['negative/createCustomer'],
    request: (req) => (req.method === 'POST' && req.path === '/pay-api/v1/customers' && JSON.stringify(json(req.body).firstName ?? '').length > 102
      ? { ...req, headers: { ...req.headers, 'x-mutant-refuse': '1' }, body: JSON.stringify({ ...json(req.body), firstName: 'Mallory' }) } : req),
    reply: (req, reply) => (req.headers['x-mutant-refuse'] === '1'
      ? { status: 400, headers: { 'content-type': 'application/json' }, body: JSON.stringify({ errors: { firstName: ['too long'] }, details: 'x', statusCode: 400, source: 'm', exceptionType: 'ValidationException', correlationId: randomUUID(), entityId: null, errorCode: 'validation_failed' }) } : reply),
  },
  {
    name: 'an operation the other checks never call fails (the device read answers 500)',
    checks: ['coverage/walk'],
    reply: (req, reply) => (req.method === 'GET' && /^\/pay-api\/v1\/devices\/[^/?]+$/.test(req.path) ? { status: 500, headers: { 'content-type': 'application/json' }, body: '{}' } : reply),
  },
  {
    name: 'a response lacks a required field (the calculations without totalAmount)',
    checks: ['coverage/walk'],
    reply: (req, reply) => (req.path.endsWith('/calculations') && reply.status === 200 ? { ...reply, body: JSON.stringify({ ...json(reply.body), totalAmount: undefined }) } : reply),
  },
  {
    name: 'a terminal reporting Low is taken as Empty (the wrong row of the paper machine)',
    checks: ['machines/TerminalPaperStatus:Terminal'],
    request: (req) => (/^\/sandbox\/v1\/terminals\/[^/]+\/paper-status$/.test(req.path) && json(req.body).paperStatus === 'Low'
      ? { ...req, body: JSON.stringify({ paperStatus: 'Empty' }) } : req),
  },
  {
    name: 'a paper report the table forbids answers 200 (the refusal not given)',
    checks: ['machines/TerminalPaperStatus:Terminal'],
    reply: (req, reply) => (req.path.endsWith('/paper-status') && reply.status === 400 ? { status: 200, headers: { 'content-type': 'application/json' }, body: '{}' } : reply),
  },
  {
    name: 'a serial number registered again in another letter case is taken as a new terminal',
    checks: ['families/terminals'],
    request: (req) => (req.method === 'POST' && req.path === '/pay-api/v1/terminals' && /[a-z]/.test(String(json(req.body).serialNumber))
      ? { ...req, body: JSON.stringify({ ...json(req.body), serialNumber: `X${randomUUID().slice(0, 8)}` }) } : req),
  },
  {
    name: 'a cancelled payment link is still paid by the sandbox (a final status left)',
    checks: ['machines/QuickPaymentStatus:QuickPayment'],
    reply: (req, reply) => (/^\/sandbox\/v1\/quick-payments\/[^/]+\/pay$/.test(req.path) && reply.status === 400 ? { status: 200, headers: { 'content-type': 'application/json' }, body: '{}' } : reply),
  },
  {
    name: 'a payment link that never expires (expiresOn dropped at creation)',
    checks: ['machines/QuickPaymentStatus:QuickPayment'],
    request: (req) => (req.method === 'POST' && req.path === '/pay-api/v1/quick-payments' && json(req.body).expiresOn !== undefined
      ? { ...req, body: JSON.stringify({ ...json(req.body), expiresOn: null }) } : req),
  },
  {
    name: 'a reusable link made single-use (maxPayments dropped at creation): its second payment is refused',
    checks: ['machines/QuickPaymentStatus:QuickPayment', 'machines/QuickPaymentStatus:ReusableQuickPayment'],
    request: (req) => (req.method === 'POST' && req.path === '/pay-api/v1/quick-payments' && json(req.body).maxPayments !== undefined
      ? { ...req, body: JSON.stringify({ ...json(req.body), maxPayments: undefined }) } : req),
  },
  {
    name: "a reusable link's total that forgets the earlier payments (totalCollected is the latest payment's amount)",
    checks: ['machines/QuickPaymentStatus:ReusableQuickPayment'],
    reply: (req, reply) => {
      if (!/^\/sandbox\/v1\/quick-payments\/[^/]+\/pay$/.test(req.path) || reply.status !== 200) return reply;
      const link = json(reply.body);
      const latest = link.latestPayment as { amount?: number } | null;
      return latest?.amount === undefined ? reply : { ...reply, body: JSON.stringify({ ...link, totalCollected: latest.amount }) };
    },
  },
  {
    name: 'a payment link cancelled twice answers 200 the second time',
    checks: ['families/quick-payments'],
    reply: (req, reply) => (/^\/pay-api\/v1\/quick-payments\/[^/]+\/cancel$/.test(req.path) && reply.status === 400 ? { ...reply, status: 200 } : reply),
  },
];

describe('spec-driven checks against mutants', () => {
  it.each(mutants.map((m) => [m.name, m] as const))('catch: %s', async (_name, mutant) => {
    const proxy = await startProxy(server.baseUrl, mutant);
    try {
      const results = await run(proxy.baseUrl, mutant.checks);
      // Caught by the check meant to catch it: each named check fails.
      expect(results.map((r) => [r.id, r.status])).toEqual(mutant.checks.map((id) => [id, 'failed']));
    } finally {
      await proxy.stop();
    }
    // Up to 21 s each in CI's config unloaded: the suite's 120 s.
  });
});
