// Webhooks: endpoints (a merchant's receivers), deliveries (one per event and endpoint, and one per manual
// retry) and the attempts of each delivery. Conventions of 001_platform. The signing secret is stored: the
// gateway signs every attempt with it, and the owner reads it back (the spec says so).
import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('webhook_endpoints', (t) => {
    t.string('id', 36).primary();
    t.string('merchant_id', 36).notNullable().references('id').inTable('merchants');
    t.string('name', 100).notNullable();
    t.string('endpoint_url', 2048).notNullable();
    // JSON array of event types.
    t.text('event_types').notNullable();
    t.boolean('is_active').notNullable().defaultTo(true);
    t.string('signing_secret', 60).notNullable();
    t.string('created_on', 24).notNullable();
    t.string('modified_on', 24).notNullable();
    // Deleting is irreversible; the row stays (its delivery log remains) but is never shown again.
    t.string('deleted_on', 24);
    t.index(['merchant_id', 'created_on']);
  });
  await knex.schema.createTable('webhook_deliveries', (t) => {
    t.string('id', 36).primary();
    t.string('merchant_id', 36).notNullable().references('id').inTable('merchants');
    t.string('endpoint_id', 36).notNullable().references('id').inTable('webhook_endpoints');
    t.string('event_id', 36).notNullable();
    t.string('event_type', 100).notNullable();
    // Pending, Succeeded, Failed.
    t.string('status', 10).notNullable();
    // Scheduled (the fan-out of an event) or Manual (a retry of a failed delivery).
    t.string('trigger_type', 10).notNullable();
    t.integer('attempt_number').notNullable();
    t.string('next_retry_at', 24);
    t.string('last_attempt_at', 24);
    t.integer('response_status_code');
    t.integer('response_duration_ms');
    // Wall-clock time until which a worker holds the delivery (a crashed worker's claim lapses then).
    t.string('lease_until', 24);
    t.string('created_on', 24).notNullable();
    t.index(['merchant_id', 'created_on']);
    t.index(['status', 'next_retry_at']);
    t.index(['endpoint_id', 'created_on']);
  });
  // An event reaches each endpoint once by its fan-out, whatever happens around it.
  await knex.raw("create unique index webhook_deliveries_fan_out on webhook_deliveries (event_id, endpoint_id) where trigger_type = 'Scheduled'");
  await knex.schema.createTable('webhook_attempts', (t) => {
    t.string('id', 36).primary();
    t.string('delivery_id', 36).notNullable().references('id').inTable('webhook_deliveries');
    t.integer('attempt_number').notNullable();
    t.string('attempted_on', 24).notNullable();
    t.integer('response_status_code');
    t.integer('duration_ms').notNullable();
    // ok, timeout, refused, dns, tls, http_3xx, http_4xx, http_5xx, network.
    t.string('outcome', 10).notNullable();
    t.string('response_excerpt', 1024);
    t.index(['delivery_id', 'attempt_number']);
  });
}

export async function down(knex: Knex): Promise<void> {
  for (const table of ['webhook_attempts', 'webhook_deliveries', 'webhook_endpoints']) await knex.schema.dropTableIfExists(table);
}
