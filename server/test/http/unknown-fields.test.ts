// Strict requests: a field the operation's schema does not name is refused with 400 naming it, at the top of
// every JSON body of the contract and inside its nested objects, and a required body sent empty is 400; nothing is
// written. The token services keep RFC 6749's rule (unrecognized parameters are ignored).
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiSpec } from '@pgw/client/server';
import { engines, fieldsOf, startServer, type TestServer } from '../harness.ts';

type Json = Record<string, unknown>;
const resolve = (node: unknown): Json => {
  const ref = (node as { $ref?: string }).$ref;
  return (ref === undefined ? node : ref.slice(2).split('/').reduce<unknown>((acc, key) => (acc as Json)[key], apiSpec)) as Json;
};

interface BodyOperation { operationId: string; method: string; path: string; required: boolean; schema: Json; media: string }
const operations: BodyOperation[] = Object.entries(apiSpec.paths as Record<string, Json>).flatMap(([path, item]) =>
  ['post', 'put', 'patch'].flatMap((method) => {
    const op = item[method] as Json | undefined;
    if (!op?.requestBody) return [];
    const body = resolve(op.requestBody);
    const content = body.content as Record<string, { schema: unknown }>;
    const media = Object.keys(content)[0] ?? '';
    return [{ operationId: String(op.operationId), method, path, required: body.required === true, schema: resolve(content[media]?.schema), media }];
  }));

/** The object-valued properties of a closed schema (one level), with their own schema resolved. */
const nestedObjects = (schema: Json): [string, Json][] => Object.entries((schema.properties ?? {}) as Json)
  .map(([name, sub]) => [name, resolve(sub)] as [string, Json])
  .filter(([, sub]) => sub.additionalProperties === false || sub.unevaluatedProperties === false);

describe.each(engines())('unknown fields and empty bodies (%s)', (engine) => {
  let s: TestServer;
  const headers: Record<string, Record<string, string>> = {};
  beforeAll(async () => {
    s = await startServer(engine);
    headers.merchant = await s.as(0);
    headers.partner = await s.as('partner');
  });
  afterAll(async () => { await s.close(); });

  async function send(op: BodyOperation, body: Json | string): Promise<request.Response> {
    const url = op.path.replace(/\{[^}]+\}/g, '00000000-0000-4000-8000-000000000000');
    let last: request.Response | undefined;
    for (const who of ['merchant', 'partner']) {
      const req = request(s.app)[op.method as 'post'](url).set(headers[who] ?? {});
      last = typeof body === 'string' ? await req.set('content-type', op.media).send(body) : op.media.includes('form') ? await req.type('form').send(body) : await req.send(body);
      if (last.status !== 401 && last.status !== 403) return last;
    }
    if (!last) throw new Error('nothing sent');
    return last;
  }

  const json = operations.filter((op) => op.media === 'application/json');
  it(`refuses an unknown field, naming it, in every JSON body of the contract (${String(json.length)} operations) and in its nested objects`, async () => {
    const wrong: string[] = [];
    let nested = 0;
    for (const op of json) {
      expect(op.schema.additionalProperties === false || op.schema.unevaluatedProperties === false, `${op.operationId}'s body is closed`).toBe(true);
      const top = await send(op, { coupon: 'SAVE7' });
      if (top.status !== 400 || !fieldsOf(top.body).includes('coupon')) wrong.push(`${op.operationId}: ${String(top.status)} ${JSON.stringify(top.body).slice(0, 200)}`);
      for (const [name] of nestedObjects(op.schema)) {
        nested++;
        const res = await send(op, { [name]: { planet: 'Mars' } });
        if (res.status !== 400 || !fieldsOf(res.body).includes(`${name}.planet`)) wrong.push(`${op.operationId} ${name}: ${String(res.status)} ${JSON.stringify(res.body).slice(0, 200)}`);
      }
    }
    expect(wrong).toEqual([]);
    expect(nested).toBeGreaterThan(5);
  });

  it('refuses a subscription sent with another gateway\'s coupon, and charges nothing', async () => {
    const h = headers.merchant ?? {};
    const customer = await request(s.app).post('/pay-api/v1/customers').set(h).send({ firstName: 'Trial', lastName: 'Less' });
    const customerId = (customer.body as { id: string }).id;
    const card = await request(s.app).post(`/pay-api/v1/customers/${customerId}/payment-methods/cards`).set(h).send({ pan: '4111111111111111', expirationMonth: 12, expirationYear: 2040, name: 'card' });
    expect(card.status, card.text).toBe(200);
    const res = await request(s.app).post('/pay-api/v1/subscriptions').set(h).send({ customerId, amount: 10, frequency: 'Monthly', coupon: 'SAVE14' });
    expect([res.status, fieldsOf(res.body)]).toEqual([400, ['coupon']]);
    const list = await request(s.app).get('/pay-api/v1/subscriptions').query({ customerId }).set(h);
    expect((list.body as { items: unknown[] }).items).toEqual([]);
  });

  it('answers 400 to a required body sent empty, on every operation whose body is required', async () => {
    const wrong: string[] = [];
    for (const op of operations.filter((o) => o.required && o.media === 'application/json')) {
      const res = await send(op, '');
      if (res.status !== 400) wrong.push(`${op.operationId}: ${String(res.status)} ${JSON.stringify(res.body).slice(0, 160)}`);
    }
    expect(wrong).toEqual([]);
  });

  it('keeps the token services open to parameters they do not know (RFC 6749 section 3.2)', async () => {
    const merchant = s.secrets.merchants[0];
    if (!merchant) throw new Error('no merchant');
    const res = await request(s.app).post('/oauth2/token').type('form')
      .send({ grant_type: 'client_credentials', scope: 'offline_access', client_id: merchant.clientId, client_secret: merchant.clientSecret, audience: 'ignored' });
    expect(res.status).toBe(200);
  });
});
