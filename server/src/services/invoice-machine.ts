// The invoice family of the engine: the spec's invoice machine over the invoices table. The machine sees the
// effective status (PastDue is derived from the due date and the merchant's clock, stored as Due); a change
// is a draft's content, a publication, or payment columns; the history is invoice_history, one entry type per
// row; the events' payload is the invoice as getInvoice shows it.
import { newId } from '../platform/ids.ts';
import type { Knex } from 'knex';
import { invoiceStateMachine, type InvoiceTransition, type InvoiceTrigger } from '@pgw/client/state-machines';
import type { WebhookEventName } from '@pgw/client/webhooks';
import type { InTx, Scope } from '../platform/scope.ts';
import { ApiError, notFound } from '../platform/errors.ts';
import type { EventData } from '../platform/outbox.ts';
import { iso } from '../platform/time.ts';
import * as repo from '../repositories/invoices.ts';
import type { HistoryValue, InvoiceContent, InvoiceRecord, PaymentColumns, Publication, StoredStatus } from '../repositories/invoices.ts';
import * as engine from './engine.ts';
import { effectiveStatus, invoiceView } from './invoice-view.ts';

/** InvoiceStatus: 1 Draft, 2 Due, 3 PastDue, 4 Paid, 5 Cancelled. */
export const Status = { Draft: 1, Due: 2, PastDue: 3, Paid: 4, Cancelled: 5 } as const;

/** InvoiceHistoryType ids. */
export const History = {
  Created: 1, Updated: 2, Published: 3, EmailNotificationSent: 4, SmsNotificationSent: 5, Cancelled: 6, MarkedAsPaid: 7,
  Paid: 8, PaymentFailed: 9, PastDue: 10, NotificationFailed: 11,
} as const;
type HistoryType = (typeof History)[keyof typeof History];

/** What a change of an invoice writes with its status. */
export interface InvoiceChange {
  /** A draft's new content (update, publish): its columns and lines replaced. */
  readonly content?: InvoiceContent;
  /** What publication fixes: the number, the dates and the zero cost terms. */
  readonly publication?: Publication;
  /** The payment columns of a payment, a payment marked by hand, or its reversal. */
  readonly payment?: PaymentColumns;
  /** What the history entry holds besides its type and time. */
  readonly history?: Omit<HistoryValue, 'typeId' | 'createdOn'>;
}

/** A new invoice: the draft the creation rows insert. */
export interface NewInvoice {
  readonly id: string;
  readonly merchantId: string;
  readonly shortCode: string;
  readonly content: InvoiceContent;
}

/**
 * The history entries each row writes (the creation of a published invoice writes both of its steps). As the
 * interface names the notification operations, the one whose path says e-mail sends an SMS and the other an
 * e-mail (services/invoice-notifications.ts): the entry names the channel used.
 */
const HISTORY: { readonly [T in InvoiceTrigger]: readonly HistoryType[] } = {
  createInvoice: [History.Created],
  publishInvoice: [History.Published],
  updateInvoice: [History.Updated],
  deleteInvoice: [],
  cancelInvoice: [History.Cancelled],
  markInvoiceAsPaid: [History.MarkedAsPaid],
  submitInvoiceCardPayment: [History.Paid],
  submitInvoiceAchPayment: [History.Paid],
  sendInvoiceEmailNotification: [History.SmsNotificationSent],
  sendInvoiceSmsNotification: [History.EmailNotificationSent],
  downloadInvoicePdf: [],
  // PastDue is derived, never written: its entry is placed at the due date when the history is read.
  'time.dueDatePassed': [],
  'payment.returned': [History.PaymentFailed],
};
const historyOf = (row: InvoiceTransition): readonly HistoryType[] =>
  (row.from === null && row.trigger === 'publishInvoice' ? [History.Created, History.Published] : HISTORY[row.trigger]);

/** The stored status a row leads to: PastDue is stored as Due (it is derived from the due date). */
const storedOf = (to: InvoiceTransition['to']): StoredStatus | 'removed' => (to === Status.PastDue ? Status.Due : to);

const reread = async (db: Knex, id: string): Promise<InvoiceRecord> => {
  const record = await repo.findInvoiceById(db, id);
  if (!record) throw new ApiError('internal_error', { details: `invoice ${id} is gone under its own change` });
  return record;
};

async function apply(db: Knex, moves: readonly engine.Move<InvoiceRecord, InvoiceTransition, InvoiceChange>[], at: Date): Promise<InvoiceRecord[]> {
  const when = iso(at);
  const afters: InvoiceRecord[] = [];
  for (const { record, row, change } of moves) {
    const to = storedOf(row.to);
    if (to === 'removed') throw new ApiError('internal_error', { details: 'a removal is not a change' });
    let written = true;
    if (change.content) written = await repo.replaceDraftContent(db, record.merchantId, record.id, change.content, when, newId);
    if (change.publication) written &&= await repo.publishDraft(db, record.merchantId, record.id, change.publication, when);
    // A row that keeps the status and changes nothing else (a notification) writes only its history.
    else if (to !== record.status || change.payment) written &&= await repo.changeInvoice(db, record.id, to, change.payment ?? {}, when);
    // The record was locked when it was read, so only a caller that did not lock it gets here.
    if (!written) throw new ApiError('internal_error', { details: `invoice ${record.id} changed under a transition` });
    afters.push({ ...record, status: to });
  }
  return afters;
}

const invoices: engine.Adapter<InvoiceRecord, InvoiceTransition, InvoiceChange, InTx<Scope>, NewInvoice> = {
  table: 'invoices',
  fromRow: repo.invoiceOf,
  status: (record, at) => effectiveStatus(record, at),
  type: () => null,
  merchantOf: (record) => record.merchantId,
  // The trigger alone picks the creation row (a draft, or an invoice created and published at once).
  initial: () => ({ type: null }),
  insert: async (db, fresh, row, change, at) => {
    await repo.insertDraft(db, { id: fresh.id, merchantId: fresh.merchantId, shortCode: fresh.shortCode, content: fresh.content, now: iso(at) }, newId);
    if (change.publication) await repo.publishDraft(db, fresh.merchantId, fresh.id, change.publication, iso(at));
    return reread(db, fresh.id);
  },
  apply,
  remove: async (db, record) => {
    if (!(await repo.deleteDraft(db, record.merchantId, record.id))) throw new ApiError('internal_error', { details: `invoice ${record.id} changed under a transition` });
  },
  history: async (db, moved, at) => {
    for (const { row, after, change } of moved) {
      for (const typeId of historyOf(row)) {
        await repo.addHistory(db as Knex.Transaction, newId(), after.id, { ...change.history, typeId, createdOn: iso(at) });
      }
    }
  },
  // invoice.created and invoice.paid carry the invoice as getInvoice shows it at the change (read back with
  // its history entry); the cast says so for both (the outbox checks the body against the event's schema).
  eventData: async <E extends WebhookEventName>(scope: InTx<Scope>, _event: E, after: InvoiceRecord, at: Date): Promise<EventData<E>> =>
    (await invoiceView(scope, await reread(scope.db, after.id), at)) as EventData<E>,
};

/** The invoice machine over the invoices table. */
export const invoiceFamily = engine.family(invoiceStateMachine, invoices);

/** The operations a status may refuse (the machine's errorCode refusals). */
export type InvoiceOperation = keyof typeof invoiceStateMachine.refusal.errorCodes;

const STATUS_NAMES: Readonly<Record<number, string>> = { 1: 'Draft', 2: 'Due', 3: 'PastDue', 4: 'Paid', 5: 'Cancelled' };

/** Throws the operation's refusal (its errorCode in the spec's table) unless the invoice's status at `at` has a row for it. */
export function permit(record: InvoiceRecord, trigger: InvoiceOperation, at: Date): void {
  if (engine.permits(invoiceFamily, record, trigger, at)) return;
  const allowed = invoiceStateMachine.transitions.filter((r) => r.trigger === trigger && r.from !== null).map((r) => STATUS_NAMES[r.from ?? 0] ?? '');
  throw new ApiError(invoiceStateMachine.refusal.errorCodes[trigger], {
    details: `The invoice is ${STATUS_NAMES[effectiveStatus(record, at)] ?? ''}: ${trigger} needs an invoice that is ${allowed.join(' or ')}.`,
    entityId: record.id,
  });
}

/** The invoice of the merchant, locked until the transaction ends; 404 when none. */
export async function lockInvoice(scope: InTx<Scope>, id: string): Promise<InvoiceRecord> {
  const record = await engine.lock(scope, invoiceFamily, { merchant_id: scope.merchantId, id: id.toLowerCase() });
  if (!record) throw notFound(id, 'invoice');
  return record;
}
