// The merchant's invoice settings: one row per merchant, made with the spec's initial values the first time
// the settings are read or updated (services/invoice-settings.ts). Percentages are doubles kept as given;
// the shipping fee is money, in integer cents.
import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('invoice_settings', (t) => {
    // The primary key is the lookup path: every read and update addresses one merchant's row.
    t.string('merchant_id', 36).primary().references('id').inTable('merchants');
    t.integer('due_date_after_days');
    t.double('tax_percentage');
    t.boolean('is_discount_enabled').notNullable().defaultTo(false);
    t.double('discount_percentage');
    t.boolean('is_shipping_fee_enabled').notNullable().defaultTo(false);
    t.bigInteger('shipping_fee_cents');
    t.boolean('is_fees_enabled').notNullable().defaultTo(false);
    t.double('fees_percentage');
    t.text('notes').notNullable().defaultTo('');
    t.integer('payment_method_type_id').notNullable().defaultTo(1);
    t.string('card_payment_processor_id', 36).references('id').inTable('payment_processors');
    t.string('ach_payment_processor_id', 36).references('id').inTable('payment_processors');
    t.boolean('allow_staff_discounts').notNullable().defaultTo(false);
    t.boolean('allow_manual_line_items').notNullable().defaultTo(true);
    t.boolean('sms_after_payment').notNullable().defaultTo(false);
    t.boolean('sms_after_payment_failed').notNullable().defaultTo(false);
    t.boolean('ach_allow_faster_processing').notNullable().defaultTo(false);
    t.boolean('can_overwrite_line_item_price').notNullable().defaultTo(true);
    // Set by the gateway, never by the API.
    t.boolean('new_zcp_feature_enabled').notNullable().defaultTo(false);
    t.string('created_on', 24).notNullable();
    t.string('modified_on', 24).notNullable();
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTableIfExists('invoice_settings');
}
