// PostgreSQL: every GIN index keeps a short pending list (64 kB, the least PostgreSQL takes, against 4 MB by
// default). A GIN index takes new entries into its pending list and merges them into the index only when the list
// outgrows its limit (or at a vacuum), and every search reads the whole list besides the index: after a bulk
// import of 100,000 customers the trigram index's list held 494 pages (~3.9 MB), and a selective customer search
// took 5.1 ms in process (3.2 ms of it the index scan) against 2.6 ms (0.8 ms) with a 64 kB limit. The same
// import took as long (11.5 and 11.9 s): the merges are as much work, in more, smaller batches. SQLite: nothing.
import type { Knex } from 'knex';

const isPostgres = (knex: Knex): boolean => (knex.client as { config: { client: string } }).config.client === 'pg';

/** The pending list's limit, in kB (PostgreSQL's least). */
export const GIN_PENDING_LIST_KB = 64;

/** The GIN indexes of the schema the migration runs in (the search path's first). */
async function ginIndexes(knex: Knex): Promise<string[]> {
  const { rows } = await knex.raw<{ rows: { name: string }[] }>(
    `select i.relname as name from pg_index ix join pg_class i on i.oid = ix.indexrelid join pg_am am on am.oid = i.relam
      where am.amname = 'gin' and i.relnamespace = current_schema()::regnamespace`);
  return rows.map((row) => row.name);
}

export async function up(knex: Knex): Promise<void> {
  if (!isPostgres(knex)) return;
  for (const name of await ginIndexes(knex)) await knex.raw(`alter index ?? set (gin_pending_list_limit = ${String(GIN_PENDING_LIST_KB)})`, [name]);
}

export async function down(knex: Knex): Promise<void> {
  if (!isPostgres(knex)) return;
  for (const name of await ginIndexes(knex)) await knex.raw('alter index ?? reset (gin_pending_list_limit)', [name]);
}
