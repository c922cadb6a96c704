// Invoice rules: the lifecycle (a table of which operation each status permits and where it leads), and the
// operations on it: create, update, delete, publish, cancel, mark as paid, read, list, calculations.
// Each change writes its history entry, and its event, in the transaction of the change.
import { randomInt, randomUUID } from 'node:crypto';
import type { Knex } from 'knex';
import { invoiceStateMachine } from '../../../generated/state-machines.ts';
import type { components } from '../../../generated/types.ts';
import { within, type Deps } from '../platform/deps.ts';
import { ApiError, invalid, notFound } from '../platform/errors.ts';
import { fromCents } from '../platform/money.ts';
import { recordEvent } from '../platform/outbox.ts';
import type { ListQuery } from '../platform/paging.ts';
import { iso } from '../platform/time.ts';
import { withTransaction } from '../platform/transaction.ts';
import { listInvoices as listPage, type InvoiceListFilter } from '../repositories/invoice-list.ts';
import * as repo from '../repositories/invoices.ts';
import { findMerchant } from '../repositories/merchants.ts';
import type { InvoiceRecord, StoredStatus } from '../repositories/invoices.ts';
import { settleContent, type InvoiceInput } from './invoice-content.ts';
import { getSettings } from './invoice-settings.ts';
import { invoicePdf } from './invoice-pdf.ts';
import { calculationsOf, effectiveStatus, invoiceUrls, invoiceView, merchantTerms, type InvoiceStatus } from './invoice-view.ts';

type Schemas = components['schemas'];

// ---- the lifecycle

/** InvoiceStatus: 1 Draft, 2 Due, 3 PastDue, 4 Paid, 5 Cancelled. */
export const Status = { Draft: 1, Due: 2, PastDue: 3, Paid: 4, Cancelled: 5 } as const;

/** InvoiceHistoryType ids. */
export const History = {
  Created: 1, Updated: 2, Published: 3, EmailNotificationSent: 4, SmsNotificationSent: 5, Cancelled: 6, MarkedAsPaid: 7,
  Paid: 8, PaymentFailed: 9, PastDue: 10, NotificationFailed: 11,
} as const;

export type Operation = 'update' | 'delete' | 'publish' | 'cancel' | 'markAsPaid' | 'pay' | 'notify' | 'downloadPdf';

interface Transition {
  /** The statuses (as the caller sees them, PastDue included) in which the operation is permitted. */
  from: readonly InvoiceStatus[];
  /** The stored status it leads to: `same` for none (the invoice stays), `removed` for a delete. */
  to: StoredStatus | 'same' | 'removed';
  /** The answer in any other status. */
  refusal: 'invoice_not_draft' | 'invoice_not_open' | 'invoice_not_published';
}

/** The operation each lifecycle step is in the spec's invoice state machine (x-state-machine on InvoiceStatus). */
const TRIGGERS: Readonly<Record<Operation, string>> = {
  update: 'updateInvoice', delete: 'deleteInvoice', publish: 'publishInvoice', cancel: 'cancelInvoice', markAsPaid: 'markInvoiceAsPaid',
  pay: 'submitInvoiceCardPayment', notify: 'sendInvoiceEmailNotification', downloadPdf: 'downloadInvoicePdf',
};

/** One step of the lifecycle, read from the generated table: where it is permitted, where it leads, its refusal. */
function fromTable(operation: Operation): Transition {
  const trigger = TRIGGERS[operation];
  const rows = invoiceStateMachine.transitions.filter((r) => r.trigger === trigger && r.from !== null);
  const first = rows[0];
  if (!first) throw new Error(`the invoice state machine has no row for ${trigger}`);
  const same = rows.every((r) => r.to === r.from);
  const refusal = (invoiceStateMachine.refusal.errorCodes as Readonly<Record<string, string>>)[trigger];
  if (refusal !== 'invoice_not_draft' && refusal !== 'invoice_not_open' && refusal !== 'invoice_not_published') {
    throw new Error(`the invoice state machine gives ${trigger} no refusal errorCode this server knows`);
  }
  return {
    from: rows.map((r) => r.from as InvoiceStatus),
    to: same ? 'same' : (first.to as StoredStatus | 'removed'),
    refusal,
  };
}

/** operation -> permitted statuses -> next status, from the spec's table. Every other status answers the refusal and changes nothing. */
export const LIFECYCLE: Readonly<Record<Operation, Transition>> = Object.fromEntries(
  (Object.keys(TRIGGERS) as Operation[]).map((operation) => [operation, fromTable(operation)]),
) as Record<Operation, Transition>;

const STATUS_NAMES: Record<InvoiceStatus, string> = { 1: 'Draft', 2: 'Due', 3: 'PastDue', 4: 'Paid', 5: 'Cancelled' };

/** Throws the operation's refusal unless the invoice's status permits it; returns the transition. */
export function permit(operation: Operation, record: InvoiceRecord, now: Date): Transition {
  const transition = LIFECYCLE[operation];
  const status = effectiveStatus(record, now);
  if (!transition.from.includes(status)) {
    const allowed = transition.from.map((s) => STATUS_NAMES[s]).join(' or ');
    throw new ApiError(transition.refusal, {
      details: `The invoice is ${STATUS_NAMES[status]}: ${operation} needs an invoice that is ${allowed}.`,
      entityId: record.id,
    });
  }
  return transition;
}

/** The invoice of the merchant, or 404. */
export async function findOrFail(deps: Deps, merchantId: string, id: string): Promise<InvoiceRecord> {
  const record = await repo.findInvoice(deps.db, merchantId, id.toLowerCase());
  if (!record) throw notFound(id, 'invoice');
  return record;
}

/** A concurrent change got there first: answer as if it had come before (it did). */
async function raced(deps: Deps, operation: Operation, merchantId: string, id: string, now: Date): Promise<never> {
  permit(operation, await findOrFail(deps, merchantId, id), now);
  throw new ApiError(LIFECYCLE[operation].refusal, { entityId: id });
}

// ---- codes and numbers

const CODE_ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';

/** The 8 letters and digits of a short address. */
export const newShortCode = (): string => Array.from({ length: 8 }, () => CODE_ALPHABET[randomInt(CODE_ALPHABET.length)]).join('');

/** INV- and the sequence number, 6 digits at least. */
export const invoiceNumber = (sequence: number): string => `INV-${String(sequence).padStart(6, '0')}`;

const DAY_MS = 24 * 3600 * 1000;

// ---- operations
// Each change runs in withTransaction; `t` is the same dependencies working in that transaction.

/** Writes the invoice's event with the record as getInvoice shows it at `now`. */
export async function recordInvoiceEvent(t: Deps, invoice: InvoiceRecord, type: 'invoice.created' | 'invoice.paid', now: Date): Promise<void> {
  const data = await invoiceView(t, invoice, now);
  await recordEvent(t.db, { merchantId: invoice.merchantId, type, data, occurredOn: iso(now) });
}

/** The content of a create, update or publish body under the merchant's settings and current terms. */
async function contentOf(t: Deps, merchantId: string, input: InvoiceInput) {
  return settleContent(t, merchantId, input, await getSettings(t, merchantId), await merchantTerms(t, merchantId));
}

async function insertDraft(tx: Knex.Transaction, t: Deps, merchantId: string, input: InvoiceInput, now: Date): Promise<string> {
  const content = await contentOf(t, merchantId, input);
  const id = randomUUID();
  await repo.insertDraft(tx, { id, merchantId, shortCode: newShortCode(), content, now: iso(now) }, randomUUID);
  await repo.addHistory(tx, randomUUID(), id, { typeId: History.Created, createdOn: iso(now) });
  return id;
}

/** Creates a draft; invoice.created is sent. */
export async function createInvoice(deps: Deps, merchantId: string, input: InvoiceInput): Promise<string> {
  const now = deps.clock.now();
  return withTransaction(deps.db, async (tx) => {
    const t = within(deps, tx);
    const id = await insertDraft(tx, t, merchantId, input, now);
    await recordInvoiceEvent(t, await findOrFail(t, merchantId, id), 'invoice.created', now);
    return id;
  });
}

/** Replaces a draft's content. */
export async function updateInvoice(deps: Deps, merchantId: string, id: string, input: InvoiceInput): Promise<void> {
  const now = deps.clock.now();
  await withTransaction(deps.db, async (tx) => {
    const t = within(deps, tx);
    const invoice = await findOrFail(t, merchantId, id);
    permit('update', invoice, now);
    const content = await contentOf(t, merchantId, input);
    if (!(await repo.replaceDraftContent(tx, merchantId, invoice.id, content, iso(now), randomUUID))) await raced(t, 'update', merchantId, id, now);
    await repo.addHistory(tx, randomUUID(), invoice.id, { typeId: History.Updated, createdOn: iso(now) });
  });
}

export async function deleteInvoice(deps: Deps, merchantId: string, id: string): Promise<void> {
  const now = deps.clock.now();
  await withTransaction(deps.db, async (tx) => {
    const t = within(deps, tx);
    const invoice = await findOrFail(t, merchantId, id);
    permit('delete', invoice, now);
    if (!(await repo.deleteDraft(tx, merchantId, invoice.id))) await raced(t, 'delete', merchantId, id, now);
  });
}

/**
 * Publishes a draft (updated with the body first), or, without an id, creates an invoice and publishes it
 * in one transaction (invoice.created is then sent).
 */
export async function publishInvoice(deps: Deps, merchantId: string, input: InvoiceInput & { id?: string | null }): Promise<string> {
  const now = deps.clock.now();
  const issueDate = iso(now);
  return withTransaction(deps.db, async (tx) => {
    const t = within(deps, tx);
    const draftId = input.id ?? null;
    let id: string;
    if (draftId === null) {
      id = await insertDraft(tx, t, merchantId, input, now);
    } else {
      const draft = await findOrFail(t, merchantId, draftId);
      permit('publish', draft, now);
      id = draft.id;
      const content = await contentOf(t, merchantId, input);
      if (!(await repo.replaceDraftContent(tx, merchantId, id, content, issueDate, randomUUID))) await raced(t, 'publish', merchantId, id, now);
    }
    const settings = await getSettings(t, merchantId);
    let dueDate = (await findOrFail(t, merchantId, id)).dueDate;
    if (dueDate === null) dueDate = iso(new Date(now.getTime() + (settings.dueDateAfterDays ?? 0) * DAY_MS));
    else if (dueDate < issueDate) throw invalid('dueDate', `must not be before the publication time (${issueDate}).`);
    const sequence = await repo.nextInvoiceNumber(tx, merchantId);
    const published = await repo.publishDraft(tx, merchantId, id, {
      number: invoiceNumber(sequence), numberSeq: sequence, issueDate, dueDate, zeroCost: await merchantTerms(t, merchantId),
    }, issueDate);
    if (!published) await raced(t, 'publish', merchantId, id, now);
    await repo.addHistory(tx, randomUUID(), id, { typeId: History.Published, createdOn: issueDate });
    if (draftId === null) await recordInvoiceEvent(t, await findOrFail(t, merchantId, id), 'invoice.created', now);
    return id;
  });
}

export async function cancelInvoice(deps: Deps, merchantId: string, id: string): Promise<void> {
  const now = deps.clock.now();
  await withTransaction(deps.db, async (tx) => {
    const t = within(deps, tx);
    const invoice = await findOrFail(t, merchantId, id);
    const transition = permit('cancel', invoice, now);
    if (!(await repo.changeStatus(tx, merchantId, invoice.id, invoice.status, { status: transition.to as StoredStatus }, iso(now)))) {
      await raced(t, 'cancel', merchantId, id, now);
    }
    await repo.addHistory(tx, randomUUID(), invoice.id, { typeId: History.Cancelled, createdOn: iso(now) });
  });
}

/**
 * Records a payment made outside the gateway: Paid, markedAsPaid, no transaction. The amounts stay the base
 * amounts (no surcharge or cash discount: the gateway charged nothing). invoice.paid is sent.
 */
export async function markInvoiceAsPaid(deps: Deps, merchantId: string, id: string, paymentMethodTypeId: 1 | 2 | null): Promise<void> {
  const now = deps.clock.now();
  await withTransaction(deps.db, async (tx) => {
    const t = within(deps, tx);
    const invoice = await findOrFail(t, merchantId, id);
    const transition = permit('markAsPaid', invoice, now);
    const changed = await repo.changeStatus(tx, merchantId, invoice.id, invoice.status, {
      status: transition.to as StoredStatus, paymentDate: iso(now), paymentMethodTypeId, markedAsPaid: true, transactionId: null,
    }, iso(now));
    if (!changed) await raced(t, 'markAsPaid', merchantId, id, now);
    await repo.addHistory(tx, randomUUID(), invoice.id, { typeId: History.MarkedAsPaid, paymentMethodTypeId, createdOn: iso(now) });
    await recordInvoiceEvent(t, await findOrFail(t, merchantId, id), 'invoice.paid', now);
  });
}

export async function getInvoice(deps: Deps, merchantId: string, id: string): Promise<Schemas['Invoice']> {
  return invoiceView(deps, await findOrFail(deps, merchantId, id));
}

/** The PDF of a published invoice, base64-encoded. */
export async function invoicePdfBase64(deps: Deps, merchantId: string, id: string): Promise<string> {
  const now = deps.clock.now();
  const invoice = await findOrFail(deps, merchantId, id);
  permit('downloadPdf', invoice, now);
  const merchant = await findMerchant(deps.db, merchantId);
  const view = await invoiceView(deps, invoice, now);
  return (await invoicePdf(view, merchant?.company_name ?? '', now)).toString('base64');
}

/** The credit card figures (the payment type that can carry a surcharge). */
export async function getCalculations(deps: Deps, merchantId: string, id: string): Promise<Schemas['InvoiceCalculationsResponse']> {
  const invoice = await findOrFail(deps, merchantId, id);
  const { terms, result } = await calculationsOf(deps, invoice, await repo.linesOf(deps.db, invoice.id));
  const credit = result.creditCard;
  return {
    id: invoice.id,
    subTotalAmount: fromCents(credit.subTotalCents),
    shippingAmount: fromCents(credit.shippingCents),
    taxPercentage: credit.taxPercentage,
    taxAmount: fromCents(credit.taxCents),
    feesPercentage: credit.feesPercentage,
    feesAmount: fromCents(credit.feesCents),
    discountPercentage: credit.discountPercentage,
    discountAmount: fromCents(credit.discountCents),
    surchargeAmount: fromCents(credit.surchargeCents),
    // Null when the credit card price carries none: neither the surcharge nor the dual pricing option.
    surchargePercentage: terms.optionId === 1 || terms.optionId === 3 ? credit.surchargePercentage : null,
    totalAmount: fromCents(credit.totalCents),
  };
}

export interface InvoiceListQuery extends ListQuery, InvoiceListFilter {}

export async function listInvoices(deps: Deps, merchantId: string, query: InvoiceListQuery): Promise<{ items: Schemas['InvoiceListItem'][]; total: number }> {
  const { issueDateFrom, issueDateTo, dueDateFrom, dueDateTo, paymentDateFrom, paymentDateTo, status, ...list } = query;
  const now = deps.clock.now();
  const page = await listPage(deps.db, merchantId, list,
    { issueDateFrom, issueDateTo, dueDateFrom, dueDateTo, paymentDateFrom, paymentDateTo, status }, iso(now));
  return {
    items: page.items.map((item) => ({
      id: item.id,
      number: item.number,
      customerName: item.customerName,
      issueDate: item.issueDate,
      dueDate: item.dueDate,
      paymentDate: item.paymentDate,
      totalAmount: fromCents(item.totalCents),
      status: effectiveStatus(item, now),
    })),
    total: page.total,
  };
}

// ---- the public page of an invoice (fullUrl, shortUrl)

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const SHORT_CODE = /^[A-Za-z0-9]{8}$/;

/**
 * A published invoice (any status but Draft) by its id alone, for its page; undefined for a draft or none.
 * No token names the merchant here: the caller makes the invoice merchant's dependencies for publicInvoice.
 */
export async function findPublicInvoice(deps: Pick<Deps, 'db'>, id: string): Promise<InvoiceRecord | undefined> {
  if (!UUID.test(id)) return undefined;
  const invoice = await repo.findInvoiceById(deps.db, id.toLowerCase());
  return !invoice || invoice.status === Status.Draft ? undefined : invoice;
}

/** The page of a published invoice; `deps` are its merchant's (the business clock decides PastDue). */
export async function publicInvoice(deps: Deps, invoice: InvoiceRecord): Promise<{ invoice: Schemas['Invoice']; merchantName: string }> {
  const merchant = await findMerchant(deps.db, invoice.merchantId);
  return { invoice: await invoiceView(deps, invoice), merchantName: merchant?.company_name ?? '' };
}

/** The page address a short code stands for; undefined for an unknown code or a draft's. */
export async function pageOfShortCode(deps: Pick<Deps, 'db' | 'config'>, code: string): Promise<string | undefined> {
  if (!SHORT_CODE.test(code)) return undefined;
  const id = await repo.findInvoiceIdByShortCode(deps.db, code);
  const invoice = id === undefined ? undefined : await repo.findInvoiceById(deps.db, id);
  if (!invoice || invoice.status === Status.Draft) return undefined;
  return invoiceUrls(deps.config.baseUrl, invoice).fullUrl;
}
