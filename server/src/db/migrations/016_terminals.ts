// Payment terminals (designed): registered by serial number, with the paper status the terminal last reported
// (the TerminalPaperStatus state machine). No history table: the machine's notable moves are its events.
import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('terminals', (t) => {
    t.string('id', 36).primary();
    t.string('merchant_id', 36).notNullable().references('id').inTable('merchants');
    // Stored in capitals (the comparison form): unique per merchant, so a concurrent duplicate cannot slip in.
    t.string('serial_number', 40).notNullable();
    t.string('model', 40).notNullable();
    t.string('name', 80);
    t.string('paper_status', 8).notNullable();
    t.string('created_on', 24).notNullable();
    t.string('last_seen_at', 24);
    t.unique(['merchant_id', 'serial_number']);
    // The list's default order and its date range (createdOn).
    t.index(['merchant_id', 'created_on']);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTableIfExists('terminals');
}
