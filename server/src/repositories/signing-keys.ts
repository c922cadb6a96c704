// The environments' signing keys (Knex only): one secret per environment, shared by every instance on the
// database; tokens, keyed hashes and tap-to-pay tokens derive from it.
import type { Knex } from 'knex';

export async function findSigningSecret(db: Knex, environment: string): Promise<string | undefined> {
  const row = (await db('signing_keys').where({ environment }).first()) as { secret: string } | undefined;
  return row?.secret;
}

/** Stores the environment's secret unless one is there already (another instance starting at once won). */
export async function insertSigningSecret(db: Knex, environment: string, secret: string, createdOn: string): Promise<void> {
  await db('signing_keys').insert({ environment, secret, created_on: createdOn }).onConflict('environment').ignore();
}
