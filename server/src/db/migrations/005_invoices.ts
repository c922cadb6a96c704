// Invoices with their lines and history, the per-merchant invoice number sequence, and the notifications
// the sandbox notifier records. Conventions of 001_platform (ISO text dates, integer cents).
import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('invoice_number_sequences', (t) => {
    t.string('merchant_id', 36).primary().references('id').inTable('merchants');
    // The last number given; the next publication takes last_number + 1.
    t.integer('last_number').notNullable().defaultTo(0);
  });

  await knex.schema.createTable('invoices', (t) => {
    t.string('id', 36).primary();
    t.string('merchant_id', 36).notNullable().references('id').inTable('merchants');
    // Stored statuses: 1 Draft, 2 Due, 4 Paid, 5 Cancelled. PastDue (3) is never stored: it is a Due
    // invoice whose due_date is before the clock's now, so it needs no job to stay true.
    t.integer('status_id').notNullable();
    // INV-000001 and its sequence number (for ordering: INV-1000000 sorts after INV-999999).
    t.string('number', 20);
    t.integer('number_seq');
    t.string('issue_date', 24);
    t.string('due_date', 24);
    t.string('payment_date', 24);
    t.string('card_processor_id', 36);
    t.string('ach_processor_id', 36);
    t.text('additional_notes').notNullable().defaultTo('');
    t.bigInteger('sub_total_cents').notNullable();
    t.bigInteger('shipping_cents').notNullable();
    // The record's totalAmount: the base amount while unpaid, the amount paid once paid.
    t.bigInteger('total_cents').notNullable();
    // Percentages kept as given (doubles read back the same on both engines; not money).
    t.double('tax_percentage').notNullable();
    t.double('fees_percentage').notNullable();
    t.double('discount_percentage').notNullable();
    // Those of the payment, once paid; 0 until then.
    t.bigInteger('surcharge_cents').notNullable().defaultTo(0);
    t.double('surcharge_percentage').notNullable().defaultTo(0);
    t.bigInteger('cash_discount_cents').notNullable().defaultTo(0);
    t.double('cash_discount_percentage').notNullable().defaultTo(0);
    t.integer('payment_method_type_id');
    t.string('merchant_contact_info_id', 36).notNullable();
    t.string('customer_id', 36);
    // The invoice's own copy of its customer; addresses as JSON {line1, line2, city, zip, countryId, stateId, stateName}.
    t.string('customer_first_name', 100).notNullable();
    t.string('customer_last_name', 100).notNullable();
    t.string('customer_company_name', 200);
    t.string('customer_email', 254);
    t.string('customer_mobile_phone_number', 20);
    t.boolean('customer_sms_enabled').notNullable().defaultTo(false);
    t.boolean('customer_use_billing_as_shipping').notNullable().defaultTo(false);
    t.text('customer_billing_address');
    t.text('customer_shipping_address');
    // The 8-character code of the short address {base_url}/i/{code}.
    t.string('short_code', 8).notNullable().unique();
    t.boolean('marked_as_paid');
    t.string('transaction_id', 36);
    t.boolean('ach_allow_faster_processing');
    // The merchant's zero cost processing option and rates, frozen at publication (null on a draft).
    t.integer('zero_cost_processing_option_id');
    t.double('surcharge_rate');
    t.double('cash_discount_rate');
    t.double('dual_pricing_rate');
    t.boolean('use_card_price');
    t.string('created_on', 24).notNullable();
    t.string('modified_on', 24).notNullable();
    // The list: default order, status filter (with due_date for Due / PastDue), each date range.
    t.index(['merchant_id', 'created_on']);
    t.index(['merchant_id', 'status_id', 'due_date']);
    t.index(['merchant_id', 'issue_date']);
    t.index(['merchant_id', 'due_date']);
    t.index(['merchant_id', 'payment_date']);
    t.index(['merchant_id', 'total_cents']);
    t.unique(['merchant_id', 'number_seq']);
    t.index(['customer_id']);
  });
  // Search and ordering by number and customer name (lower(): the same on both engines).
  for (const [name, expression] of [
    ['invoices_merchant_number_index', 'lower(number)'],
    ['invoices_merchant_customer_name_index', "lower(customer_first_name || ' ' || customer_last_name)"],
    ['invoices_merchant_customer_last_name_index', 'lower(customer_last_name)'],
    ['invoices_merchant_customer_email_index', 'lower(customer_email)'],
  ] as const) {
    await knex.raw(`create index ${name} on invoices (merchant_id, ${expression})`);
  }

  await knex.schema.createTable('invoice_line_items', (t) => {
    t.string('id', 36).primary();
    t.string('invoice_id', 36).notNullable().references('id').inTable('invoices').onDelete('CASCADE');
    t.integer('position').notNullable();
    // The catalogue item the line was copied from (no foreign key: the catalogue item may be deleted,
    // the invoice keeps its copy); null for a manually entered line.
    t.string('line_item_id', 36);
    t.integer('unit_type_id').notNullable();
    t.string('product_name', 200).notNullable();
    t.string('description', 1000);
    t.string('sku', 64);
    t.bigInteger('unit_price_cents').notNullable();
    t.double('quantity').notNullable();
    t.double('discount_percentage').notNullable();
    t.bigInteger('total_cents').notNullable();
    // The line differs from its catalogue item (or was entered manually) when it was saved.
    t.boolean('is_modified').notNullable();
    t.unique(['invoice_id', 'position']);
  });

  await knex.schema.createTable('invoice_history', (t) => {
    t.string('id', 36).primary();
    t.string('invoice_id', 36).notNullable().references('id').inTable('invoices').onDelete('CASCADE');
    // Order of the entries of one invoice (entries written in one instant keep their order).
    t.integer('position').notNullable();
    t.integer('type_id').notNullable();
    t.string('error_code', 20);
    t.string('error_message', 500);
    t.string('notification_id', 36);
    t.integer('notification_type_id');
    t.integer('notification_template_type_id');
    t.string('notification_target', 254);
    t.string('transaction_id', 36);
    t.integer('payment_method_type_id');
    t.string('created_on', 24).notNullable();
    t.unique(['invoice_id', 'position']);
  });

  // The outbox of messages to customers: the sandbox notifier records them here and delivers nothing; a
  // real e-mail or SMS provider would deliver them and set delivered_on.
  await knex.schema.createTable('notifications', (t) => {
    t.string('id', 36).primary();
    t.string('merchant_id', 36).notNullable().references('id').inTable('merchants');
    t.string('invoice_id', 36);
    // InvoiceNotificationType: 1 Email, 2 Sms; InvoiceNotificationTemplateType: 1 InvoicePublished...
    t.integer('channel_id').notNullable();
    t.integer('template_type_id').notNullable();
    t.string('target', 254).notNullable();
    t.string('subject', 300);
    t.text('body').notNullable();
    t.string('created_on', 24).notNullable();
    t.string('delivered_on', 24);
    t.index(['merchant_id', 'created_on']);
    t.index(['invoice_id']);
  });
}

export async function down(knex: Knex): Promise<void> {
  for (const table of ['notifications', 'invoice_history', 'invoice_line_items', 'invoices', 'invoice_number_sequences']) {
    await knex.schema.dropTableIfExists(table);
  }
}
