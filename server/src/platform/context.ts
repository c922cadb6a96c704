// The handler context: who calls (from the bearer token), on which merchant, and the server's services.
// Built by the generated router before the request is parsed or validated.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { RouteDefinition } from '@pgw/client/server';
import { controlCharacterProblems } from '@pgw/runtime/validation';
import { OAuthError, isTokenPath } from './oauth-errors.ts';
import type { ServerConfig } from '../config.ts';
import type { Database } from '../db/knex.ts';
import { acceptedVersions, acceptsApiVersion, CONTRACT_VERSION } from './api-version.ts';
import { ApiError } from './errors.ts';
import type { Logger } from './log.ts';
import type { HostResolver } from './outbound-http.ts';
import { correlationIdOf } from './request-context.ts';
import type { Deps } from './deps.ts';
import { iso, type Clock } from './time.ts';
import { businessClock, openMerchantScope, openScope, type Scope } from './scope.ts';
import type { Instances } from '../instances.ts';
import type { KeyState } from './key-state.ts';
import type { ThrottleStore } from '../repositories/auth-throttle.ts';
import { countLiveMerchants, findKeyRow, liveMerchantsOf } from '../repositories/principals.ts';
import { InvalidTokenError, type TokenService } from './tokens.ts';

/** Who calls: the API key behind the token. */
export type Principal = Omit<KeyState, 'offsetMs'>;

export interface Services {
  readonly db: Database;
  readonly log: Logger;
  readonly config: ServerConfig;
  /** Real time (tests move it): tokens, idempotency expiry, leases. */
  readonly wall: Clock;
  readonly tokens: TokenService;
  /** The key of the server's keyed hashes of request data (derived from the environment's signing key). */
  readonly hashKey: Buffer;
  /** What the server keeps from start to stop (the kept API-key states among it). */
  readonly instances: Instances;
  /** How webhook hosts are resolved (the system resolver when absent). */
  readonly resolveHost?: HostResolver;
  /** The throttle's counters (repositories/auth-throttle.ts): the database's on PostgreSQL, in memory on SQLite. */
  readonly throttleStore: ThrottleStore;
  /**
   * Opens the scope of a merchant no token names (a hosted invoice page, a dashboard session, a merchant a
   * partner names in the path): its business clock read now.
   */
  readonly scopeOf: (merchantId: string) => Promise<Scope>;
  /** The throttle's bucket of a request's source address (client-address.ts; PGW_TRUST_PROXY decides X-Forwarded-For). */
  readonly addressOf: (req: IncomingMessage) => string;
}

export interface ServerContext extends Services, Deps {
  readonly correlationId: string;
  /** Null on the token routes, which authenticate the client themselves. */
  readonly principal: Principal | null;
  /** HTTP Basic client credentials, when sent (token routes). */
  readonly basic: { clientId: string; clientSecret: string } | null;
  /** The bucket of the request's source address, which the throttle counts failures by. */
  readonly sourceAddress: string;
  /** The merchants this request may read: the one it acts on, or all of a partner's. */
  readonly scope: readonly string[];
  /** The merchant this request acts on; a partner without `x-merchant-id` gets a 400. */
  merchantId(): string;
  /** The partner when the request acts on all its merchants (its token, no `x-merchant-id`); else null. */
  partnerWide(): string | null;
  /**
   * The scope of the merchant this request acts on (its business clock with it; the database handle of this
   * context, an idempotent request's transaction included); the same 400 as merchantId.
   */
  merchant(): Scope;
  /** The owner of the calling key: the scope of Idempotency-Keys. */
  readonly tenantKey: string;
  /** The business clock of the merchant acted on (its sandbox offset read once per request); real time without one. */
  readonly clock: Clock;
  /** Aborts when the client goes away before the response ends (a stream stops polling then). */
  disconnected(): AbortSignal;
}

/** Made on first use: only a streaming handler asks, so other requests pay nothing. */
function disconnectedOf(res: ServerResponse): () => AbortSignal {
  let controller: AbortController | undefined;
  return () => {
    if (controller) return controller.signal;
    const made = new AbortController();
    controller = made;
    if (res.destroyed) made.abort();
    else res.once('close', () => { made.abort(); });
    return made.signal;
  };
}

const REALM = 'Bearer realm="payment-gateway"';

function unauthorized(description?: string): ApiError {
  const challenge = description === undefined ? REALM : `${REALM}, error="invalid_token", error_description="${description.replaceAll('"', "'")}"`;
  return new ApiError('invalid_token', { ...(description ? { details: description } : {}), headers: { 'WWW-Authenticate': challenge } });
}

function basicCredentials(header: string | undefined): { clientId: string; clientSecret: string } | null {
  const match = /^Basic\s+([A-Za-z0-9+/=]+)\s*$/i.exec(header ?? '');
  if (!match?.[1]) return null;
  const decoded = Buffer.from(match[1], 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  if (colon < 0) return null;
  // RFC 6749 section 2.3.1: both parts are form-urlencoded before they are joined.
  const decode = (part: string): string => decodeURIComponent(part.replace(/\+/g, ' '));
  let credentials;
  try {
    credentials = { clientId: decode(decoded.slice(0, colon)), clientSecret: decode(decoded.slice(colon + 1)) };
  } catch {
    return null;
  }
  // Text is text in the Basic credentials too: refused before the client is looked up (a client id with a NUL
  // was another throttle identity, checked against the real key).
  const control = controlCharacterProblems({ client_id: credentials.clientId, client_secret: credentials.clientSecret }, '')[0];
  if (control) throw new OAuthError('invalid_request', `${control.path.slice(1)} ${control.message}.`);
  return credentials;
}

/** The caller, and the sandbox clock offset of a merchant key's merchant (read in the same query). */
async function authenticate(services: Services, req: IncomingMessage): Promise<KeyState> {
  const header = req.headers.authorization;
  if (header === undefined || header === '') throw unauthorized();
  const match = /^Bearer\s+([A-Za-z0-9\-._~+/]+=*)\s*$/.exec(header);
  if (!match?.[1]) throw unauthorized('The Authorization header must carry a bearer token.');
  let clientId: string;
  try {
    ({ clientId } = await services.tokens.verify(match[1], 'access', 'api'));
  } catch (error) {
    if (error instanceof InvalidTokenError) throw unauthorized(error.message);
    throw error;
  }
  const kept = services.instances.keyStates.cache;
  const known = kept.get(clientId);
  if (known) return unexpired(services, known);
  const mark = kept.mark();
  // A key of the other environment is no key here (tokens are signed per environment too; this holds if a
  // token of one were ever honoured by the other).
  const key = await findKeyRow(services.db, services.config.environment, clientId);
  // A deleted (revoked) key's tokens stop working at once (a kept state is forgotten when the key is revoked),
  // and so do a deleted sandbox merchant's (from the moment its deletion begins).
  if (!key || !key.is_active || key.deleting_on !== null) throw unauthorized('The API key of this token was revoked.');
  const state = {
    clientId: key.client_id, partnerId: key.partner_id, merchantId: key.merchant_id, keyName: key.name,
    offsetMs: Number(key.clock_offset_ms ?? 0), expiresAtMs: key.sandbox_expires_at === null ? null : Date.parse(key.sandbox_expires_at),
  };
  kept.set(clientId, state, mark);
  return unexpired(services, state);
}

/**
 * The state of a key whose merchant has not expired: a sandbox merchant's tokens stop at its expiry (wall clock,
 * as its lifetime), checked on every request, a kept state too, not at the sweep that deletes it seconds later.
 */
function unexpired(services: Services, state: KeyState): KeyState {
  if (state.expiresAtMs !== null && services.wall.now().getTime() >= state.expiresAtMs) throw unauthorized('The sandbox merchant of this token has expired.');
  return state;
}

/** The merchants of the request: a merchant's own, or the partner's (one, if named in x-merchant-id). */
async function tenancy(
  services: Services, principal: KeyState, req: IncomingMessage,
): Promise<{ scope: string[]; acting: string | null; offsetMs: number }> {
  if (principal.merchantId !== null) return { scope: [principal.merchantId], acting: principal.merchantId, offsetMs: principal.offsetMs };
  const named = req.headers['x-merchant-id'];
  // A sandbox merchant being deleted, or expired (not yet swept), is no merchant of the partner any more.
  const merchants = await liveMerchantsOf(services.db, principal.partnerId, iso(services.wall.now()));
  const ids = merchants.map((m) => m.id);
  if (typeof named === 'string' && named !== '') {
    const merchant = merchants.find((m) => m.id === named);
    if (!merchant) {
      throw new ApiError('validation_failed', { errors: { 'x-merchant-id': ['names no merchant of this partner'] } });
    }
    return { scope: [named], acting: named, offsetMs: Number(merchant.clock_offset_ms) };
  }
  return { scope: ids, acting: null, offsetMs: 0 };
}

/** The merchant each authenticated request acts on (or may read), and whether it is the key's own merchant. */
const actingOf = new WeakMap<IncomingMessage, { merchantIds: readonly string[]; ownKey: boolean }>();

/**
 * The answer for a request that failed because the merchant it acts on was deleted under it (a sandbox merchant
 * whose deletion began after the request authenticated: a row it wrote lost its foreign key, or a processor it
 * named is gone): 401 for the merchant's own key (its key is gone), 404 for a partner (the merchant is).
 * Undefined when the merchant is still there: the error stands. One read, on failed requests only.
 */
export async function raceLost(services: Pick<Services, 'db'>, req: IncomingMessage, error: unknown): Promise<ApiError | undefined> {
  const acting = actingOf.get(req);
  if (!acting || acting.merchantIds.length === 0) return undefined;
  if (error instanceof ApiError && (error.status === 401 || error.status === 404)) return undefined;
  if ((await countLiveMerchants(services.db, acting.merchantIds)) === acting.merchantIds.length) return undefined;
  return acting.ownKey ? unauthorized('The API key of this token was revoked.') : new ApiError('not_found', { details: 'The merchant was deleted.' });
}

/**
 * The throttle's bucket of the request's source address. A malformed client address named through the trusted
 * proxies is a 400 (client-address.ts): on the token services in RFC 6749's terms (invalid_request), as their
 * other refusals of a request.
 */
function sourceAddressOf(services: Services, req: IncomingMessage, route: RouteDefinition): string {
  try {
    return services.addressOf(req);
  } catch (error) {
    if (!(error instanceof ApiError) || !isTokenPath(route.path)) throw error;
    throw new OAuthError('invalid_request', [error.message, ...Object.values(error.context.errors ?? {}).flat()].join(' '));
  }
}

/** What a request adds to the services. */
type OwnFields = Omit<ServerContext, keyof Services> & Pick<ServerContext, 'scopeOf'>;

/**
 * The context: the services and the request's own fields, named one by one in one literal. Not `{ ...services,
 * clock, ... }`: V8 (Node 20) gives an object a new hidden class for each property added after a spread, ~1 us
 * each, and the spread context cost ~20 us of a customer read's ~230 (profiled, issue 43).
 */
function contextOf(services: Services, own: OwnFields): ServerContext {
  return {
    db: services.db, log: services.log, config: services.config, wall: services.wall, tokens: services.tokens,
    hashKey: services.hashKey, instances: services.instances, resolveHost: services.resolveHost,
    throttleStore: services.throttleStore, addressOf: services.addressOf, scopeOf: own.scopeOf,
    clock: own.clock, correlationId: own.correlationId, principal: own.principal, basic: own.basic,
    sourceAddress: own.sourceAddress, scope: own.scope, merchantId: own.merchantId, partnerWide: own.partnerWide,
    merchant: own.merchant, tenantKey: own.tenantKey, disconnected: own.disconnected,
  };
}

export function contextFactory(services: Services) {
  return async (req: IncomingMessage, res: ServerResponse, route: RouteDefinition): Promise<ServerContext> => {
    const correlationId = correlationIdOf(res);
    const version = req.headers['x-api-version'];
    if (route.path.startsWith('/pay-int-api/') && typeof version === 'string' && !acceptsApiVersion(version, CONTRACT_VERSION)) {
      throw new ApiError('invalid_api_version', { errors: { 'x-api-version': [acceptedVersions(CONTRACT_VERSION)] } });
    }
    if (route.security.length === 0) {
      return contextOf(services, {
        clock: services.wall,
        correlationId,
        principal: null,
        basic: basicCredentials(req.headers.authorization),
        sourceAddress: sourceAddressOf(services, req, route),
        scope: [],
        merchantId: () => { throw new ApiError('internal_error'); },
        partnerWide: () => null,
        scopeOf: services.scopeOf,
        merchant: () => { throw new ApiError('internal_error'); },
        tenantKey: 'anonymous',
        disconnected: disconnectedOf(res),
      });
    }
    const principal = await authenticate(services, req);
    const { scope, acting, offsetMs } = await tenancy(services, principal, req);
    actingOf.set(req, { merchantIds: acting === null ? [] : [acting], ownKey: principal.merchantId !== null });
    const actingOn = (): string => {
      if (acting === null) {
        throw new ApiError('validation_failed', { errors: { 'x-merchant-id': ["is required with a partner's token for this operation"] } });
      }
      return acting;
    };
    return contextOf(services, {
      clock: businessClock(services, offsetMs),
      correlationId,
      principal,
      basic: null,
      sourceAddress: services.addressOf(req),
      scope,
      merchantId: actingOn,
      partnerWide: () => (principal.merchantId === null && acting === null ? principal.partnerId : null),
      // Opened from the context they are called on: an idempotent request's copy carries its transaction as `db`
      // (a scope of the pool would wait for the connection that transaction holds on SQLite).
      scopeOf(this: ServerContext, id: string): Promise<Scope> { return openMerchantScope(this, id); },
      merchant(this: ServerContext): Scope { return openScope(this, actingOn(), offsetMs); },
      tenantKey: principal.merchantId === null ? `partner:${principal.partnerId}` : `merchant:${principal.merchantId}`,
      disconnected: disconnectedOf(res),
    });
  };
}
