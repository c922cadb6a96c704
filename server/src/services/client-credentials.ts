// Client credentials (an API key's client id and secret): the one check of the token services and of the
// dashboard's sign-in. A revoked key, a wrong secret or a key of the other environment (a sandbox key at a
// production server on the same database) is the same answer: no key. And the management password grant's
// check of a user's name and password.
import type { Knex } from 'knex';
import type { Environment } from '../config.ts';
import { passwordMatches } from '../platform/passwords.ts';
import { iso } from '../platform/time.ts';
import { secretMatches } from '../platform/tokens.ts';
import { credentialsOf } from '../repositories/api-keys.ts';
import { findMerchant } from '../repositories/merchants.ts';
import { touchKey } from '../repositories/principals.ts';
import { userByEmail } from '../repositories/users.ts';

export interface VerifiedKey { client_id: string; merchant_id: string | null; partner_id: string; secret_hash: string; is_active: boolean | number }

/**
 * The active key of `environment` these credentials open, or undefined (the secret is compared in constant time);
 * a sandbox merchant's key stops at its expiry (`now`, wall clock), not at the sweep that deletes it later.
 */
export async function verifiedKey(db: Knex, environment: Environment, clientId: string, clientSecret: string, now: Date): Promise<VerifiedKey | undefined> {
  const key = await credentialsOf(db, environment, clientId, now);
  if (!key || !key.is_active || !secretMatches(clientSecret, key.secret_hash)) return undefined;
  return key;
}

/**
 * The id of the management user with this name and password, who belongs to the key's merchant (or to one of
 * the partner's merchants for a partner's key), or undefined: an unknown user, a user of another merchant and
 * a wrong password are the same answer.
 */
export async function verifiedUser(db: Knex, key: VerifiedKey, username: string, password: string): Promise<string | undefined> {
  const user = await userByEmail(db, username);
  if (!user) return undefined;
  const allowed = key.merchant_id === null
    ? (await findMerchant(db, user.merchant_id))?.partner_id === key.partner_id
    : key.merchant_id === user.merchant_id;
  if (!allowed || !(await passwordMatches(password, user.password_hash))) return undefined;
  return user.id;
}

/** Dates the key's last use: a token was issued for it. */
export async function recordKeyUse(db: Knex, clientId: string, at: Date): Promise<void> {
  await touchKey(db, clientId, iso(at));
}
