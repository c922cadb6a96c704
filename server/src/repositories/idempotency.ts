// Idempotency keys (Knex only): one row per (tenant, key), claimed by inserting it, answered by its stored
// response once done. The rules (replay, 409, 422, what is never stored) are platform/idempotency.ts.
import type { Knex } from 'knex';

export interface KeyRow {
  request_hash: string;
  state: 'running' | 'done';
  response_status: number | null;
  response_headers: string | null;
  response_body: string | null;
  expires_on: string;
}

/** A tenant's key. */
export interface KeyName { tenant: string; key: string }

export async function findKey(db: Knex, where: KeyName): Promise<KeyRow | undefined> {
  return (await db('idempotency_keys').where(where).first()) as KeyRow | undefined;
}

/** Removes the key when it expired at or before `now` (a key is kept 24 hours, then may be used again). */
export async function deleteExpiredKey(tx: Knex.Transaction, where: KeyName, now: string): Promise<void> {
  await tx('idempotency_keys').where(where).andWhere('expires_on', '<=', now).delete();
}

/**
 * Takes the key (state running) unless it exists; true when taken. The insert holds the key: a concurrent
 * request with the same key waits on it on PostgreSQL until this transaction ends, then finds the done row
 * (or, after a rollback, takes the key itself).
 */
export async function claimKey(tx: Knex.Transaction, where: KeyName, hash: string, now: string, expiresOn: string): Promise<boolean> {
  const inserted = (await tx('idempotency_keys')
    .insert({ ...where, request_hash: hash, state: 'running', created_on: now, expires_on: expiresOn })
    .onConflict(['tenant', 'key'])
    .ignore()
    .returning('key')) as unknown[];
  return inserted.length > 0;
}

/** The key is done: its response (status, headers, the storable body as JSON) is what a repeat replays. */
export async function storeResponse(
  tx: Knex.Transaction, where: KeyName, response: { status: number; headers: string; body: string | null },
): Promise<void> {
  await tx('idempotency_keys').where(where).update({
    state: 'done', response_status: response.status, response_headers: response.headers, response_body: response.body,
  });
}
