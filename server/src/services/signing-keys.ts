// The environment's signing key: made on first use and shared by every instance on the database.
import { iso, type Clock } from '../platform/time.ts';
import { newSigningKey } from '../platform/tokens.ts';
import type { Database } from '../db/knex.ts';
import { findSigningSecret, insertSigningSecret } from '../repositories/signing-keys.ts';

/** The environment's signing key (base64), made now when the database has none. */
export async function signingKey(db: Database, environment: string, clock: Clock): Promise<string> {
  const existing = await findSigningSecret(db, environment);
  if (existing !== undefined) return existing;
  await insertSigningSecret(db, environment, newSigningKey(), iso(clock.now()));
  const stored = await findSigningSecret(db, environment);
  if (stored === undefined) throw new Error(`no signing key for the ${environment} environment`);
  return stored;
}
