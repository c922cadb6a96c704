// Every API key (a merchant's or a partner's) belongs to the environment it was created in: with a sandbox
// and a production server on one database, a key of one must not obtain the other's tokens. Existing keys
// are given the environment of the server that runs this migration (they keep working where they were
// being used when the database was upgraded); new keys always name theirs.
import type { Knex } from 'knex';
import type { Environment } from '../../config.ts';

const isPostgres = (knex: Knex): boolean => (knex.client as { config: { client: string } }).config.client === 'pg';

export const keyEnvironment = (environment: Environment): Knex.Migration => ({
  async up(knex: Knex): Promise<void> {
    // A default is needed to add a NOT NULL column to existing rows (SQLite); PostgreSQL drops it after, and
    // every insert names the environment (repositories/api-keys.ts, db/seed.ts), so SQLite's is never used.
    await knex.schema.alterTable('api_keys', (t) => {
      t.string('environment', 10).notNullable().defaultTo(environment);
    });
    if (isPostgres(knex)) await knex.raw('alter table api_keys alter column environment drop default');
  },
  async down(knex: Knex): Promise<void> {
    await knex.schema.alterTable('api_keys', (t) => {
      t.dropColumn('environment');
    });
  },
});
