// Payment links (quick payments, designed): a fixed amount a customer pays once on the link's page, with the
// status of the QuickPaymentStatus state machine. 018, not 017: the subscriptions migration takes 017.
import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('quick_payments', (t) => {
    t.string('id', 36).primary();
    t.string('merchant_id', 36).notNullable().references('id').inTable('merchants');
    t.bigInteger('amount_cents').notNullable();
    t.string('description', 255);
    t.string('status', 12).notNullable();
    // The payment that paid the link (a card sale or an ACH debit with creator type QuickPayment).
    t.string('transaction_id', 36).references('id').inTable('transactions');
    t.string('paid_on', 24);
    t.string('expires_on', 24);
    t.string('created_on', 24).notNullable();
    // The list's default order and its date range (createdOn).
    t.index(['merchant_id', 'created_on']);
    // What the worker and the clock advance expire: the Active links by expiry.
    t.index(['status', 'expires_on']);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTableIfExists('quick_payments');
}
