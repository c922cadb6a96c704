// Invoice rules: the operations of the lifecycle (create, update, delete, publish, cancel, mark as paid), each
// through the spec's invoice machine run by the engine (invoice-machine.ts), and the reads: one invoice, the
// list, calculations, the PDF and the public page.
import { randomInt, randomUUID } from 'node:crypto';
import { PaymentMethodType, ZeroCostProcessingOption } from '@pgw/client/enums';
import type { components } from '@pgw/client/types';
import type { Deps } from '../platform/deps.ts';
import { type Scope, within } from '../platform/scope.ts';
import { invalid, notFound } from '../platform/errors.ts';
import { fromCents } from '../platform/money.ts';
import type { ListQuery } from '../platform/paging.ts';
import { iso } from '../platform/time.ts';
import { withTransaction } from '../platform/transaction.ts';
import { listInvoices as listPage, type InvoiceListFilter } from '../repositories/invoice-list.ts';
import * as repo from '../repositories/invoices.ts';
import { findMerchant } from '../repositories/merchants.ts';
import type { InvoiceContent, InvoiceRecord, Publication } from '../repositories/invoices.ts';
import * as engine from './engine.ts';
import { settleContent, type InvoiceInput } from './invoice-content.ts';
import { invoiceFamily, lockInvoice, permit, Status, type NewInvoice } from './invoice-machine.ts';
import { getSettings } from './invoice-settings.ts';
import { calculationsOf, effectiveStatus, invoiceUrls, invoiceView, merchantTerms } from './invoice-view.ts';
import { PAGE_ID } from './page-payments.ts';

type Schemas = components['schemas'];

// ---- the lifecycle: the spec's invoice machine, run by the engine (invoice-machine.ts)

export { History, Status } from './invoice-machine.ts';

/** The invoice of the merchant (not locked: a read), or 404. */
export async function findOrFail(scope: Scope, id: string): Promise<InvoiceRecord> {
  const { merchantId } = scope;
  const record = await repo.findInvoice(scope.db, merchantId, id.toLowerCase());
  if (!record) throw notFound(id, 'invoice');
  return record;
}

// ---- codes and numbers

const CODE_ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';

/** The 8 letters and digits of a short address. */
export const newShortCode = (): string => Array.from({ length: 8 }, () => CODE_ALPHABET[randomInt(CODE_ALPHABET.length)]).join('');

/** INV- and the sequence number, 6 digits at least. */
export const invoiceNumber = (sequence: number): string => `INV-${String(sequence).padStart(6, '0')}`;

const DAY_MS = 24 * 3600 * 1000;

// ---- operations
// Each change runs in withTransaction; `t` is the same dependencies working in that transaction. The invoice
// is locked first; the engine checks its row, writes the change, its history entry and its event.

/** The content of a create, update or publish body under the merchant's settings and current terms. */
async function contentOf(t: Scope, input: InvoiceInput) {
  return settleContent(t, input, await getSettings(t), await merchantTerms(t));
}

/** A new draft of the body. */
async function newInvoice(t: Scope, input: InvoiceInput): Promise<NewInvoice> {
  const { merchantId } = t;
  // Wholly random, not a time-ordered row id (platform/ids.ts): the id is the address of the invoice's hosted page.
  return { id: randomUUID(), merchantId, shortCode: newShortCode(), content: await contentOf(t, input) };
}

/** Creates a draft; invoice.created is sent. */
export async function createInvoice(scope: Scope, input: InvoiceInput): Promise<string> {
  const now = scope.clock.now();
  return withTransaction(scope.db, async (tx) => {
    const t = within(scope, tx);
    const { record } = await engine.create(t, invoiceFamily, await newInvoice(t, input), 'createInvoice', now, {});
    return record.id;
  });
}

/** Replaces a draft's content. */
export async function updateInvoice(scope: Scope, id: string, input: InvoiceInput): Promise<void> {
  const now = scope.clock.now();
  await withTransaction(scope.db, async (tx) => {
    const t = within(scope, tx);
    const invoice = await lockInvoice(t, id);
    permit(invoice, 'updateInvoice', now);
    await engine.transition(t, invoiceFamily, invoice, 'updateInvoice', now, { content: await contentOf(t, input) });
  });
}

export async function deleteInvoice(scope: Scope, id: string): Promise<void> {
  const now = scope.clock.now();
  await withTransaction(scope.db, async (tx) => {
    const invoice = await lockInvoice(within(scope, tx), id);
    permit(invoice, 'deleteInvoice', now);
    await engine.transition({ db: tx }, invoiceFamily, invoice, 'deleteInvoice', now, {});
  });
}

/** What publishing at `now` fixes: the due date (the body's, or the settings' default), the number and the terms. */
async function publicationOf(t: Scope, content: InvoiceContent, now: Date): Promise<Publication> {
  const { merchantId } = t;
  const issueDate = iso(now);
  const settings = await getSettings(t);
  let dueDate = content.dueDate;
  if (dueDate === null) dueDate = iso(new Date(now.getTime() + (settings.dueDateAfterDays ?? 0) * DAY_MS));
  else if (dueDate < issueDate) throw invalid('dueDate', `must not be before the publication time (${issueDate}).`);
  const sequence = await repo.nextInvoiceNumber(t.db, merchantId);
  return { number: invoiceNumber(sequence), numberSeq: sequence, issueDate, dueDate, zeroCost: await merchantTerms(t) };
}

/**
 * Publishes a draft (updated with the body first), or, without an id, creates an invoice and publishes it
 * in one transaction (invoice.created is then sent).
 */
export async function publishInvoice(scope: Scope, input: InvoiceInput & { id?: string | null }): Promise<string> {
  const now = scope.clock.now();
  return withTransaction(scope.db, async (tx) => {
    const t = within(scope, tx);
    const draftId = input.id ?? null;
    if (draftId === null) {
      const fresh = await newInvoice(t, input);
      const publication = await publicationOf(t, fresh.content, now);
      return (await engine.create(t, invoiceFamily, fresh, 'publishInvoice', now, { publication })).record.id;
    }
    const draft = await lockInvoice(t, draftId);
    permit(draft, 'publishInvoice', now);
    const content = await contentOf(t, input);
    await engine.transition(t, invoiceFamily, draft, 'publishInvoice', now, { content, publication: await publicationOf(t, content, now) });
    return draft.id;
  });
}

export async function cancelInvoice(scope: Scope, id: string): Promise<void> {
  const now = scope.clock.now();
  await withTransaction(scope.db, async (tx) => {
    const invoice = await lockInvoice(within(scope, tx), id);
    permit(invoice, 'cancelInvoice', now);
    await engine.transition({ db: tx }, invoiceFamily, invoice, 'cancelInvoice', now, {});
  });
}

/**
 * Records a payment made outside the gateway: Paid, markedAsPaid, no transaction. The amounts stay the base
 * amounts (no surcharge or cash discount: the gateway charged nothing). invoice.paid is sent.
 */
export async function markInvoiceAsPaid(scope: Scope, id: string, paymentMethodTypeId: PaymentMethodType | null): Promise<void> {
  const now = scope.clock.now();
  await withTransaction(scope.db, async (tx) => {
    const t = within(scope, tx);
    const invoice = await lockInvoice(t, id);
    permit(invoice, 'markInvoiceAsPaid', now);
    await engine.transition(t, invoiceFamily, invoice, 'markInvoiceAsPaid', now, {
      payment: { paymentDate: iso(now), paymentMethodTypeId, markedAsPaid: true, transactionId: null },
      history: { paymentMethodTypeId },
    });
  });
}

export async function getInvoice(scope: Scope, id: string): Promise<Schemas['Invoice']> {
  return invoiceView(scope, await findOrFail(scope, id));
}

/** The PDF of a published invoice, base64-encoded. */
export async function invoicePdfBase64(scope: Scope, id: string): Promise<string> {
  const { merchantId } = scope;
  const now = scope.clock.now();
  const invoice = await findOrFail(scope, id);
  permit(invoice, 'downloadInvoicePdf', now);
  const merchant = await findMerchant(scope.db, merchantId);
  const view = await invoiceView(scope, invoice, now);
  return (await scope.instances.pdfs.of(view, merchant?.company_name ?? '', now)).toString('base64');
}

/** The credit card figures (the payment type that can carry a surcharge). */
export async function getCalculations(scope: Scope, id: string): Promise<Schemas['InvoiceCalculationsResponse']> {
  const invoice = await findOrFail(scope, id);
  const { terms, result } = await calculationsOf(scope, invoice, await repo.linesOf(scope.db, invoice.id));
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
    surchargePercentage: terms.optionId === ZeroCostProcessingOption.Surcharge || terms.optionId === ZeroCostProcessingOption.DualPricing ? credit.surchargePercentage : null,
    totalAmount: fromCents(credit.totalCents),
  };
}

export interface InvoiceListQuery extends ListQuery, InvoiceListFilter {}

export async function listInvoices(scope: Scope, query: InvoiceListQuery): Promise<{ items: Schemas['InvoiceListItem'][]; total: number }> {
  const { merchantId } = scope;
  const { issueDateFrom, issueDateTo, dueDateFrom, dueDateTo, paymentDateFrom, paymentDateTo, status, ...list } = query;
  const now = scope.clock.now();
  const page = await listPage(scope.db, merchantId, list,
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

const SHORT_CODE = /^[A-Za-z0-9]{8}$/;

/**
 * A published invoice (any status but Draft) by its id alone, for its page; undefined for a draft or none.
 * No token names the merchant here: the caller makes the invoice merchant's dependencies for publicInvoice.
 */
export async function findPublicInvoice(deps: Pick<Deps, 'db'>, id: string): Promise<InvoiceRecord | undefined> {
  if (!PAGE_ID.test(id)) return undefined;
  const invoice = await repo.findInvoiceById(deps.db, id.toLowerCase());
  return !invoice || invoice.status === Status.Draft ? undefined : invoice;
}

/** The page of a published invoice; `deps` are its merchant's (the business clock decides PastDue). */
export async function publicInvoice(deps: Scope, invoice: InvoiceRecord): Promise<{ invoice: Schemas['Invoice']; merchantName: string }> {
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
