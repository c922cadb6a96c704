// Authentication checks: the token service's grants and errors, refresh, and every API operation refusing a
// request without a valid token.
import { createHmac, randomBytes } from 'node:crypto';
import { OperationId } from '@pgw/client/operations';
import { bodyOf, CheckFailure, expectStatus, expectThat, type Check, type CheckContext } from '../check.ts';

const uuid = '7c9e6679-7425-40de-944b-e07fc1f90ae7';
const tokenUrl = (ctx: CheckContext): string => `${ctx.authUrl}/oauth2/token`;

function clientCredentials(ctx: CheckContext): Record<string, string> {
  const a = ctx.credentials.A;
  if (!a) throw new Error('merchant A credentials are required');
  return { grant_type: 'client_credentials', scope: 'offline_access', client_id: a.clientId, client_secret: a.clientSecret };
}

/** Sends every secured operation of the spec with the given Authorization header (or none); each must be 401. */
async function everyOperationRefuses(ctx: CheckContext, authorization: string | undefined, what: string): Promise<void> {
  for (const op of ctx.spec.operations.values()) {
    if (!op.secured) continue;
    const path = Object.fromEntries([...op.path.matchAll(/\{([^}]+)\}/g)].map((m) => [m[1] ?? '', uuid]));
    const exchange = await ctx.call(op, {
      path, as: 'none', headers: authorization === undefined ? {} : { authorization },
      ...(['post', 'put', 'patch'].includes(op.method) ? { body: {} } : {}),
    });
    expectStatus(exchange, 401, `${op.operationId} with ${what}`);
  }
}

const b64 = (value: object): string => Buffer.from(JSON.stringify(value)).toString('base64url');

export const authChecks: Check[] = [
  {
    id: 'auth/token_client_credentials', group: 'auth', tags: ['Authentication'], designed: false,
    title: 'The token service issues an access and a refresh token for client credentials',
    async run(ctx) {
      const res = await ctx.raw('POST', tokenUrl(ctx), { form: clientCredentials(ctx) });
      expectStatus(res, 200, 'client credentials grant');
      const body = bodyOf(res);
      expectThat(typeof body.access_token === 'string' && typeof body.refresh_token === 'string', 'access_token and refresh_token', res);
      expectThat(body.token_type === 'Bearer' && typeof body.expires_in === 'number', 'token_type Bearer and expires_in', res);
    },
  },
  {
    id: 'auth/token_basic_credentials', group: 'auth', tags: ['Authentication'], designed: false,
    title: 'The token service accepts the client id and secret as HTTP Basic credentials',
    async run(ctx) {
      const { client_id: id = '', client_secret: secret = '', ...rest } = clientCredentials(ctx);
      const basic = Buffer.from(`${encodeURIComponent(id)}:${encodeURIComponent(secret)}`).toString('base64');
      expectStatus(await ctx.raw('POST', tokenUrl(ctx), { form: rest, headers: { authorization: `Basic ${basic}` } }), 200, 'Basic client credentials');
    },
  },
  {
    id: 'auth/token_grant_errors', group: 'auth', tags: ['Authentication'], designed: false,
    title: 'A missing or invalid grant_type answers 400',
    async run(ctx) {
      const withoutGrant = Object.fromEntries(Object.entries(clientCredentials(ctx)).filter(([key]) => key !== 'grant_type'));
      expectStatus(await ctx.raw('POST', tokenUrl(ctx), { form: withoutGrant }), 400, 'no grant_type');
      expectStatus(await ctx.raw('POST', tokenUrl(ctx), { form: { ...clientCredentials(ctx), grant_type: 'nonsense' } }), 400, 'an invalid grant_type');
    },
  },
  {
    id: 'auth/token_invalid_client', group: 'auth', tags: ['Authentication'], designed: true,
    title: 'A wrong client secret answers 401 invalid_client (RFC 6749)',
    async run(ctx) {
      const res = await ctx.raw('POST', tokenUrl(ctx), { form: { ...clientCredentials(ctx), client_secret: 'wrong-secret' } });
      expectStatus(res, 401, 'a wrong client secret');
      expectThat(bodyOf(res).error === 'invalid_client', 'error invalid_client', res);
    },
  },
  {
    id: 'auth/token_refresh', group: 'auth', tags: ['Authentication'], designed: false,
    title: 'A refresh token buys a new access token that the API accepts',
    async run(ctx) {
      const first = await ctx.raw('POST', tokenUrl(ctx), { form: clientCredentials(ctx) });
      expectStatus(first, 200, 'client credentials grant');
      const { client_id: clientId = '', client_secret: clientSecret = '' } = clientCredentials(ctx);
      const refreshed = await ctx.raw('POST', tokenUrl(ctx), {
        form: { grant_type: 'refresh_token', refresh_token: String(bodyOf(first).refresh_token), client_id: clientId, client_secret: clientSecret },
      });
      expectStatus(refreshed, 200, 'refresh grant');
      const token = String(bodyOf(refreshed).access_token);
      expectStatus(await ctx.call(OperationId.getPaymentConfiguration, { as: 'none', headers: { authorization: `Bearer ${token}` } }), 200, 'the refreshed token on the API');
    },
  },
  {
    id: 'auth/ignored_auth', group: 'auth', tags: [], designed: false,
    title: 'Every API operation refuses a request without a token (401)',
    run: (ctx) => everyOperationRefuses(ctx, undefined, 'no token'),
  },
  {
    id: 'auth/garbage_token', group: 'auth', tags: [], designed: false,
    title: 'Every API operation refuses a garbage bearer token (401)',
    run: (ctx) => everyOperationRefuses(ctx, `Bearer ${randomBytes(24).toString('base64url')}`, 'a garbage token'),
  },
  {
    id: 'auth/expired_token', group: 'auth', tags: [], designed: false,
    title: 'Every API operation refuses an expired-looking JWT (401)',
    run: (ctx) => {
      const now = Math.floor(Date.now() / 1000);
      const unsigned = `${b64({ alg: 'HS256', typ: 'at+jwt' })}.${b64({ sub: 'x', client_id: 'x', iat: now - 7200, exp: now - 3600, jti: 'x' })}`;
      const signature = createHmac('sha256', randomBytes(32)).update(unsigned).digest('base64url');
      return everyOperationRefuses(ctx, `Bearer ${unsigned}.${signature}`, 'an expired token');
    },
  },
  {
    id: 'auth/tampered_token', group: 'auth', tags: [], designed: false,
    title: 'Every API operation refuses a valid token whose payload was changed (401)',
    async run(ctx) {
      const res = await ctx.raw('POST', tokenUrl(ctx), { form: clientCredentials(ctx) });
      expectStatus(res, 200, 'client credentials grant');
      const [header, payload, signature] = String(bodyOf(res).access_token).split('.');
      if (!header || !payload || signature === undefined) throw new CheckFailure('the access token is a JWT (three parts)', res);
      const claims = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as Record<string, unknown>;
      const tampered = b64({ ...claims, exp: Math.floor(Date.now() / 1000) + 86_400 * 365 });
      await everyOperationRefuses(ctx, `Bearer ${header}.${tampered}.${signature}`, 'a tampered token');
    },
  },
];
