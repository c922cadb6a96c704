// The two token services: client credentials and refresh for the API; password and refresh for the
// management API. Errors are RFC 6749's (OAuthError), rendered by the error handler; a check refused by the
// throttle is the standard body's 429 `rate_limited` with Retry-After (RFC 6749 has no error for it).
import type { AuthenticationHandlers } from '@pgw/client/handlers';
import type * as op from '@pgw/client/operations';
import type { ServerContext } from '../platform/context.ts';
import { ApiError } from '../platform/errors.ts';
import { OAuthError } from '../platform/oauth-errors.ts';
import { InvalidTokenError, type Audience } from '../platform/tokens.ts';
import { recordKeyUse, verifiedKey, verifiedUser, type VerifiedKey } from '../services/client-credentials.ts';
import { throttled, ThrottledError, type Attempt } from '../services/throttle.ts';

type KeyRow = VerifiedKey;

const NO_STORE = { 'Cache-Control': 'no-store', Pragma: 'no-cache' };

/** A credential check through the throttle; over a limit, a 429 with Retry-After before the check runs. */
async function checked<T>(context: ServerContext, attempt: Omit<Attempt, 'address'>, check: () => Promise<T | undefined>): Promise<T | undefined> {
  try {
    return await throttled(context, { ...attempt, address: context.sourceAddress }, check);
  } catch (error) {
    if (!(error instanceof ThrottledError)) throw error;
    throw new ApiError('rate_limited', { details: error.message, headers: { 'Retry-After': String(error.retryAfterSeconds) } });
  }
}

/** The client from HTTP Basic or the form fields (not both, RFC 6749 section 2.3.1). */
async function authenticateClient(context: ServerContext, body: { client_id?: string; client_secret?: string }): Promise<KeyRow> {
  const fromForm = body.client_id !== undefined || body.client_secret !== undefined;
  if (context.basic && fromForm) throw new OAuthError('invalid_request', 'Send the client credentials once: HTTP Basic or the form, not both.');
  const credentials = context.basic ?? (body.client_id && body.client_secret ? { clientId: body.client_id, clientSecret: body.client_secret } : null);
  if (!credentials) throw OAuthError.invalidClient();
  const key = await checked(context, { scope: 'client', identity: credentials.clientId },
    () => verifiedKey(context.db, context.config.environment, credentials.clientId, credentials.clientSecret, context.wall.now()));
  if (!key) throw OAuthError.invalidClient();
  return key;
}

async function tokenResponse(context: ServerContext, audience: Audience, key: KeyRow, subject: string) {
  const pair = await context.tokens.issue(audience, key.client_id, subject);
  await recordKeyUse(context.db, key.client_id, context.clock.now());
  return {
    status: 200 as const,
    headers: NO_STORE,
    body: { access_token: pair.accessToken, refresh_token: pair.refreshToken, token_type: 'Bearer' as const, expires_in: pair.expiresIn },
  };
}

/** A refresh token of this client and audience; an expired one is a 401 (the interface's rule). */
async function refreshSubject(context: ServerContext, key: KeyRow, token: string, audience: Audience): Promise<string> {
  try {
    const claims = await context.tokens.verify(token, 'refresh', audience);
    if (claims.clientId !== key.client_id) throw new OAuthError('invalid_grant', 'The refresh token was issued to another client.');
    return claims.subject;
  } catch (error) {
    if (error instanceof InvalidTokenError && /expired/.test(error.message)) {
      throw new OAuthError('invalid_grant', 'The refresh token has expired: request a new token.', 401);
    }
    if (error instanceof OAuthError) throw error;
    throw new OAuthError('invalid_grant', 'The refresh token is not valid.');
  }
}

export const authenticationHandlers = {
  async requestToken(input: op.RequestTokenInput, context: ServerContext): Promise<op.RequestTokenResult> {
    const body = input.body;
    const key = await authenticateClient(context, body);
    if (body.grant_type === 'client_credentials') return tokenResponse(context, 'api', key, key.client_id);
    const subject = await refreshSubject(context, key, body.refresh_token, 'api');
    return tokenResponse(context, 'api', key, subject);
  },

  async requestCrmToken(input: op.RequestCrmTokenInput, context: ServerContext): Promise<op.RequestCrmTokenResult> {
    const body = input.body;
    const key = await authenticateClient(context, body);
    if (body.grant_type === 'refresh_token') {
      return tokenResponse(context, 'crm', key, await refreshSubject(context, key, body.refresh_token, 'crm'));
    }
    const userId = await checked(context, { scope: 'user', identity: body.username.toLowerCase() },
      () => verifiedUser(context.db, key, body.username, body.password));
    if (userId === undefined) throw new OAuthError('invalid_grant', 'The user name or password is not correct.');
    return tokenResponse(context, 'crm', key, userId);
  },
} satisfies AuthenticationHandlers<ServerContext>;
