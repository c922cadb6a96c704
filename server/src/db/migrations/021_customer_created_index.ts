// customers: the index on (merchant_id, created_on) goes. Migration 008 added (merchant_id, created_on, id), which
// answers every query the shorter one answered (it is its prefix), so each customer written (a customer create,
// and every ACH debit or card sale that makes its payer) kept one index entry that no plan needed.
import type { Knex } from 'knex';

const OLD = 'customers_merchant_id_created_on_index';

export async function up(knex: Knex): Promise<void> {
  await knex.raw('drop index if exists ??', [OLD]);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('create index ?? on customers (merchant_id, created_on)', [OLD]);
}
