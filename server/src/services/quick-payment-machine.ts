// The payment-link family of the engine: the spec's link machine (x-state-machine on QuickPaymentStatus) over
// the quick_payments table. Creation is the creation row (quick_payment.created); a payment's move carries the
// transaction that paid the link. No history table: a link moves at most once, and its payment is a transaction.
import { quickPaymentStateMachine, type QuickPaymentTransition } from '@pgw/client/state-machines';
import type { components } from '@pgw/client/types';
import type { WebhookEventName } from '@pgw/client/webhooks';
import { ApiError } from '../platform/errors.ts';
import { fromCents } from '../platform/money.ts';
import type { EventData } from '../platform/outbox.ts';
import type { Deps } from '../platform/deps.ts';
import { iso } from '../platform/time.ts';
import * as repo from '../repositories/quick-payments.ts';
import type { QuickPaymentRecord } from '../repositories/quick-payments.ts';
import * as engine from './engine.ts';

export type QuickPaymentView = components['schemas']['QuickPayment'];

/** A link to create: everything but its status, which the creation row gives. */
export type NewLink = Omit<QuickPaymentRecord, 'status'>;

/** What a move carries: the payment that paid the link (null for the moves that are no payment). */
export type LinkChange = { readonly transactionId: string } | null;

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
});

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
        : { ...record, status: row.to, transactionId: change.transactionId, paidOn: iso(at) };
      // The record was locked when it was read, so only a caller that did not lock it gets here.
      if (!(await repo.updateQuickPayment(db, after))) throw new ApiError('internal_error', { details: `payment link ${record.id} changed under a transition` });
      afters.push(after);
    }
    return afters;
  },
  remove: () => Promise.reject(new ApiError('internal_error', { details: 'a payment link is never removed by a transition' })),
  history: () => Promise.resolve(),
  // quick_payment.created and quick_payment.paid carry the link as getQuickPayment shows it after the move.
  // eslint-disable-next-line @typescript-eslint/require-await -- the adapter's contract is a promise
  eventData: async <E extends WebhookEventName>(scope: LinkScope, _event: E, after: QuickPaymentRecord): Promise<EventData<E>> =>
    quickPaymentView(scope.config.baseUrl, after) as EventData<E>,
};

/** The payment-link machine over the quick_payments table. */
export const quickPaymentFamily = engine.family(quickPaymentStateMachine, links);
