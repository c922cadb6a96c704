// Idempotency-Key on every POST (designed, after Stripe): per tenant, kept 24 hours. The same key and
// request replays the first response (`Idempotent-Replayed: true`); the same key with another request
// answers 422; a repeat while the first is still running answers 409. Safe under concurrent duplicates:
// the first request claims the key with an insert the database serialises.
import { createHmac } from 'node:crypto';
import { routes, type OperationInput, type OperationResult } from '../../../generated/index.ts';
import type { Handlers } from '../../../generated/handlers.ts';
import type { ServerContext } from './context.ts';
import { ApiError } from './errors.ts';
import { iso } from './time.ts';

const KEEP_MS = 24 * 3600 * 1000;
/** Response fields never stored: a once-shown secret (createApiKey) replays as an empty string. */
const NEVER_STORED = ['clientSecret'];

function storable(body: unknown): unknown {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return body;
  const copy = { ...(body as Record<string, unknown>) };
  for (const field of NEVER_STORED) if (field in copy) copy[field] = '';
  return copy;
}

interface KeyRow {
  request_hash: string;
  state: 'running' | 'done';
  response_status: number | null;
  response_headers: string | null;
  response_body: string | null;
  expires_on: string;
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

/** Claims the key; returns the existing record when another request holds it already. */
async function claim(context: ServerContext, key: string, hash: string): Promise<KeyRow | undefined> {
  const now = context.clock.now();
  const table = (): ReturnType<ServerContext['db']> => context.db('idempotency_keys');
  for (let attempt = 0; attempt < 2; attempt++) {
    const inserted = (await table()
      .insert({ tenant: context.tenantKey, key, request_hash: hash, state: 'running', created_on: iso(now), expires_on: iso(new Date(now.getTime() + KEEP_MS)) })
      .onConflict(['tenant', 'key'])
      .ignore()
      .returning('key')) as unknown[];
    if (inserted.length > 0) return undefined;
    const existing = (await table().where({ tenant: context.tenantKey, key }).first()) as KeyRow | undefined;
    if (existing && existing.expires_on > iso(now)) return existing;
    // Expired (or gone meanwhile): free it and claim it again.
    await table().where({ tenant: context.tenantKey, key }).andWhere('expires_on', '<=', iso(now)).delete();
  }
  throw new ApiError('idempotency_in_progress');
}

function idempotent(operationId: string, operation: Operation): Operation {
  return async (input, context) => {
    const key = input.headers['idempotency-key'];
    if (key === undefined || key === '') return operation(input, context);
    const hash = requestHash(context.hashKey, operationId, input, context.scope.length === 1 ? (context.scope[0] ?? null) : null);
    const existing = await claim(context, key, hash);
    if (existing) {
      if (existing.request_hash !== hash) throw new ApiError('idempotency_key_reused');
      if (existing.state !== 'done' || existing.response_status === null) throw new ApiError('idempotency_in_progress');
      return {
        status: existing.response_status,
        ...(existing.response_body === null ? {} : { body: JSON.parse(existing.response_body) as unknown }),
        headers: { ...(JSON.parse(existing.response_headers ?? '{}') as Record<string, string>), 'Idempotent-Replayed': 'true' },
      };
    }
    let result: OperationResult;
    try {
      result = await operation(input, context);
    } catch (error) {
      // Nothing was done (an error rolls the work back): the key is free for a retry.
      await context.db('idempotency_keys').where({ tenant: context.tenantKey, key }).delete();
      throw error;
    }
    await context.db('idempotency_keys').where({ tenant: context.tenantKey, key }).update({
      state: 'done',
      response_status: result.status,
      response_headers: JSON.stringify(result.headers ?? {}),
      response_body: result.body === undefined ? null : JSON.stringify(storable(result.body)),
    });
    return result;
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
