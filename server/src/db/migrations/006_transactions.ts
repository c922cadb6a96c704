// Card and ACH transactions, their status history, card settlement batches, and the sandbox clock offset
// of each merchant. Conventions of 001_platform (uuid text ids, fixed-width ISO UTC text, integer cents).
// Never a whole card or account number: the panMask, the last four digits and, for the sandbox's magic
// test numbers, the outcome they stand for.
import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('merchants', (t) => {
    // How far the merchant's sandbox clock is ahead of real time (only grows; 0 in production).
    t.bigInteger('clock_offset_ms').notNullable().defaultTo(0);
  });
  await knex.schema.createTable('transactions', (t) => {
    t.string('id', 36).primary();
    t.string('merchant_id', 36).notNullable().references('id').inTable('merchants');
    // PaymentMethodType: 1 Card, 2 ElectronicCheck (ACH).
    t.integer('payment_method_type_id').notNullable();
    // TransactionType as created (1 Authorization, 2 Sale, 7 RefundWORef, 11 AchDebit, 12 AchRefund).
    t.integer('type_id').notNullable();
    t.integer('status_id').notNullable();
    t.string('processor_id', 36).notNullable();
    t.integer('creator_type_id').notNullable();
    t.bigInteger('amount_cents').notNullable();
    t.bigInteger('tip_amount_cents').notNullable().defaultTo(0);
    t.bigInteger('approved_amount_cents');
    t.bigInteger('processed_amount_cents').notNullable().defaultTo(0);
    t.bigInteger('refunded_amount_cents').notNullable().defaultTo(0);
    t.string('response_code', 3);
    t.string('response_description', 200);
    t.string('authorization_code', 6);
    t.string('return_code', 3);
    t.string('customer_id', 36);
    t.string('payment_method_id', 36);
    t.string('invoice_id', 36);
    // Cards.
    t.string('pan_mask', 19);
    t.integer('card_type');
    t.string('avs_result', 1);
    t.string('cvv_result', 1);
    // ACH.
    t.string('account_last4', 4);
    t.string('routing_number', 9);
    t.integer('sec_code');
    t.boolean('is_faster_processing').notNullable().defaultTo(false);
    // The sandbox outcome a magic account number stands for (`R01`…, `096`), derived at creation; null otherwise.
    t.string('sandbox_outcome', 3);
    t.string('order_number', 50);
    t.string('description', 255);
    // ACH: when the payer ticked the authorization box (invoice payments); kept for the compliance audit.
    t.string('authorization_consent_on', 24);
    t.string('created_on', 24).notNullable();
    t.string('modified_on', 24).notNullable();
    t.string('submitted_on', 24);
    t.string('settled_on', 24);
    t.string('expires_at', 24);
    // What the network does next and when (business time): submit, clear, settle, expire; null when nothing.
    t.string('due_action', 10);
    t.string('due_at', 24);
    t.string('settlement_batch_id', 36);
    t.index(['merchant_id', 'created_on']);
    t.index(['merchant_id', 'due_at']);
    t.index(['due_at']);
    t.index(['customer_id']);
  });
  await knex.schema.createTable('transaction_history', (t) => {
    t.string('id', 36).primary();
    t.string('transaction_id', 36).notNullable().references('id').inTable('transactions').onDelete('CASCADE');
    // Null for the creation.
    t.integer('from_status_id');
    t.integer('to_status_id').notNullable();
    // An operationId or a network trigger of the state machine (spec: x-state-machine).
    t.string('trigger', 60).notNullable();
    t.string('response_code', 3);
    t.string('return_code', 3);
    t.string('created_on', 24).notNullable();
    t.index(['transaction_id', 'created_on']);
  });
  await knex.schema.createTable('settlement_batches', (t) => {
    t.string('id', 36).primary();
    t.string('merchant_id', 36).notNullable().references('id').inTable('merchants');
    t.string('processor_id', 36).notNullable();
    t.string('opened_on', 24).notNullable();
    t.string('settled_on', 24).notNullable();
    t.integer('transaction_count').notNullable();
    t.bigInteger('sale_amount_cents').notNullable();
    t.bigInteger('refund_amount_cents').notNullable();
    t.index(['merchant_id', 'settled_on']);
  });
}

export async function down(knex: Knex): Promise<void> {
  for (const table of ['settlement_batches', 'transaction_history', 'transactions']) await knex.schema.dropTableIfExists(table);
  await knex.schema.alterTable('merchants', (t) => { t.dropColumn('clock_offset_ms'); });
}
