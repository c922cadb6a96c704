// SQLite: a customer's search text is indexed once per commit, not once per writer. FTS5 writes its pending terms
// to disk at every savepoint of a transaction it is part of, and a group commit runs each caller in a savepoint
// of its own: each customer written (a create, an ACH debit or card sale from details entered) was a segment of
// its own, merged again later. The insert trigger now notes the row in customers_search_pending, and the
// transaction indexes what is noted once, before it commits (repositories/customers.ts indexPendingCustomers);
// the search reads noted rows too, so that no answer depends on when they are indexed. PostgreSQL: nothing.
import type { Knex } from 'knex';
import { CUSTOMER_SEARCH_TEXT } from './008_customer_search.ts';

const isPostgres = (knex: Knex): boolean => (knex.client as { config: { client: string } }).config.client === 'pg';

/** The search text of a customers row in a trigger (`new.` or `old.` columns). */
const rowText = (row: 'new' | 'old'): string => CUSTOMER_SEARCH_TEXT.replaceAll('c.', `${row}.`);

const SEARCHED = 'first_name, last_name, company_name, email, mobile_phone_number';
const NOTED = 'exists (select 1 from customers_search_pending where id = old.rowid)';

export async function up(knex: Knex): Promise<void> {
  if (isPostgres(knex)) return;
  // The rowids of customers whose search text is not in customers_search yet.
  await knex.raw('create table customers_search_pending (id integer primary key)');
  // If exists: a migration taken back and redone that rebuilt the customers table dropped its triggers with it.
  for (const name of ['customers_search_insert', 'customers_search_update', 'customers_search_delete']) await knex.raw(`drop trigger if exists ${name}`);
  await knex.raw('create trigger customers_search_insert after insert on customers begin insert into customers_search_pending (id) values (new.rowid); end');
  // A noted row has nothing indexed yet: its text is read as it is then.
  await knex.raw(`create trigger customers_search_update after update of ${SEARCHED} on customers when not ${NOTED} begin
    delete from customers_search where rowid = old.rowid;
    insert into customers_search (rowid, text) values (new.rowid, ${rowText('new')}); end`);
  await knex.raw(`create trigger customers_search_delete after delete on customers begin
    delete from customers_search where rowid = old.rowid and not ${NOTED};
    delete from customers_search_pending where id = old.rowid; end`);
}

export async function down(knex: Knex): Promise<void> {
  if (isPostgres(knex)) return;
  await knex.raw(`insert into customers_search (rowid, text) select c.rowid, ${CUSTOMER_SEARCH_TEXT} from customers_search_pending p join customers c on c.rowid = p.id`);
  for (const name of ['customers_search_insert', 'customers_search_update', 'customers_search_delete']) await knex.raw(`drop trigger if exists ${name}`);
  await knex.raw('drop table customers_search_pending');
  await knex.raw(`create trigger customers_search_insert after insert on customers begin
    insert into customers_search (rowid, text) values (new.rowid, ${rowText('new')}); end`);
  await knex.raw(`create trigger customers_search_update after update of ${SEARCHED} on customers begin
    delete from customers_search where rowid = old.rowid;
    insert into customers_search (rowid, text) values (new.rowid, ${rowText('new')}); end`);
  await knex.raw('create trigger customers_search_delete after delete on customers begin delete from customers_search where rowid = old.rowid; end');
}
