// The invoices tables (Knex only): invoices, their lines and history, the number sequence, the list.
// Rows in, records out: booleans from SQLite's 0/1, bigints read from PostgreSQL as strings, JSON
// addresses. Amounts stay in integer cents here (`…Cents`): the calculations work in cents, and the
// responses convert them to USD.
import type { Knex } from 'knex';
import { type InvoiceNotificationTemplateType, type InvoiceNotificationType, InvoiceStatus, PaymentMethodType, type ZeroCostProcessingOption } from '@pgw/client/enums';
import { lockRow } from '../platform/transaction.ts';
import { type Cents, centsOfColumn } from '../platform/money.ts';

/** Stored statuses; PastDue is derived from the due date (see services/invoices.ts). */
export type StoredStatus = Exclude<InvoiceStatus, typeof InvoiceStatus.PastDue>;

export interface InvoiceAddress {
  line1?: string;
  line2?: string;
  city?: string;
  zip?: string;
  countryId?: number;
  stateId?: number;
  stateName?: string;
}

export interface InvoiceCustomerValue {
  firstName: string;
  lastName: string;
  companyName: string | null;
  email: string | null;
  mobilePhoneNumber: string | null;
  smsEnabled: boolean;
  useBillingAsShipping: boolean;
  billingAddress: InvoiceAddress | null;
  /** Null when useBillingAsShipping (the record then shows the billing address). */
  shippingAddress: InvoiceAddress | null;
}

export interface InvoiceLineValue {
  lineItemId: string | null;
  unitTypeId: number;
  productName: string;
  description: string | null;
  sku: string | null;
  unitPriceCents: Cents;
  quantity: number;
  discountPercentage: number;
  totalCents: Cents;
  isModified: boolean;
}

export interface InvoiceLineRecord extends InvoiceLineValue {
  id: string;
}

/** What create, update and publish write: the content of the invoice request, settled. */
export interface InvoiceContent {
  dueDate: string | null;
  cardProcessorId: string | null;
  achProcessorId: string | null;
  additionalNotes: string;
  subTotalCents: Cents;
  shippingCents: Cents;
  totalCents: Cents;
  taxPercentage: number;
  feesPercentage: number;
  discountPercentage: number;
  merchantContactInfoId: string;
  customerId: string | null;
  customer: InvoiceCustomerValue;
  achAllowFasterProcessing: boolean | null;
  lines: InvoiceLineValue[];
}

export interface ZeroCostTerms {
  optionId: ZeroCostProcessingOption;
  surchargeRate: number | null;
  cashDiscountRate: number | null;
  dualPricingRate: number | null;
}

export interface InvoiceRecord extends Omit<InvoiceContent, 'lines'> {
  id: string;
  merchantId: string;
  status: StoredStatus;
  number: string | null;
  issueDate: string | null;
  paymentDate: string | null;
  surchargeCents: Cents;
  surchargePercentage: number;
  cashDiscountCents: Cents;
  cashDiscountPercentage: number;
  paymentMethodTypeId: PaymentMethodType | null;
  shortCode: string;
  markedAsPaid: boolean | null;
  transactionId: string | null;
  /** Frozen at publication; null on a draft. */
  zeroCost: ZeroCostTerms | null;
  useCardPrice: boolean | null;
  createdOn: string;
  modifiedOn: string;
}

export interface HistoryValue {
  typeId: number;
  errorCode?: string | null;
  errorMessage?: string | null;
  notificationId?: string | null;
  notificationTypeId?: InvoiceNotificationType | null;
  notificationTemplateTypeId?: InvoiceNotificationTemplateType | null;
  notificationTarget?: string | null;
  transactionId?: string | null;
  paymentMethodTypeId?: PaymentMethodType | null;
  createdOn: string;
}

export interface HistoryRecord extends Required<HistoryValue> {
  id: string;
  invoiceId: string;
}

type Bool = boolean | number;
/** bigint and double columns: PostgreSQL may return text. */
type Big = number | string;

interface InvoiceRow {
  id: string; merchant_id: string; status_id: number; number: string | null; number_seq: number | null;
  issue_date: string | null; due_date: string | null; payment_date: string | null;
  card_processor_id: string | null; ach_processor_id: string | null; additional_notes: string;
  sub_total_cents: Big; shipping_cents: Big; total_cents: Big;
  tax_percentage: Big; fees_percentage: Big; discount_percentage: Big;
  surcharge_cents: Big; surcharge_percentage: Big; cash_discount_cents: Big; cash_discount_percentage: Big;
  payment_method_type_id: number | null; merchant_contact_info_id: string; customer_id: string | null;
  customer_first_name: string; customer_last_name: string; customer_company_name: string | null; customer_email: string | null;
  customer_mobile_phone_number: string | null; customer_sms_enabled: Bool; customer_use_billing_as_shipping: Bool;
  customer_billing_address: string | null; customer_shipping_address: string | null;
  short_code: string; marked_as_paid: Bool | null; transaction_id: string | null; ach_allow_faster_processing: Bool | null;
  zero_cost_processing_option_id: number | null; surcharge_rate: Big | null; cash_discount_rate: Big | null; dual_pricing_rate: Big | null;
  use_card_price: Bool | null; created_on: string; modified_on: string;
}

interface LineRow {
  id: string; invoice_id: string; position: number; line_item_id: string | null; unit_type_id: number; product_name: string;
  description: string | null; sku: string | null; unit_price_cents: Big; quantity: Big; discount_percentage: Big;
  total_cents: Big; is_modified: Bool;
}

interface HistoryRow {
  id: string; invoice_id: string; position: number; type_id: number; error_code: string | null; error_message: string | null;
  notification_id: string | null; notification_type_id: number | null; notification_template_type_id: number | null;
  notification_target: string | null; transaction_id: string | null; payment_method_type_id: number | null; created_on: string;
}

const boolOrNull = (value: Bool | null): boolean | null => (value === null ? null : Boolean(value));
const json = (text: string | null): InvoiceAddress | null => (text === null ? null : (JSON.parse(text) as InvoiceAddress));
const paymentType = (value: number | null): PaymentMethodType | null =>
  (value === PaymentMethodType.Card || value === PaymentMethodType.ElectronicCheck ? value : null);

function toRecord(row: InvoiceRow): InvoiceRecord {
  const option = row.zero_cost_processing_option_id;
  return {
    id: row.id,
    merchantId: row.merchant_id,
    status: row.status_id as StoredStatus,
    number: row.number,
    issueDate: row.issue_date,
    dueDate: row.due_date,
    paymentDate: row.payment_date,
    cardProcessorId: row.card_processor_id,
    achProcessorId: row.ach_processor_id,
    additionalNotes: row.additional_notes,
    subTotalCents: centsOfColumn(row.sub_total_cents),
    shippingCents: centsOfColumn(row.shipping_cents),
    totalCents: centsOfColumn(row.total_cents),
    taxPercentage: Number(row.tax_percentage),
    feesPercentage: Number(row.fees_percentage),
    discountPercentage: Number(row.discount_percentage),
    surchargeCents: centsOfColumn(row.surcharge_cents),
    surchargePercentage: Number(row.surcharge_percentage),
    cashDiscountCents: centsOfColumn(row.cash_discount_cents),
    cashDiscountPercentage: Number(row.cash_discount_percentage),
    paymentMethodTypeId: paymentType(row.payment_method_type_id),
    merchantContactInfoId: row.merchant_contact_info_id,
    customerId: row.customer_id,
    customer: {
      firstName: row.customer_first_name,
      lastName: row.customer_last_name,
      companyName: row.customer_company_name,
      email: row.customer_email,
      mobilePhoneNumber: row.customer_mobile_phone_number,
      smsEnabled: Boolean(row.customer_sms_enabled),
      useBillingAsShipping: Boolean(row.customer_use_billing_as_shipping),
      billingAddress: json(row.customer_billing_address),
      shippingAddress: json(row.customer_shipping_address),
    },
    shortCode: row.short_code,
    markedAsPaid: boolOrNull(row.marked_as_paid),
    transactionId: row.transaction_id,
    achAllowFasterProcessing: boolOrNull(row.ach_allow_faster_processing),
    zeroCost: option === null ? null : {
      optionId: option as ZeroCostTerms['optionId'],
      surchargeRate: row.surcharge_rate === null ? null : Number(row.surcharge_rate),
      cashDiscountRate: row.cash_discount_rate === null ? null : Number(row.cash_discount_rate),
      dualPricingRate: row.dual_pricing_rate === null ? null : Number(row.dual_pricing_rate),
    },
    useCardPrice: boolOrNull(row.use_card_price),
    createdOn: row.created_on,
    modifiedOn: row.modified_on,
  };
}

const toLine = (row: LineRow): InvoiceLineRecord => ({
  id: row.id,
  lineItemId: row.line_item_id,
  unitTypeId: row.unit_type_id,
  productName: row.product_name,
  description: row.description,
  sku: row.sku,
  unitPriceCents: centsOfColumn(row.unit_price_cents),
  quantity: Number(row.quantity),
  discountPercentage: Number(row.discount_percentage),
  totalCents: centsOfColumn(row.total_cents),
  isModified: Boolean(row.is_modified),
});

const toHistory = (row: HistoryRow): HistoryRecord => ({
  id: row.id,
  invoiceId: row.invoice_id,
  typeId: row.type_id,
  errorCode: row.error_code,
  errorMessage: row.error_message,
  notificationId: row.notification_id,
  notificationTypeId: row.notification_type_id as InvoiceNotificationType | null,
  notificationTemplateTypeId: row.notification_template_type_id as InvoiceNotificationTemplateType | null,
  notificationTarget: row.notification_target,
  transactionId: row.transaction_id,
  paymentMethodTypeId: paymentType(row.payment_method_type_id),
  createdOn: row.created_on,
});

function contentColumns(content: Omit<InvoiceContent, 'lines'>): Record<string, unknown> {
  const c = content.customer;
  return {
    due_date: content.dueDate,
    card_processor_id: content.cardProcessorId,
    ach_processor_id: content.achProcessorId,
    additional_notes: content.additionalNotes,
    sub_total_cents: content.subTotalCents,
    shipping_cents: content.shippingCents,
    total_cents: content.totalCents,
    tax_percentage: content.taxPercentage,
    fees_percentage: content.feesPercentage,
    discount_percentage: content.discountPercentage,
    merchant_contact_info_id: content.merchantContactInfoId,
    customer_id: content.customerId,
    customer_first_name: c.firstName,
    customer_last_name: c.lastName,
    customer_company_name: c.companyName,
    customer_email: c.email,
    customer_mobile_phone_number: c.mobilePhoneNumber,
    customer_sms_enabled: c.smsEnabled,
    customer_use_billing_as_shipping: c.useBillingAsShipping,
    customer_billing_address: c.billingAddress === null ? null : JSON.stringify(c.billingAddress),
    customer_shipping_address: c.shippingAddress === null ? null : JSON.stringify(c.shippingAddress),
    ach_allow_faster_processing: content.achAllowFasterProcessing,
  };
}

async function writeLines(db: Knex, invoiceId: string, lines: readonly InvoiceLineValue[], newId: () => string): Promise<void> {
  await db('invoice_line_items').where({ invoice_id: invoiceId }).delete();
  if (lines.length === 0) return;
  await db('invoice_line_items').insert(lines.map((line, position) => ({
    id: newId(),
    invoice_id: invoiceId,
    position,
    line_item_id: line.lineItemId,
    unit_type_id: line.unitTypeId,
    product_name: line.productName,
    description: line.description,
    sku: line.sku,
    unit_price_cents: line.unitPriceCents,
    quantity: line.quantity,
    discount_percentage: line.discountPercentage,
    total_cents: line.totalCents,
    is_modified: line.isModified,
  })));
}

/** Inserts a draft with its lines. Run it in a transaction. */
export async function insertDraft(db: Knex, draft: { id: string; merchantId: string; shortCode: string; content: InvoiceContent; now: string },
  newId: () => string): Promise<void> {
  await db('invoices').insert({
    id: draft.id,
    merchant_id: draft.merchantId,
    status_id: InvoiceStatus.Draft,
    short_code: draft.shortCode,
    ...contentColumns(draft.content),
    created_on: draft.now,
    modified_on: draft.now,
  });
  await writeLines(db, draft.id, draft.content.lines, newId);
}

/** Replaces a draft's content and lines; false when there is no such invoice. Run it in the transaction that locked it. */
export async function replaceDraftContent(db: Knex, merchantId: string, id: string, content: InvoiceContent, now: string,
  newId: () => string): Promise<boolean> {
  const count = await db('invoices').where({ merchant_id: merchantId, id }).update({ ...contentColumns(content), modified_on: now });
  if (count === 0) return false;
  await writeLines(db, id, content.lines, newId);
  return true;
}

/** The record of an invoices row read elsewhere (under lock). */
export const invoiceOf = (row: Record<string, unknown>): InvoiceRecord => toRecord(row as unknown as InvoiceRow);

export async function findInvoice(db: Knex, merchantId: string, id: string): Promise<InvoiceRecord | undefined> {
  const row = (await db('invoices').where({ merchant_id: merchantId, id }).first()) as InvoiceRow | undefined;
  return row ? toRecord(row) : undefined;
}

/** Any merchant's invoice (the public invoice page). */
export async function findInvoiceById(db: Knex, id: string): Promise<InvoiceRecord | undefined> {
  const row = (await db('invoices').where({ id }).first()) as InvoiceRow | undefined;
  return row ? toRecord(row) : undefined;
}

export async function findInvoiceIdByShortCode(db: Knex, code: string): Promise<string | undefined> {
  const row = await db('invoices').where({ short_code: code }).first<{ id: string } | undefined>('id');
  return row?.id;
}

export async function linesOf(db: Knex, invoiceId: string): Promise<InvoiceLineRecord[]> {
  const rows = (await db('invoice_line_items').where({ invoice_id: invoiceId }).orderBy('position')) as LineRow[];
  return rows.map(toLine);
}

export async function historyOf(db: Knex, invoiceId: string): Promise<HistoryRecord[]> {
  const rows = (await db('invoice_history').where({ invoice_id: invoiceId }).orderBy('position')) as HistoryRow[];
  return rows.map(toHistory);
}

/** Appends a history entry, in the transaction of the change it records. */
export async function addHistory(db: Knex.Transaction, id: string, invoiceId: string, entry: HistoryValue): Promise<void> {
  // Lock the invoice row first: concurrent appends to one history take their positions in turn on
  // PostgreSQL, instead of both reading the same max(position).
  await lockRow(db, 'invoices', { id: invoiceId });
  const last = (await db('invoice_history').where({ invoice_id: invoiceId }).max({ position: 'position' }).first()) as { position: number | string | null } | undefined;
  await db('invoice_history').insert({
    id,
    invoice_id: invoiceId,
    position: last?.position === null || last?.position === undefined ? 0 : Number(last.position) + 1,
    type_id: entry.typeId,
    error_code: entry.errorCode ?? null,
    error_message: entry.errorMessage ?? null,
    notification_id: entry.notificationId ?? null,
    notification_type_id: entry.notificationTypeId ?? null,
    notification_template_type_id: entry.notificationTemplateTypeId ?? null,
    notification_target: entry.notificationTarget ?? null,
    transaction_id: entry.transactionId ?? null,
    payment_method_type_id: entry.paymentMethodTypeId ?? null,
    created_on: entry.createdOn,
  });
}

/** The merchant's next invoice sequence number. Run it in the publishing transaction (the update locks the row). */
export async function nextInvoiceNumber(db: Knex, merchantId: string): Promise<number> {
  await db('invoice_number_sequences').insert({ merchant_id: merchantId, last_number: 0 }).onConflict('merchant_id').ignore();
  await db('invoice_number_sequences').where({ merchant_id: merchantId }).increment('last_number', 1);
  const row = await db('invoice_number_sequences').where({ merchant_id: merchantId }).first<{ last_number: number | string }>('last_number');
  return Number(row.last_number);
}

export interface Publication {
  number: string;
  numberSeq: number;
  issueDate: string;
  dueDate: string;
  zeroCost: ZeroCostTerms;
}

/** Publishes a draft (Due); false when there is no such invoice. Run it in the transaction that locked it. */
export async function publishDraft(db: Knex, merchantId: string, id: string, p: Publication, now: string): Promise<boolean> {
  const count = await db('invoices').where({ merchant_id: merchantId, id }).update({
    status_id: InvoiceStatus.Due,
    number: p.number,
    number_seq: p.numberSeq,
    issue_date: p.issueDate,
    due_date: p.dueDate,
    zero_cost_processing_option_id: p.zeroCost.optionId,
    surcharge_rate: p.zeroCost.surchargeRate,
    cash_discount_rate: p.zeroCost.cashDiscountRate,
    dual_pricing_rate: p.zeroCost.dualPricingRate,
    modified_on: now,
  });
  return count > 0;
}

/** The payment columns a status change may set with it (a payment, a payment marked by hand, or its reversal). */
export interface PaymentColumns {
  paymentDate?: string | null;
  paymentMethodTypeId?: PaymentMethodType | null;
  markedAsPaid?: boolean | null;
  transactionId?: string | null;
  totalCents?: number;
  surchargeCents?: number;
  surchargePercentage?: number;
  cashDiscountCents?: number;
  cashDiscountPercentage?: number;
  /** True under dual pricing when the card price was charged; null otherwise. */
  useCardPrice?: boolean | null;
}

const PAYMENT_COLUMNS: Record<keyof PaymentColumns, string> = {
  paymentDate: 'payment_date', paymentMethodTypeId: 'payment_method_type_id', markedAsPaid: 'marked_as_paid', transactionId: 'transaction_id',
  totalCents: 'total_cents', surchargeCents: 'surcharge_cents', surchargePercentage: 'surcharge_percentage', cashDiscountCents: 'cash_discount_cents',
  cashDiscountPercentage: 'cash_discount_percentage', useCardPrice: 'use_card_price',
};

/** Sets an invoice's stored status with the given payment columns; false when there is no such invoice. Run it in the transaction that locked it. */
export async function changeInvoice(db: Knex, id: string, status: StoredStatus, payment: PaymentColumns, now: string): Promise<boolean> {
  const columns: Record<string, unknown> = { status_id: status, modified_on: now };
  for (const [key, column] of Object.entries(PAYMENT_COLUMNS) as [keyof PaymentColumns, string][]) {
    if (payment[key] !== undefined) columns[column] = payment[key];
  }
  return (await db('invoices').where({ id }).update(columns)) > 0;
}

/** Deletes a draft with its lines and history. Run it in the transaction that locked it. */
export async function deleteDraft(db: Knex, merchantId: string, id: string): Promise<boolean> {
  await db('invoice_line_items').where({ invoice_id: id }).delete();
  await db('invoice_history').where({ invoice_id: id }).delete();
  return (await db('invoices').where({ merchant_id: merchantId, id }).delete()) > 0;
}
