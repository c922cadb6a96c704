// The event stream's cursor on outbox_events: a commit-safe position per event (see repositories/event-stream.ts).
import type { Knex } from 'knex';

/** SQLite's numbering of events until migration 020 made stream_seq the rowid (020's undoing puts it back). */
export const SQLITE_SEQ_TRIGGER = `create trigger outbox_events_stream_seq after insert on outbox_events begin
      update outbox_events set stream_seq = (select coalesce(max(stream_seq), 0) + 1 from outbox_events) where rowid = new.rowid; end`;

const isPostgres = (knex: Knex): boolean => (knex.client as { config: { client: string } }).config.client === 'pg';

export async function up(knex: Knex): Promise<void> {
  if (isPostgres(knex)) {
    // stream_xid: the inserting transaction's id. A sequence alone is not enough on PostgreSQL: a value taken
    // by a slow transaction commits after larger values of faster ones, and a reader past those would miss it.
    // A reader takes only rows whose transaction is older than every one still running
    // (pg_snapshot_xmin), so nothing can appear behind its cursor later; stream_seq orders one transaction's rows.
    await knex.raw('alter table outbox_events add column stream_xid xid8 not null default pg_current_xact_id()');
    await knex.raw('alter table outbox_events add column stream_seq bigserial');
  } else {
    // SQLite has one writer and no concurrent commits: a counter kept by a trigger is in commit order.
    // (Not the rowid: VACUUM may renumber it.) stream_xid is always 0 there.
    await knex.raw('alter table outbox_events add column stream_xid integer not null default 0');
    await knex.raw('alter table outbox_events add column stream_seq integer');
    await knex.raw('update outbox_events set stream_seq = rowid');
    await knex.raw('create index outbox_events_stream_seq on outbox_events (stream_seq)');
    await knex.raw(SQLITE_SEQ_TRIGGER);
  }
  await knex.raw('create index outbox_events_stream on outbox_events (merchant_id, stream_xid, stream_seq)');
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('drop index if exists outbox_events_stream');
  if (!isPostgres(knex)) {
    await knex.raw('drop trigger if exists outbox_events_stream_seq');
    await knex.raw('drop index if exists outbox_events_stream_seq');
  }
  await knex.raw('alter table outbox_events drop column stream_seq');
  await knex.raw('alter table outbox_events drop column stream_xid');
}
