// Indexes for a merchant's customer list and search at scale (100,000 customers of one merchant): the first
// page in created order read from an index, and the search's "contains" match served by a trigram index
// (SQLite: an FTS5 trigram table kept by triggers; PostgreSQL: pg_trgm's GIN index on the searched text).
import type { Knex } from 'knex';

/** The searched columns as one lower-case text: the same expression in the index and in the query. */
export const CUSTOMER_SEARCH_TEXT =
  "lower(coalesce(c.first_name, '') || ' ' || coalesce(c.last_name, '') || ' ' || coalesce(c.company_name, '') || ' ' || coalesce(c.email, '') || ' ' || coalesce(c.mobile_phone_number, ''))";

const isPostgres = (knex: Knex): boolean => (knex.client as { config: { client: string } }).config.client === 'pg';

/** The search text of a customers row in a trigger (`new.` or `old.` columns). */
const rowText = (row: 'new' | 'old'): string => CUSTOMER_SEARCH_TEXT.replaceAll('c.', `${row}.`);

export async function up(knex: Knex): Promise<void> {
  // The default order of the list (created, then id) in one index, so the first page needs no sort.
  await knex.schema.alterTable('customers', (t) => { t.index(['merchant_id', 'created_on', 'id'], 'customers_merchant_created_id_index'); });
  if (isPostgres(knex)) {
    // pg_trgm lives in public, where a schema dropped with its tables (a test suite's) cannot take it along.
    // Without the right to create it the search still works, by reading every customer of the merchant.
    const available = await knex.transaction(async (tx) => {
      try {
        await tx.raw('create extension if not exists pg_trgm schema public');
        return true;
      } catch {
        return false;
      }
    }).catch(() => false);
    const trgm = await knex.raw<{ rows: unknown[] }>("select 1 from pg_extension where extname = 'pg_trgm'");
    if (available || trgm.rows.length > 0) {
      const ops = await knex.raw<{ rows: { schema: string }[] }>("select n.nspname as schema from pg_extension e join pg_namespace n on n.oid = e.extnamespace where e.extname = 'pg_trgm'");
      const schema = ops.rows[0]?.schema ?? 'public';
      await knex.raw(`create index customers_search_trgm_index on customers using gin ((${CUSTOMER_SEARCH_TEXT.replaceAll('c.', '')}) "${schema}".gin_trgm_ops)`);
    }
    return;
  }
  await knex.raw("create virtual table customers_search using fts5(text, tokenize = 'trigram', content = '', contentless_delete = 1)");
  await knex.raw(`insert into customers_search (rowid, text) select rowid, ${CUSTOMER_SEARCH_TEXT.replaceAll('c.', '')} from customers`);
  await knex.raw(`create trigger customers_search_insert after insert on customers begin
    insert into customers_search (rowid, text) values (new.rowid, ${rowText('new')}); end`);
  await knex.raw(`create trigger customers_search_update after update of first_name, last_name, company_name, email, mobile_phone_number on customers begin
    delete from customers_search where rowid = old.rowid;
    insert into customers_search (rowid, text) values (new.rowid, ${rowText('new')}); end`);
  await knex.raw('create trigger customers_search_delete after delete on customers begin delete from customers_search where rowid = old.rowid; end');
}

export async function down(knex: Knex): Promise<void> {
  if (isPostgres(knex)) {
    await knex.raw('drop index if exists customers_search_trgm_index');
  } else {
    for (const name of ['customers_search_insert', 'customers_search_update', 'customers_search_delete']) await knex.raw(`drop trigger if exists ${name}`);
    await knex.raw('drop table if exists customers_search');
  }
  await knex.schema.alterTable('customers', (t) => { t.dropIndex(['merchant_id', 'created_on', 'id'], 'customers_merchant_created_id_index'); });
}
