// The product catalogue (categories, line items) and the tap-to-pay devices. Unit types are not a table:
// they are the spec's data (the listUnitTypes example), and line items keep the unit type's id.
import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('categories', (t) => {
    t.string('id', 36).primary();
    t.string('merchant_id', 36).notNullable().references('id').inTable('merchants');
    // The name as given (trimmed); name_key is its comparison form (trimmed, lower case), unique per merchant.
    // Lower case can be longer than the name (`İ` becomes two code points): the key has room for it.
    t.string('name', 100).notNullable();
    t.string('name_key', 300).notNullable();
    t.integer('default_unit_type_id');
    t.string('created_on', 24).notNullable();
    t.string('modified_on', 24).notNullable();
    // Also backs the list's default order (name) and its search.
    t.unique(['merchant_id', 'name_key']);
  });

  await knex.schema.createTable('line_items', (t) => {
    t.string('id', 36).primary();
    t.string('merchant_id', 36).notNullable().references('id').inTable('merchants');
    t.string('product_name', 200).notNullable();
    t.string('description', 1000);
    t.string('sku', 64);
    t.bigInteger('unit_price_cents').notNullable();
    t.integer('unit_type_id').notNullable();
    // The service also clears it explicitly when a category is deleted; the foreign key is the backstop.
    t.string('category_id', 36).references('id').inTable('categories').onDelete('SET NULL');
    // A percentage kept as given (a double reads back the same on both engines; not money).
    t.double('tax_rate').notNullable().defaultTo(0);
    t.string('created_on', 24).notNullable();
    t.string('modified_on', 24).notNullable();
    // The list's filters (categoryId, noCategory) and the category's itemCount.
    t.index(['merchant_id', 'category_id']);
    t.index(['category_id']);
  });
  // The list's default order; an expression index reads the same on SQLite and PostgreSQL.
  await knex.raw('create index line_items_merchant_product_name_index on line_items (merchant_id, lower(product_name))');

  await knex.schema.createTable('devices', (t) => {
    // Device ids are scoped to the merchant: two merchants may register the same id.
    t.string('merchant_id', 36).notNullable().references('id').inTable('merchants');
    t.string('device_id', 36).notNullable();
    t.string('device_name', 200);
    t.integer('tap_to_pay_status_id').notNullable().defaultTo(1);
    t.string('last_login_at', 24).notNullable();
    t.string('api_key_name', 100).notNullable();
    t.string('created_on', 24).notNullable();
    t.primary(['merchant_id', 'device_id']);
    // The list's default order and its date range (lastLoginAt).
    t.index(['merchant_id', 'last_login_at']);
  });
}

export async function down(knex: Knex): Promise<void> {
  for (const table of ['devices', 'line_items', 'categories']) await knex.schema.dropTableIfExists(table);
}
