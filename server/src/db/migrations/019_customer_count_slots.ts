// PostgreSQL: each merchant's customer count kept in 16 slots instead of one row. With one row, every customer
// insert (a customer create, an ACH debit or card sale that creates its payer) locked the merchant's count row
// until commit, so a merchant's writes ran one at a time (measured: 8 of 10 busy backends waiting on that row).
// The trigger adds to the slot of its connection (pg_backend_pid() % 16: a pool's connections, opened together,
// have consecutive process ids), and the count is the sum of the slots, which the reader already takes. SQLite
// has one writer, so its single row costs nothing and stays.
import type { Knex } from 'knex';
import { ONE_ROW_FUNCTION } from './009_customer_counts.ts';

const isPostgres = (knex: Knex): boolean => (knex.client as { config: { client: string } }).config.client === 'pg';
export const COUNT_SLOTS = 16;

export async function up(knex: Knex): Promise<void> {
  if (!isPostgres(knex)) return;
  await knex.raw('alter table customer_counts add column slot smallint not null default 0');
  await knex.raw('alter table customer_counts drop constraint customer_counts_pkey');
  await knex.raw('alter table customer_counts add primary key (merchant_id, slot)');
  // A slot may go below zero (deletes on another connection than the inserts); only the sum means anything.
  await knex.raw(`create or replace function customer_counts_change() returns trigger language plpgsql as $$
      declare
        change integer := case when tg_op = 'INSERT' then 1 else -1 end;
        merchant varchar(36) := case when tg_op = 'INSERT' then new.merchant_id else old.merchant_id end;
      begin
        insert into customer_counts (merchant_id, slot, total) values (merchant, pg_backend_pid() % ${String(COUNT_SLOTS)}, change)
          on conflict (merchant_id, slot) do update set total = customer_counts.total + excluded.total;
        return null;
      end $$`);
}

export async function down(knex: Knex): Promise<void> {
  if (!isPostgres(knex)) return;
  await knex.raw(`create or replace function ${ONE_ROW_FUNCTION}`);
  await knex.raw('create temporary table customer_count_sums as select merchant_id, sum(total)::integer as total from customer_counts group by merchant_id');
  await knex.raw('delete from customer_counts');
  await knex.raw('alter table customer_counts drop constraint customer_counts_pkey');
  await knex.raw('alter table customer_counts drop column slot');
  await knex.raw('alter table customer_counts add primary key (merchant_id)');
  await knex.raw('insert into customer_counts (merchant_id, total) select merchant_id, total from customer_count_sums');
  await knex.raw('drop table customer_count_sums');
}
