// API key rules: the secret is shown once and stored hashed; deleting revokes; the last active key stays.
// A key belongs to the environment of the server that created it: the other environment never sees it.
import { ApiError, notFound } from '../platform/errors.ts';
import { recordEvent } from '../platform/outbox.ts';
import type { ListQuery } from '../platform/paging.ts';
import { iso } from '../platform/time.ts';
import { hashSecret, newApiKey } from '../platform/tokens.ts';
import { lockRow, withTransaction } from '../platform/transaction.ts';
import * as repo from '../repositories/api-keys.ts';
import type { Scope } from '../platform/scope.ts';

export const listKeys = (scope: Scope, list: ListQuery): Promise<{ items: repo.ApiKeyRecord[]; total: number }> =>
  repo.listApiKeys(scope.db, scope.config.environment, scope.merchantId, list);

export async function createKey(scope: Scope, name: string) {
  const { merchantId } = scope;
  const key = newApiKey();
  const createdOn = iso(scope.clock.now());
  await withTransaction(scope.db, async (tx) => {
    await repo.insertApiKey(tx, { clientId: key.clientId, environment: scope.config.environment, partnerId: await repo.partnerOf(tx, merchantId), merchantId, name, secretHash: hashSecret(key.clientSecret), createdOn });
    const created = await repo.findApiKey(tx, scope.config.environment, merchantId, key.clientId);
    if (!created) throw new Error('the API key just inserted is not there');
    await recordEvent(tx, { merchantId, type: 'api_key.created', data: created, occurredOn: createdOn });
  });
  return { clientId: key.clientId, clientSecret: key.clientSecret, name, createdOn };
}

export async function deleteKey(scope: Scope, clientId: string): Promise<void> {
  const { merchantId } = scope;
  await withTransaction(scope.db, async (tx) => {
    // Lock the merchant row first: two concurrent deletes cannot both see another active key and leave the
    // merchant with none (PostgreSQL runs them in parallel; SQLite serialises anyway).
    await lockRow(tx, 'merchants', { id: merchantId });
    const key = await repo.findApiKey(tx, scope.config.environment, merchantId, clientId);
    if (!key) throw notFound(clientId, 'API key');
    if (!key.isActive) return; // already deleted: nothing changes
    if ((await repo.countActiveKeys(tx, scope.config.environment, merchantId)) <= 1) throw new ApiError('last_api_key', { entityId: clientId });
    const now = iso(scope.clock.now());
    await repo.revokeApiKey(tx, clientId, now);
    // Its tokens stop at once, on every instance, once this commits.
    await scope.instances.keyStates.changed(tx, { clientId });
    await recordEvent(tx, { merchantId, type: 'api_key.deleted', data: { ...key, isActive: false }, occurredOn: now });
  });
}
