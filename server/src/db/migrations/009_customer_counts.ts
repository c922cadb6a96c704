// Each merchant's number of customers, kept by triggers on insert and delete: the total of an unfiltered
// customer list without counting 100,000 rows a request (the list's first page must answer in milliseconds).
import type { Knex } from 'knex';

/** The PostgreSQL trigger function of one count row per merchant (019 keeps it in slots; its down comes back here). */
export const ONE_ROW_FUNCTION = `customer_counts_change() returns trigger language plpgsql as $$
      begin
        if tg_op = 'INSERT' then
          insert into customer_counts (merchant_id, total) values (new.merchant_id, 1)
            on conflict (merchant_id) do update set total = customer_counts.total + 1;
          return new;
        end if;
        update customer_counts set total = total - 1 where merchant_id = old.merchant_id;
        return old;
      end $$`;

const isPostgres = (knex: Knex): boolean => (knex.client as { config: { client: string } }).config.client === 'pg';

export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('customer_counts', (t) => {
    t.string('merchant_id', 36).primary().references('id').inTable('merchants');
    t.integer('total').notNullable();
  });
  await knex.raw('insert into customer_counts (merchant_id, total) select merchant_id, count(*) from customers group by merchant_id');
  if (isPostgres(knex)) {
    await knex.raw(`create function ${ONE_ROW_FUNCTION}`);
    await knex.raw('create trigger customer_counts_change after insert or delete on customers for each row execute function customer_counts_change()');
    return;
  }
  await knex.raw(`create trigger customer_counts_insert after insert on customers begin
    insert into customer_counts (merchant_id, total) values (new.merchant_id, 1)
      on conflict (merchant_id) do update set total = total + 1; end`);
  await knex.raw('create trigger customer_counts_delete after delete on customers begin update customer_counts set total = total - 1 where merchant_id = old.merchant_id; end');
}

export async function down(knex: Knex): Promise<void> {
  if (isPostgres(knex)) {
    await knex.raw('drop trigger if exists customer_counts_change on customers');
    await knex.raw('drop function if exists customer_counts_change()');
  } else {
    await knex.raw('drop trigger if exists customer_counts_insert');
    await knex.raw('drop trigger if exists customer_counts_delete');
  }
  await knex.schema.dropTable('customer_counts');
}
