// Headers every response carries (nosniff, no-store), the secret-bearing responses the spec marks, and the
// limits Node.js and the body parser enforce, answered in the standard error body.
import { connect } from 'node:net';
import type { AddressInfo } from 'node:net';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiSpec, routes } from '@pgw/client/server';
import { answerClientErrors } from '../../src/platform/client-errors.ts';
import { startServer, type ErrorBody, type TestServer } from '../harness.ts';

type Json = Record<string, unknown>;
const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);
const deref = (node: unknown): unknown => {
  let current = node;
  while (isObject(current) && typeof current.$ref === 'string') {
    current = current.$ref.slice(2).split('/').reduce<unknown>((acc, key) => (isObject(acc) ? acc[key] : undefined), apiSpec);
  }
  return current;
};

/** Operations whose success response documents Cache-Control (the spec's secret-bearing responses). */
const documentedNoStore = Object.values(apiSpec.paths as Json).flatMap((item) =>
  Object.values(item as Json).filter(isObject).filter((op) => {
    const responses = isObject(op.responses) ? op.responses : {};
    return Object.entries(responses).some(([status, r]) => status.startsWith('2') && isObject(deref(r)) && isObject((deref(r) as Json).headers) &&
      'Cache-Control' in ((deref(r) as Json).headers as Json));
  }).map((op) => String(op.operationId)),
).sort();

const fill = (path: string): string => path.replace(/\{[^}]+\}/g, '7c9e6679-7425-40de-944b-e07fc1f90ae7');

describe('response headers', () => {
  let s: TestServer;
  beforeAll(async () => { s = await startServer('sqlite'); });
  afterAll(async () => { await s.close(); });

  const headersOf = (res: request.Response): [string | undefined, string | undefined] =>
    [res.get('x-content-type-options'), res.get('cache-control')];

  it.each(routes.map((r) => [`${r.method.toUpperCase()} ${r.path}`, r] as const))('%s: nosniff and no-store, whatever the answer', async (_label, route) => {
    const res = await request(s.app)[route.method](fill(route.path));
    expect(headersOf(res)).toEqual(['nosniff', 'no-store']);
  });

  it('sends them on pages and errors outside the API too', async () => {
    for (const path of ['/', '/healthz', '/openapi.json', '/no/such/path']) {
      expect(headersOf(await request(s.app).get(path).set('Accept', 'application/json'))[0], path).toBe('nosniff');
    }
  });

  // Each secret-bearing success the spec documents, produced for real.
  const secretBearing: Record<string, () => Promise<request.Response>> = {
    requestToken: async () => {
      const m = s.secrets.merchants[0];
      return request(s.app).post('/oauth2/token').type('form').send({ grant_type: 'client_credentials', scope: 'offline_access', client_id: m?.clientId, client_secret: m?.clientSecret });
    },
    requestCrmToken: async () => {
      const m = s.secrets.merchants[0];
      return request(s.app).post('/crm/oauth2/token').type('form').send({ grant_type: 'password', scope: 'offline_access', username: m?.userEmail, password: m?.userPassword, client_id: m?.clientId, client_secret: m?.clientSecret });
    },
    createApiKey: async () => request(s.app).post('/pay-api/v1/merchants/tokens').set(await s.auth(0)).send({ name: 'headers test' }),
    createSandboxMerchant: async () => request(s.app).post('/sandbox/v1/merchants').set(await s.auth('partner')).send({ name: 'headers test' }),
    issueTapToPayToken: async () => request(s.app).post('/pay-api/v1/devices/tap-to-pay/jwt').set(await s.auth(0)).send({ deviceId: null }),
    createWebhookEndpoint: async () => request(s.app).post('/v2/webhooks/endpoints').set(await s.auth(0)).send({ name: 'h', endpointUrl: 'http://127.0.0.1:9/hook', eventTypes: ['payment.card.authorized'] }),
    listWebhookEndpoints: async () => request(s.app).get('/v2/webhooks/endpoints').set(await s.auth(0)),
    getWebhookEndpoint: async () => {
      const list = await request(s.app).get('/v2/webhooks/endpoints').set(await s.auth(0));
      return request(s.app).get(`/v2/webhooks/endpoints/${String((list.body as { items: { id: string }[] }).items[0]?.id)}`).set(await s.auth(0));
    },
    updateWebhookEndpoint: async () => {
      const list = await request(s.app).get('/v2/webhooks/endpoints').set(await s.auth(0));
      return request(s.app).put(`/v2/webhooks/endpoints/${String((list.body as { items: { id: string }[] }).items[0]?.id)}`).set(await s.auth(0))
        .send({ name: 'h2', endpointUrl: 'http://127.0.0.1:9/hook', eventTypes: ['payment.card.authorized'] });
    },
  };

  it('covers every response the spec marks as carrying a secret', () => {
    expect(Object.keys(secretBearing).sort()).toEqual(documentedNoStore);
  });

  it.each(Object.keys(secretBearing))('%s: a success carrying a secret is never cached', async (operationId) => {
    const call = secretBearing[operationId];
    if (!call) throw new Error(operationId);
    const res = await call();
    expect([res.status, res.headers['cache-control']], res.text).toEqual([200, 'no-store']);
  });

  it('answers a body over 1 MB with 413 in the standard body', async () => {
    const res = await request(s.app).post('/pay-api/v1/customers').set(await s.auth(0)).set('content-type', 'application/json')
      .send(JSON.stringify({ firstName: 'A', lastName: 'x'.repeat(1_100_000) }));
    expect([res.status, (res.body as ErrorBody).errorCode, (res.body as ErrorBody).statusCode]).toEqual([413, 'payload_too_large', 413]);
  });

  it('answers headers over the limit with 431 in the standard body, then closes', async () => {
    const server = s.app.listen(0, '127.0.0.1');
    answerClientErrors(server, { info: () => undefined } as unknown as Parameters<typeof answerClientErrors>[1]);
    await new Promise((resolve) => server.once('listening', resolve));
    try {
      const { port } = server.address() as AddressInfo;
      const raw = await new Promise<string>((resolve, reject) => {
        const socket = connect(port, '127.0.0.1');
        let text = '';
        socket.on('data', (chunk: Buffer) => { text += chunk.toString(); });
        socket.on('end', () => { resolve(text); });
        socket.on('error', reject);
        socket.write(`GET /healthz HTTP/1.1\r\nHost: localhost\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`);
      });
      const [head = '', body = ''] = raw.split('\r\n\r\n');
      expect(head).toMatch(/^HTTP\/1\.1 431 /);
      expect(head).toMatch(/content-type: application\/json/i);
      expect(head).toMatch(/x-content-type-options: nosniff/i);
      const parsed = JSON.parse(body) as ErrorBody;
      expect([parsed.statusCode, parsed.errorCode, parsed.source, typeof parsed.details]).toEqual([431, 'headers_too_large', 'payment-gateway', 'string']);
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });
});
