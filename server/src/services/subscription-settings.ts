// A merchant's dunning settings (the spec's SubscriptionSettings): the retry schedule of a failed subscription
// payment and what its last failure does, read at each failure; bounded as the spec says.
import type { components } from '@pgw/client/types';
import { ApiError } from '../platform/errors.ts';
import type { Scope } from '../platform/scope.ts';
import { iso } from '../platform/time.ts';
import { withTransaction } from '../platform/transaction.ts';
import { type DunningSettings, findSettings, saveSettings } from '../repositories/subscription-settings.ts';
import type { Knex } from 'knex';

type Schemas = components['schemas'];

/** A merchant's settings before any change (spec: SubscriptionSettings). */
export const INITIAL_DUNNING: DunningSettings = { retryDays: [1, 2], afterLastFailure: 'Delinquent' };

/** The longest a payment may be retried for, all retries together (spec: SubscriptionRetryDays). */
const MAX_RETRY_SPAN_DAYS = 60;

/** The merchant's dunning settings (the initial ones when it never changed them). */
export async function dunningOf(db: Knex, merchantId: string): Promise<DunningSettings> {
  return (await findSettings(db, merchantId)) ?? INITIAL_DUNNING;
}

const view = (merchantId: string, d: DunningSettings): Schemas['SubscriptionSettings'] => ({ merchantId, retryDays: d.retryDays, afterLastFailure: d.afterLastFailure });

export async function getSubscriptionSettings(scope: Scope): Promise<Schemas['SubscriptionSettings']> {
  return view(scope.merchantId, await dunningOf(scope.db, scope.merchantId));
}

/** Changes the fields given; the schema bounds each entry, the span of all retries is bounded here. */
export async function updateSubscriptionSettings(scope: Scope, body: Schemas['SubscriptionSettingsUpdateRequest']): Promise<Schemas['SubscriptionSettings']> {
  if (body.retryDays !== undefined && body.retryDays.reduce((a, b) => a + b, 0) > MAX_RETRY_SPAN_DAYS) {
    throw new ApiError('validation_failed', { errors: { retryDays: [`must add up to at most ${String(MAX_RETRY_SPAN_DAYS)} days`] } });
  }
  return withTransaction(scope.db, async (tx) => {
    const current = await dunningOf(tx, scope.merchantId);
    const next: DunningSettings = { retryDays: body.retryDays ?? current.retryDays, afterLastFailure: body.afterLastFailure ?? current.afterLastFailure };
    await saveSettings(tx, scope.merchantId, next, iso(scope.clock.now()));
    return view(scope.merchantId, next);
  });
}
