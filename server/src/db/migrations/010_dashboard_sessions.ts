// The sandbox dashboard's sign-in sessions: only a hash of the session id is stored (a database reader cannot
// use a row as a cookie), with the API key it was opened with, so that revoking the key ends the session.
// Times are wall-clock: a session's life is not business time the sandbox clock may move.
import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('dashboard_sessions', (t) => {
    // SHA-256 of the random session id, hex.
    t.string('id_hash', 64).primary();
    t.string('client_id', 64).notNullable().references('client_id').inTable('api_keys');
    t.string('merchant_id', 36).notNullable().references('id').inTable('merchants');
    t.string('created_on', 24).notNullable();
    t.string('last_seen_on', 24).notNullable();
    // The absolute end: idle or not, the session ends here.
    t.string('expires_on', 24).notNullable();
    t.index(['expires_on']);
    t.index(['client_id']);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTableIfExists('dashboard_sessions');
}
