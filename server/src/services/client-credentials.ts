// Client credentials (an API key's client id and secret): the one check of the token services and of the
// dashboard's sign-in. A revoked key, a wrong secret or a key of the other environment (a sandbox key at a
// production server on the same database) is the same answer: no key.
import type { Knex } from 'knex';
import type { Environment } from '../config.ts';
import { secretMatches } from '../platform/tokens.ts';
import { credentialsOf } from '../repositories/api-keys.ts';

export interface VerifiedKey { client_id: string; merchant_id: string | null; partner_id: string; secret_hash: string; is_active: boolean | number }

/** The active key of `environment` these credentials open, or undefined (the secret is compared in constant time). */
export async function verifiedKey(db: Knex, environment: Environment, clientId: string, clientSecret: string): Promise<VerifiedKey | undefined> {
  const key = await credentialsOf(db, environment, clientId);
  if (!key || !key.is_active || !secretMatches(clientSecret, key.secret_hash)) return undefined;
  return key;
}
