// The subscription family of the engine: the spec's machine (x-state-machine on SubscriptionStatus) over the
// subscriptions table. A move carries the fields it sets (schedule, attempt, counters); the adapter writes them
// with the row's status and keeps the customer's live subscription count and amount true in the same
// transaction. No history table: the payments are transactions of their own, and the moves that matter emit events.
import { subscriptionStateMachine, type SubscriptionTransition } from '@pgw/client/state-machines';
import type { components } from '@pgw/client/types';
import type { WebhookEventName } from '@pgw/client/webhooks';
import { ApiError } from '../platform/errors.ts';
import { fromCents } from '../platform/money.ts';
import type { EventData } from '../platform/outbox.ts';
import * as repo from '../repositories/subscriptions.ts';
import { LIVE_STATUSES, type SubscriptionRecord, type SubscriptionStatus } from '../repositories/subscriptions.ts';
import * as engine from './engine.ts';

export type SubscriptionView = components['schemas']['WebhookSubscription'];

/** What a move sets besides the status (nothing: only the status changes). */
export type SubscriptionChange = Partial<Omit<SubscriptionRecord, 'id' | 'merchantId' | 'customerId' | 'status' | 'createdOn'>>;

/** The statuses that collect, or will (numberOfSubscriptions counts them). */
export const LIVE: ReadonlySet<SubscriptionStatus> = new Set(LIVE_STATUSES);

/** The subscription as the API and its events show it. */
export const subscriptionView = (s: SubscriptionRecord): SubscriptionView => ({
  subscriptionId: s.id, customerId: s.customerId, paymentMethodId: s.paymentMethodId, amount: fromCents(s.amountCents), currencyIsoCode: 'USD',
  frequency: s.frequency, status: s.status, startDate: s.startDate, nextPaymentDate: s.nextPaymentDate, lastPaymentDate: s.lastPaymentDate,
  failedPaymentCount: s.failedPaymentCount, transactionId: s.transactionId, createdOn: s.createdOn, description: s.description,
  totalPayments: s.totalPayments, paymentsCount: s.paymentsCount, cancelAtPeriodEnd: s.cancelAtPeriodEnd, cancelledOn: s.cancelledOn,
  lineItemId: s.lineItemId, quantity: s.quantity, trialEnd: s.trialEnd, pausedOn: s.pausedOn,
  creditAmount: fromCents(s.creditCents), latestChange: s.latestChange, invoicePerPeriod: s.invoicePerPeriod, latestInvoiceId: s.latestInvoiceId,
});

/** The customer's count and amount a subscription adds while it is live. */
const share = (s: SubscriptionRecord): { count: number; cents: number } => (LIVE.has(s.status) ? { count: 1, cents: s.amountCents } : { count: 0, cents: 0 });

async function recount(db: engine.InTransaction['db'], before: SubscriptionRecord | null, after: SubscriptionRecord): Promise<void> {
  const was = before === null ? { count: 0, cents: 0 } : share(before);
  const now = share(after);
  await repo.countOnCustomer(db, after.customerId, now.count - was.count, now.cents - was.cents);
}

const subscriptions: engine.Adapter<SubscriptionRecord, SubscriptionTransition, SubscriptionChange, engine.InTransaction> = {
  table: 'subscriptions',
  fromRow: (row) => repo.recordOf(row as unknown as repo.Row),
  status: (record) => record.status,
  type: () => null,
  merchantOf: (record) => record.merchantId,
  initial: () => ({ type: null }),
  insert: async (db, fresh, row, change) => {
    const record: SubscriptionRecord = { ...fresh, ...change, status: row.to };
    await repo.insertSubscription(db, record);
    await recount(db as engine.InTransaction['db'], null, record);
    return record;
  },
  apply: async (db, moves) => {
    const afters: SubscriptionRecord[] = [];
    for (const { record, row, change } of moves) {
      const after: SubscriptionRecord = { ...record, ...change, status: row.to };
      // The record was locked when it was read, so only a caller that did not lock it gets here.
      if (!(await repo.updateSubscription(db, after))) throw new ApiError('internal_error', { details: `subscription ${record.id} changed under a transition` });
      await recount(db as engine.InTransaction['db'], record, after);
      afters.push(after);
    }
    return afters;
  },
  remove: () => Promise.reject(new ApiError('internal_error', { details: 'a subscription is never removed by a transition' })),
  history: () => Promise.resolve(),
  // Every subscription event carries the subscription as getSubscription shows it after the move.
  // eslint-disable-next-line @typescript-eslint/require-await -- the adapter's contract is a promise
  eventData: async <E extends WebhookEventName>(_scope: engine.InTransaction, _event: E, after: SubscriptionRecord): Promise<EventData<E>> =>
    subscriptionView(after) as EventData<E>,
};

/** The subscription machine over the subscriptions table. */
export const subscriptionFamily = engine.family(subscriptionStateMachine, subscriptions);
