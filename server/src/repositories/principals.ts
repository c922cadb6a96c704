// The reads that open a request's scope (Knex only): the API key behind a token with its merchant's clock
// offset and deletion mark, a partner's merchants, whether the merchants a request acted on are still there.
import type { Knex } from 'knex';

export interface KeyRow {
  client_id: string; partner_id: string; merchant_id: string | null; name: string; is_active: boolean | number;
  clock_offset_ms: number | string | null; deleting_on: string | null; sandbox_expires_at: string | null;
}

/** The key of this environment (a key of the other is no key here), with its merchant's offset, mark and sandbox expiry in one query. */
export async function findKeyRow(db: Knex, environment: string, clientId: string): Promise<KeyRow | undefined> {
  return db('api_keys')
    .leftJoin('merchants', 'merchants.id', 'api_keys.merchant_id')
    .where({ 'api_keys.client_id': clientId, 'api_keys.environment': environment })
    .first<KeyRow | undefined>('api_keys.client_id', 'api_keys.partner_id', 'api_keys.merchant_id', 'api_keys.name', 'api_keys.is_active', 'merchants.clock_offset_ms', 'merchants.deleting_on', 'merchants.sandbox_expires_at');
}

/** The partner's merchants, without those being deleted or expired at `now` (a sandbox's expiry, wall clock ISO text). */
export async function liveMerchantsOf(db: Knex, partnerId: string, now: string): Promise<{ id: string; clock_offset_ms: number | string }[]> {
  return db('merchants').where({ partner_id: partnerId }).whereNull('deleting_on')
    .where((q) => { void q.whereNull('sandbox_expires_at').orWhere('sandbox_expires_at', '>', now); })
    .select<{ id: string; clock_offset_ms: number | string }[]>('id', 'clock_offset_ms');
}

/** How many of the merchants are there and not being deleted. */
export async function countLiveMerchants(db: Knex, ids: readonly string[]): Promise<number> {
  const live = await db('merchants').whereIn('id', [...ids]).whereNull('deleting_on').count({ n: '*' }).first<{ n: number | string } | undefined>();
  return Number(live?.n ?? 0);
}

/** Dates the key's last use (a token was issued for it). */
export async function touchKey(db: Knex, clientId: string, at: string): Promise<void> {
  await db('api_keys').where({ client_id: clientId }).update({ last_used_at: at });
}
