// Errors in their documented shapes, correlation ids, idempotency, tenancy, API keys, configuration, lookups.
import express from 'express';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiSpec } from '@pgw/client/server';
import { errorHandler } from '../../src/platform/error-handler.ts';
import { createLogger } from '../../src/platform/log.ts';
import { correlation } from '../../src/platform/request-context.ts';
import { engines, startServer, type ErrorBody, type TestServer } from '../harness.ts';

const KEYS = '/pay-api/v1/merchants/tokens';
const CONFIG = '/pay-api/v1/configurations/payments';

describe.each(engines())('platform (%s)', (engine) => {
  let s: TestServer;
  beforeAll(async () => { s = await startServer(engine); });
  afterAll(async () => { await s.close(); });
  const merchant = (i: 0 | 1) => {
    const m = s.secrets.merchants[i];
    if (!m) throw new Error('no merchant');
    return m;
  };

  describe('errors', () => {
    it('answers a validation error with the standard body, keyed by field', async () => {
      const res = await request(s.app).post(KEYS).set(await s.auth(0)).send({});
      expect(res.status).toBe(400);
      const body = res.body as ErrorBody;
      expect(body).toMatchObject({ statusCode: 400, exceptionType: 'ValidationException', errorCode: 'validation_failed', source: 'payment-gateway' });
      expect(Object.keys(body.errors ?? {})).toEqual(['name']);
      expect(body.correlationId).toBe(res.headers['x-correlation-id']);
    });

    it('answers a JSON value of the wrong type with the alternative body, keyed by JSON path', async () => {
      const res = await request(s.app).post(KEYS).set(await s.auth(0)).send({ name: 42 });
      expect(res.status).toBe(400);
      const body = res.body as { type: string; title: string; status: number; traceId: string; errors: Record<string, string> };
      expect(body.status).toBe(400);
      expect(Object.keys(body.errors)).toEqual(['$.name']);
      expect(body.traceId).toBe(res.headers['x-correlation-id']);
    });

    it('answers malformed JSON, another media type, an unknown route and a wrong method', async () => {
      const auth = await s.auth(0);
      const malformed = await request(s.app).post(KEYS).set(auth).set('content-type', 'application/json').send('{"name":');
      expect([malformed.status, (malformed.body as ErrorBody).errorCode]).toEqual([400, 'malformed_json']);
      const media = await request(s.app).post(KEYS).set(auth).set('content-type', 'text/plain').send('name');
      expect([media.status, (media.body as ErrorBody).errorCode]).toEqual([415, 'unsupported_media_type']);
      const route = await request(s.app).get('/pay-api/v1/nothing-here').set(auth);
      expect([route.status, (route.body as ErrorBody).errorCode]).toEqual([404, 'route_not_found']);
      const method = await request(s.app).patch(KEYS).set(auth).send({});
      expect([method.status, (method.body as ErrorBody).errorCode]).toEqual([405, 'method_not_allowed']);
      expect(String(method.headers.allow).split(', ').sort()).toEqual(['GET', 'POST']);
    });

    it('serves no route under another letter case, with or without a token (no authentication bypass)', async () => {
      for (const path of ['/PAY-API/v1/lookups/countries', '/PAY-INT-API/line-items/unit-types', '/pay-int-api/Categories', '/Pay-Api/v1/customers']) {
        const anonymous = await request(s.app).get(path);
        expect([path, anonymous.status, (anonymous.body as ErrorBody).errorCode]).toEqual([path, 404, 'route_not_found']);
        const authenticated = await request(s.app).get(path).set(await s.auth(0));
        expect([path, authenticated.status]).toEqual([path, 404]);
      }
    });

    it('answers a date-time it cannot represent (a leap second) with 400 naming the field, not a fault', async () => {
      const auth = await s.auth(0);
      const list = await request(s.app).get('/pay-api/v1/customers?dateFrom=2026-12-31T23:59:60Z').set(auth);
      expect([list.status, Object.keys((list.body as ErrorBody).errors ?? {})]).toEqual([400, ['dateFrom']]);
      const invoice = await request(s.app).post('/pay-int-api/invoices').set(auth).send({
        dueDate: '2030-12-31T23:59:60Z', customer: { firstName: 'Leap', lastName: 'Second' },
        lineItems: [{ lineItemId: null, productName: 'x', unitTypeId: 1, unitPrice: 1, quantity: 1 }],
      });
      expect([invoice.status, Object.keys((invoice.body as ErrorBody).errors ?? {})]).toEqual([400, ['dueDate']]);
    });

    it("accepts on the /pay-int-api family every x-api-version of major 1 up to the contract's, and refuses the rest", async () => {
      const auth = await s.auth(0);
      const version = (apiSpec as { info: { version: string } }).info.version;
      const [major, minor, patch] = version.split('.').map(Number) as [number, number, number];
      const accepted = ['1', '1.0', '1.0.0', ` ${version} `, version, `${String(major)}.${String(minor)}`];
      const refused = ['9', '2', '0', '01', '1.', '1.0.0.0', `${String(major)}.${String(minor + 1)}`, `${String(major)}.${String(minor)}.${String(patch + 1)}`, `${String(major + 1)}.0.0`, 'v1', '1.x', ''];
      for (const value of accepted) {
        const res = await request(s.app).get('/pay-int-api/line-items/unit-types').set(auth).set('x-api-version', value);
        expect([value, res.status]).toEqual([value, 200]);
      }
      for (const value of refused) {
        const res = await request(s.app).get('/pay-int-api/line-items/unit-types').set(auth).set('x-api-version', value);
        expect([value, res.status, (res.body as ErrorBody).errorCode, (res.body as ErrorBody).errors?.['x-api-version']])
          .toEqual([value, 400, 'invalid_api_version', [`accepted versions are 1 and 1.x up to ${version}`]]);
      }
    });

    it('writes the correlation id of every response in its log line', async () => {
      const res = await request(s.app).get(CONFIG).set(await s.auth(0));
      const id = String(res.headers['x-correlation-id']);
      const line = s.logLines.map((l) => JSON.parse(l) as Record<string, unknown>).find((l) => l.correlationId === id);
      expect(line).toMatchObject({ method: 'GET', path: CONFIG, status: 200 });
      expect(typeof line?.durationMs).toBe('number');
    });
  });

  describe('tenancy', () => {
    it('lets a partner act on its merchant named in x-merchant-id, and only on its own', async () => {
      const partner = await s.auth('partner');
      const own = await request(s.app).get(CONFIG).set(partner).set('x-merchant-id', merchant(1).merchantId);
      expect(own.status).toBe(200);
      expect((own.body as { companyName: string }).companyName).toBe('Bluebird Bakery');
      const missing = await request(s.app).get(CONFIG).set(partner);
      expect([missing.status, Object.keys((missing.body as ErrorBody).errors ?? {})]).toEqual([400, ['x-merchant-id']]);
      const foreign = await request(s.app).get(CONFIG).set(partner).set('x-merchant-id', '7c9e6679-7425-40de-944b-e07fc1f90ae7');
      expect(foreign.status).toBe(400);
    });

    it('ignores x-merchant-id on a merchant\'s token', async () => {
      const res = await request(s.app).get(CONFIG).set(await s.auth(0)).set('x-merchant-id', merchant(1).merchantId);
      expect((res.body as { companyName: string }).companyName).toBe('Acme Outdoor Supply');
    });
  });

  describe('API keys', () => {
    it('lists the merchant\'s keys without secrets, creates one shown once, deletes (revokes) it', async () => {
      const auth = await s.auth(1);
      const before = (await request(s.app).get(KEYS).set(auth)).body as { items: { clientId: string; isActive: boolean }[]; total: number };
      expect(before.items.map((k) => k.clientId)).toContain(merchant(1).clientId);
      expect(JSON.stringify(before)).not.toContain('secret');
      const created = await request(s.app).post(KEYS).set(auth).send({ name: 'Point of sale' });
      const key = created.body as { clientId: string; clientSecret: string; name: string };
      expect(key.clientSecret).toMatch(/^pgw_cs_/);
      const after = (await request(s.app).get(KEYS).set(auth)).body as { items: { clientId: string; isActive: boolean }[]; total: number };
      expect(after.total).toBe(before.total + 1);
      expect((await request(s.app).delete(`${KEYS}/${key.clientId}`).set(auth)).status).toBe(200);
      const listed = ((await request(s.app).get(KEYS).set(auth)).body as { items: { clientId: string; isActive: boolean }[] }).items;
      expect(listed.find((k) => k.clientId === key.clientId)?.isActive).toBe(false);
      expect((await request(s.app).delete(`${KEYS}/${key.clientId}`).set(auth)).status).toBe(200);
      const events = (await s.db('outbox_events').where({ merchant_id: merchant(1).merchantId }).orderBy('occurred_on')) as { type: string; payload: string }[];
      expect(events.map((e) => e.type)).toEqual(['api_key.created', 'api_key.deleted']);
      expect(events.map((e) => e.payload).join()).not.toContain(key.clientSecret);
    });

    it('keeps the merchant\'s last active key', async () => {
      const res = await request(s.app).delete(`${KEYS}/${merchant(1).clientId}`).set(await s.auth(1));
      expect([res.status, (res.body as ErrorBody).errorCode]).toEqual([400, 'last_api_key']);
    });

    it('answers 404 for another merchant\'s key', async () => {
      const res = await request(s.app).delete(`${KEYS}/${merchant(0).clientId}`).set(await s.auth(1));
      expect([res.status, (res.body as ErrorBody).errorCode]).toEqual([404, 'not_found']);
    });
  });

  describe('idempotency', () => {
    it('replays the first response for the same key and body, without storing the secret', async () => {
      const auth = { ...(await s.auth(0)), 'Idempotency-Key': `k-${engine}-replay` };
      const first = await request(s.app).post(KEYS).set(auth).send({ name: 'Once' });
      const second = await request(s.app).post(KEYS).set(auth).send({ name: 'Once' });
      expect(first.status).toBe(200);
      expect(second.status).toBe(200);
      expect(second.headers['idempotent-replayed']).toBe('true');
      expect(first.headers['idempotent-replayed']).toBeUndefined();
      const a = first.body as { clientId: string; clientSecret: string };
      const b = second.body as { clientId: string; clientSecret: string };
      expect(b.clientId).toBe(a.clientId);
      expect(b.clientSecret).toBe('');
      const stored = await s.db('idempotency_keys').select<{ response_body: string | null }[]>('response_body');
      expect(stored.map((r) => r.response_body).join()).not.toContain(a.clientSecret);
      const keys = ((await request(s.app).get(`${KEYS}?search=Once`).set(await s.auth(0))).body as { total: number }).total;
      expect(keys).toBe(1);
    });

    it('never stores a bearer credential: a replayed tap-to-pay token request answers jwtToken null', async () => {
      const auth = { ...(await s.auth(0)), 'Idempotency-Key': `k-${engine}-jwt` };
      const first = await request(s.app).post('/pay-api/v1/devices/tap-to-pay/jwt').set(auth).send({ deviceId: null });
      const second = await request(s.app).post('/pay-api/v1/devices/tap-to-pay/jwt').set(auth).send({ deviceId: null });
      const token = (first.body as { jwtToken: string }).jwtToken;
      expect(token.split('.')).toHaveLength(3);
      expect([second.status, second.headers['idempotent-replayed'], (second.body as { jwtToken: string | null }).jwtToken]).toEqual([200, 'true', null]);
      expect((second.body as { expiresAt: string }).expiresAt).toBe((first.body as { expiresAt: string }).expiresAt);
      const stored = await s.db('idempotency_keys').select<{ response_body: string | null }[]>('response_body');
      expect(stored.map((r) => r.response_body).join()).not.toContain(token);
    });

    it('rolls the key back with a request the service refuses: nothing is kept, and the same key may then act', async () => {
      const auth = { ...(await s.auth(0)), 'Idempotency-Key': `k-${engine}-refused` };
      const debit = (processor: string | undefined): Record<string, unknown> => ({
        amount: 10, paymentProcessorId: processor, secCode: 1, requesterIPaddress: '203.0.113.24', routingNumber: '021000021',
        accountNumber: '000123456789', accountType: 1, accountHolderType: 2, contactInfo: { firstName: 'Roll', lastName: 'Back' },
        billingAddress: { city: 'Austin', countryId: 1, line1: '1 Main', postalCode: '78701', stateId: 44 },
      });
      const customers = async (): Promise<number> => ((await request(s.app).get('/pay-api/v1/customers?search=Back').set(await s.auth(0))).body as { total: number }).total;
      const before = await customers();
      // Another merchant's processor: refused inside the operation, after the key was taken in its transaction.
      const refused = await request(s.app).post('/pay-api/v1/transactions/ach/payment').set(auth).send(debit(merchant(1).achProcessorId));
      expect(refused.status).toBe(400);
      expect(await s.db('idempotency_keys').where({ key: `k-${engine}-refused` })).toEqual([]);
      expect(await customers()).toBe(before);
      const ok = await request(s.app).post('/pay-api/v1/transactions/ach/payment').set(auth).send(debit(merchant(0).achProcessorId));
      expect([ok.status, ok.headers['idempotent-replayed']]).toEqual([200, undefined]);
    });

    it('answers 422 for the same key with another body', async () => {
      const auth = { ...(await s.auth(0)), 'Idempotency-Key': `k-${engine}-mismatch` };
      await request(s.app).post(KEYS).set(auth).send({ name: 'First body' });
      const res = await request(s.app).post(KEYS).set(auth).send({ name: 'Second body' });
      expect([res.status, (res.body as ErrorBody).errorCode]).toEqual([422, 'idempotency_key_reused']);
    });

    it('acts once for concurrent duplicates: the others replay or answer 409', async () => {
      const auth = { ...(await s.auth(0)), 'Idempotency-Key': `k-${engine}-race` };
      const results = await Promise.all(Array.from({ length: 6 }, () => request(s.app).post(KEYS).set(auth).send({ name: 'Raced' })));
      const fresh = results.filter((r) => r.status === 200 && r.headers['idempotent-replayed'] === undefined);
      expect(fresh).toHaveLength(1);
      for (const r of results) expect([200, 409]).toContain(r.status);
      const keys = ((await request(s.app).get(`${KEYS}?search=Raced`).set(await s.auth(0))).body as { total: number }).total;
      expect(keys).toBe(1);
    });

    it('keeps keys per tenant: another merchant may use the same key', async () => {
      const key = `k-${engine}-shared`;
      const a = await request(s.app).post(KEYS).set({ ...(await s.auth(0)), 'Idempotency-Key': key }).send({ name: 'Shared' });
      const b = await request(s.app).post(KEYS).set({ ...(await s.auth(1)), 'Idempotency-Key': key }).send({ name: 'Shared' });
      expect(b.headers['idempotent-replayed']).toBeUndefined();
      expect((b.body as { clientId: string }).clientId).not.toBe((a.body as { clientId: string }).clientId);
    });

    it('frees a key once it has expired (24 hours)', async () => {
      const auth = { ...(await s.auth(0)), 'Idempotency-Key': `k-${engine}-expiry` };
      const first = await request(s.app).post(KEYS).set(auth).send({ name: 'Expiring' });
      s.clock.advance(24 * 3600 + 1);
      const token = await s.token(0);
      const later = await request(s.app).post(KEYS).set({ Authorization: `Bearer ${token}`, 'Idempotency-Key': `k-${engine}-expiry` }).send({ name: 'Expiring' });
      s.clock.advance(-(24 * 3600 + 1));
      expect(later.headers['idempotent-replayed']).toBeUndefined();
      expect((later.body as { clientId: string }).clientId).not.toBe((first.body as { clientId: string }).clientId);
    });
  });

  describe('configuration and lookups', () => {
    it('reads the payment configuration with the merchant\'s processors', async () => {
      const res = await request(s.app).get(CONFIG).set(await s.auth(0));
      expect(res.status).toBe(200);
      const body = res.body as { availablePaymentProcessors: { id: string; typeId: number; type: string }[]; currencyIsoCode: string; maxTransactionAmount: number };
      const ids = body.availablePaymentProcessors.map((p) => [p.id, p.typeId, p.type]);
      expect(ids).toEqual(expect.arrayContaining([[merchant(0).cardProcessorId, 1, 'CardProcessor'], [merchant(0).achProcessorId, 2, 'Eft']]));
      expect(body.currencyIsoCode).toBe('USD');
      expect(body.maxTransactionAmount).toBe(25000);
    });

    it('lists the merchant\'s contact addresses, main first', async () => {
      const res = await request(s.app).get('/pay-api/v1/configurations/contact-infos').set(await s.auth(1));
      const infos = (res.body as { contactInfos: { merchantId: string; isMainAddress: boolean }[] }).contactInfos;
      expect(infos[0]).toMatchObject({ merchantId: merchant(1).merchantId, isMainAddress: true });
    });

    it('serves the 250 countries, the 51 states and the enumerations from the spec', async () => {
      const auth = await s.auth(0);
      expect(((await request(s.app).get('/pay-api/v1/lookups/countries').set(auth)).body as unknown[]).length).toBe(250);
      expect(((await request(s.app).get('/pay-api/v1/lookups/states').set(auth)).body as unknown[]).length).toBe(51);
      expect(((await request(s.app).get('/pay-api/v1/lookups/states?countryId=2').set(auth)).body as unknown[]).length).toBe(0);
      const enums = (await request(s.app).get('/pay-api/v1/lookups/enumerations').set(auth)).body as Record<string, { id: number; name: string }[]>;
      expect(enums.AchTransactionStatus).toContainEqual({ id: 26, name: 'Held' });
    });
  });

  describe('logs', () => {
    it('never hold a client secret, a user password or a token', async () => {
      await request(s.app).post('/oauth2/token').type('form').send({ grant_type: 'client_credentials', scope: 'offline_access', client_id: merchant(0).clientId, client_secret: merchant(0).clientSecret });
      const log = s.logLines.join('\n');
      expect(log.length).toBeGreaterThan(1000);
      for (const m of s.secrets.merchants) {
        expect(log).not.toContain(m.clientSecret);
        expect(log).not.toContain(m.userPassword);
      }
      expect(log).not.toContain(s.secrets.partner.clientSecret);
      expect(log).not.toMatch(/eyJ[A-Za-z0-9_-]{10,}\./);
    });
  });

  // Last: it deletes one of merchant 1's keys, whichever loses the race.
  describe('races', () => {
    it('keeps one active key when a merchant\'s last two are deleted at the same time', async () => {
      const partner = { ...(await s.auth('partner')), 'x-merchant-id': merchant(1).merchantId };
      const active = async (): Promise<string[]> =>
        (await s.db('api_keys').where({ merchant_id: merchant(1).merchantId, is_active: true }).select<{ client_id: string }[]>('client_id')).map((r) => r.client_id);
      // Down to two active keys, then both deleted at once.
      while ((await active()).length < 2) await request(s.app).post(KEYS).set(partner).send({ name: 'Spare' });
      for (const id of (await active()).slice(2)) await request(s.app).delete(`${KEYS}/${id}`).set(partner);
      const results = await Promise.all((await active()).map((id) => request(s.app).delete(`${KEYS}/${id}`).set(partner)));
      expect(results.map((r) => r.status).sort()).toEqual([200, 400]);
      expect(await active()).toHaveLength(1);
    });
  });
});

describe('a server fault', () => {
  it('answers 500 with details null and the correlation id, never a stack trace', async () => {
    const lines: string[] = [];
    const app = express();
    app.use(correlation);
    app.get('/boom', () => { throw new Error('secret internals at /srv/app.ts:12'); });
    app.use(errorHandler(createLogger('info', { write: (line: string) => { lines.push(line); } })));
    const res = await request(app).get('/boom');
    expect(res.status).toBe(500);
    const body = res.body as ErrorBody;
    expect(body).toMatchObject({ details: null, statusCode: 500, errorCode: 'internal_error', exceptionType: 'InternalServerException' });
    expect(res.text).not.toContain('app.ts');
    expect(res.text).not.toContain('secret internals');
    const logged = lines.map((l) => JSON.parse(l) as { correlationId?: string; err?: { stack?: string } }).find((l) => l.correlationId === body.correlationId);
    expect(logged?.err?.stack).toContain('secret internals');
  });
});
