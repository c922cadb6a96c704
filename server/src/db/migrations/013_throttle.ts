// Counters of failed credential checks (services/throttle.ts): one row per keyed hash of a scope, an identity
// and/or a source address, with the start of its window (wall-clock epoch milliseconds) and its count. In the
// database so that every instance on it shares one budget; rows whose window has passed are swept.
import type { Knex } from 'knex';

const isPostgres = (knex: Knex): boolean => (knex.client as { config: { client: string } }).config.client === 'pg';

export async function up(knex: Knex): Promise<void> {
  // SQLite has one process, which keeps its counters in memory (repositories/auth-throttle.ts).
  if (!isPostgres(knex)) return;
  await knex.schema.createTable('auth_throttle', (t) => {
    // HMAC-SHA-256 (base64url) of what is counted: no client id, user name or address is stored in clear.
    t.string('key', 43).primary();
    t.bigInteger('window_start_ms').notNullable();
    // Failures in the window, plus checks still running (a check reserves its count before it runs).
    t.integer('hits').notNullable();
    t.index(['window_start_ms']);
  });
}

export async function down(knex: Knex): Promise<void> {
  if (!isPostgres(knex)) return;
  await knex.schema.dropTableIfExists('auth_throttle');
}
