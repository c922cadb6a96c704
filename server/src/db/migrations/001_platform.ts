// Tenants, credentials, keys, configuration, idempotency records and the event outbox.
// Conventions of every table: uuid text ids; date-times as ISO 8601 UTC text of fixed width
// (`2026-01-02T03:04:05.678Z`), so they sort and compare the same on SQLite and PostgreSQL; money in
// integer cents (bigint).
import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('partners', (t) => {
    t.string('id', 36).primary();
    t.string('name', 200).notNullable();
    t.integer('status_id').notNullable().defaultTo(1);
    t.integer('business_category_id').notNullable().defaultTo(2);
    t.integer('business_model_type_id').notNullable().defaultTo(1);
    t.string('created_on', 24).notNullable();
  });

  await knex.schema.createTable('merchants', (t) => {
    t.string('id', 36).primary();
    t.string('partner_id', 36).notNullable().references('id').inTable('partners');
    t.string('company_name', 200).notNullable();
    t.string('mcc_code', 4).notNullable();
    t.string('mcc_description', 200).notNullable();
    t.integer('zero_cost_processing_option_id').notNullable().defaultTo(0);
    t.boolean('is_tips_enabled').notNullable().defaultTo(false);
    t.text('default_tips_options');
    t.decimal('default_surcharge_rate', 7, 4);
    t.decimal('default_cash_discount_rate', 7, 4);
    t.decimal('default_dual_pricing_rate', 7, 4);
    t.bigInteger('max_transaction_amount_cents');
    t.boolean('avs_enabled').notNullable().defaultTo(true);
    t.boolean('card_saving_by_terminal_enabled').notNullable().defaultTo(false);
    t.boolean('webhooks_permission').notNullable().defaultTo(true);
    t.string('created_on', 24).notNullable();
    t.index(['partner_id']);
  });

  await knex.schema.createTable('api_keys', (t) => {
    t.string('client_id', 64).primary();
    t.string('partner_id', 36).notNullable().references('id').inTable('partners');
    // Null for a partner's own key; a merchant's key acts on that merchant only.
    t.string('merchant_id', 36).references('id').inTable('merchants');
    t.string('name', 100).notNullable();
    t.string('secret_hash', 64).notNullable();
    t.boolean('is_active').notNullable().defaultTo(true);
    t.string('created_on', 24).notNullable();
    t.string('last_used_at', 24);
    t.string('revoked_on', 24);
    t.index(['merchant_id', 'is_active']);
  });

  await knex.schema.createTable('users', (t) => {
    t.string('id', 36).primary();
    t.string('merchant_id', 36).notNullable().references('id').inTable('merchants');
    t.string('email', 254).notNullable().unique();
    t.string('first_name', 100).notNullable();
    t.string('last_name', 100).notNullable();
    t.string('password_hash', 200).notNullable();
    t.string('created_on', 24).notNullable();
  });

  await knex.schema.createTable('payment_processors', (t) => {
    t.string('id', 36).primary();
    t.string('merchant_id', 36).notNullable().references('id').inTable('merchants');
    t.integer('type_id').notNullable();
    t.string('name', 200).notNullable();
    t.boolean('is_default').notNullable().defaultTo(false);
    // JSON array of {hours, minutes, timezoneName}.
    t.text('settlement_batch_time_slots').notNullable().defaultTo('[]');
    t.index(['merchant_id', 'type_id']);
  });

  await knex.schema.createTable('contact_infos', (t) => {
    t.string('id', 36).primary();
    t.string('merchant_id', 36).notNullable().references('id').inTable('merchants');
    t.string('address_name', 100).notNullable();
    t.string('address_line1', 200).notNullable();
    t.string('address_line2', 200);
    t.string('city', 100).notNullable();
    t.string('zip', 20).notNullable();
    t.integer('country_id').notNullable();
    t.integer('state_id');
    t.string('state_name', 100);
    t.string('email', 254).notNullable();
    t.string('business_phone_number', 20).notNullable();
    t.boolean('is_main_address').notNullable().defaultTo(false);
    t.boolean('is_default_address').notNullable().defaultTo(false);
    t.index(['merchant_id']);
  });

  await knex.schema.createTable('signing_keys', (t) => {
    t.string('environment', 20).primary();
    t.string('secret', 100).notNullable();
    t.string('created_on', 24).notNullable();
  });

  await knex.schema.createTable('idempotency_keys', (t) => {
    // The tenant is the API key's owner: a partner acting on a merchant and that merchant do not share keys.
    t.string('tenant', 80).notNullable();
    t.string('key', 255).notNullable();
    t.string('request_hash', 64).notNullable();
    t.string('state', 12).notNullable();
    t.integer('response_status');
    t.text('response_headers');
    t.text('response_body');
    t.string('created_on', 24).notNullable();
    t.string('expires_on', 24).notNullable();
    t.primary(['tenant', 'key']);
    t.index(['expires_on']);
  });

  await knex.schema.createTable('outbox_events', (t) => {
    t.string('id', 36).primary();
    t.string('merchant_id', 36).notNullable().references('id').inTable('merchants');
    t.string('type', 100).notNullable();
    t.text('payload').notNullable();
    t.string('occurred_on', 24).notNullable();
    t.string('dispatched_on', 24);
    t.index(['dispatched_on', 'occurred_on']);
  });
}

export async function down(knex: Knex): Promise<void> {
  for (const table of ['outbox_events', 'idempotency_keys', 'signing_keys', 'contact_infos', 'payment_processors', 'users', 'api_keys', 'merchants', 'partners']) {
    await knex.schema.dropTableIfExists(table);
  }
}
