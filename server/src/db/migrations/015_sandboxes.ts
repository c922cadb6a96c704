// Disposable sandbox merchants: when a merchant expires (null: a merchant that does not), and when its
// deletion began (null: not being deleted). A merchant being deleted is invisible to authentication and
// tenancy at once, so its records can go in bounded batches afterwards and a crashed delete can resume.
import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('merchants', (t) => {
    t.string('sandbox_expires_at', 24);
    t.string('deleting_on', 24);
    // The sweep's question: which sandboxes have expired or were left half deleted.
    t.index(['sandbox_expires_at'], 'merchants_sandbox_expires_at');
    t.index(['deleting_on'], 'merchants_deleting_on');
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('merchants', (t) => {
    t.dropIndex(['sandbox_expires_at'], 'merchants_sandbox_expires_at');
    t.dropIndex(['deleting_on'], 'merchants_deleting_on');
  });
  // SQLite: Knex drops a column by copying the table, which the rows that refer to merchants refuse (a foreign
  // key failure once the database holds data); SQLite's own DROP COLUMN keeps the table.
  if ((knex.client as { config: { client: string } }).config.client !== 'pg') {
    await knex.raw('alter table merchants drop column sandbox_expires_at');
    await knex.raw('alter table merchants drop column deleting_on');
    return;
  }
  await knex.schema.alterTable('merchants', (t) => {
    t.dropColumn('sandbox_expires_at');
    t.dropColumn('deleting_on');
  });
}
