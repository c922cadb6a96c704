// The invoice as the API returns it (getInvoice, and the data of the invoice events): the stored record
// with its lines, history, merchant contact address, customer and the calculations of each payment type.
// Everything it shows is read first (invoiceViewData); the view is then made from that data alone.
import { createHash } from 'node:crypto';
import { InvoiceHistoryType, InvoiceStatus as InvoiceStatuses, ZeroCostProcessingOption } from '@pgw/client/enums';
import type { components } from '@pgw/client/types';
import { fromCents } from '../platform/money.ts';
import { enumeration, type EnumerationName } from '../platform/spec-data.ts';
import { findCustomer, type AddressValue, type CustomerRecord } from '../repositories/customers.ts';
import type { HistoryRecord, InvoiceAddress, InvoiceCustomerValue, InvoiceLineRecord, InvoiceRecord, ZeroCostTerms } from '../repositories/invoices.ts';
import { historyOf, linesOf } from '../repositories/invoices.ts';
import { contactInfosOf, findMerchant, merchantSettings, type ContactInfoRow } from '../repositories/merchants.ts';
import { calcInputOf } from './invoice-content.ts';
import { calculateInvoice, type CalcResult, type PaymentTypeCalc } from './invoice-calculations.ts';
import type { Scope } from '../platform/scope.ts';

type Schemas = components['schemas'];
export type InvoiceStatus = Schemas['InvoiceStatus'];

/** The history entries that close an invoice. */
const CLOSING_TYPES: ReadonlySet<number> = new Set([InvoiceHistoryType.Cancelled, InvoiceHistoryType.MarkedAsPaid, InvoiceHistoryType.Paid]);

/** The status a caller sees: a Due invoice whose due date has passed is PastDue. */
export function effectiveStatus(record: Pick<InvoiceRecord, 'status' | 'dueDate'>, now: Date): InvoiceStatus {
  if (record.status === InvoiceStatuses.Due && record.dueDate !== null && record.dueDate < now.toISOString()) return InvoiceStatuses.PastDue;
  return record.status;
}

/** The merchant's zero cost processing terms now (a draft's calculations use them; publication freezes them). */
export async function merchantTerms(scope: Scope): Promise<ZeroCostTerms> {
  const { merchantId } = scope;
  const merchant = await findMerchant(scope.db, merchantId);
  if (!merchant) return { optionId: ZeroCostProcessingOption.None, surchargeRate: null, cashDiscountRate: null, dualPricingRate: null };
  const rates = merchantSettings(merchant);
  const option = merchant.zero_cost_processing_option_id;
  return {
    optionId: option === ZeroCostProcessingOption.Surcharge || option === ZeroCostProcessingOption.CashDiscount || option === ZeroCostProcessingOption.DualPricing ? option : ZeroCostProcessingOption.None,
    surchargeRate: rates.surchargeRate,
    cashDiscountRate: rates.cashDiscountRate,
    dualPricingRate: rates.dualPricingRate,
  };
}

export const invoiceUrls = (baseUrl: string, record: Pick<InvoiceRecord, 'id' | 'shortCode'>): { fullUrl: string; shortUrl: string } => ({
  fullUrl: `${baseUrl}/pay/invoices/${record.id}`,
  shortUrl: `${baseUrl}/i/${record.shortCode}`,
});

export function paymentTypeOf(calc: PaymentTypeCalc): Schemas['InvoicePaymentTypeCalculation'] {
  return {
    subTotalAmount: fromCents(calc.subTotalCents),
    totalAmount: fromCents(calc.totalCents),
    shippingAmount: fromCents(calc.shippingCents),
    taxAmount: fromCents(calc.taxCents),
    taxPercentage: calc.taxPercentage,
    feesAmount: fromCents(calc.feesCents),
    feesPercentage: calc.feesPercentage,
    discountAmount: fromCents(calc.discountCents),
    discountPercentage: calc.discountPercentage,
    surchargeAmount: fromCents(calc.surchargeCents),
    surchargePercentage: calc.surchargePercentage,
    cashDiscountAmount: fromCents(calc.cashDiscountCents),
    cashDiscountPercentage: calc.cashDiscountPercentage,
  };
}

/** The calculations of the invoice: under its frozen terms once published, the merchant's current ones on a draft. */
export async function calculationsOf(deps: Scope, record: InvoiceRecord, lines: readonly InvoiceLineRecord[]) {
  const terms = record.zeroCost ?? (await merchantTerms(deps));
  return { terms, result: calculateInvoice(calcInputOf({ ...record, lines }, terms)) };
}

const lineOf = (line: InvoiceLineRecord): Schemas['InvoiceLineItem'] => ({
  id: line.id,
  lineItemId: line.lineItemId,
  unitTypeId: line.unitTypeId,
  productName: line.productName,
  description: line.description,
  sku: line.sku,
  unitPrice: fromCents(line.unitPriceCents),
  quantity: line.quantity,
  discountPercentage: line.discountPercentage,
  totalAmount: fromCents(line.totalCents),
});

const nameOf = (enumName: EnumerationName, id: number | null): string | null => (id === null ? null : (enumeration(enumName).get(id) ?? String(id)));

const historyItemOf = (entry: HistoryRecord): Schemas['InvoiceHistoryItem'] => ({
  id: entry.id,
  invoiceId: entry.invoiceId,
  typeId: entry.typeId as Schemas['InvoiceHistoryType'],
  typeName: nameOf('InvoiceHistoryType', entry.typeId) ?? '',
  errorCode: entry.errorCode,
  errorMessage: entry.errorMessage,
  notificationId: entry.notificationId,
  notificationType: nameOf('InvoiceNotificationType', entry.notificationTypeId),
  notificationTypeId: entry.notificationTypeId,
  notificationTemplateType: nameOf('InvoiceNotificationTemplateType', entry.notificationTemplateTypeId),
  notificationTemplateTypeId: entry.notificationTemplateTypeId,
  notificationTarget: entry.notificationTarget,
  transactionId: entry.transactionId,
  paymentMethodTypeId: entry.paymentMethodTypeId,
  createdOn: entry.createdOn,
});

/** A stable uuid (RFC 4122 layout, version 5 bits) named by text. */
function namedUuid(name: string): string {
  const hex = createHash('sha1').update(name).digest('hex').slice(0, 32).split('');
  hex[12] = '5';
  hex[16] = ((parseInt(hex[16] ?? '0', 16) & 0x3) | 0x8).toString(16);
  const h = hex.join('');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20, 32)}`;
}

/**
 * The history with its PastDue entry. Past due is not stored (it follows from the due date and the clock),
 * so neither is its entry: it is derived, at the due date, when the invoice was still open then.
 */
export function historyWithPastDue(record: InvoiceRecord, stored: readonly HistoryRecord[], now: Date): HistoryRecord[] {
  const entries = [...stored];
  if (record.issueDate === null || record.dueDate === null || record.status === InvoiceStatuses.Draft) return entries;
  // Open until now, or until the entry that closed it (cancelled, marked as paid, paid).
  const closing = [...entries].reverse().find((e) => CLOSING_TYPES.has(e.typeId));
  const openUntil = record.status === InvoiceStatuses.Due ? now.toISOString() : (closing?.createdOn ?? record.paymentDate ?? now.toISOString());
  if (record.dueDate >= openUntil) return entries;
  const pastDue: HistoryRecord = {
    id: namedUuid(`invoice-past-due:${record.id}:${record.dueDate}`),
    invoiceId: record.id, typeId: InvoiceHistoryType.PastDue, errorCode: null, errorMessage: null, notificationId: null, notificationTypeId: null,
    notificationTemplateTypeId: null, notificationTarget: null, transactionId: null, paymentMethodTypeId: null, createdOn: record.dueDate,
  };
  const at = entries.findIndex((e) => e.createdOn > pastDue.createdOn);
  entries.splice(at < 0 ? entries.length : at, 0, pastDue);
  return entries;
}

const addressOf = (address: InvoiceAddress | null): Schemas['InvoiceCustomerAddress'] => (address === null ? null : { ...address });

export function customerOf(customer: InvoiceCustomerValue): Schemas['InvoiceCustomer'] {
  const billingAddress = addressOf(customer.billingAddress);
  return {
    firstName: customer.firstName,
    lastName: customer.lastName,
    companyName: customer.companyName,
    email: customer.email,
    mobilePhoneNumber: customer.mobilePhoneNumber,
    isMobileNumberSmsNotificationsEnabled: customer.smsEnabled,
    useBillingAsShippingAddress: customer.useBillingAsShipping,
    billingAddress,
    shippingAddress: customer.useBillingAsShipping ? billingAddress : addressOf(customer.shippingAddress),
  };
}

/** An address in one comparable form, from either shape (customer record or invoice). */
const comparable = (a: { line1: unknown; line2: unknown; city: unknown; zip: unknown; countryId: unknown; stateId: unknown; stateName: unknown } | null): string =>
  a === null ? 'null' : JSON.stringify([a.line1 ?? null, a.line2 ?? null, a.city ?? null, a.zip ?? null, a.countryId ?? null, a.stateId ?? null, a.stateName ?? null]);

const fromRecordAddress = (a: AddressValue | null) => (a === null ? null : {
  line1: a.addressLine1, line2: a.addressLine2, city: a.city, zip: a.zip, countryId: a.countryId, stateId: a.stateId, stateName: a.stateName,
});

const fromInvoiceAddress = (a: InvoiceAddress | null) => (a === null ? null : {
  line1: a.line1, line2: a.line2, city: a.city, zip: a.zip, countryId: a.countryId, stateId: a.stateId, stateName: a.stateName,
});

/** True when the invoice's customer differs from its linked customer record (false without one). */
function isCustomerUpdated(record: InvoiceRecord, linked: CustomerRecord | undefined): boolean {
  if (!linked) return false;
  const c = record.customer;
  const shipping = (useBilling: boolean, billing: string, shippingText: string): string => (useBilling ? billing : shippingText);
  const linkedBilling = comparable(fromRecordAddress(linked.billingAddress));
  const invoiceBilling = comparable(fromInvoiceAddress(c.billingAddress));
  const same = (linked.firstName ?? '') === c.firstName && linked.lastName === c.lastName && linked.companyName === c.companyName
    && linked.email === c.email && linked.mobilePhoneNumber === c.mobilePhoneNumber && linked.smsNotificationsEnabled === c.smsEnabled
    && linked.useBillingAsShipping === c.useBillingAsShipping && linkedBilling === invoiceBilling
    && shipping(linked.useBillingAsShipping, linkedBilling, comparable(fromRecordAddress(linked.shippingAddress)))
      === shipping(c.useBillingAsShipping, invoiceBilling, comparable(fromInvoiceAddress(c.shippingAddress)));
  return !same;
}

function contactInfoOf(record: InvoiceRecord, contact: ContactInfoRow | undefined): Schemas['InvoiceMerchantContactInfo'] {
  if (!contact) throw new Error(`invoice ${record.id}: its contact address ${record.merchantContactInfoId} is gone`);
  return {
    addressLine1: contact.address_line1,
    addressLine2: contact.address_line2,
    city: contact.city,
    zip: contact.zip,
    countryId: contact.country_id,
    stateId: contact.state_id ?? 0,
    stateName: contact.state_name ?? '',
    email: contact.email,
    businessPhoneNumber: contact.business_phone_number,
  };
}

/** Everything the invoice's view shows besides the record: read before the view is made. */
export interface InvoiceViewData {
  readonly record: InvoiceRecord;
  readonly lines: readonly InvoiceLineRecord[];
  readonly calculations: CalcResult;
  /** The merchant's contact address the invoice names (undefined: gone, which the view refuses). */
  readonly contact: ContactInfoRow | undefined;
  /** The customer record the invoice is linked to, if any is (still) there. */
  readonly linkedCustomer: CustomerRecord | undefined;
  readonly history: readonly HistoryRecord[];
}

/** Reads what the invoice's view shows. */
export async function invoiceViewData(deps: Scope, record: InvoiceRecord): Promise<InvoiceViewData> {
  const { db } = deps;
  const lines = await linesOf(db, record.id);
  const { result } = await calculationsOf(deps, record, lines);
  return {
    record,
    lines,
    calculations: result,
    contact: (await contactInfosOf(db, record.merchantId)).find((c) => c.id === record.merchantContactInfoId),
    linkedCustomer: record.customerId === null ? undefined : await findCustomer(db, record.merchantId, record.customerId),
    history: await historyOf(db, record.id),
  };
}

/** The full invoice record of the spec (Invoice), as it stands at `now` on the merchant's business clock. */
export async function invoiceView(deps: Scope, record: InvoiceRecord, now: Date = deps.clock.now()): Promise<Schemas['Invoice']> {
  return invoiceOf(await invoiceViewData(deps, record), deps.config.baseUrl, now);
}

/** The Invoice of the spec made of its data (no reads): as it stands at `now`, its links under `baseUrl`. */
export function invoiceOf(data: InvoiceViewData, baseUrl: string, now: Date): Schemas['Invoice'] {
  const { record, lines, calculations: result } = data;
  const option = record.zeroCost?.optionId ?? null;
  return {
    id: record.id,
    number: record.number,
    status: effectiveStatus(record, now),
    issueDate: record.issueDate,
    dueDate: record.dueDate,
    paymentDate: record.paymentDate,
    cardPaymentProcessorId: record.cardProcessorId,
    achPaymentProcessorId: record.achProcessorId,
    additionalNotes: record.additionalNotes,
    subTotalAmount: fromCents(record.subTotalCents),
    shippingAmount: fromCents(record.shippingCents),
    totalAmount: fromCents(record.totalCents),
    taxPercentage: record.taxPercentage,
    feesPercentage: record.feesPercentage,
    discountPercentage: record.discountPercentage,
    surchargeAmount: fromCents(record.surchargeCents),
    surchargePercentage: record.surchargePercentage,
    cashDiscountAmount: fromCents(record.cashDiscountCents),
    cashDiscountPercentage: record.cashDiscountPercentage,
    paymentMethodTypeId: record.paymentMethodTypeId,
    merchantId: record.merchantId,
    merchantContactInfoId: record.merchantContactInfoId,
    merchantContactInfo: contactInfoOf(record, data.contact),
    customerId: record.customerId,
    customer: customerOf(record.customer),
    lineItems: lines.map(lineOf),
    isCustomerUpdated: isCustomerUpdated(record, data.linkedCustomer),
    isLineItemsUpdated: lines.some((l) => l.isModified),
    ...invoiceUrls(baseUrl, record),
    markedAsPaid: record.markedAsPaid,
    transactionId: record.transactionId,
    achAllowFasterProcessing: record.achAllowFasterProcessing,
    history: historyWithPastDue(record, data.history, now).map(historyItemOf),
    zeroCostProcessingOptionId: option,
    // As the payment configuration names it: null for 0 None.
    zeroCostProcessingOption: option === null || option === ZeroCostProcessingOption.None ? null : nameOf('ZeroCostProcessingOption', option),
    useCardPrice: record.useCardPrice,
    invoiceCalculations: { debitCard: paymentTypeOf(result.debitCard), creditCard: paymentTypeOf(result.creditCard), ach: paymentTypeOf(result.ach) },
  };
}
