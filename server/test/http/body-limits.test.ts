// Bodies the server does not read: over 1 MB, or a form of more fields than the limit, on every operation that
// takes a form or JSON body (the token services included, which once answered "grant_type is required"),
// answered 413 in the standard error body and changing nothing; a form at the limit is read whole, not cut.
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { routes } from '@pgw/client/server';
import { FORM_PARAMETER_LIMIT } from '@pgw/runtime/router';
import { engines, startServer, type ErrorBody, type TestServer } from '../harness.ts';

const MB = 1024 * 1024;
const fill = (path: string): string => path.replace(/\{[^}]+\}/g, '7c9e6679-7425-40de-944b-e07fc1f90ae7');
const formFields = (n: number): string => Array.from({ length: n }, (_, i) => `f${String(i)}=1`).join('&');

describe.each(engines())('bodies over the limits (%s)', (engine) => {
  let s: TestServer;
  beforeAll(async () => { s = await startServer(engine); });
  afterAll(async () => { await s.close(); });

  const grant = (): string => {
    const m = s.secrets.merchants[0];
    return `grant_type=client_credentials&scope=offline_access&client_id=${m?.clientId ?? ''}&client_secret=${m?.clientSecret ?? ''}`;
  };
  const lastUsed = async (): Promise<unknown> => (await s.db('api_keys').where({ client_id: s.secrets.merchants[0]?.clientId }).first<{ last_used_at: unknown } | undefined>('last_used_at'))?.last_used_at;

  const tokenBodies: [string, () => string][] = [
    ['over 1 MB, the grant first', () => `${grant()}&pad=${'a'.repeat(MB + 10)}`],
    ['over 1 MB, the grant last', () => `pad=${'a'.repeat(MB + 10)}&${grant()}`],
    ['over 1 MB in one value', () => `grant_type=${'a'.repeat(MB + 10)}`],
    [`${String(FORM_PARAMETER_LIMIT + 1)} fields, the grant first`, () => `${grant()}&${formFields(FORM_PARAMETER_LIMIT + 1 - 4)}`],
    [`${String(FORM_PARAMETER_LIMIT + 1)} fields, the grant last`, () => `${formFields(FORM_PARAMETER_LIMIT + 1 - 4)}&${grant()}`],
    ['20,000 fields', () => `${grant()}&${formFields(20_000)}`],
  ];

  it.each(['/oauth2/token', '/crm/oauth2/token'].flatMap((path) => tokenBodies.map(([name, body]) => [path, name, body] as const)))(
    '%s, a form %s: 413 payload_too_large in the standard body, no token, nothing changed', async (path, _name, body) => {
      const before = await lastUsed();
      const res = await request(s.app).post(path).set('content-type', 'application/x-www-form-urlencoded').send(body());
      const error = res.body as ErrorBody;
      expect([res.status, error.errorCode, error.statusCode, error.exceptionType, res.get('cache-control')], res.text.slice(0, 300))
        .toEqual([413, 'payload_too_large', 413, 'ValidationException', 'no-store']);
      expect(error.correlationId).toBe(res.get('x-correlation-id'));
      expect(res.text).not.toContain('access_token');
      expect(await lastUsed()).toEqual(before);
    });

  it.each(['/oauth2/token', '/crm/oauth2/token'])('%s: a JSON body over 1 MB is a 413 too', async (path) => {
    const res = await request(s.app).post(path).set('content-type', 'application/json').send(JSON.stringify({ grant_type: 'client_credentials', pad: 'a'.repeat(MB) }));
    expect([res.status, (res.body as ErrorBody).errorCode]).toEqual([413, 'payload_too_large']);
  });

  it(`reads a form of exactly ${String(FORM_PARAMETER_LIMIT)} fields whole (the grant last is not cut off)`, async () => {
    const res = await request(s.app).post('/oauth2/token').set('content-type', 'application/x-www-form-urlencoded')
      .send(`${formFields(FORM_PARAMETER_LIMIT - 4)}&${grant()}`);
    expect(res.status, res.text).toBe(200);
  });

  // The pages' own forms have smaller limits; their refusal is the same 413, never a truncated form.
  it.each([['/dashboard/sign-in', 21], ['/pay/invoices/7c9e6679-7425-40de-944b-e07fc1f90ae7/card', 51]] as const)('%s: a form of %i fields is a 413 too', async (path, n) => {
    const res = await request(s.app).post(path).set('content-type', 'application/x-www-form-urlencoded').send(formFields(n));
    expect([res.status, (res.body as ErrorBody).errorCode, (res.body as ErrorBody).details]).toEqual([413, 'payload_too_large', 'The request body has too many fields.']);
  });

  // Every other operation with a body: over 1 MB of JSON (and of a form where it takes one) is a 413.
  const withBody = routes.filter((r) => r.requestContentTypes.length > 0 && !r.path.includes('oauth2'));
  it.each(withBody.map((r) => [`${r.method.toUpperCase()} ${r.path}`, r] as const))('%s: a body over 1 MB is a 413 payload_too_large', async (_label, route) => {
    const headers = await s.auth(0);
    for (const type of route.requestContentTypes.filter((t) => t === 'application/json' || t === 'application/x-www-form-urlencoded')) {
      const body = type === 'application/json' ? JSON.stringify({ pad: 'a'.repeat(MB + 10) }) : `pad=${'a'.repeat(MB + 10)}`;
      const res = await request(s.app)[route.method](fill(route.path)).set(headers).set('content-type', type).send(body);
      expect([res.status, (res.body as ErrorBody).errorCode], `${type}: ${res.text.slice(0, 200)}`).toEqual([413, 'payload_too_large']);
    }
  });
});
