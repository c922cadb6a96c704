// A merchant's subscription dunning settings (Knex only): one row per merchant that changed them; none means
// the spec's initial ones (services/subscription-settings.ts).
import type { Knex } from 'knex';

export type AfterLastFailure = 'Delinquent' | 'Cancelled';

export interface DunningSettings {
  retryDays: number[];
  afterLastFailure: AfterLastFailure;
}

interface Row { merchant_id: string; retry_days: string; after_last_failure: AfterLastFailure; modified_on: string }

export async function findSettings(db: Knex, merchantId: string): Promise<DunningSettings | undefined> {
  const row = (await db('subscription_settings').where({ merchant_id: merchantId }).first()) as Row | undefined;
  return row ? { retryDays: JSON.parse(row.retry_days) as number[], afterLastFailure: row.after_last_failure } : undefined;
}

/** Writes the merchant's settings (the row made the first time). */
export async function saveSettings(db: Knex, merchantId: string, settings: DunningSettings, now: string): Promise<void> {
  await db('subscription_settings').insert({ merchant_id: merchantId, retry_days: JSON.stringify(settings.retryDays), after_last_failure: settings.afterLastFailure, modified_on: now })
    .onConflict('merchant_id').merge(['retry_days', 'after_last_failure', 'modified_on']);
}
