// Shared by the throttle suites: the credential surfaces (each with a wrong and a right attempt, and the table
// whose read is its expensive check), requests from a chosen loopback address, and a recorder of the SQL a
// request ran.
import { request as httpRequest, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Knex } from 'knex';
import request from 'supertest';
import { expect } from 'vitest';
import type { App } from '../../src/app.ts';
import type { TestServer } from '../harness.ts';
import { postSignIn } from './dashboard-helpers.ts';

export interface Answer { status: number; headers: Record<string, string | string[] | undefined>; text: string }

const answerOf = (res: request.Response): Answer => ({ status: res.status, headers: res.headers, text: res.text });

/** POSTs a form to a token service through supertest (the client's address is 127.0.0.1). */
export async function tokenForm(app: App, path: string, fields: Record<string, string>, headers: Record<string, string> = {}): Promise<Answer> {
  return answerOf(await request(app).post(path).set(headers).type('form').send(fields));
}

/** One way to present credentials: a wrong and a right attempt, what a wrong one answers today, and what it reads. */
export interface Surface {
  name: string;
  attempt(s: TestServer, right: boolean, headers?: Record<string, string>, app?: App): Promise<Answer>;
  /** The status of a wrong attempt under the limit (as before throttling). */
  wrongStatus: number;
  /** A request that reads this table ran the expensive check (the secret hash or the scrypt compare). */
  guarded: string;
  /** The JSON standard error body (token services) or the sign-in page (dashboard). */
  page: boolean;
}

const merchant = (s: TestServer) => {
  const m = s.secrets.merchants[0];
  if (!m) throw new Error('no demo merchant');
  return m;
};
const basic = (id: string, secret: string): string => `Basic ${Buffer.from(`${id}:${secret}`).toString('base64')}`;

/** A refresh token of merchant 0 per server and service, taken before any failure (the first time it is asked). */
const refreshTokens = new WeakMap<TestServer, Map<string, string>>();
async function refreshTokenOf(s: TestServer, path: string, audience: 'api' | 'crm'): Promise<string> {
  const kept = refreshTokens.get(s) ?? new Map<string, string>();
  refreshTokens.set(s, kept);
  const known = kept.get(path);
  if (known !== undefined) return known;
  const m = merchant(s);
  const grant: Record<string, string> = audience === 'api'
    ? { grant_type: 'client_credentials', scope: 'offline_access', client_id: m.clientId, client_secret: m.clientSecret }
    : { grant_type: 'password', username: m.userEmail, password: m.userPassword, client_id: m.clientId, client_secret: m.clientSecret, scope: 'offline_access' };
  const res = await tokenForm(s.app, path, grant);
  expect(res.status, res.text).toBe(200);
  const token = (JSON.parse(res.text) as { refresh_token: string }).refresh_token;
  kept.set(path, token);
  return token;
}

export const surfaces: Surface[] = [
  {
    name: 'client credentials (form)', wrongStatus: 401, guarded: 'api_keys', page: false,
    attempt: (s, right, headers = {}, app = s.app) => tokenForm(app, '/oauth2/token', {
      grant_type: 'client_credentials', scope: 'offline_access', client_id: merchant(s).clientId, client_secret: right ? merchant(s).clientSecret : 'pgw_cs_wrong',
    }, headers),
  },
  {
    name: 'client credentials (HTTP Basic)', wrongStatus: 401, guarded: 'api_keys', page: false,
    attempt: (s, right, headers = {}, app = s.app) => tokenForm(app, '/oauth2/token', { grant_type: 'client_credentials', scope: 'offline_access' }, {
      ...headers, Authorization: basic(merchant(s).clientId, right ? merchant(s).clientSecret : 'pgw_cs_wrong'),
    }),
  },
  {
    name: 'refresh grant', wrongStatus: 401, guarded: 'api_keys', page: false,
    attempt: async (s, right, headers = {}, app = s.app) => tokenForm(app, '/oauth2/token', {
      grant_type: 'refresh_token', refresh_token: await refreshTokenOf(s, '/oauth2/token', 'api'),
      client_id: merchant(s).clientId, client_secret: right ? merchant(s).clientSecret : 'pgw_cs_wrong',
    }, headers),
  },
  {
    name: 'management refresh grant', wrongStatus: 401, guarded: 'api_keys', page: false,
    attempt: async (s, right, headers = {}, app = s.app) => tokenForm(app, '/crm/oauth2/token', {
      grant_type: 'refresh_token', refresh_token: await refreshTokenOf(s, '/crm/oauth2/token', 'crm'),
      client_id: merchant(s).clientId, client_secret: right ? merchant(s).clientSecret : 'pgw_cs_wrong',
    }, headers),
  },
  {
    name: 'management password grant', wrongStatus: 400, guarded: 'users', page: false,
    attempt: (s, right, headers = {}, app = s.app) => tokenForm(app, '/crm/oauth2/token', {
      grant_type: 'password', username: merchant(s).userEmail, password: right ? merchant(s).userPassword : 'not-the-password',
      client_id: merchant(s).clientId, client_secret: merchant(s).clientSecret, scope: 'offline_access',
    }, headers),
  },
  {
    name: 'dashboard sign-in', wrongStatus: 401, guarded: 'api_keys', page: true,
    attempt: async (s, right, headers = {}) => {
      if (Object.keys(headers).length > 0) throw new Error('the dashboard surface takes no extra headers');
      return answerOf(await postSignIn(s, merchant(s).clientId, right ? merchant(s).clientSecret : 'pgw_cs_wrong'));
    },
  },
];

/** Whether an answer is a success of its surface (tokens, or the dashboard's redirect after sign-in). */
export const succeeded = (surface: Surface, res: Answer): boolean => res.status === (surface.page ? 303 : 200);

/** The checks of a 429: Retry-After within the window, and the surface's documented body. */
export function expectThrottled(surface: Surface, res: Answer, windowSeconds: number): number {
  expect(res.status, res.text).toBe(429);
  const retryAfter = String(res.headers['retry-after']);
  expect(retryAfter).toMatch(/^[1-9]\d*$/);
  expect(Number(retryAfter)).toBeLessThanOrEqual(windowSeconds);
  if (surface.page) {
    expect(String(res.headers['content-type'])).toMatch(/^text\/html/);
    expect(res.text).toContain('Too many failed sign-ins');
    expect(res.text).toContain('name="clientSecret"');
  } else {
    expect(String(res.headers['cache-control'])).toBe('no-store');
    expect(JSON.parse(res.text)).toMatchObject({
      statusCode: 429, errorCode: 'rate_limited', exceptionType: 'RateLimitException', source: 'payment-gateway', entityId: null,
      details: expect.stringMatching(/try again in \d+ seconds/) as unknown,
    });
  }
  return Number(retryAfter);
}

/** The SQL run while `work` runs (the database's query events). */
export async function queriesDuring<T>(db: Knex, work: () => Promise<T>): Promise<{ result: T; sql: string[] }> {
  const sql: string[] = [];
  const listen = (q: { sql: string }): void => { sql.push(q.sql); };
  db.on('query', listen);
  try {
    return { result: await work(), sql };
  } finally {
    db.off('query', listen);
  }
}

/** The app listening on 127.0.0.1 (an ephemeral port), for requests from other loopback addresses. */
export async function listening(app: App): Promise<{ server: Server; port: number; close(): Promise<void> }> {
  const server = app.listen(0, '127.0.0.1');
  await new Promise<void>((resolve) => server.once('listening', resolve));
  return {
    server,
    port: (server.address() as AddressInfo).port,
    close: () => new Promise((resolve) => { server.closeAllConnections(); server.close(() => { resolve(); }); }),
  };
}

/** POSTs a form from the loopback address `from` (all of 127/8 is loopback on Linux). */
export function formFrom(port: number, from: string, path: string, fields: Record<string, string>): Promise<Answer> {
  const body = new URLSearchParams(fields).toString();
  return new Promise((resolve, reject) => {
    const req = httpRequest({
      host: '127.0.0.1', port, localAddress: from, method: 'POST', path, agent: false,
      headers: { 'content-type': 'application/x-www-form-urlencoded', 'content-length': Buffer.byteLength(body) },
    }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => { resolve({ status: res.statusCode ?? 0, headers: res.headers, text: Buffer.concat(chunks).toString('utf8') }); });
    });
    req.on('error', reject);
    req.end(body);
  });
}
