// Invoice settings rules: one record per merchant, made with the spec's initial values the first time it is
// read or updated; updates change only the fields given (null clears a nullable setting); the processors
// must be the merchant's, of the right kind. Also the defaults a new invoice takes from the settings.
import type { Knex } from 'knex';
import { PaymentMethodType, PaymentProcessorType } from '@pgw/client/enums';
import type { components } from '@pgw/client/types';
import { type Scope, within } from '../platform/scope.ts';
import { ApiError } from '../platform/errors.ts';
import { type Cents, toCents, ZERO_CENTS } from '../platform/money.ts';
import { iso } from '../platform/time.ts';
import { withTransaction } from '../platform/transaction.ts';
import * as repo from '../repositories/invoice-settings.ts';

/** One merchant's invoice settings: the shipping fee in cents, percentages as given. */
export type InvoiceSettings = repo.InvoiceSettingsRecord;
export type InvoiceSettingsUpdate = components['schemas']['InvoiceSettingsUpdateRequest'];

/** A merchant's settings before any change (spec: InvoiceSettings), less the processors. */
const INITIAL = {
  dueDateAfterDays: 30,
  taxPercentage: null,
  isDiscountEnabled: false,
  discountPercentage: null,
  isShippingFeeEnabled: false,
  shippingFeeCents: null,
  isFeesEnabled: false,
  feesPercentage: null,
  notes: '',
  paymentMethodTypeId: PaymentMethodType.Card,
  allowStaffToSetDiscountAndLineItemDiscount: false,
  allowManuallyEnterLineItems: true,
  isSmsNotificationAfterPaymentEnabled: false,
  isSmsNotificationAfterPaymentFailedEnabled: false,
  achAllowFasterProcessing: false,
  canOverWriteInvoiceLineItemPrice: true,
  newZcpFeatureEnabled: false,
} as const satisfies Omit<InvoiceSettings, 'merchantId' | 'cardPaymentProcessorId' | 'achPaymentProcessorId'>;

/** The merchant's settings; the first call for a merchant stores the initial ones (its default processors). */
export async function getSettings(scope: Scope): Promise<InvoiceSettings> {
  const { merchantId } = scope;
  const { db } = scope;
  const existing = await repo.findSettings(db, merchantId);
  if (existing) return existing;
  await repo.insertSettings(db, merchantId, {
    ...INITIAL,
    cardPaymentProcessorId: await repo.defaultProcessorId(db, merchantId, PaymentProcessorType.CardProcessor),
    achPaymentProcessorId: await repo.defaultProcessorId(db, merchantId, PaymentProcessorType.Eft),
  }, iso(scope.clock.now()));
  const created = await repo.findSettings(db, merchantId);
  if (!created) throw new Error(`the invoice settings of merchant ${merchantId} were not stored`);
  return created;
}

const PROCESSOR_FIELDS = [
  ['cardPaymentProcessorId', 1, 'card'],
  ['achPaymentProcessorId', 2, 'ACH (Eft)'],
] as const;

/** The changes an update body asks for: absent keeps, null clears (a null paymentMethodTypeId keeps). */
async function changesOf(db: Knex, merchantId: string, body: InvoiceSettingsUpdate): Promise<repo.InvoiceSettingsChanges> {
  const errors: Record<string, string[]> = {};
  const processors: { cardPaymentProcessorId?: string; achPaymentProcessorId?: string } = {};
  for (const [field, typeId, kind] of PROCESSOR_FIELDS) {
    const given = body[field];
    if (given === undefined) continue;
    const id = given.toLowerCase();
    const type = await repo.processorType(db, merchantId, id);
    if (type === typeId) processors[field] = id;
    else errors[field] = [type === undefined ? 'names no payment processor of this merchant.' : `names a processor that is not a ${kind} processor.`];
  }
  if (Object.keys(errors).length > 0) throw new ApiError('validation_failed', { errors });
  return {
    dueDateAfterDays: body.dueDateAfterDays,
    taxPercentage: body.taxPercentage,
    isDiscountEnabled: body.isDiscountEnabled,
    discountPercentage: body.discountPercentage,
    isShippingFeeEnabled: body.isShippingFeeEnabled,
    shippingFeeCents: body.shippingFeeAmount === undefined || body.shippingFeeAmount === null ? body.shippingFeeAmount : toCents(body.shippingFeeAmount),
    isFeesEnabled: body.isFeesEnabled,
    feesPercentage: body.feesPercentage,
    notes: body.notes,
    paymentMethodTypeId: body.paymentMethodTypeId ?? undefined,
    ...processors,
    allowStaffToSetDiscountAndLineItemDiscount: body.allowStaffToSetDiscountAndLineItemDiscount,
    allowManuallyEnterLineItems: body.allowManuallyEnterLineItems,
    isSmsNotificationAfterPaymentEnabled: body.isSmsNotificationAfterPaymentEnabled,
    isSmsNotificationAfterPaymentFailedEnabled: body.isSmsNotificationAfterPaymentFailedEnabled,
    achAllowFasterProcessing: body.achAllowFasterProcessing,
    canOverWriteInvoiceLineItemPrice: body.canOverWriteInvoiceLineItemPrice,
  };
}

/** Applies an update (spec: InvoiceSettingsUpdateRequest); existing invoices keep their values. */
export async function updateSettings(scope: Scope, body: InvoiceSettingsUpdate): Promise<InvoiceSettings> {
  const { merchantId } = scope;
  return withTransaction(scope.db, async (tx) => {
    const inTx = within(scope, tx);
    await getSettings(inTx);
    await repo.updateSettings(tx, merchantId, await changesOf(tx, merchantId, body), iso(scope.clock.now()));
    return getSettings(inTx);
  });
}

/** What an invoice that leaves these values null takes from the settings (spec: InvoiceRequest). */
export interface InvoiceDefaults {
  taxPercentage: number;
  discountPercentage: number;
  shippingCents: Cents;
  feesPercentage: number;
  additionalNotes: string;
  cardPaymentProcessorId: string | null;
  achPaymentProcessorId: string | null;
  dueDateAfterDays: number | null;
  achAllowFasterProcessing: boolean;
}

/**
 * The defaults of a new or updated invoice: the tax (0 when none); the discount, shipping fee and fees only
 * when enabled (0 otherwise, or when enabled without a value); the notes and processors.
 */
export function invoiceDefaults(settings: InvoiceSettings): InvoiceDefaults {
  return {
    taxPercentage: settings.taxPercentage ?? 0,
    discountPercentage: settings.isDiscountEnabled ? (settings.discountPercentage ?? 0) : 0,
    shippingCents: settings.isShippingFeeEnabled ? (settings.shippingFeeCents ?? ZERO_CENTS) : ZERO_CENTS,
    feesPercentage: settings.isFeesEnabled ? (settings.feesPercentage ?? 0) : 0,
    additionalNotes: settings.notes,
    cardPaymentProcessorId: settings.cardPaymentProcessorId,
    achPaymentProcessorId: settings.achPaymentProcessorId,
    dueDateAfterDays: settings.dueDateAfterDays,
    achAllowFasterProcessing: settings.achAllowFasterProcessing,
  };
}
