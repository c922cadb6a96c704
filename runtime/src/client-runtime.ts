// A typed openapi-fetch client with OAuth 2.0 client credentials: it fetches a token, refreshes it
// before expiry (or after a 401, retrying the request once) and adds Idempotency-Key headers on request.
// It uses only web platform APIs (fetch, crypto.randomUUID), so it runs in Node.js 20+ and in browsers.
import createClient, { type Client, type ClientOptions, type Middleware } from 'openapi-fetch';

export interface TokenResponse {
  access_token: string;
  refresh_token?: string;
  token_type: string;
  expires_in: number;
}

/** An OAuth 2.0 error from the token service (RFC 6749 section 5.2). */
export class TokenError extends Error {
  constructor(
    readonly status: number,
    readonly error: string,
    readonly description: string | undefined,
  ) {
    super(`token request failed (${status} ${error})${description ? `: ${description}` : ''}`);
    this.name = 'TokenError';
  }
}

export interface ClientCredentials {
  /** The token endpoint, e.g. `https://auth.example.com/oauth2/token`. */
  tokenUrl: string;
  clientId: string;
  clientSecret: string;
  /** Requested scope (default `offline_access`, which makes a refresh token available). */
  scope?: string;
  /** Renew a token this many seconds before it expires (default 60). */
  refreshMarginSeconds?: number;
  fetch?: (input: Request) => Promise<Response>;
  /** Clock, for tests (milliseconds since the epoch). */
  now?: () => number;
}

/** Holds the current access token; never logs or exposes the secret. */
export class ClientCredentialsTokenProvider {
  private accessToken: string | undefined;
  private refreshToken: string | undefined;
  private expiresAt = 0;
  private pending: Promise<string> | undefined;
  /** How many token requests were made (for diagnostics and tests). */
  requests = 0;

  constructor(private readonly options: ClientCredentials) {}

  private now(): number {
    return this.options.now?.() ?? Date.now();
  }

  /** A valid access token: the current one, a refreshed one, or a new one. */
  async token(): Promise<string> {
    const margin = (this.options.refreshMarginSeconds ?? 60) * 1000;
    if (this.accessToken !== undefined && this.now() < this.expiresAt - margin) return this.accessToken;
    this.pending ??= this.renew().finally(() => { this.pending = undefined; });
    return this.pending;
  }

  /** Forgets the access token (after a 401); the next call renews it. */
  invalidate(): void {
    this.accessToken = undefined;
    this.expiresAt = 0;
  }

  private async renew(): Promise<string> {
    if (this.refreshToken !== undefined) {
      try {
        return await this.request({ grant_type: 'refresh_token', refresh_token: this.refreshToken });
      } catch (error) {
        // A refresh token that expired or was revoked: start over with the client credentials.
        if (!(error instanceof TokenError)) throw error;
        this.refreshToken = undefined;
      }
    }
    return this.request({ grant_type: 'client_credentials', scope: this.options.scope ?? 'offline_access' });
  }

  private async request(fields: Record<string, string>): Promise<string> {
    this.requests++;
    const body = new URLSearchParams({ ...fields, client_id: this.options.clientId, client_secret: this.options.clientSecret });
    const doFetch = this.options.fetch ?? ((input: Request) => fetch(input));
    const response = await doFetch(
      new Request(this.options.tokenUrl, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' },
        body,
      }),
    );
    const payload = (await response.json().catch(() => ({}))) as Partial<TokenResponse> & { error?: string; error_description?: string };
    if (!response.ok || typeof payload.access_token !== 'string') {
      throw new TokenError(response.status, payload.error ?? 'invalid_response', payload.error_description);
    }
    this.accessToken = payload.access_token;
    this.refreshToken = payload.refresh_token ?? this.refreshToken;
    this.expiresAt = this.now() + (payload.expires_in ?? 0) * 1000;
    return payload.access_token;
  }
}

/** Adds the bearer token; on a 401 renews it once and repeats the request. */
export function bearerAuth(provider: ClientCredentialsTokenProvider, doFetch: (input: Request) => Promise<Response>): Middleware {
  const retries = new Map<string, Request>();
  return {
    async onRequest({ request, id }) {
      request.headers.set('authorization', `Bearer ${await provider.token()}`);
      retries.set(id, request.clone());
      return request;
    },
    async onResponse({ response, id }) {
      const copy = retries.get(id);
      retries.delete(id);
      if (response.status !== 401 || copy === undefined) return response;
      provider.invalidate();
      copy.headers.set('authorization', `Bearer ${await provider.token()}`);
      return doFetch(copy);
    },
    onError({ id }) {
      retries.delete(id);
    },
  };
}

/** Gives every POST that has none an Idempotency-Key, so a retried POST cannot act twice. */
export function automaticIdempotencyKeys(newKey: () => string = () => globalThis.crypto.randomUUID()): Middleware {
  return {
    onRequest({ request }) {
      if (request.method === 'POST' && !request.headers.has('idempotency-key')) request.headers.set('idempotency-key', newKey());
      return request;
    },
  };
}

/** A new random Idempotency-Key. */
export const idempotencyKey = (): string => globalThis.crypto.randomUUID();

export interface AuthenticatedClientOptions extends Omit<ClientOptions, 'baseUrl' | 'fetch'> {
  /** The API base URL. */
  baseUrl: string;
  /** Client credentials for the token service; omit for an unauthenticated client. */
  clientCredentials?: ClientCredentials;
  /** Add an Idempotency-Key to every POST that lacks one (default false; pass one per call instead). */
  idempotencyKeys?: boolean;
  fetch?: (input: Request) => Promise<Response>;
}

export interface AuthenticatedClient<Paths extends object> {
  api: Client<Paths>;
  /** The token provider, when credentials were given. */
  tokens: ClientCredentialsTokenProvider | undefined;
}

export function createAuthenticatedClient<Paths extends object>(options: AuthenticatedClientOptions): AuthenticatedClient<Paths> {
  const { clientCredentials, idempotencyKeys, fetch: customFetch, ...rest } = options;
  const doFetch = customFetch ?? ((input: Request) => fetch(input));
  const api = createClient<Paths>({ ...rest, fetch: doFetch });
  const tokens = clientCredentials ? new ClientCredentialsTokenProvider({ fetch: doFetch, ...clientCredentials }) : undefined;
  if (idempotencyKeys) api.use(automaticIdempotencyKeys());
  if (tokens) api.use(bearerAuth(tokens, doFetch));
  return { api, tokens };
}
