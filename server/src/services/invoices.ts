// Invoice rules: the operations of the lifecycle (create, update, delete, publish, cancel, mark as paid), each
// through the spec's invoice machine run by the engine (invoice-machine.ts), and the reads: one invoice, the
// list, calculations, the PDF and the public page.
import { randomInt, randomUUID } from 'node:crypto';
import { PaymentMethodType, ZeroCostProcessingOption } from '../../../generated/enums.ts';
import type { components } from '../../../generated/types.ts';
import { within, type Deps } from '../platform/deps.ts';
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

type Schemas = components['schemas'];

// ---- the lifecycle: the spec's invoice machine, run by the engine (invoice-machine.ts)

export { History, Status } from './invoice-machine.ts';

/** The invoice of the merchant (not locked: a read), or 404. */
export async function findOrFail(deps: Pick<Deps, 'db'>, merchantId: string, id: string): Promise<InvoiceRecord> {
  const record = await repo.findInvoice(deps.db, merchantId, id.toLowerCase());
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
async function contentOf(t: Deps, merchantId: string, input: InvoiceInput) {
  return settleContent(t, merchantId, input, await getSettings(t, merchantId), await merchantTerms(t, merchantId));
}

/** A new draft of the body. */
async function newInvoice(t: Deps, merchantId: string, input: InvoiceInput): Promise<NewInvoice> {
  return { id: randomUUID(), merchantId, shortCode: newShortCode(), content: await contentOf(t, merchantId, input) };
}

/** Creates a draft; invoice.created is sent. */
export async function createInvoice(deps: Deps, merchantId: string, input: InvoiceInput): Promise<string> {
  const now = deps.clock.now();
  return withTransaction(deps.db, async (tx) => {
    const t = within(deps, tx);
    const { record } = await engine.create(t, invoiceFamily, await newInvoice(t, merchantId, input), 'createInvoice', now, {});
    return record.id;
  });
}

/** Replaces a draft's content. */
export async function updateInvoice(deps: Deps, merchantId: string, id: string, input: InvoiceInput): Promise<void> {
  const now = deps.clock.now();
  await withTransaction(deps.db, async (tx) => {
    const t = within(deps, tx);
    const invoice = await lockInvoice(t, merchantId, id);
    permit(invoice, 'updateInvoice', now);
    await engine.transition(t, invoiceFamily, invoice, 'updateInvoice', now, { content: await contentOf(t, merchantId, input) });
  });
}

export async function deleteInvoice(deps: Deps, merchantId: string, id: string): Promise<void> {
  const now = deps.clock.now();
  await withTransaction(deps.db, async (tx) => {
    const invoice = await lockInvoice({ db: tx }, merchantId, id);
    permit(invoice, 'deleteInvoice', now);
    await engine.transition({ db: tx }, invoiceFamily, invoice, 'deleteInvoice', now, {});
  });
}

/** What publishing at `now` fixes: the due date (the body's, or the settings' default), the number and the terms. */
async function publicationOf(t: Deps, merchantId: string, content: InvoiceContent, now: Date): Promise<Publication> {
  const issueDate = iso(now);
  const settings = await getSettings(t, merchantId);
  let dueDate = content.dueDate;
  if (dueDate === null) dueDate = iso(new Date(now.getTime() + (settings.dueDateAfterDays ?? 0) * DAY_MS));
  else if (dueDate < issueDate) throw invalid('dueDate', `must not be before the publication time (${issueDate}).`);
  const sequence = await repo.nextInvoiceNumber(t.db, merchantId);
  return { number: invoiceNumber(sequence), numberSeq: sequence, issueDate, dueDate, zeroCost: await merchantTerms(t, merchantId) };
}

/**
 * Publishes a draft (updated with the body first), or, without an id, creates an invoice and publishes it
 * in one transaction (invoice.created is then sent).
 */
export async function publishInvoice(deps: Deps, merchantId: string, input: InvoiceInput & { id?: string | null }): Promise<string> {
  const now = deps.clock.now();
  return withTransaction(deps.db, async (tx) => {
    const t = within(deps, tx);
    const draftId = input.id ?? null;
    if (draftId === null) {
      const fresh = await newInvoice(t, merchantId, input);
      const publication = await publicationOf(t, merchantId, fresh.content, now);
      return (await engine.create(t, invoiceFamily, fresh, 'publishInvoice', now, { publication })).record.id;
    }
    const draft = await lockInvoice(t, merchantId, draftId);
    permit(draft, 'publishInvoice', now);
    const content = await contentOf(t, merchantId, input);
    await engine.transition(t, invoiceFamily, draft, 'publishInvoice', now, { content, publication: await publicationOf(t, merchantId, content, now) });
    return draft.id;
  });
}

export async function cancelInvoice(deps: Deps, merchantId: string, id: string): Promise<void> {
  const now = deps.clock.now();
  await withTransaction(deps.db, async (tx) => {
    const invoice = await lockInvoice({ db: tx }, merchantId, id);
    permit(invoice, 'cancelInvoice', now);
    await engine.transition({ db: tx }, invoiceFamily, invoice, 'cancelInvoice', now, {});
  });
}

/**
 * Records a payment made outside the gateway: Paid, markedAsPaid, no transaction. The amounts stay the base
 * amounts (no surcharge or cash discount: the gateway charged nothing). invoice.paid is sent.
 */
export async function markInvoiceAsPaid(deps: Deps, merchantId: string, id: string, paymentMethodTypeId: PaymentMethodType | null): Promise<void> {
  const now = deps.clock.now();
  await withTransaction(deps.db, async (tx) => {
    const t = within(deps, tx);
    const invoice = await lockInvoice(t, merchantId, id);
    permit(invoice, 'markInvoiceAsPaid', now);
    await engine.transition(t, invoiceFamily, invoice, 'markInvoiceAsPaid', now, {
      payment: { paymentDate: iso(now), paymentMethodTypeId, markedAsPaid: true, transactionId: null },
      history: { paymentMethodTypeId },
    });
  });
}

export async function getInvoice(deps: Deps, merchantId: string, id: string): Promise<Schemas['Invoice']> {
  return invoiceView(deps, await findOrFail(deps, merchantId, id));
}

/** The PDF of a published invoice, base64-encoded. */
export async function invoicePdfBase64(deps: Deps, merchantId: string, id: string): Promise<string> {
  const now = deps.clock.now();
  const invoice = await findOrFail(deps, merchantId, id);
  permit(invoice, 'downloadInvoicePdf', now);
  const merchant = await findMerchant(deps.db, merchantId);
  const view = await invoiceView(deps, invoice, now);
  return (await deps.instances.pdfs.of(view, merchant?.company_name ?? '', now)).toString('base64');
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
    surchargePercentage: terms.optionId === ZeroCostProcessingOption.Surcharge || terms.optionId === ZeroCostProcessingOption.DualPricing ? credit.surchargePercentage : null,
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
