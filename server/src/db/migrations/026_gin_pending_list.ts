// PostgreSQL: the gateway's GIN index keeps a short pending list (64 kB, the least PostgreSQL takes, against 4 MB by
// default). A GIN index takes new entries into its pending list and merges them into the index only when the list
// outgrows its limit (or at a vacuum), and every search reads the whole list besides the index: after a bulk
// import of 100,000 customers the trigram index's list held 494 pages (~3.9 MB), and a selective customer search
// took 5.1 ms in process (3.2 ms of it the index scan) against 2.6 ms (0.8 ms) with a 64 kB limit. The same
// import took as long (11.5 and 11.9 s): the merges are as much work, in more, smaller batches. SQLite: nothing.
import type { Knex } from 'knex';

const isPostgres = (knex: Knex): boolean => (knex.client as { config: { client: string } }).config.client === 'pg';

/** The pending list's limit, in kB (PostgreSQL's least). */
export const GIN_PENDING_LIST_KB = 64;

/** The schema's GIN indexes: the customer search's (migration 008; there only where pg_trgm is). */
const GIN_INDEXES = ['customers_search_trgm_index'];

// By name, in the schema the migrations run in: another application's GIN indexes in a shared schema are not
// this migration's to change (nor, owned by another role, its to alter at all).
export async function up(knex: Knex): Promise<void> {
  if (!isPostgres(knex)) return;
  for (const name of GIN_INDEXES) await knex.raw(`alter index if exists ?? set (gin_pending_list_limit = ${String(GIN_PENDING_LIST_KB)})`, [name]);
}

export async function down(knex: Knex): Promise<void> {
  if (!isPostgres(knex)) return;
  for (const name of GIN_INDEXES) await knex.raw('alter index if exists ?? reset (gin_pending_list_limit)', [name]);
}
