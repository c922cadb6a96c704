// Reusable payment links (issue 42): a link takes up to max_payments payments (null: no limit), each a row of
// quick_payment_payments with the amount and quantity the payer chose; the link keeps its count and total so
// that the limit is checked under the link's row lock without counting rows. 023: the subscriptions work
// takes 024.
import { randomUUID } from 'node:crypto';
import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('quick_payments', (t) => {
    // 1: the single-use links made before this migration keep their meaning.
    t.integer('max_payments').defaultTo(1);
    t.integer('payment_count').notNullable().defaultTo(0);
    t.bigInteger('collected_cents').notNullable().defaultTo(0);
    t.integer('quantity').notNullable().defaultTo(1);
    t.integer('min_quantity');
    t.integer('max_quantity');
    t.bigInteger('min_amount_cents');
    t.bigInteger('max_amount_cents');
    t.string('redirect_url', 2048);
    // What the latest payment (transaction_id) charged and was for: the link's view carries it.
    t.bigInteger('last_amount_cents');
    t.integer('last_quantity');
  });
  await knex.schema.createTable('quick_payment_payments', (t) => {
    t.string('id', 36).primary();
    t.string('merchant_id', 36).notNullable().references('id').inTable('merchants');
    t.string('quick_payment_id', 36).notNullable().references('id').inTable('quick_payments');
    // The payment's number on its link (1, 2, ...): unique, so that no two payments ever take one place.
    t.integer('seq').notNullable();
    t.string('transaction_id', 36).notNullable().unique().references('id').inTable('transactions');
    t.bigInteger('amount_cents').notNullable();
    t.integer('quantity').notNullable();
    t.string('paid_on', 24).notNullable();
    t.unique(['quick_payment_id', 'seq']);
  });
  // A link paid before this migration took its one payment: counted, and listed among its payments.
  await knex('quick_payments').whereNotNull('transaction_id').update({ payment_count: 1, collected_cents: knex.ref('amount_cents'), last_amount_cents: knex.ref('amount_cents'), last_quantity: 1 });
  const paid = await knex('quick_payments').whereNotNull('transaction_id').select<{
    id: string; merchant_id: string; transaction_id: string; amount_cents: number | string; paid_on: string | null; created_on: string;
  }[]>('id', 'merchant_id', 'transaction_id', 'amount_cents', 'paid_on', 'created_on');
  for (const link of paid) {
    await knex('quick_payment_payments').insert({
      id: randomUUID(), merchant_id: link.merchant_id, quick_payment_id: link.id, seq: 1, transaction_id: link.transaction_id,
      amount_cents: link.amount_cents, quantity: 1, paid_on: link.paid_on ?? link.created_on,
    });
  }
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTableIfExists('quick_payment_payments');
  await knex.schema.alterTable('quick_payments', (t) => {
    t.dropColumns('max_payments', 'payment_count', 'collected_cents', 'quantity', 'min_quantity', 'max_quantity', 'min_amount_cents', 'max_amount_cents', 'redirect_url', 'last_amount_cents', 'last_quantity');
  });
}
