// What falls due, run in business time order: ACH submission and clearing, card settlement batches, the
// 7-day expiry of authorizations, the expiry of payment links and subscription payments. `runDueForMerchant` runs
// one merchant up to a business time (the sandbox clock advance calls it); `runDue` runs every merchant up to the wall
// clock plus its own sandbox offset (the worker's timer calls it). Work due at one instant runs in one transaction with its rows locked
// (PostgreSQL skips rows another instance holds), so each change and its event commit together, once.
import { PaymentMethodType } from '@pgw/client/enums';
import type { components } from '@pgw/client/types';
import { iso } from '../platform/time.ts';
import { groupBy } from '../platform/group.ts';
import { atDueTime, businessTimeAt, openScope, type Platform, type Scope, type Tx } from '../platform/scope.ts';
import { withTransaction } from '../platform/transaction.ts';
import * as repo from '../repositories/transactions.ts';
import type { TransactionRecord } from '../repositories/transactions.ts';
import * as subscriptions from '../repositories/subscriptions.ts';
import { runDueAch } from '../services/ach-network.ts';
import { runDueSubscriptions } from '../services/subscription-payments.ts';
import { merchantsWithDueDeliveries } from '../repositories/webhook-deliveries.ts';
import { merchantsWithExpiring } from '../repositories/quick-payments.ts';
import { expireDue } from '../services/quick-payments.ts';
import { deliverDue } from '../services/webhook-delivery.ts';
import { expireAll, isExpiryDue, isSettleDue, settleBatch } from '../services/card-network.ts';

/** What ran, counted per kind: the sandbox clock advance answers it (SandboxClockRun). */
export type RunCounts = components['schemas']['SandboxClockRun'];

export const noRuns = (): RunCounts => ({
  achSubmitted: 0, achSettled: 0, achReturned: 0, achFailed: 0, cardSettled: 0, cardExpired: 0, settlementBatches: 0, invoicesPastDue: 0, quickPaymentsExpired: 0, subscriptionPayments: 0, webhookAttempts: 0,
});

/** Runs the rows due at `at` (locked by the caller's transaction), the like ones together. */
async function runAt(tx: Tx, merchantId: string, rows: readonly TransactionRecord[], at: Date, counts: RunCounts): Promise<void> {
  const ach = await runDueAch(tx, rows.filter((r) => r.paymentMethodTypeId === PaymentMethodType.ElectronicCheck), at);
  counts.achSubmitted += ach.submitted;
  counts.achFailed += ach.failed;
  counts.achSettled += ach.settled;
  counts.achReturned += ach.returned;
  const cards = rows.filter((r) => r.paymentMethodTypeId === PaymentMethodType.Card);
  for (const [processorId, records] of groupBy(cards.filter(isSettleDue), (row) => row.processorId)) {
    const settled = await settleBatch(tx, merchantId, processorId, records, at);
    counts.cardSettled += settled;
    if (settled > 0) counts.settlementBatches += 1;
  }
  counts.cardExpired += await expireAll(tx, cards.filter(isExpiryDue), at);
  // A due action that no longer fits the status (the record moved on): nothing more falls due.
  for (const row of [...ach.unchanged, ...cards.filter((r) => !isSettleDue(r) && !isExpiryDue(r))]) await repo.clearDue(tx, row.id);
}

/**
 * Runs everything of one merchant due at or before `until` (business time), earliest first: the network's
 * changes of transactions and the subscriptions' payments (a payment made at its due time may itself put a
 * transaction due later in the span, which then runs in turn). `scope.db` may be a transaction the caller holds.
 * `wait`: rows another transaction holds are waited for rather than left to it (the sandbox clock advance answers
 * only when all that fell due has run; a void racing it holds its row only for the command).
 */
export async function runDueForMerchant(scope: Scope, until: Date, counts: RunCounts = noRuns(), wait = false): Promise<RunCounts> {
  const { db, merchantId } = scope;
  const limit = iso(until);
  // Payment links expire without an event, so their order among the transactions' changes shows nowhere.
  counts.quickPaymentsExpired += await expireDue(db, merchantId, until, wait);
  for (;;) {
    const transactionsAt = await repo.earliestDue(db, merchantId, limit);
    const subscriptionsAt = await subscriptions.earliestDue(db, merchantId, limit);
    if (transactionsAt === undefined && subscriptionsAt === undefined) return counts;
    // Transactions first at one instant (a settlement before a payment made at the same time).
    const claimed = transactionsAt !== undefined && (subscriptionsAt === undefined || transactionsAt <= subscriptionsAt)
      ? await withTransaction(db, async (tx) => {
        const rows = await repo.claimDue(tx, merchantId, transactionsAt, Number.MAX_SAFE_INTEGER, wait);
        await runAt(tx, merchantId, rows, new Date(transactionsAt), counts);
        return rows.length;
      })
      : await withTransaction(db, async (tx) => {
        const at = subscriptionsAt ?? limit;
        const due = await subscriptions.claimDue(tx, merchantId, at, wait);
        counts.subscriptionPayments += await runDueSubscriptions(atDueTime(scope, tx, new Date(at)), due);
        return due.length;
      });
    // Another instance holds what is due now: it runs it; this one stops here rather than spin.
    if (claimed === 0) return counts;
  }
}

/** What one worker pass reads of every merchant's sandbox clock at one wall instant. */
export interface PassTimes {
  /** The merchant's business time at the pass's wall instant. */
  of(merchantId: string): Date;
  /** The scope of the merchant's work in this pass (its business clock with it). */
  scopeOf(merchantId: string): Scope;
  /** The furthest business time of any merchant (what may be due anywhere). */
  readonly furthest: string;
}

/** The business time of each merchant at a wall time (its sandbox offset), its scope, and the furthest time. */
export async function businessTimes(deps: Platform, wallNow: Date): Promise<PassTimes> {
  const offsets = deps.config.environment === 'sandbox' ? await repo.clockOffsets(deps.db) : new Map<string, number>();
  return {
    of: (merchantId) => businessTimeAt(deps, wallNow, offsets.get(merchantId) ?? 0),
    scopeOf: (merchantId) => openScope(deps, merchantId, offsets.get(merchantId) ?? 0),
    furthest: iso(new Date(wallNow.getTime() + Math.max(0, ...offsets.values()))),
  };
}

/** The network's due changes of every merchant, up to the wall clock plus that merchant's offset. */
export async function runNetworkDue(deps: Platform, wallNow: Date, counts: RunCounts = noRuns()): Promise<RunCounts> {
  const times = await businessTimes(deps, wallNow);
  const merchants = new Set([...await repo.merchantsWithDue(deps.db, times.furthest), ...await merchantsWithExpiring(deps.db, times.furthest), ...await subscriptions.merchantsWithDue(deps.db, times.furthest)]);
  for (const merchantId of merchants) await runDueForMerchant(times.scopeOf(merchantId), times.of(merchantId), counts);
  return counts;
}

/**
 * Runs every merchant's due work up to the wall clock plus its sandbox offset, and waits for it: the
 * network's changes first (their events fan out to deliveries), then the webhook deliveries that fell due.
 * The deterministic entry for tests; the worker's timer uses the same steps without waiting on receivers.
 */
export async function runDue(deps: Platform, wallNow: Date): Promise<RunCounts> {
  const counts = await runNetworkDue(deps, wallNow);
  const times = await businessTimes(deps, wallNow);
  for (const merchantId of await merchantsWithDueDeliveries(deps.db, times.furthest)) {
    counts.webhookAttempts += await deliverDue(times.scopeOf(merchantId), times.of(merchantId));
  }
  return counts;
}
