// API key rules: the secret is shown once and stored hashed; deleting revokes; the last active key stays.
import type { Knex } from 'knex';
import { ApiError, notFound } from '../platform/errors.ts';
import { recordEvent } from '../platform/outbox.ts';
import { iso, type Clock } from '../platform/time.ts';
import { hashSecret, newApiKey } from '../platform/tokens.ts';
import * as repo from '../repositories/api-keys.ts';

export async function createKey(db: Knex, clock: Clock, merchantId: string, name: string) {
  const key = newApiKey();
  const createdOn = iso(clock.now());
  await db.transaction(async (trx) => {
    await repo.insertApiKey(trx, { clientId: key.clientId, partnerId: await repo.partnerOf(trx, merchantId), merchantId, name, secretHash: hashSecret(key.clientSecret), createdOn });
    const created = await repo.findApiKey(trx, merchantId, key.clientId);
    await recordEvent(trx, { merchantId, type: 'api_key.created', data: created, occurredOn: createdOn });
  });
  return { clientId: key.clientId, clientSecret: key.clientSecret, name, createdOn };
}

export async function deleteKey(db: Knex, clock: Clock, merchantId: string, clientId: string): Promise<void> {
  await db.transaction(async (trx) => {
    // Lock the merchant row first (a no-op update): two concurrent deletes cannot both see another active key
    // and leave the merchant with none (PostgreSQL runs them in parallel; SQLite serialises anyway).
    await trx('merchants').where({ id: merchantId }).update({ id: merchantId });
    const key = await repo.findApiKey(trx, merchantId, clientId);
    if (!key) throw notFound(clientId, 'API key');
    if (!key.isActive) return; // already deleted: nothing changes
    if ((await repo.countActiveKeys(trx, merchantId)) <= 1) throw new ApiError('last_api_key', { entityId: clientId });
    const now = iso(clock.now());
    await repo.revokeApiKey(trx, clientId, now);
    await recordEvent(trx, { merchantId, type: 'api_key.deleted', data: { ...key, isActive: false }, occurredOn: now });
  });
}
