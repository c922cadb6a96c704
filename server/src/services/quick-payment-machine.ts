// The payment-link family of the engine: the spec's link machine (x-state-machine on QuickPaymentStatus) over
// the quick_payments table. Creation is the creation row (quick_payment.created); a payment's move carries the
// transaction that paid and what it charged: the link counts it, and the family's history is the link's list of
// payments (quick_payment_payments), written with the move.
import { newId } from '../platform/ids.ts';
import { quickPaymentStateMachine, type QuickPaymentTransition } from '@pgw/client/state-machines';
import type { components } from '@pgw/client/types';
import type { WebhookEventName } from '@pgw/client/webhooks';
import { ApiError } from '../platform/errors.ts';
import { type Cents, fromCents, sumCents } from '../platform/money.ts';
import type { EventData } from '../platform/outbox.ts';
import type { Deps } from '../platform/deps.ts';
import { iso } from '../platform/time.ts';
import * as repo from '../repositories/quick-payments.ts';
import type { QuickPaymentRecord } from '../repositories/quick-payments.ts';
import * as engine from './engine.ts';

export type QuickPaymentView = components['schemas']['QuickPayment'];

/** A link to create: everything but its status, which the creation row gives. */
export type NewLink = Omit<QuickPaymentRecord, 'status'>;

/** What a move carries: the payment the link took and what it charged (null for the moves that are no payment). */
export type LinkChange = { readonly transactionId: string; readonly amountCents: Cents; readonly quantity: number } | null;

/** What the events' payload needs besides the transaction: the server's public address (the link's url). */
export interface LinkScope extends engine.InTransaction {
  readonly config: Pick<Deps['config'], 'baseUrl'>;
}

/** The link's page: an absolute address on this server, built from its public base URL as the invoice page's is. */
export const linkUrl = (baseUrl: string, id: string): string => `${baseUrl}/pay/links/${id}`;

/** The link as the API and its events show it. */
export const quickPaymentView = (baseUrl: string, link: QuickPaymentRecord): QuickPaymentView => ({
  id: link.id, url: linkUrl(baseUrl, link.id), amount: fromCents(link.amountCents), description: link.description, status: link.status,
  transactionId: link.transactionId, paidOn: link.paidOn, expiresOn: link.expiresOn, createdOn: link.createdOn,
  maxPayments: link.maxPayments, paymentCount: link.paymentCount, totalCollected: fromCents(link.collectedCents), quantity: link.quantity,
  adjustableQuantity: link.quantityRange === null ? null : { minimum: link.quantityRange.min, maximum: link.quantityRange.max },
  customAmount: link.amountRange === null ? null : { minimum: fromCents(link.amountRange.min), maximum: fromCents(link.amountRange.max) },
  redirectUrl: link.redirectUrl,
  latestPayment: link.transactionId === null || link.paidOn === null || link.latest === null ? null
    : { transactionId: link.transactionId, amount: fromCents(link.latest.amountCents), quantity: link.latest.quantity, paidOn: link.paidOn },
});

/** How many more payments the link may take (Infinity without a limit). */
export const paymentsLeft = (link: QuickPaymentRecord): number => (link.maxPayments === null ? Number.POSITIVE_INFINITY : link.maxPayments - link.paymentCount);

/** Whether the link's expiry has come at `at` (it stops accepting payment at expiresOn itself). */
export const isExpiryDue = (link: QuickPaymentRecord, at: Date): boolean =>
  link.status === 'Active' && link.expiresOn !== null && Date.parse(link.expiresOn) <= at.getTime();

const links: engine.Adapter<QuickPaymentRecord, QuickPaymentTransition, LinkChange, LinkScope, NewLink> = {
  table: 'quick_payments',
  fromRow: (row) => repo.recordOf(row as unknown as repo.Row),
  status: (record) => record.status,
  type: () => null,
  merchantOf: (record) => record.merchantId,
  initial: () => ({ type: null }),
  insert: async (db, fresh, row) => {
    const record: QuickPaymentRecord = { ...fresh, status: row.to };
    await repo.insertQuickPayment(db, record);
    return record;
  },
  apply: async (db, moves, at) => {
    const afters: QuickPaymentRecord[] = [];
    for (const { record, row, change } of moves) {
      const after: QuickPaymentRecord = change === null
        ? { ...record, status: row.to }
        : {
          ...record, status: row.to, transactionId: change.transactionId, paidOn: iso(at), paymentCount: record.paymentCount + 1,
          collectedCents: sumCents(record.collectedCents, change.amountCents), latest: { amountCents: change.amountCents, quantity: change.quantity },
        };
      // The record was locked when it was read, so only a caller that did not lock it gets here.
      if (!(await repo.updateQuickPayment(db, after))) throw new ApiError('internal_error', { details: `payment link ${record.id} changed under a transition` });
      afters.push(after);
    }
    return afters;
  },
  remove: () => Promise.reject(new ApiError('internal_error', { details: 'a payment link is never removed by a transition' })),
  // A link's history is its payments: one row per payment move, numbered on the link (unique: never two in one place).
  history: (db, moved, at) => repo.insertLinkPayments(db, moved.flatMap(({ after, change }) => (change === null ? [] : [{
    id: newId(), merchantId: after.merchantId, quickPaymentId: after.id, seq: after.paymentCount, transactionId: change.transactionId,
    amountCents: change.amountCents, quantity: change.quantity, paidOn: iso(at),
  }]))),
  // quick_payment.created and quick_payment.paid carry the link as getQuickPayment shows it after the move.
  // eslint-disable-next-line @typescript-eslint/require-await -- the adapter's contract is a promise
  eventData: async <E extends WebhookEventName>(scope: LinkScope, _event: E, after: QuickPaymentRecord): Promise<EventData<E>> =>
    quickPaymentView(scope.config.baseUrl, after) as EventData<E>,
};

/** The payment-link machine over the quick_payments table. */
export const quickPaymentFamily = engine.family(quickPaymentStateMachine, links);
