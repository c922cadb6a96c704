// Token services (client credentials, refresh, password) and every way a token can fail on the API.
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { routes } from '@pgw/client/server';
import { TokenService } from '../../src/platform/tokens.ts';
import { engines, startServer, type ErrorBody, type TestServer } from '../harness.ts';

const API = '/pay-api/v1/configurations/payments';
const form = (s: TestServer, path: string, body: Record<string, string>) => request(s.app).post(path).type('form').send(body);
const expectRefused = (res: request.Response): void => {
  expect(res.status).toBe(401);
  expect(res.headers['www-authenticate']).toMatch(/^Bearer realm="payment-gateway"/);
  const body = res.body as ErrorBody;
  expect(body).toMatchObject({ statusCode: 401, errorCode: 'invalid_token', exceptionType: 'AuthenticationException' });
};
const claims = (jwt: string): Record<string, unknown> =>
  JSON.parse(Buffer.from(jwt.split('.')[1] ?? '', 'base64url').toString('utf8')) as Record<string, unknown>;

describe.each(engines())('token services and authentication (%s)', (engine) => {
  let s: TestServer;
  let merchant: { clientId: string; clientSecret: string; userEmail: string; userPassword: string };
  beforeAll(async () => {
    s = await startServer(engine);
    const first = s.secrets.merchants[0];
    if (!first) throw new Error('no demo merchant');
    merchant = first;
  });
  afterAll(async () => { await s.close(); });

  const clientCredentials = () => ({ grant_type: 'client_credentials', scope: 'offline_access', client_id: merchant.clientId, client_secret: merchant.clientSecret });

  describe('client credentials', () => {
    it('issues a JWT pair with the environment in iss and aud, no-store', async () => {
      const res = await form(s, '/oauth2/token', clientCredentials());
      expect(res.status).toBe(200);
      expect(res.headers['cache-control']).toBe('no-store');
      const body = res.body as { access_token: string; refresh_token: string; token_type: string; expires_in: number };
      expect(body.token_type).toBe('Bearer');
      expect(body.expires_in).toBe(900);
      const access = claims(body.access_token);
      expect(access).toMatchObject({ iss: 'payment-gateway:sandbox', aud: 'payment-gateway:sandbox:api:access', sub: merchant.clientId, client_id: merchant.clientId });
      expect(Number(access.exp) - Number(access.iat)).toBe(900);
      expect(typeof access.jti).toBe('string');
      expect(claims(body.refresh_token).aud).toBe('payment-gateway:sandbox:api:refresh');
    });

    it('accepts the client in HTTP Basic credentials', async () => {
      const res = await request(s.app).post('/oauth2/token').auth(merchant.clientId, merchant.clientSecret)
        .type('form').send({ grant_type: 'client_credentials', scope: 'offline_access' });
      expect(res.status).toBe(200);
    });

    it.each<[string, Record<string, string | undefined>, number, string]>([
      ['a wrong secret', { client_secret: 'pgw_cs_wrong' }, 401, 'invalid_client'],
      ['an unknown client', { client_id: 'pgw_ck_0000000000000000' }, 401, 'invalid_client'],
      ['no client credentials', { client_id: undefined, client_secret: undefined }, 401, 'invalid_client'],
      ['no grant_type', { grant_type: undefined }, 400, 'invalid_request'],
      ['an unknown grant_type', { grant_type: 'authorization_code' }, 400, 'unsupported_grant_type'],
      ['a scope other than offline_access', { scope: 'admin' }, 400, 'invalid_scope'],
    ])('refuses %s (RFC 6749)', async (_name, change, status, error) => {
      const merged: Record<string, string | undefined> = { ...clientCredentials(), ...change };
      const body = Object.fromEntries(Object.entries(merged).filter(([, v]) => v !== undefined)) as Record<string, string>;
      const res = await form(s, '/oauth2/token', body);
      expect(res.status).toBe(status);
      expect((res.body as { error: string }).error).toBe(error);
      expect(res.headers['cache-control']).toBe('no-store');
      if (status === 401) expect(res.headers['www-authenticate']).toMatch(/^Basic /);
    });

    it('refuses the client credentials sent twice (Basic and form)', async () => {
      const res = await request(s.app).post('/oauth2/token').auth(merchant.clientId, merchant.clientSecret).type('form').send(clientCredentials());
      expect(res.status).toBe(400);
      expect((res.body as { error: string }).error).toBe('invalid_request');
    });

    it('refuses a JSON body (the token service takes a form)', async () => {
      const res = await request(s.app).post('/oauth2/token').send(clientCredentials());
      expect(res.status).toBe(400);
      expect((res.body as { error: string }).error).toBe('invalid_request');
    });
  });

  describe('refresh', () => {
    it('exchanges a refresh token for a new pair', async () => {
      const first = (await form(s, '/oauth2/token', clientCredentials())).body as { refresh_token: string; access_token: string };
      const res = await form(s, '/oauth2/token', { grant_type: 'refresh_token', refresh_token: first.refresh_token, client_id: merchant.clientId, client_secret: merchant.clientSecret });
      expect(res.status).toBe(200);
      const next = res.body as { access_token: string };
      expect(next.access_token).not.toBe(first.access_token);
      expect((await request(s.app).get(API).set('Authorization', `Bearer ${next.access_token}`)).status).toBe(200);
    });

    it('refuses an access token as a refresh token, and another client\'s refresh token', async () => {
      const mine = (await form(s, '/oauth2/token', clientCredentials())).body as { access_token: string; refresh_token: string };
      const asRefresh = await form(s, '/oauth2/token', { grant_type: 'refresh_token', refresh_token: mine.access_token, client_id: merchant.clientId, client_secret: merchant.clientSecret });
      expect(asRefresh.status).toBe(400);
      expect((asRefresh.body as { error: string }).error).toBe('invalid_grant');
      const other = s.secrets.merchants[1];
      if (!other) throw new Error('no second merchant');
      const stolen = await form(s, '/oauth2/token', { grant_type: 'refresh_token', refresh_token: mine.refresh_token, client_id: other.clientId, client_secret: other.clientSecret });
      expect(stolen.status).toBe(400);
      expect((stolen.body as { error: string }).error).toBe('invalid_grant');
    });
  });

  describe('the second token service', () => {
    it('issues a management token for the merchant\'s user (password grant), refused by this API', async () => {
      const res = await form(s, '/crm/oauth2/token', {
        grant_type: 'password', username: merchant.userEmail, password: merchant.userPassword,
        client_id: merchant.clientId, client_secret: merchant.clientSecret, scope: 'offline_access',
      });
      expect(res.status).toBe(200);
      const body = res.body as { access_token: string; refresh_token: string; expires_in: number };
      expect(body.expires_in).toBe(3600);
      expect(claims(body.access_token).aud).toBe('payment-gateway:sandbox:crm:access');
      expect((await request(s.app).get(API).set('Authorization', `Bearer ${body.access_token}`)).status).toBe(401);
      const refreshed = await form(s, '/crm/oauth2/token', { grant_type: 'refresh_token', refresh_token: body.refresh_token, client_id: merchant.clientId, client_secret: merchant.clientSecret });
      expect(refreshed.status).toBe(200);
    });

    it('refuses a wrong password and a user of another merchant', async () => {
      const wrong = await form(s, '/crm/oauth2/token', {
        grant_type: 'password', username: merchant.userEmail, password: 'not-it', client_id: merchant.clientId, client_secret: merchant.clientSecret, scope: 'offline_access',
      });
      expect(wrong.status).toBe(400);
      expect((wrong.body as { error: string }).error).toBe('invalid_grant');
      const other = s.secrets.merchants[1];
      if (!other) throw new Error('no second merchant');
      const foreign = await form(s, '/crm/oauth2/token', {
        grant_type: 'password', username: other.userEmail, password: other.userPassword, client_id: merchant.clientId, client_secret: merchant.clientSecret, scope: 'offline_access',
      });
      expect(foreign.status).toBe(400);
    });
  });

  describe('a request without a valid token', () => {
    const call = (authorization?: string) => {
      const req = request(s.app).get(API);
      return authorization === undefined ? req : req.set('Authorization', authorization);
    };

    it('is refused when the token is missing, malformed or garbage', async () => {
      expectRefused(await call());
      expectRefused(await call('Bearer'));
      expectRefused(await call(`Basic ${Buffer.from(`${merchant.clientId}:${merchant.clientSecret}`).toString('base64')}`));
      expectRefused(await call('Bearer not.a.jwt'));
    });

    it('is refused when the token has expired', async () => {
      const token = await s.token(0);
      s.clock.advance(901);
      const res = await call(`Bearer ${token}`);
      s.clock.advance(-901);
      expectRefused(res);
      expect(res.headers['www-authenticate']).toMatch(/expired/);
    });

    it('is refused once it has expired, even after it was accepted (a verified token is not trusted past its exp)', async () => {
      const token = await s.token(0);
      expect((await call(`Bearer ${token}`)).status).toBe(200);
      // Moved by the token's own exp (whole seconds), not by its lifetime from "now": minted a moment earlier, with
      // exp rounded down, 899 s later could already be past it.
      const exp = Number((claims(token) as { exp: unknown }).exp) * 1000;
      const toJustBefore = (exp - 2000 - s.clock.now().getTime()) / 1000;
      s.clock.advance(toJustBefore);
      expect((await call(`Bearer ${token}`)).status).toBe(200);
      s.clock.advance(4);
      const res = await call(`Bearer ${token}`);
      s.clock.advance(-(toJustBefore + 4));
      expectRefused(res);
      expect(res.headers['www-authenticate']).toMatch(/expired/);
    });

    it('is refused when the token was tampered with', async () => {
      const [header, payload, signature] = (await s.token(0)).split('.');
      const other = s.secrets.merchants[1]?.clientId ?? '';
      const forged = Buffer.from(Buffer.from(payload ?? '', 'base64url').toString('utf8').replace(merchant.clientId, other)).toString('base64url');
      expectRefused(await call(`Bearer ${header ?? ''}.${forged}.${signature ?? ''}`));
    });

    it('is refused when the token is unsigned (alg: none)', async () => {
      const payload = claims(await s.token(0));
      const none = `${Buffer.from(JSON.stringify({ alg: 'none', typ: 'at+jwt' })).toString('base64url')}.${Buffer.from(JSON.stringify(payload)).toString('base64url')}.`;
      expectRefused(await call(`Bearer ${none}`));
    });

    it('is refused when the token was issued for the other environment, even with the same key', async () => {
      const key = (await s.db('signing_keys').where({ environment: 'sandbox' }).first()) as { secret: string };
      const production = new TokenService('production', key.secret);
      const { accessToken } = await production.issue('api', merchant.clientId, merchant.clientId);
      expectRefused(await call(`Bearer ${accessToken}`));
    });

    it('is refused when the token is a refresh token', async () => {
      const res = await form(s, '/oauth2/token', clientCredentials());
      expectRefused(await call(`Bearer ${(res.body as { refresh_token: string }).refresh_token}`));
    });

    it('is refused on every API operation', async () => {
      const secured = routes.filter((r) => r.security.length > 0);
      expect(secured.length).toBeGreaterThan(70);
      for (const route of secured) {
        const path = route.path.replace(/\{[^}]+\}/g, '7c9e6679-7425-40de-944b-e07fc1f90ae7');
        const res = await request(s.app)[route.method](path).send();
        expect([route.operationId, res.status]).toEqual([route.operationId, 401]);
      }
    });
  });

  describe('a revoked key', () => {
    it('loses its tokens and its token service access when deleted', async () => {
      const auth = await s.auth(0);
      const created = await request(s.app).post('/pay-api/v1/merchants/tokens').set(auth).send({ name: 'to revoke' });
      expect(created.status).toBe(200);
      const key = created.body as { clientId: string; clientSecret: string };
      const issued = await form(s, '/oauth2/token', { grant_type: 'client_credentials', scope: 'offline_access', client_id: key.clientId, client_secret: key.clientSecret });
      const token = (issued.body as { access_token: string }).access_token;
      expect((await request(s.app).get(API).set('Authorization', `Bearer ${token}`)).status).toBe(200);
      expect((await request(s.app).delete(`/pay-api/v1/merchants/tokens/${key.clientId}`).set(auth)).status).toBe(200);
      expectRefused(await request(s.app).get(API).set('Authorization', `Bearer ${token}`));
      const again = await form(s, '/oauth2/token', { grant_type: 'client_credentials', scope: 'offline_access', client_id: key.clientId, client_secret: key.clientSecret });
      expect(again.status).toBe(401);
    });
  });
});
