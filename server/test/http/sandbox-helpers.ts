// Helpers of the disposable sandbox tests: creating a sandbox merchant as a partner, tokens for any key, a
// second partner made through the seed's building blocks, a merchant filled with records of every kind, and a
// webhook receiver that holds each request open until told to answer.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Writable } from 'node:stream';
import request from 'supertest';
import { expect } from 'vitest';
import { addApiKey, insertPartner } from '../../src/repositories/merchant-setup.ts';
import type { Deps } from '../../src/platform/deps.ts';
import { deliverDue } from '../../src/services/webhook-delivery.ts';
import { createLogger } from '../../src/platform/log.ts';
import { openScope } from '../../src/platform/scope.ts';
import { iso } from '../../src/platform/time.ts';
import type { TestServer } from '../harness.ts';
import { CATEGORIES, LINE_ITEMS } from './catalogue-helpers.ts';
import { apiCustomer, INVOICES, invoiceBody } from './invoice-helpers.ts';
import { achDebitBody, cardBody, type Headers } from './payment-helpers.ts';
import { startReceiver, type Receiver } from './webhook-receiver.ts';

export const SANDBOXES = '/sandbox/v1/merchants';

export interface Created {
  merchantId: string; partnerId: string; name: string; clientId: string; clientSecret: string;
  cardProcessorId: string; achProcessorId: string; expiresAt: string; createdOn: string;
  userEmail?: string; userPassword?: string;
}

/** An access token of any API key. */
export async function tokenOf(s: TestServer, clientId: string, clientSecret: string): Promise<string> {
  const res = await request(s.app).post('/oauth2/token').type('form')
    .send({ grant_type: 'client_credentials', scope: 'offline_access', client_id: clientId, client_secret: clientSecret });
  expect(res.status, res.text).toBe(200);
  return (res.body as { access_token: string }).access_token;
}

export const bearer = (token: string): Headers => ({ Authorization: `Bearer ${token}` });

/** Creates a sandbox merchant as the partner of `h`; returns it and headers of its own key. */
export async function createSandbox(s: TestServer, h: Headers, body: Record<string, unknown> = {}): Promise<Created & { h: Headers }> {
  const res = await request(s.app).post(SANDBOXES).set(h).send(body);
  expect(res.status, res.text).toBe(200);
  const created = res.body as Created;
  return { ...created, h: bearer(await tokenOf(s, created.clientId, created.clientSecret)) };
}

/** A second partner with its own key, made as the seed makes the demo partner. */
export async function secondPartner(s: TestServer, name = 'Other Partner'): Promise<{ partnerId: string; h: Headers }> {
  const now = iso(s.clock.now());
  const partnerId = await insertPartner(s.db, name, now);
  const key = await addApiKey(s.db, s.config.environment, partnerId, null, `${name} key`, now);
  return { partnerId, h: bearer(await tokenOf(s, key.clientId, key.clientSecret)) };
}

/** The worker's dependencies on the test server (its moved clock; its log lines kept in `lines` when given). */
export function workerDeps(s: TestServer, lines: string[] = []): Pick<Deps, 'db' | 'config' | 'wall' | 'log' | 'instances'> {
  const sink = new Writable({ write(chunk: Buffer, _encoding, done) { lines.push(chunk.toString('utf8')); done(); } });
  return { db: s.db, config: s.config, wall: s.clock, log: createLogger('info', sink), instances: s.instances };
}

async function ok(res: Promise<request.Response>): Promise<Record<string, unknown>> {
  const answer = await res;
  expect(answer.status, answer.text).toBe(200);
  return answer.body as Record<string, unknown>;
}

/**
 * Fills a merchant with records of every kind an integration makes: customers and a stored card, card and ACH
 * payments (with history, a settlement batch and events), catalogue, a published invoice with a notification,
 * invoice settings, a webhook endpoint with deliveries and attempts, and Idempotency-Keys; then moves its clock.
 */
export async function fill(s: TestServer, h: Headers, processors: { merchantId: string; achProcessorId: string }, receiver: Receiver): Promise<void> {
  const app = s.app;
  await ok(request(app).post('/v2/webhooks/endpoints').set(h)
    .send({ name: 'everything', endpointUrl: `${receiver.url}/${crypto.randomUUID()}`, eventTypes: ['payment.ach.scheduled', 'payment.card.captured', 'invoice.created'] }));
  const person = await ok(request(app).post('/pay-api/v1/customers').set(h).set('Idempotency-Key', crypto.randomUUID()).send(apiCustomer()));
  const visa = await ok(request(app).post(`/pay-api/v1/customers/${String(person.id)}/payment-methods/cards`).set(h)
    .send({ name: 'Business Visa', pan: '4111111111111111', expirationMonth: 12, expirationYear: 2030, securityCode: '123' }));
  // A subscription, whose first payment the clock advance below makes.
  await ok(request(app).post('/pay-api/v1/subscriptions').set(h).send({ customerId: person.id, paymentMethodId: visa.id, amount: 9.99, frequency: 'Monthly' }));
  await ok(request(app).post('/pay-api/v1/transactions/ach/payment').set(h).send(achDebitBody(s, 0, { paymentProcessorId: processors.achProcessorId })));
  await ok(request(app).post('/pay-api/v1/transactions/card/sale').set(h).set('Idempotency-Key', crypto.randomUUID()).send(cardBody()));
  const category = await ok(request(app).post(CATEGORIES).set(h).send({ name: `Cat ${crypto.randomUUID()}` }));
  await ok(request(app).post(LINE_ITEMS).set(h).send({ productName: 'Widget', unitPrice: 10, unitTypeId: 1, categoryId: category.id }));
  const terminal = await ok(request(app).post('/pay-api/v1/terminals').set(h).send({ serialNumber: `T-${crypto.randomUUID().slice(0, 8)}`, model: 'PX7' }));
  await ok(request(app).post(`/sandbox/v1/terminals/${String(terminal.terminalId)}/paper-status`).set(h).send({ paperStatus: 'Empty' }));
  // A payment link paid (its row names the transaction that paid it: removed before the transactions).
  const link = await ok(request(app).post('/pay-api/v1/quick-payments').set(h).send({ amount: 12, description: 'Removal' }));
  await ok(request(app).post(`/sandbox/v1/quick-payments/${String(link.id)}/pay`).set(h));
  await ok(request(app).post('/pay-api/v1/quick-payments').set(h).send({ amount: 13, description: 'Removal, unpaid' }));
  const invoice = await ok(request(app).post(`${INVOICES}/publish`).set(h).send(invoiceBody()));
  await request(app).post(`${INVOICES}/${String(invoice.id)}/send-email-notification`).set(h).send({ customerConsent: true });
  await ok(request(app).post('/sandbox/v1/clock/advance').set(h).send({ seconds: 3 * 86_400 }));
  // The advance queues the webhook attempts that fell due; the delivery engine makes them (as the worker would).
  await deliverDue(openScope(workerDeps(s), processors.merchantId, 0), new Date(s.clock.now().getTime() + 3 * 86_400_000 + 60_000));
}

/** A receiver that holds every request open until `release` (a webhook delivery in flight). */
export async function holdingReceiver(): Promise<{ url: string; arrived: Promise<void>; release: () => void; close: () => Promise<void> }> {
  const held: ServerResponse[] = [];
  let arrive: () => void = () => undefined;
  const arrived = new Promise<void>((resolve) => { arrive = resolve; });
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    req.resume();
    req.on('end', () => { held.push(res); arrive(); });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${String((server.address() as AddressInfo).port)}/held`,
    arrived,
    release: () => { for (const res of held.splice(0)) res.writeHead(200).end('ok'); },
    close: () => new Promise((resolve) => { server.closeAllConnections(); server.close(() => { resolve(); }); }),
  };
}

export { startReceiver };
