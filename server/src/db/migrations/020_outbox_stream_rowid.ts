// outbox_events written more cheaply and listed by an index: issue 25's statement timings of an ACH debit on SQLite.
// - SQLite: stream_seq becomes the table's rowid (INTEGER PRIMARY KEY). The trigger that numbered each event
//   updated the row it had just inserted: the whole row written twice and two index entries moved, 142 us of an
//   ACH debit's 640 us in SQLite (the transaction's row: 68 us). A rowid alias is numbered at insert as the trigger
//   numbered it (the largest + 1), in commit order since SQLite has one writer, and VACUUM keeps it (it renumbers
//   only rowids no column names, which is why 011 did not use the plain rowid).
// - Both engines: the index on (dispatched_on, occurred_on) and its column go. Nothing reads or writes them (the
//   deliveries have their own table), so every event paid for an index entry nobody used. The events list
//   (a merchant's events by occurred_on, id) gets the index it lacked: it sorted all of a merchant's events.
import type { Knex } from 'knex';
import { SQLITE_SEQ_TRIGGER } from './011_event_stream.ts';

const isPostgres = (knex: Knex): boolean => (knex.client as { config: { client: string } }).config.client === 'pg';
const LIST_INDEX = 'create index outbox_events_merchant_occurred on outbox_events (merchant_id, occurred_on, id)';

export async function up(knex: Knex): Promise<void> {
  if (isPostgres(knex)) {
    await knex.raw('drop index if exists outbox_events_dispatched_on_occurred_on_index');
    await knex.raw('alter table outbox_events drop column dispatched_on');
    await knex.raw(LIST_INDEX);
    return;
  }
  // SQLite cannot change a table's key in place: a new table, the rows copied with their numbers, the old one
  // dropped (its indexes and trigger with it). Nothing references outbox_events by a foreign key.
  await knex.raw(`create table outbox_events_next (
      stream_seq integer primary key, id varchar(36) not null unique,
      merchant_id varchar(36) not null references merchants (id), type varchar(100) not null, payload text not null,
      occurred_on varchar(24) not null, stream_xid integer not null default 0)`);
  await knex.raw(`insert into outbox_events_next (stream_seq, id, merchant_id, type, payload, occurred_on, stream_xid)
      select stream_seq, id, merchant_id, type, payload, occurred_on, stream_xid from outbox_events order by stream_seq`);
  await knex.raw('drop table outbox_events');
  await knex.raw('alter table outbox_events_next rename to outbox_events');
  await knex.raw('create index outbox_events_stream on outbox_events (merchant_id, stream_xid, stream_seq)');
  await knex.raw(LIST_INDEX);
}

export async function down(knex: Knex): Promise<void> {
  if (isPostgres(knex)) {
    await knex.raw('drop index if exists outbox_events_merchant_occurred');
    await knex.raw('alter table outbox_events add column dispatched_on varchar(24)');
    await knex.raw('create index outbox_events_dispatched_on_occurred_on_index on outbox_events (dispatched_on, occurred_on)');
    return;
  }
  await knex.raw(`create table outbox_events_prev (
      id varchar(36) primary key, merchant_id varchar(36) not null references merchants (id), type varchar(100) not null,
      payload text not null, occurred_on varchar(24) not null, dispatched_on varchar(24),
      stream_xid integer not null default 0, stream_seq integer)`);
  await knex.raw(`insert into outbox_events_prev (id, merchant_id, type, payload, occurred_on, stream_xid, stream_seq)
      select id, merchant_id, type, payload, occurred_on, stream_xid, stream_seq from outbox_events order by stream_seq`);
  await knex.raw('drop table outbox_events');
  await knex.raw('alter table outbox_events_prev rename to outbox_events');
  await knex.raw('create index outbox_events_dispatched_on_occurred_on_index on outbox_events (dispatched_on, occurred_on)');
  await knex.raw('create index outbox_events_stream_seq on outbox_events (stream_seq)');
  await knex.raw(SQLITE_SEQ_TRIGGER);
  await knex.raw('create index outbox_events_stream on outbox_events (merchant_id, stream_xid, stream_seq)');
}
