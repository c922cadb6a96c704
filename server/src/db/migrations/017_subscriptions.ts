// Subscriptions (designed): a customer's stored payment method charged every interval on the merchant's business
// clock (the SubscriptionStatus state machine), and the customer's counts of its live subscriptions, kept by the
// subscription machine's adapter in the transaction of each move.
import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('subscriptions', (t) => {
    t.string('id', 36).primary();
    t.string('merchant_id', 36).notNullable().references('id').inTable('merchants');
    // No foreign keys to the customer and its payment method: like transactions, a subscription keeps their
    // ids (the services refuse to delete either while a live subscription uses it).
    t.string('customer_id', 36).notNullable();
    t.string('payment_method_id', 36).notNullable();
    t.bigInteger('amount_cents').notNullable();
    t.string('frequency', 12).notNullable();
    t.string('status', 12).notNullable();
    t.string('start_date', 24).notNullable();
    // The index of the next scheduled payment: it falls due at start_date plus that many intervals.
    t.integer('schedule_index').notNullable().defaultTo(0);
    t.string('next_payment_date', 24);
    // When the worker acts next (a payment, a retry, the end of a period cancelled at its end); null: never.
    t.string('due_at', 24);
    t.string('last_payment_date', 24);
    t.integer('failed_payment_count').notNullable().defaultTo(0);
    // The failures of the payment before its latest attempt was collected: a returned ACH debit adds one to them.
    t.integer('failures_before_attempt').notNullable().defaultTo(0);
    t.string('transaction_id', 36);
    t.integer('payments_count').notNullable().defaultTo(0);
    t.integer('total_payments');
    t.boolean('cancel_at_period_end').notNullable().defaultTo(false);
    t.string('cancelled_on', 24);
    t.string('description', 255);
    t.string('line_item_id', 36);
    t.integer('quantity');
    t.string('created_on', 24).notNullable();
    t.index(['merchant_id', 'created_on']);
    t.index(['merchant_id', 'customer_id']);
    // What the worker looks for: a merchant's earliest due subscription.
    t.index(['merchant_id', 'due_at']);
    t.index(['due_at']);
    t.index(['transaction_id']);
  });
  await knex.schema.alterTable('customers', (t) => {
    t.integer('subscriptions_count').notNullable().defaultTo(0);
    t.bigInteger('active_subscriptions_cents').notNullable().defaultTo(0);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('customers', (t) => {
    t.dropColumn('subscriptions_count');
    t.dropColumn('active_subscriptions_cents');
  });
  await knex.schema.dropTableIfExists('subscriptions');
}
