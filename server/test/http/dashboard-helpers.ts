// Shared by the dashboard suites: signing in through the form (its nonce cookie and token), a session's
// cookie and CSRF token, POSTs of the dashboard's forms, and a failed webhook delivery to retry.
import request from 'supertest';
import { expect } from 'vitest';
import { runDue } from '../../src/worker/run-due.ts';
import type { TestServer } from '../harness.ts';
import { achDebitBody, paymentCalls, type Headers } from './payment-helpers.ts';
import type { Receiver } from './webhook-receiver.ts';

export interface Dash { cookie: string; csrf: string }

/** The name=value part of a Set-Cookie header of that cookie, or undefined. */
export function setCookie(res: request.Response, name: string): string | undefined {
  const headers = res.headers['set-cookie'] as unknown as string[] | undefined;
  return (headers ?? []).find((c) => c.startsWith(`${name}=`));
}

export const cookiePair = (header: string): string => header.split(';')[0] ?? '';
export const csrfIn = (text: string): string => /name="csrf" value="([^"]+)"/.exec(text)?.[1] ?? '';

/** The Origin a browser on the server's pages sends. */
export const originOf = (s: TestServer): string => new URL(s.config.baseUrl).origin;

/** The sign-in form: its nonce cookie and its token. */
export async function signInForm(s: TestServer): Promise<{ cookie: string; csrf: string }> {
  const res = await request(s.app).get('/dashboard/sign-in');
  expect(res.status).toBe(200);
  const header = setCookie(res, 'pgw_dashboard_signin');
  expect(header).toBeDefined();
  return { cookie: cookiePair(header ?? ''), csrf: csrfIn(res.text) };
}

/** Posts the sign-in form with these credentials. */
export async function postSignIn(s: TestServer, clientId: string, clientSecret: string): Promise<request.Response> {
  const form = await signInForm(s);
  return request(s.app).post('/dashboard/sign-in').set({ Cookie: form.cookie, Origin: originOf(s) }).type('form')
    .send({ csrf: form.csrf, clientId, clientSecret });
}

/** A signed-in session of merchant 0 or 1 (or of explicit credentials). */
export async function signIn(s: TestServer, who: 0 | 1 | { clientId: string; clientSecret: string }): Promise<Dash> {
  const credentials = typeof who === 'number' ? s.secrets.merchants[who] : who;
  if (!credentials) throw new Error('no credentials');
  const res = await postSignIn(s, credentials.clientId, credentials.clientSecret);
  expect(res.status, res.text).toBe(303);
  const header = setCookie(res, 'pgw_dashboard');
  expect(header).toBeDefined();
  const cookie = cookiePair(header ?? '');
  const page = await request(s.app).get('/dashboard/clock').set('Cookie', cookie);
  expect(page.status).toBe(200);
  return { cookie, csrf: csrfIn(page.text) };
}

export const get = (s: TestServer, d: Dash, path: string): request.Test => request(s.app).get(path).set('Cookie', d.cookie);

/** A form POST of the session, with its token and this site's Origin unless told otherwise. */
export function post(s: TestServer, d: Dash, path: string, fields: Record<string, string> = {}, headers: Record<string, string> = { Origin: originOf(s) }): request.Test {
  return request(s.app).post(path).set({ Cookie: d.cookie, ...headers }).type('form').send({ csrf: d.csrf, ...fields });
}

/**
 * A Failed delivery of merchant `who`: a webhook on the receiver (told to answer 500), an ACH debit, and the
 * clock advanced two days through the API, and the attempts it queued made by the delivery engine (seven
 * attempts fail). Returns the delivery id and the debit's id.
 */
export async function failedDelivery(s: TestServer, who: 0 | 1, receiver: Receiver): Promise<{ deliveryId: string; transactionId: string; webhookId: string }> {
  // A fresh token: a test may have moved the wall clock past a cached one's life.
  const h: Headers = { Authorization: `Bearer ${await s.token(who)}` };
  receiver.answer(500);
  const hook = await request(s.app).post('/v2/webhooks/endpoints').set(h)
    .send({ name: `Orders ${String(who)}`, endpointUrl: `${receiver.url}/${crypto.randomUUID()}`, eventTypes: ['payment.ach.scheduled'] });
  expect(hook.status, hook.text).toBe(200);
  const webhookId = (hook.body as { id: string }).id;
  const debit = await paymentCalls(() => s).achDebit(h, achDebitBody(s, who));
  await paymentCalls(() => s).advance(h, 2 * 86_400);
  await runDue({ ...s, wall: s.clock }, s.clock.now());
  const logs = await request(s.app).get(`/v2/webhooks/delivery-logs/${webhookId}`).set(h).query({ pageSize: 100 });
  const failed = (logs.body as { items: { id: string; status: string }[] }).items.find((d) => d.status === 'Failed');
  expect(failed, logs.text).toBeDefined();
  return { deliveryId: failed?.id ?? '', transactionId: debit.transactionId, webhookId };
}
