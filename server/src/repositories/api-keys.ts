// API keys (Knex only). Secrets are stored as hashes; rows convert to the spec's ApiKey shape here. Every
// key belongs to one environment (sandbox or production, migration 014): every read here is of one.
import type { Knex } from 'knex';
import type { Environment } from '../config.ts';
import { pageOf, type ListQuery } from './paging.ts';

// A type literal, not an interface: it is also an event's data, whose generated type has an index signature.
export type ApiKeyRecord = {
  clientId: string;
  name: string;
  createdOn: string;
  lastUsedAt: string | null;
  isActive: boolean;
};

interface Row { client_id: string; name: string; created_on: string; last_used_at: string | null; is_active: boolean | number }

const toRecord = (row: Row): ApiKeyRecord => ({
  clientId: row.client_id,
  name: row.name,
  createdOn: row.created_on,
  lastUsedAt: row.last_used_at,
  isActive: Boolean(row.is_active),
});

export async function listApiKeys(db: Knex, environment: Environment, merchantId: string, list: ListQuery): Promise<{ items: ApiKeyRecord[]; total: number }> {
  const { rows, total } = await pageOf(db('api_keys').where({ merchant_id: merchantId, environment }), list, {
    orderable: { createdOn: 'created_on', name: 'lower(name)', lastUsedAt: 'last_used_at' },
    defaultOrder: 'createdOn',
    searchable: ['name', 'client_id'],
    dateColumn: 'created_on',
    idColumn: 'client_id',
  });
  return { items: (rows as unknown as Row[]).map(toRecord), total };
}

export async function findApiKey(db: Knex, environment: Environment, merchantId: string, clientId: string): Promise<ApiKeyRecord | undefined> {
  const row = (await db('api_keys').where({ merchant_id: merchantId, client_id: clientId, environment }).first()) as Row | undefined;
  return row ? toRecord(row) : undefined;
}

export async function insertApiKey(db: Knex, key: { clientId: string; environment: Environment; partnerId: string; merchantId: string; name: string; secretHash: string; createdOn: string }): Promise<void> {
  await db('api_keys').insert({
    client_id: key.clientId, partner_id: key.partnerId, merchant_id: key.merchantId, name: key.name,
    secret_hash: key.secretHash, is_active: true, created_on: key.createdOn, environment: key.environment,
  });
}

/** The merchant's active keys of one environment (the last one of each environment stays). */
export async function countActiveKeys(db: Knex, environment: Environment, merchantId: string): Promise<number> {
  const row = (await db('api_keys').where({ merchant_id: merchantId, is_active: true, environment }).count({ n: '*' }).first()) as { n: number | string } | undefined;
  return Number(row?.n ?? 0);
}

export async function revokeApiKey(db: Knex, clientId: string, revokedOn: string): Promise<void> {
  await db('api_keys').where({ client_id: clientId }).update({ is_active: false, revoked_on: revokedOn });
}

export async function partnerOf(db: Knex, merchantId: string): Promise<string> {
  const row = await db('merchants').where({ id: merchantId }).first<{ partner_id: string } | undefined>('partner_id');
  if (!row) throw new Error(`merchant ${merchantId} has no partner`);
  return row.partner_id;
}

/**
 * A key of the environment by its client id with what authenticates it (the secret's hash and its state), or
 * undefined. A key of a sandbox merchant being deleted, or expired at `now` (wall clock: sandbox lifetimes are
 * real time) and not yet swept, counts as revoked: no token is issued for it any more.
 */
export async function credentialsOf(db: Knex, environment: Environment, clientId: string, now: Date): Promise<{ client_id: string; merchant_id: string | null; partner_id: string; secret_hash: string; is_active: boolean | number } | undefined> {
  const row = await db('api_keys').leftJoin('merchants', 'merchants.id', 'api_keys.merchant_id').where({ 'api_keys.client_id': clientId, 'api_keys.environment': environment })
    .first<{ client_id: string; merchant_id: string | null; partner_id: string; secret_hash: string; is_active: boolean | number; deleting_on: string | null; sandbox_expires_at: string | null } | undefined>(
      'api_keys.client_id', 'api_keys.merchant_id', 'api_keys.partner_id', 'api_keys.secret_hash', 'api_keys.is_active', 'merchants.deleting_on', 'merchants.sandbox_expires_at');
  if (!row) return undefined;
  const { deleting_on: deletingOn, sandbox_expires_at: expiresAt, ...key } = row;
  const expired = expiresAt !== null && Date.parse(expiresAt) <= now.getTime();
  return deletingOn === null && !expired ? key : { ...key, is_active: false };
}
