// Event stream positions are never handed out twice, and a position outlives its event:
// - SQLite: stream_seq becomes `integer primary key autoincrement`. A plain rowid alias is the largest + 1, so
//   once the newest events are deleted (a sandbox reset, a sandbox deleted) the next events took their numbers
//   again, behind every open stream's cursor: they were never streamed. AUTOINCREMENT keeps the largest number
//   ever used (sqlite_sequence). PostgreSQL's bigserial never reused one.
// - Both: stream_tombstones keeps the position of each deleted event (and whose it was), so that a stream
//   resumes after a Last-Event-ID whose event has been deleted since, skipping what is gone, instead of refusing it.
import type { Knex } from 'knex';

const isPostgres = (knex: Knex): boolean => (knex.client as { config: { client: string } }).config.client === 'pg';
const LIST_INDEX = 'create index outbox_events_merchant_occurred on outbox_events (merchant_id, occurred_on, id)';
const STREAM_INDEX = 'create index outbox_events_stream on outbox_events (merchant_id, stream_xid, stream_seq)';

/** SQLite's outbox_events rebuilt with the given key declaration, its rows and indexes kept. */
async function rebuildSqlite(knex: Knex, key: string): Promise<void> {
  await knex.raw(`create table outbox_events_next (
      stream_seq integer ${key}, id varchar(36) not null unique,
      merchant_id varchar(36) not null references merchants (id), type varchar(100) not null, payload text not null,
      occurred_on varchar(24) not null, stream_xid integer not null default 0)`);
  await knex.raw(`insert into outbox_events_next (stream_seq, id, merchant_id, type, payload, occurred_on, stream_xid)
      select stream_seq, id, merchant_id, type, payload, occurred_on, stream_xid from outbox_events order by stream_seq`);
  await knex.raw('drop table outbox_events');
  await knex.raw('alter table outbox_events_next rename to outbox_events');
  await knex.raw(STREAM_INDEX);
  await knex.raw(LIST_INDEX);
}

export async function up(knex: Knex): Promise<void> {
  // The copy sets sqlite_sequence to the largest number kept; numbers of events deleted before this migration
  // cannot be known, and the next events start above what is left, as before.
  if (!isPostgres(knex)) await rebuildSqlite(knex, 'primary key autoincrement');
  await knex.schema.createTable('stream_tombstones', (t) => {
    t.string('event_id', 36).primary();
    // No foreign keys: the merchant (a deleted sandbox) may be gone; its partner's stream still resumes.
    t.string('merchant_id', 36).notNullable();
    t.string('partner_id', 36).nullable();
    if (isPostgres(knex)) t.specificType('stream_xid', 'xid8').notNullable();
    else t.integer('stream_xid').notNullable();
    t.bigInteger('stream_seq').notNullable();
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('stream_tombstones');
  if (!isPostgres(knex)) await rebuildSqlite(knex, 'primary key');
}
