// Subscriptions as billing users expect them (issue 42): a trial's end, the schedule's own anchor (a trial or a
// change of frequency moves it), a pause, the credit a prorated downgrade leaves, the latest plan change with
// its proration, the invoice of each period, and each merchant's dunning settings.
import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('subscriptions', (t) => {
    t.string('trial_end', 24);
    t.string('paused_on', 24);
    // The schedule's anchor: payment n falls due n intervals after it (start_date until a change of frequency).
    t.string('anchor_date', 24);
    t.bigInteger('credit_cents').notNullable().defaultTo(0);
    // The latest plan change and its proration, as the API shows it (JSON).
    t.text('latest_change');
    // Subscriptions made before invoices per period keep their bare payments; new ones say (true by default).
    t.boolean('invoice_per_period').notNullable().defaultTo(false);
    t.string('latest_invoice_id', 36);
  });
  // A merchant's dunning settings; a merchant without a row has the spec's initial ones.
  await knex.schema.createTable('subscription_settings', (t) => {
    t.string('merchant_id', 36).primary().references('id').inTable('merchants');
    // JSON array of day offsets (SubscriptionRetryDays).
    t.string('retry_days', 100).notNullable();
    t.string('after_last_failure', 12).notNullable();
    t.string('modified_on', 24).notNullable();
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTableIfExists('subscription_settings');
  await knex.schema.alterTable('subscriptions', (t) => {
    t.dropColumn('trial_end');
    t.dropColumn('paused_on');
    t.dropColumn('anchor_date');
    t.dropColumn('credit_cents');
    t.dropColumn('latest_change');
    t.dropColumn('invoice_per_period');
    t.dropColumn('latest_invoice_id');
  });
}
