// The merchants' invoice settings (Knex only). Booleans read from SQLite as 0/1 and bigints read from
// PostgreSQL as strings become booleans and numbers here; the shipping fee stays in cents.
import { PaymentMethodType, PaymentProcessorType } from '@pgw/client/enums';
import type { Knex } from 'knex';
import { type Cents, centsOrNullOfColumn } from '../platform/money.ts';

/** One merchant's invoice settings; money in cents, percentages as given. */
export interface InvoiceSettingsRecord {
  merchantId: string;
  dueDateAfterDays: number | null;
  taxPercentage: number | null;
  isDiscountEnabled: boolean;
  discountPercentage: number | null;
  isShippingFeeEnabled: boolean;
  shippingFeeCents: Cents | null;
  isFeesEnabled: boolean;
  feesPercentage: number | null;
  notes: string;
  paymentMethodTypeId: PaymentMethodType;
  /** Null only when the merchant has no processor of the kind. */
  cardPaymentProcessorId: string | null;
  achPaymentProcessorId: string | null;
  allowStaffToSetDiscountAndLineItemDiscount: boolean;
  allowManuallyEnterLineItems: boolean;
  isSmsNotificationAfterPaymentEnabled: boolean;
  isSmsNotificationAfterPaymentFailedEnabled: boolean;
  achAllowFasterProcessing: boolean;
  canOverWriteInvoiceLineItemPrice: boolean;
  newZcpFeatureEnabled: boolean;
}

/** The settings an update may change (newZcpFeatureEnabled is the gateway's). */
export type InvoiceSettingsChanges = Partial<Omit<InvoiceSettingsRecord, 'merchantId' | 'newZcpFeatureEnabled'>>;

interface Row {
  merchant_id: string;
  due_date_after_days: number | string | null;
  tax_percentage: number | string | null;
  is_discount_enabled: boolean | number;
  discount_percentage: number | string | null;
  is_shipping_fee_enabled: boolean | number;
  shipping_fee_cents: number | string | null;
  is_fees_enabled: boolean | number;
  fees_percentage: number | string | null;
  notes: string;
  payment_method_type_id: number;
  card_payment_processor_id: string | null;
  ach_payment_processor_id: string | null;
  allow_staff_discounts: boolean | number;
  allow_manual_line_items: boolean | number;
  sms_after_payment: boolean | number;
  sms_after_payment_failed: boolean | number;
  ach_allow_faster_processing: boolean | number;
  can_overwrite_line_item_price: boolean | number;
  new_zcp_feature_enabled: boolean | number;
}

/** Record field -> column, for every field an update may write. */
const COLUMNS = {
  dueDateAfterDays: 'due_date_after_days',
  taxPercentage: 'tax_percentage',
  isDiscountEnabled: 'is_discount_enabled',
  discountPercentage: 'discount_percentage',
  isShippingFeeEnabled: 'is_shipping_fee_enabled',
  shippingFeeCents: 'shipping_fee_cents',
  isFeesEnabled: 'is_fees_enabled',
  feesPercentage: 'fees_percentage',
  notes: 'notes',
  paymentMethodTypeId: 'payment_method_type_id',
  cardPaymentProcessorId: 'card_payment_processor_id',
  achPaymentProcessorId: 'ach_payment_processor_id',
  allowStaffToSetDiscountAndLineItemDiscount: 'allow_staff_discounts',
  allowManuallyEnterLineItems: 'allow_manual_line_items',
  isSmsNotificationAfterPaymentEnabled: 'sms_after_payment',
  isSmsNotificationAfterPaymentFailedEnabled: 'sms_after_payment_failed',
  achAllowFasterProcessing: 'ach_allow_faster_processing',
  canOverWriteInvoiceLineItemPrice: 'can_overwrite_line_item_price',
} as const satisfies Record<keyof InvoiceSettingsChanges, keyof Row>;

const numberOrNull = (value: number | string | null): number | null => (value === null ? null : Number(value));

const toRecord = (row: Row): InvoiceSettingsRecord => ({
  merchantId: row.merchant_id,
  dueDateAfterDays: numberOrNull(row.due_date_after_days),
  taxPercentage: numberOrNull(row.tax_percentage),
  isDiscountEnabled: Boolean(row.is_discount_enabled),
  discountPercentage: numberOrNull(row.discount_percentage),
  isShippingFeeEnabled: Boolean(row.is_shipping_fee_enabled),
  shippingFeeCents: centsOrNullOfColumn(row.shipping_fee_cents),
  isFeesEnabled: Boolean(row.is_fees_enabled),
  feesPercentage: numberOrNull(row.fees_percentage),
  notes: row.notes,
  paymentMethodTypeId: row.payment_method_type_id === PaymentMethodType.ElectronicCheck ? PaymentMethodType.ElectronicCheck : PaymentMethodType.Card,
  cardPaymentProcessorId: row.card_payment_processor_id,
  achPaymentProcessorId: row.ach_payment_processor_id,
  allowStaffToSetDiscountAndLineItemDiscount: Boolean(row.allow_staff_discounts),
  allowManuallyEnterLineItems: Boolean(row.allow_manual_line_items),
  isSmsNotificationAfterPaymentEnabled: Boolean(row.sms_after_payment),
  isSmsNotificationAfterPaymentFailedEnabled: Boolean(row.sms_after_payment_failed),
  achAllowFasterProcessing: Boolean(row.ach_allow_faster_processing),
  canOverWriteInvoiceLineItemPrice: Boolean(row.can_overwrite_line_item_price),
  newZcpFeatureEnabled: Boolean(row.new_zcp_feature_enabled),
});

function columnsOf(values: InvoiceSettingsChanges): Record<string, unknown> {
  const row: Record<string, unknown> = {};
  for (const [field, column] of Object.entries(COLUMNS) as [keyof InvoiceSettingsChanges, string][]) {
    if (values[field] !== undefined) row[column] = values[field];
  }
  return row;
}

export async function findSettings(db: Knex, merchantId: string): Promise<InvoiceSettingsRecord | undefined> {
  const row = (await db('invoice_settings').where({ merchant_id: merchantId }).first()) as Row | undefined;
  return row ? toRecord(row) : undefined;
}

/** Writes a merchant's first settings; a row written meanwhile (a concurrent first read) is kept. */
export async function insertSettings(db: Knex, merchantId: string, values: InvoiceSettingsChanges & { newZcpFeatureEnabled: boolean }, now: string): Promise<void> {
  await db('invoice_settings')
    .insert({ merchant_id: merchantId, ...columnsOf(values), new_zcp_feature_enabled: values.newZcpFeatureEnabled, created_on: now, modified_on: now })
    .onConflict('merchant_id')
    .ignore();
}

export async function updateSettings(db: Knex, merchantId: string, changes: InvoiceSettingsChanges, now: string): Promise<void> {
  await db('invoice_settings').where({ merchant_id: merchantId }).update({ ...columnsOf(changes), modified_on: now });
}

/** The kind (CardProcessor or Eft) of one of the merchant's processors; undefined when it is not the merchant's. */
export async function processorType(db: Knex, merchantId: string, processorId: string): Promise<PaymentProcessorType | undefined> {
  const row = await db('payment_processors').where({ merchant_id: merchantId, id: processorId }).first<{ type_id: number } | undefined>('type_id');
  if (!row) return undefined;
  return row.type_id === PaymentProcessorType.Eft ? PaymentProcessorType.Eft : PaymentProcessorType.CardProcessor;
}

/** The merchant's default processor of a kind (else the first by name), or null when it has none. */
export async function defaultProcessorId(db: Knex, merchantId: string, typeId: PaymentProcessorType): Promise<string | null> {
  const row = await db('payment_processors')
    .where({ merchant_id: merchantId, type_id: typeId })
    .orderBy([{ column: 'is_default', order: 'desc' }, { column: 'name' }, { column: 'id' }])
    .first<{ id: string } | undefined>('id');
  return row?.id ?? null;
}
