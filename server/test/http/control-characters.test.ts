// Text is text: a control character (NUL and the other C0 controls but TAB, LF and CR, and DEL) in any string of
// any request is refused with 400 naming the field, before anything is looked up or written; never a 500, never
// the text cut short. Table-driven over every body field, path parameter and query parameter of every operation,
// then by its effects on both engines: nothing stored, no token, no throttle identity of its own, and the same for
// the Basic credentials, the dashboard's forms and the payment page.
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiSpec } from '@pgw/client/server';
import { engines, fieldsOf, startServer, type TestServer } from '../harness.ts';
import { requestFields } from '../request-fields.ts';

type Json = Record<string, unknown>;
const CONTROLS = ['\u0000', '\u0001', '\u0008', '\u000b', '\u000c', '\u001b', '\u001f', '\u007f'];
/** The n-th control, so that the table tries each of them across the fields. */
const control = (n: number): string => CONTROLS[n % CONTROLS.length] ?? '\u0000';

interface Operation { operationId: string; method: string; path: string; media: string | undefined; parameters: { name: string; in: string }[]; secured: boolean }

function operations(): Operation[] {
  const found: Operation[] = [];
  const resolve = (node: unknown): Json => {
    const ref = (node as { $ref?: string }).$ref;
    if (ref === undefined) return node as Json;
    return ref.slice(2).split('/').reduce<unknown>((acc, key) => (acc as Json)[key], apiSpec) as Json;
  };
  for (const [path, item] of Object.entries(apiSpec.paths as Record<string, Json>)) {
    for (const method of ['get', 'post', 'put', 'patch', 'delete']) {
      const op = item[method] as Json | undefined;
      if (!op) continue;
      const parameters = [...((item.parameters as unknown[] | undefined) ?? []), ...((op.parameters as unknown[] | undefined) ?? [])].map(resolve) as { name: string; in: string }[];
      const body = op.requestBody === undefined ? undefined : resolve(op.requestBody);
      const media = body === undefined ? undefined : Object.keys(body.content as Json).find((m) => m === 'application/json' || m === 'application/x-www-form-urlencoded');
      found.push({ operationId: String(op.operationId), method, path, media, parameters, secured: !(Array.isArray(op.security) && op.security.length === 0) });
    }
  }
  return found;
}

/** A body that holds `value` at the dotted path (`a.b`, `items[].name`). */
function bodyWith(path: string, value: string): Json {
  const body: Json = {};
  let at: Json = body;
  const parts = path.split('.');
  parts.forEach((part, i) => {
    const last = i === parts.length - 1;
    const name = part.replace(/\[\]$/, '');
    const isList = part.endsWith('[]');
    const next: unknown = last ? (isList ? [value] : value) : (isList ? [{}] : {});
    at[name] = next;
    if (!last) at = (isList ? (next as Json[])[0] : next) as Json;
  });
  return body;
}

const ops = operations();
const fields = requestFields(apiSpec as never);

describe('control characters in requests (table over the contract)', () => {
  let s: TestServer;
  const headersFor: Record<string, Record<string, string>> = {};
  beforeAll(async () => {
    s = await startServer('sqlite');
    headersFor.merchant = await s.as(0);
    headersFor.partner = await s.as('partner');
  });
  afterAll(async () => { await s.close(); });

  /** Sends with the merchant's token, or the partner's where the merchant's is not enough (public ones with none). */
  async function send(op: Operation, path: string, query: Json, body: Json | undefined): Promise<request.Response> {
    const url = path.replace(/\{[^}]+\}/g, '00000000-0000-4000-8000-000000000000');
    let last: request.Response | undefined;
    for (const who of op.secured ? ['merchant', 'partner'] : ['none']) {
      let req = request(s.app)[op.method as 'get'](url).query(query).set(headersFor[who] ?? {});
      if (body !== undefined) req = op.media === 'application/x-www-form-urlencoded' ? req.type('form').send(body) : req.send(body);
      last = await req;
      if (last.status !== 401 && last.status !== 403) return last;
    }
    if (!last) throw new Error('no request sent');
    return last;
  }

  const bodyCases = fields.map((f, i) => ({ ...f, op: ops.find((o) => o.operationId === f.operationId), text: `a${control(i)}b` }))
    .filter((c) => c.op?.media !== undefined && (c.op.media === 'application/json' || !c.path.includes('.')));
  it(`refuses each of ${String(bodyCases.length)} body fields holding a control character, naming it`, async () => {
    const wrong: string[] = [];
    for (const c of bodyCases) {
      if (!c.op) continue;
      const res = await send(c.op, c.op.path, {}, bodyWith(c.path, c.text));
      const named = res.status === 400 && JSON.stringify(res.body).includes('control character') && (JSON.stringify(res.body).includes(c.name));
      if (!named) wrong.push(`${c.operationId} ${c.path}: ${String(res.status)} ${JSON.stringify(res.body).slice(0, 160)}`);
    }
    expect(wrong).toEqual([]);
    expect(bodyCases.length).toBeGreaterThan(300);
  });

  const paramCases = ops.flatMap((op) => op.parameters.filter((p) => p.in === 'path' || p.in === 'query').map((p) => ({ op, param: p })));
  it(`refuses each of ${String(paramCases.length)} path and query parameters holding a control character, naming it`, async () => {
    const wrong: string[] = [];
    for (const [i, { op, param }] of paramCases.entries()) {
      const text = `a${control(i)}b`;
      const path = param.in === 'path' ? op.path.replace(`{${param.name}}`, encodeURIComponent(text)) : op.path;
      const res = await send(op, path, param.in === 'query' ? { [param.name]: text } : {}, op.media === undefined ? undefined : {});
      const named = res.status === 400 && JSON.stringify(res.body).includes('control character') && fieldsOf(res.body).some((f) => f === param.name || f.endsWith(param.name));
      if (!named) wrong.push(`${op.operationId} ${param.in} ${param.name}: ${String(res.status)} ${JSON.stringify(res.body).slice(0, 160)}`);
    }
    expect(wrong).toEqual([]);
  });
});

describe.each(engines())('control characters by their effects (%s)', (engine) => {
  let s: TestServer;
  beforeAll(async () => { s = await startServer(engine); });
  afterAll(async () => { await s.close(); });

  it('stores nothing: a payment link described with a NUL is refused, not cut short', async () => {
    const h = await s.as(0);
    const before = (await request(s.app).get('/pay-api/v1/quick-payments').set(h)).body as { totalCount?: number; items?: unknown[] };
    const res = await request(s.app).post('/pay-api/v1/quick-payments').set(h).send({ amount: 10, description: 'Desc\u0000Hidden' });
    expect([res.status, fieldsOf(res.body)]).toEqual([400, ['description']]);
    const after = (await request(s.app).get('/pay-api/v1/quick-payments').set(h)).body as { totalCount?: number; items?: unknown[] };
    expect(after.items?.length).toBe(before.items?.length);
  });

  it('gives no token and counts no throttle failure for a client id with a NUL, in the body or in Basic credentials', async () => {
    const merchant = s.secrets.merchants[0];
    if (!merchant) throw new Error('no merchant');
    for (let i = 0; i < 15; i++) {
      const body = await request(s.app).post('/oauth2/token').type('form')
        .send({ grant_type: 'client_credentials', scope: 'offline_access', client_id: `${merchant.clientId}\u0000${'\u0000'.repeat(i)}`, client_secret: merchant.clientSecret });
      expect([body.status, (body.body as { error?: string }).error]).toEqual([400, 'invalid_request']);
      expect((body.body as { error_description?: string }).error_description).toMatch(/client_id must not contain the control character U\+0000/);
      const basic = Buffer.from(`${encodeURIComponent(merchant.clientId)}%00:${encodeURIComponent(merchant.clientSecret)}`).toString('base64');
      const viaBasic = await request(s.app).post('/oauth2/token').type('form').set('Authorization', `Basic ${basic}`).send({ grant_type: 'client_credentials', scope: 'offline_access' });
      expect([viaBasic.status, (viaBasic.body as { error?: string }).error]).toEqual([400, 'invalid_request']);
    }
    // Thirty refusals from one address, none counted: the right credentials still get a token.
    const good = await request(s.app).post('/oauth2/token').type('form')
      .send({ grant_type: 'client_credentials', scope: 'offline_access', client_id: merchant.clientId, client_secret: merchant.clientSecret });
    expect(good.status).toBe(200);
  });

  it('answers a search with a NUL 400, on the CSV export too (PostgreSQL once answered 200 and never ended)', async () => {
    const h = await s.as(0);
    for (const url of ['/v2/webhooks/delivery-logs/export?format=csv&search=%00', '/pay-api/v1/customers?search=a%00b']) {
      const res = await request(s.app).get(url).set(h).timeout(30_000);
      expect(res.status, url).toBe(400);
    }
  });

  it('refuses a dashboard sign-in whose client id holds a NUL, before looking it up', async () => {
    const merchant = s.secrets.merchants[0];
    if (!merchant) throw new Error('no merchant');
    const res = await request(s.app).post('/dashboard/sign-in').set('Origin', s.config.baseUrl).type('form')
      .send({ clientId: `${merchant.clientId}\u0000`, clientSecret: merchant.clientSecret });
    expect(res.status).toBe(400);
    expect(res.text).toContain('control character');
  });
});
