// What a client may send that the schema allows in form but not in meaning, on both engines: impossible dates
// in every date-time field and query parameter, emails without a real domain, a required field that has a
// default left out, and bodies that are not UTF-8 on every operation that takes a body. Each is 400 naming
// what is wrong (the standard body, or the OAuth error on the token services), and changes no row of any table.
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiSpec } from '@pgw/client/spec';
import { engines, startServer, type TestServer } from '../harness.ts';
import { snapshot } from '../../../scripts/lib/db-snapshot.ts';
import { rawRequest } from './raw-request.ts';
import { INVOICES, invoiceBody } from './invoice-helpers.ts';
import { ACH, achDebitBody } from './payment-helpers.ts';

interface Operation { operationId: string; method: string; path: string; parameters: { name: string; in: string; schema?: { format?: string; $ref?: string } }[]; hasBody: boolean; bodyTypes: string[] }

const doc = apiSpec as { paths: Record<string, Record<string, unknown>>; components: { parameters: Record<string, unknown> } };
const OPERATIONS: Operation[] = Object.entries(doc.paths).flatMap(([path, item]) => Object.entries(item)
  .filter(([method]) => ['get', 'post', 'put', 'patch', 'delete'].includes(method))
  .map(([method, raw]) => {
    const op = raw as { operationId: string; parameters?: { $ref?: string }[]; requestBody?: { content?: Record<string, unknown> } };
    const parameters = (op.parameters ?? []).map((p) => (p.$ref ? doc.components.parameters[p.$ref.split('/').pop() ?? ''] : p) as Operation['parameters'][number]);
    return { operationId: op.operationId, method, path, parameters, hasBody: op.requestBody !== undefined, bodyTypes: Object.keys(op.requestBody?.content ?? {}) };
  }));

const UNKNOWN = '7c9e6679-7425-40de-944b-e07fc1f90ae7';
/** The operation's path with its parameters filled: the merchant's id where one is asked for, else an unknown id. */
const pathOf = (s: TestServer, op: Operation): string => op.path.replace(/\{(\w+)\}/g, (_m, name: string) => (name === 'merchantId' ? s.merchantId(0) : UNKNOWN));

const IMPOSSIBLE_DATES = [
  '2030-02-30T00:00:00Z', '2030-02-31T12:00:00Z', '2030-04-31T00:00:00Z', '2029-02-29T00:00:00Z', '2100-02-29T00:00:00Z', '2030-13-01T00:00:00Z',
  '2030-00-10T00:00:00Z', '2030-01-00T00:00:00Z', '2030-01-01T24:00:00Z', '2030-01-01T00:60:00Z', '2030-01-01T00:00:61Z', '2030-01-01T00:00:00',
  '2030-01-01', '2030-1-1T00:00:00Z', 'tomorrow', '2030-01-01T00:00:00+25:00',
];
const REAL_DATES = ['2028-02-29T00:00:00Z', '2030-01-01T00:00:00+05:30', '2030-12-31T23:59:59.999Z', '2030-06-15t10:00:00z'];
const BAD_EMAILS = ['a@b', 'a@', '@example.com', 'jane doe@example.com', 'jane@exa mple.com', 'jane@@example.com', 'jane@example..com', 'jane@.example.com'];
const GOOD_EMAILS = ['jane.doe@example.com', "o'brien+tag@mail.example.co.uk"];
/** Bytes that are not UTF-8: an invalid continuation, a lone 0xFF, an overlong slash, a UTF-16 surrogate, a cut sequence. */
const NOT_UTF8 = [Buffer.from([0xc3, 0x28]), Buffer.from([0xff]), Buffer.from([0xc0, 0xaf]), Buffer.from([0xed, 0xa0, 0x80]), Buffer.from([0xe2, 0x82])];

/** The field names an error body names (standard `errors`, or the JSON-type body's `$.a.b`). */
const named = (body: unknown): string[] => Object.keys((body as { errors?: Record<string, unknown> | null }).errors ?? {}).map((k) => k.replace(/^\$\./, ''));

describe.each(engines())('hostile formats (%s)', (engine) => {
  let s: TestServer;
  beforeAll(async () => { s = await startServer(engine); });
  afterAll(async () => { await s.close(); });

  /** Sends each request, and fails on any answer `accept` refuses or any change to the database. */
  async function refusedUnchanged(cases: { name: string; send: () => Promise<{ status: number; text: string; body: unknown }>; field?: string; why?: RegExp }[]): Promise<string[]> {
    const failures: string[] = [];
    const before = await snapshot(s.db);
    for (const c of cases) {
      const res = await c.send();
      if (res.status !== 400) failures.push(`${c.name}: ${String(res.status)} ${res.text.slice(0, 200)}`);
      else if (c.field !== undefined && !named(res.body).includes(c.field)) failures.push(`${c.name}: names ${named(res.body).join(', ')}, not ${c.field}`);
      else if (c.why !== undefined && !c.why.test(res.text)) failures.push(`${c.name}: refused for another reason: ${res.text.slice(0, 200)}`);
    }
    const changed = (await snapshot(s.db)).changedSince(before);
    if (changed.length > 0) failures.push(`the refused requests changed ${changed.join(', ')}`);
    return failures;
  }

  it('every date-time query parameter refuses impossible dates, naming the parameter', async () => {
    const h = await s.as(0);
    const cases = OPERATIONS.flatMap((op) => op.parameters.filter((p) => p.in === 'query' && p.schema?.format === 'date-time')
      .flatMap((p) => IMPOSSIBLE_DATES.map((date) => ({
        name: `${op.operationId} ${p.name}=${date}`, field: p.name,
        send: () => request(s.app)[op.method as 'get'](pathOf(s, op)).set(h).query({ [p.name]: date }),
      }))));
    expect(cases.length).toBeGreaterThan(20 * IMPOSSIBLE_DATES.length);
    expect(await refusedUnchanged(cases)).toEqual([]);
  });

  it('a real date in a query parameter is accepted, a leap day included', async () => {
    const h = await s.as(0);
    for (const date of REAL_DATES) {
      const res = await request(s.app).get(INVOICES).set(h).query({ dueDateFrom: date });
      expect(res.status, `${date}: ${res.text}`).toBe(200);
    }
  });

  it('every date-time body field refuses impossible dates, and a real one is kept as that day', async () => {
    const h = await s.as(0);
    const cases = IMPOSSIBLE_DATES.flatMap((date) => [
      { name: `createInvoice dueDate=${date}`, field: 'dueDate', send: () => request(s.app).post(INVOICES).set(h).send(invoiceBody({ dueDate: date })) },
      { name: `publishInvoice dueDate=${date}`, field: 'dueDate', send: () => request(s.app).post(`${INVOICES}/publish`).set(h).send(invoiceBody({ dueDate: date })) },
    ]);
    expect(await refusedUnchanged(cases)).toEqual([]);
    const created = await request(s.app).post(INVOICES).set(h).send(invoiceBody({ dueDate: '2028-02-29T12:00:00Z' }));
    expect(created.status, created.text).toBe(200);
    const read = await request(s.app).get(`${INVOICES}/${(created.body as { id: string }).id}`).set(h);
    expect((read.body as { dueDate: string }).dueDate.slice(0, 10)).toBe('2028-02-29');
  });

  it('emails without a real domain are refused wherever an email is taken', async () => {
    const h = await s.as(0);
    const cases = BAD_EMAILS.flatMap((email) => [
      { name: `createCustomer ${email}`, field: 'email', send: () => request(s.app).post('/pay-api/v1/customers').set(h).send({ firstName: 'Jane', lastName: 'Doe', email }) },
      { name: `createAchDebit contactInfo.email ${email}`, field: 'contactInfo.email', send: () => request(s.app).post(`${ACH}/payment`).set(h).send(achDebitBody(s, 0, { contactInfo: { firstName: 'Jane', lastName: 'Doe', email } })) },
      { name: `createInvoice customer.email ${email}`, field: 'customer.email', send: () => request(s.app).post(INVOICES).set(h).send(invoiceBody({ customer: { ...(invoiceBody().customer as object), email } })) },
    ]);
    expect(await refusedUnchanged(cases)).toEqual([]);
    for (const email of GOOD_EMAILS) {
      const res = await request(s.app).post('/pay-api/v1/customers').set(h).send({ firstName: 'Jane', lastName: 'Doe', email });
      expect(res.status, `${email}: ${res.text}`).toBe(200);
    }
  });

  it('a required field with a default must be sent (an ACH debit without secCode)', async () => {
    const h = await s.as(0);
    const body = Object.fromEntries(Object.entries(achDebitBody(s)).filter(([key]) => key !== 'secCode'));
    expect(await refusedUnchanged([{ name: 'createAchDebit without secCode', field: 'secCode', send: () => request(s.app).post(`${ACH}/payment`).set(h).send(body) }])).toEqual([]);
  });

  it('every operation that takes a body refuses one that is not UTF-8, for its encoding', async () => {
    const h = await s.as(0);
    const withBody = OPERATIONS.filter((op) => op.hasBody);
    expect(withBody.length).toBeGreaterThan(30);
    const cases = withBody.flatMap((op) => NOT_UTF8.map((bytes, i) => {
      const form = op.bodyTypes.includes('application/x-www-form-urlencoded') && !op.bodyTypes.includes('application/json');
      const body = form
        ? Buffer.concat([Buffer.from('grant_type=client_credentials&client_id=x&client_secret='), bytes])
        : Buffer.concat([Buffer.from('{"name":"'), bytes, Buffer.from('"}')]);
      return {
        name: `${op.operationId} (bytes ${String(i)})`,
        // Refused for the encoding, not for a field the body lacks.
        why: form ? /"error":"invalid_request".*UTF-8/ : /"errorCode":"malformed_json"/,
        send: () => rawRequest(s.app, op.method.toUpperCase(), pathOf(s, op), { ...h, 'Content-Type': form ? 'application/x-www-form-urlencoded' : 'application/json' }, body),
      };
    }));
    expect(await refusedUnchanged(cases)).toEqual([]);
  });

  it('a date the schema takes but a calendar cannot hold (a leap second) is never a 500', async () => {
    const h = await s.as(0);
    const res = await request(s.app).post(INVOICES).set(h).send(invoiceBody({ dueDate: '2016-12-31T23:59:60Z' }));
    expect([200, 400]).toContain(res.status);
  });
});
