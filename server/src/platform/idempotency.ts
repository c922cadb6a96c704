// Idempotency-Key on every POST (designed, after Stripe): per tenant, kept 24 hours. The same key and
// request replays the first response (`Idempotent-Replayed: true`); the same key with another request
// answers 422; a repeat while the first is still running answers 409 (PostgreSQL: it waits on the first's
// row lock and then replays; SQLite runs transactions one at a time).
//
// The key, the operation's effects, its outbox events and the stored response are one transaction: the
// operation runs inside it (services join it through withTransaction). After a crash at any point the key
// is either absent (nothing happened: a retry acts) or done with its response (a retry replays); never
// claimed with half the work done. An error rolls everything back, the key included.
import { createHmac } from 'node:crypto';
import type { Knex } from 'knex';
import { routes, type OperationInput, type OperationResult } from '@pgw/client/server';
import type { Handlers } from '@pgw/client/handlers';
import type { ServerContext } from './context.ts';
import { ApiError } from './errors.ts';
import { claimKey, deleteExpiredKey, findKey, storeResponse, type KeyRow } from '../repositories/idempotency.ts';
import { iso, type Clock } from './time.ts';
import { transaction } from './transaction.ts';

const KEEP_MS = 24 * 3600 * 1000;
/**
 * Response fields never stored, with what a replay answers instead (the spec says so on each field): a
 * once-shown secret (createApiKey's clientSecret, a sandbox merchant's user password) and bearer credentials
 * (a device's tap-to-pay JWT).
 */
export const NEVER_STORED: ReadonlyMap<string, string | null> = new Map([
  ['clientSecret', ''],
  ['userPassword', ''],
  ['jwtToken', null],
  ['access_token', null],
  ['refresh_token', null],
  ['signingSecret', ''],
]);

/** The body with every never-stored field, at any depth, replaced by its stand-in. */
export function storable(body: unknown): unknown {
  if (Array.isArray(body)) return body.map(storable);
  if (typeof body !== 'object' || body === null) return body;
  return Object.fromEntries(
    Object.entries(body as Record<string, unknown>).map(([k, v]) => [k, NEVER_STORED.has(k) && typeof v === 'string' ? NEVER_STORED.get(k) : storable(v)]),
  );
}

type Operation = (input: OperationInput, context: ServerContext) => Promise<OperationResult>;

/**
 * The request's fingerprint: an HMAC under the server's key, never a plain hash, since the request may hold a
 * card number and security code that a plain hash beside the stored panMask would let anyone recover.
 */
export function requestHash(key: Buffer, operationId: string, input: OperationInput, acting: string | null): string {
  return createHmac('sha256', key)
    .update(JSON.stringify({ operationId, acting, path: input.path, query: input.query, body: input.body ?? null }))
    .digest('hex');
}

function replay(existing: KeyRow, hash: string): OperationResult {
  if (existing.request_hash !== hash) throw new ApiError('idempotency_key_reused');
  if (existing.state !== 'done' || existing.response_status === null) throw new ApiError('idempotency_in_progress');
  return {
    status: existing.response_status,
    ...(existing.response_body === null ? {} : { body: JSON.parse(existing.response_body) as unknown }),
    headers: { ...(JSON.parse(existing.response_headers ?? '{}') as Record<string, string>), 'Idempotent-Replayed': 'true' },
  };
}

/**
 * Runs `operation` once for the key `where` (a tenant and its key): the first request with it runs it in a
 * transaction with the key, a later one with the same request hash replays the stored result, another request
 * with it answers 422, and one while the first still runs 409. Shared by the API's Idempotency-Key and the
 * invoice page's form tokens (invoice-page-payments.ts), so a double submit acts once in both.
 */
export async function once(
  deps: { db: Knex; wall: Clock }, where: { tenant: string; key: string }, hash: string,
  operation: (tx: Knex.Transaction) => Promise<OperationResult>,
): Promise<OperationResult> {
  // A done key answers without opening a write transaction (the common replay).
  const known = await findKey(deps.db, where);
  const now = iso(deps.wall.now());
  if (known && known.expires_on > now) return replay(known, hash);
  return transaction(deps.db, async (tx) => {
    if (known) await deleteExpiredKey(tx, where, now);
    // Taking the key holds it: a concurrent request with the same key waits here on PostgreSQL until this
    // transaction ends, and then finds the done row (or, after a rollback, takes the key itself).
    if (!(await claimKey(tx, where, hash, now, iso(new Date(Date.parse(now) + KEEP_MS))))) {
      const existing = await findKey(tx, where);
      if (!existing) throw new ApiError('idempotency_in_progress');
      return replay(existing, hash);
    }
    const result = await operation(tx);
    await storeResponse(tx, where, {
      status: result.status,
      headers: JSON.stringify(result.headers ?? {}),
      body: result.body === undefined ? null : JSON.stringify(storable(result.body)),
    });
    return result;
  });
}

function idempotent(operationId: string, operation: Operation): Operation {
  return async (input, context) => {
    const key = input.headers['idempotency-key'];
    if (key === undefined || key === '') return operation(input, context);
    const hash = requestHash(context.hashKey, operationId, input, context.scope.length === 1 ? (context.scope[0] ?? null) : null);
    return once(context, { tenant: context.tenantKey, key }, hash, (tx) => operation(input, { ...context, db: tx }));
  };
}

/** Wraps every operation that declares the Idempotency-Key header. */
export function withIdempotency(handlers: Handlers<ServerContext>): Handlers<ServerContext> {
  const groups = handlers as unknown as Record<string, Record<string, Operation>>;
  const wrapped: Record<string, Record<string, Operation>> = {};
  for (const [group, operations] of Object.entries(groups)) wrapped[group] = { ...operations };
  for (const route of routes) {
    const group = wrapped[route.group];
    const operation = group?.[route.operationId];
    if (group && operation && route.headerParams.includes('idempotency-key')) {
      group[route.operationId] = idempotent(route.operationId, operation.bind(groups[route.group]));
    }
  }
  return wrapped as unknown as Handlers<ServerContext>;
}
