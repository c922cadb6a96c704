// Customers and their stored payment methods (cards and bank accounts). Conventions of 001_platform.
// A card is kept as its panMask, last four digits and a random token; a bank account as its last four
// digits (and, for the sandbox's magic test numbers, the magic code): never a whole number, never a
// security code.
import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('customers', (t) => {
    t.string('id', 36).primary();
    t.string('merchant_id', 36).notNullable().references('id').inTable('merchants');
    t.string('first_name', 100);
    t.string('last_name', 100).notNullable();
    t.string('company_name', 200);
    t.string('email', 254);
    t.string('mobile_phone_number', 20);
    t.boolean('sms_notifications_enabled').notNullable().defaultTo(false);
    t.boolean('use_billing_as_shipping').notNullable().defaultTo(false);
    // JSON {addressLine1, addressLine2, city, zip, stateName, stateId, countryId}, or null for none.
    t.text('billing_address');
    t.text('shipping_address');
    // Payment method ids (no foreign key: payment_methods references customers).
    t.string('default_payment_method_id', 36);
    t.string('default_ach_payment_method_id', 36);
    t.string('created_on', 24).notNullable();
    t.string('modified_on', 24).notNullable();
    // The customer's approved payments, maintained by the payment operations in the same transaction as
    // the payment (Customer schema: sales, captures and ACH debits not declined, failed, voided,
    // cancelled or returned; refunds do not count).
    t.integer('transactions_count').notNullable().defaultTo(0);
    t.bigInteger('transactions_volume_cents').notNullable().defaultTo(0);
    t.string('last_transaction_on', 24);
    t.bigInteger('last_transaction_amount_cents');
    t.index(['merchant_id', 'created_on']);
    t.index(['merchant_id', 'modified_on']);
    t.index(['merchant_id', 'last_transaction_on']);
    t.index(['merchant_id', 'last_transaction_amount_cents']);
  });
  // Orders of the search (text columns order by lower(), alike on both engines).
  for (const [name, expression] of [
    ['customers_merchant_first_name_index', 'lower(first_name)'],
    ['customers_merchant_last_name_index', 'lower(last_name)'],
    ['customers_merchant_company_name_index', 'lower(company_name)'],
    ['customers_merchant_email_index', 'lower(email)'],
    ['customers_merchant_contact_name_index', "lower(coalesce(first_name || ' ', '') || last_name)"],
  ] as const) {
    await knex.raw(`create index ${name} on customers (merchant_id, ${expression})`);
  }

  await knex.schema.createTable('payment_methods', (t) => {
    t.string('id', 36).primary();
    t.string('merchant_id', 36).notNullable().references('id').inTable('merchants');
    t.string('customer_id', 36).notNullable().references('id').inTable('customers').onDelete('CASCADE');
    // PaymentMethodType: 1 Card, 2 ElectronicCheck (bank account).
    t.integer('type_id').notNullable();
    // Order of the customer's payment methods (oldest first), unique per customer.
    t.integer('position').notNullable();
    t.string('name', 100);
    // Last four digits of the card or account number (the list's search matches them).
    t.string('last4', 4).notNullable();
    // Cards.
    t.string('pan_mask', 19);
    t.integer('card_type');
    t.integer('credit_debit_type');
    t.integer('card_token_type');
    t.string('card_token', 64);
    t.integer('expiration_month');
    t.integer('expiration_year');
    // Bank accounts.
    t.string('routing_number', 9);
    t.integer('account_type_id');
    t.integer('account_holder_type_id');
    t.string('tax_id', 20);
    // `NN` of a sandbox magic account number 9900000000NN (its outcome), else null.
    t.string('sandbox_magic_code', 2);
    t.string('created_on', 24).notNullable();
    t.string('modified_on', 24).notNullable();
    t.unique(['customer_id', 'position']);
    t.index(['customer_id', 'created_on']);
    t.index(['merchant_id']);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTableIfExists('payment_methods');
  await knex.schema.dropTableIfExists('customers');
}
