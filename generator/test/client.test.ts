// The generated client (small fixture) against a live server on loopback: it fetches a token, reuses it,
// refreshes it before expiry, renews it after a 401 and repeats the request, and adds Idempotency-Keys.
import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import express from 'express';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { TokenError, createApiClient } from './golden/small/client.ts';

interface TokenCall { grant: string | undefined; scope: string | undefined; clientId: string | undefined }
const tokenCalls: TokenCall[] = [];
const seen: { method: string; authorization: string | undefined; idempotencyKey: string | undefined; body: unknown }[] = [];
const revoked = new Set<string>();
let issued = 0;
let server: Server;
let baseUrl = '';

const app = express();
app.post('/token', express.urlencoded({ extended: false }), (req, res) => {
  const body = req.body as Record<string, string | undefined>;
  tokenCalls.push({ grant: body.grant_type, scope: body.scope, clientId: body.client_id });
  if (body.client_secret !== 'secret') {
    res.status(401).json({ error: 'invalid_client', error_description: 'Client authentication failed.' });
    return;
  }
  issued++;
  res.json({ access_token: `tok-${String(issued)}`, refresh_token: `ref-${String(issued)}`, token_type: 'Bearer', expires_in: 900 });
});
app.use('/pets', express.json(), (req, res) => {
  const authorization = req.headers.authorization;
  seen.push({ method: req.method, authorization, idempotencyKey: req.headers['idempotency-key'] as string | undefined, body: req.body });
  const token = authorization?.replace(/^Bearer /, '') ?? '';
  if (!token.startsWith('tok-') || revoked.has(token)) {
    res.status(401).json({ message: 'invalid token' });
    return;
  }
  if (req.method === 'POST') {
    res.status(201).json({ id: '0b6f2c1e-3d4a-4b5c-8d6e-7f8091a2b3c4', name: (req.body as { name: string }).name, kind: 1, nickname: null, tag: 1 });
  } else {
    res.json({ items: [], total: 0 });
  }
});

beforeAll(async () => {
  await new Promise<void>((resolve) => {
    server = app.listen(0, '127.0.0.1', () => { resolve(); });
  });
  baseUrl = `http://127.0.0.1:${String((server.address() as AddressInfo).port)}`;
});
afterAll(async () => {
  await new Promise((resolve) => server.close(resolve));
});
beforeEach(() => {
  tokenCalls.length = 0;
  seen.length = 0;
});

let clock = 0;
const client = (options: { secret?: string; idempotencyKeys?: boolean } = {}) =>
  createApiClient({
    baseUrl,
    tokenUrl: `${baseUrl}/token`,
    clientId: 'client-a',
    clientSecret: options.secret ?? 'secret',
    ...(options.idempotencyKeys === undefined ? {} : { idempotencyKeys: options.idempotencyKeys }),
  });

describe('the generated client', () => {
  it('gets a token with the client credentials and reuses it', async () => {
    const { api } = client();
    const first = await api.GET('/pets', { params: { header: { 'X-Request-Id': 'r1' } } });
    const second = await api.GET('/pets', { params: { header: { 'X-Request-Id': 'r2' } } });
    expect(first.data).toEqual({ items: [], total: 0 });
    expect(second.response.status).toBe(200);
    expect(tokenCalls).toEqual([{ grant: 'client_credentials', scope: 'offline_access', clientId: 'client-a' }]);
    expect(new Set(seen.map((s) => s.authorization)).size).toBe(1);
  });

  it('uses the refresh token when the access token is about to expire', async () => {
    const { api, tokens } = client();
    clock = Date.now();
    // Drive the provider's clock: the token expires 900 s after issue; renewal starts 60 s before.
    (tokens as unknown as { options: { now: () => number } }).options.now = () => clock;
    await api.GET('/pets', { params: { header: { 'X-Request-Id': 'r' } } });
    clock += 841_000;
    await api.GET('/pets', { params: { header: { 'X-Request-Id': 'r' } } });
    expect(tokenCalls.map((c) => c.grant)).toEqual(['client_credentials', 'refresh_token']);
    expect(seen[0]?.authorization).not.toBe(seen[1]?.authorization);
  });

  it('renews a rejected token and repeats the request once, body and all', async () => {
    const { api } = client();
    await api.GET('/pets', { params: { header: { 'X-Request-Id': 'r' } } });
    const current = seen[0]?.authorization?.replace('Bearer ', '') ?? '';
    revoked.add(current);
    const created = await api.POST('/pets', { body: { name: 'Rex', kind: 1 } });
    expect(created.response.status).toBe(201);
    expect(created.data?.name).toBe('Rex');
    expect(seen.slice(1).map((s) => [s.method, s.authorization === `Bearer ${current}`, s.body])).toEqual([
      ['POST', true, { name: 'Rex', kind: 1 }],
      ['POST', false, { name: 'Rex', kind: 1 }],
    ]);
  });

  it('gives POSTs an Idempotency-Key when asked, and keeps an explicit one', async () => {
    const { api } = client({ idempotencyKeys: true });
    await api.POST('/pets', { body: { name: 'A', kind: 1 } });
    await api.POST('/pets', { body: { name: 'B', kind: 1 }, headers: { 'Idempotency-Key': 'mine' } });
    await api.GET('/pets', { params: { header: { 'X-Request-Id': 'r' } } });
    const [a, b, get] = seen;
    expect(a?.idempotencyKey).toMatch(/^[0-9a-f-]{36}$/);
    expect(b?.idempotencyKey).toBe('mine');
    expect(get?.idempotencyKey).toBeUndefined();
  });

  it('sends no Idempotency-Key unless asked', async () => {
    const { api } = client();
    await api.POST('/pets', { body: { name: 'A', kind: 1 } });
    expect(seen[0]?.idempotencyKey).toBeUndefined();
  });

  it('reports a refused client as a TokenError with the OAuth error', async () => {
    const { api } = client({ secret: 'wrong' });
    const failure = await api.GET('/pets', { params: { header: { 'X-Request-Id': 'r' } } }).catch((e: unknown) => e);
    expect(failure).toBeInstanceOf(TokenError);
    expect(failure).toMatchObject({ status: 401, error: 'invalid_client' });
    expect(String(failure)).not.toContain('wrong');
  });
});
