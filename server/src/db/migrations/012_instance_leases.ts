// The instances that keep API-key states in memory on PostgreSQL (platform/key-state-pg.ts): each holds a
// lease it renews, and says up to which change it has forgotten what it kept.
import type { Knex } from 'knex';

const isPostgres = (knex: Knex): boolean => (knex.client as { config: { client: string } }).config.client === 'pg';

export async function up(knex: Knex): Promise<void> {
  // SQLite has one process, which forgets a changed state itself: it needs neither.
  if (!isPostgres(knex)) return;
  await knex.raw(`create table key_state_instances (
    id text primary key,
    lease_until timestamptz not null,
    synced_seq bigint not null default 0)`);
  await knex.raw('create sequence key_state_sync_seq');
}

export async function down(knex: Knex): Promise<void> {
  if (!isPostgres(knex)) return;
  await knex.raw('drop sequence if exists key_state_sync_seq');
  await knex.raw('drop table if exists key_state_instances');
}
