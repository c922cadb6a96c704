// The invoice request (create, update, publish) checked and settled: defaults from the merchant's invoice
// settings, lines from the catalogue or entered by hand (as the settings allow), the ids the body names
// (customer, contact address, processors) checked against the merchant's records, amounts in cents.
import type { Knex } from 'knex';
import { PaymentProcessorType } from '@pgw/client/enums';
import { ApiError } from '../platform/errors.ts';
import { normalizeDateTime } from '../platform/time.ts';
import { type Cents, fromCents, minusCents, sumCents, toCents, ZERO_CENTS } from '../platform/money.ts';
import type { InvoiceSettingsRecord } from '../repositories/invoice-settings.ts';
import { processorType } from '../repositories/invoice-settings.ts';
import type { InvoiceAddress, InvoiceContent, InvoiceCustomerValue, InvoiceLineValue, ZeroCostTerms } from '../repositories/invoices.ts';
import { contactInfosOf } from '../repositories/merchants.ts';
import { findCustomer, type AddressValue, type CustomerRecord } from '../repositories/customers.ts';
import { findLineItem, unitTypeById } from './catalogue.ts';
import { calculateInvoice, type CalcInput, type CalcResult } from './invoice-calculations.ts';
import { invoiceDefaults } from './invoice-settings.ts';
import { LARGEST_PAYMENT_CENTS } from './payments.ts';
import type { Scope } from '../platform/scope.ts';

export interface InvoiceCustomerInput {
  firstName?: string;
  lastName?: string;
  companyName?: string | null;
  email?: string | null;
  mobilePhoneNumber?: string | null;
  isMobileNumberSmsNotificationsEnabled?: boolean;
  useBillingAsShippingAddress?: boolean;
  billingAddress?: InvoiceAddress | null;
  shippingAddress?: InvoiceAddress | null;
}

export interface InvoiceLineInput {
  /** Null or left out: a manually entered line. */
  lineItemId?: string | null;
  unitTypeId?: number;
  productName?: string;
  description?: string | null;
  sku?: string | null;
  unitPrice?: number;
  quantity: number;
  discountPercentage?: number;
}

/** The invoice request of the spec (InvoiceRequest), as the service reads it. */
export interface InvoiceInput {
  dueDate?: string | null;
  cardPaymentProcessorId?: string | null;
  achPaymentProcessorId?: string | null;
  additionalNotes?: string;
  shippingAmount?: number | null;
  taxPercentage?: number | null;
  feesPercentage?: number | null;
  discountPercentage?: number | null;
  merchantContactInfoId?: string | null;
  customerId?: string | null;
  achAllowFasterProcessing?: boolean | null;
  /** Required without customerId; with it, the customer record fills what is left out. */
  customer?: InvoiceCustomerInput;
  lineItems: InvoiceLineInput[];
  canPriceBeForceOverrided?: boolean;
}

type Errors = Record<string, string[]>;

const addError = (errors: Errors, field: string, message: string): void => {
  (errors[field] ??= []).push(message);
};

const UNIT_TYPES = 'see GET /pay-int-api/line-items/unit-types';

/** The calculation input of an invoice's stored (or settled) values under zero cost processing terms. */
export function calcInputOf(values: { lines: readonly { unitPriceCents: Cents; quantity: number; discountPercentage: number }[];
  shippingCents: Cents; taxPercentage: number; feesPercentage: number; discountPercentage: number }, terms: ZeroCostTerms): CalcInput {
  return {
    lines: values.lines.map((l) => ({ unitPriceCents: l.unitPriceCents, quantity: l.quantity, discountPercentage: l.discountPercentage })),
    shippingCents: values.shippingCents,
    taxPercentage: values.taxPercentage,
    feesPercentage: values.feesPercentage,
    discountPercentage: values.discountPercentage,
    zeroCostProcessingOptionId: terms.optionId,
    surchargeRate: terms.surchargeRate,
    cashDiscountRate: terms.cashDiscountRate,
    dualPricingRate: terms.dualPricingRate,
  };
}

/** The base amount (no surcharge, no cash discount): what totalAmount shows while the invoice is unpaid. */
/**
 * The invoice's figures, when every payment type's total can be paid: 400 naming lineItems otherwise, before
 * anything is written (a total past the largest payment was published with a page nobody could pay, and one past
 * exact arithmetic answered 500).
 */
function payableTotals(input: CalcInput): CalcResult {
  let result: CalcResult;
  try {
    result = calculateInvoice(input);
  } catch (error) {
    if (!(error instanceof RangeError)) throw error;
    throw new ApiError('validation_failed', { errors: { lineItems: ['the invoice total is beyond what any payment can take'] } });
  }
  for (const { totalCents } of [result.debitCard, result.creditCard, result.ach]) {
    if (totalCents > LARGEST_PAYMENT_CENTS) {
      throw new ApiError('validation_failed', { errors: { lineItems: [`the invoice total (${String(fromCents(totalCents))} USD with taxes, fees and surcharges) is above ${String(fromCents(LARGEST_PAYMENT_CENTS))} USD, the largest payment`] } });
    }
  }
  return result;
}

export function baseTotalCents(result: CalcResult): Cents {
  const ach = result.ach;
  return sumCents(minusCents(ach.totalCents, ach.surchargeCents), ach.cashDiscountCents);
}

/** A customer record's address as an invoice address (the invoice's names: line1, line2). */
function invoiceAddressOf(address: AddressValue | null): InvoiceAddress | null {
  if (address === null) return null;
  const entries = Object.entries({
    line1: address.addressLine1, line2: address.addressLine2, city: address.city, zip: address.zip,
    countryId: address.countryId, stateId: address.stateId, stateName: address.stateName,
  }).filter(([, value]) => value !== null);
  const converted: InvoiceAddress = Object.fromEntries(entries);
  return converted;
}

/** What the customer record says, in the invoice request's terms: it fills the fields the request leaves out. */
function recordAsInput(record: CustomerRecord): InvoiceCustomerInput {
  return {
    firstName: record.firstName ?? '',
    lastName: record.lastName,
    companyName: record.companyName,
    email: record.email,
    mobilePhoneNumber: record.mobilePhoneNumber,
    isMobileNumberSmsNotificationsEnabled: record.smsNotificationsEnabled,
    useBillingAsShippingAddress: record.useBillingAsShipping,
    billingAddress: invoiceAddressOf(record.billingAddress),
    shippingAddress: invoiceAddressOf(record.shippingAddress),
  };
}

/**
 * The invoice's customer: the fields sent (null included) over the linked record's. Without a record,
 * firstName and lastName must be sent.
 */
function mergedCustomer(sent: InvoiceCustomerInput | undefined, record: CustomerRecord | undefined, errors: Errors): InvoiceCustomerInput {
  const given = Object.fromEntries(Object.entries(sent ?? {}).filter(([, value]) => value !== undefined)) as InvoiceCustomerInput;
  if (record) return { ...recordAsInput(record), ...given };
  if (sent === undefined) {
    addError(errors, 'customer', 'is required unless customerId names a customer of this merchant (whose record then fills it).');
  } else {
    if (given.firstName === undefined) addError(errors, 'customer.firstName', 'is required unless customerId names a customer record.');
    if (given.lastName === undefined) addError(errors, 'customer.lastName', 'is required unless customerId names a customer record.');
  }
  return given;
}

function customerOf(input: InvoiceCustomerInput): InvoiceCustomerValue {
  const useBilling = input.useBillingAsShippingAddress ?? false;
  // The phone pattern of the interface admits the text `null`: it means no number.
  const phone = input.mobilePhoneNumber === 'null' ? null : (input.mobilePhoneNumber ?? null);
  return {
    firstName: input.firstName ?? '',
    lastName: input.lastName ?? '',
    companyName: input.companyName ?? null,
    email: input.email ?? null,
    mobilePhoneNumber: phone,
    smsEnabled: input.isMobileNumberSmsNotificationsEnabled ?? false,
    useBillingAsShipping: useBilling,
    billingAddress: input.billingAddress ?? null,
    // With useBillingAsShippingAddress the shipping address is a copy of the billing one: the one sent is ignored.
    shippingAddress: useBilling ? null : (input.shippingAddress ?? null),
  };
}

interface LineOutcome {
  line?: Omit<InvoiceLineValue, 'totalCents'>;
  /** A business rule the line breaks (manual entry, price override). */
  refusal?: ApiError;
}

async function lineOf(scope: Scope, input: InvoiceLineInput, index: number, overrideAllowed: boolean,
  settings: InvoiceSettingsRecord, errors: Errors): Promise<LineOutcome> {
  const field = (name: string): string => `lineItems[${index}].${name}`;
  const discountPercentage = input.discountPercentage ?? 0;
  if (input.unitTypeId !== undefined && !unitTypeById(input.unitTypeId)) {
    addError(errors, field('unitTypeId'), `${input.unitTypeId} is not a unit type id (${UNIT_TYPES}).`);
  }
  if (input.lineItemId === null || input.lineItemId === undefined) {
    const { productName, unitTypeId, unitPrice } = input;
    if (productName === undefined || productName.trim() === '') addError(errors, field('productName'), 'is required on a manually entered line (lineItemId null or left out).');
    if (unitTypeId === undefined) addError(errors, field('unitTypeId'), 'is required on a manually entered line (lineItemId null or left out).');
    if (unitPrice === undefined) addError(errors, field('unitPrice'), 'is required on a manually entered line (lineItemId null or left out).');
    if (productName === undefined || unitTypeId === undefined || unitPrice === undefined) return {};
    const line = {
      lineItemId: null, unitTypeId, productName, description: input.description ?? null, sku: input.sku ?? null,
      unitPriceCents: toCents(unitPrice), quantity: input.quantity, discountPercentage, isModified: true,
    };
    if (!settings.allowManuallyEnterLineItems) {
      return {
        line,
        refusal: new ApiError('line_item_manual_entry_not_allowed', {
          details: 'The invoice settings do not allow manually entered lines (allowManuallyEnterLineItems is false): give a catalogue lineItemId.',
          errors: { [field('lineItemId')]: ['A manually entered line (lineItemId null or left out) is not allowed by the invoice settings.'] },
        }),
      };
    }
    return { line };
  }
  const item = await findLineItem(scope, input.lineItemId);
  if (!item) {
    addError(errors, field('lineItemId'), 'names no catalogue line item of this merchant.');
    return {};
  }
  const catalogueCents = item.unitPriceCents;
  const unitPriceCents = input.unitPrice === undefined ? catalogueCents : toCents(input.unitPrice);
  const line = {
    lineItemId: item.id,
    unitTypeId: input.unitTypeId ?? item.unitTypeId,
    productName: input.productName ?? item.productName,
    description: input.description === undefined ? item.description : input.description,
    sku: input.sku === undefined ? item.sku : input.sku,
    unitPriceCents,
    quantity: input.quantity,
    discountPercentage,
    isModified: false,
  };
  line.isModified = line.unitTypeId !== item.unitTypeId || line.productName !== item.productName || line.description !== item.description
    || line.sku !== item.sku || unitPriceCents !== catalogueCents;
  if (unitPriceCents !== catalogueCents && !overrideAllowed) {
    const price = fromCents(catalogueCents);
    const why = settings.canOverWriteInvoiceLineItemPrice
      ? 'the request does not set canPriceBeForceOverrided'
      : 'the invoice settings do not allow it (canOverWriteInvoiceLineItemPrice is false)';
    return {
      line,
      refusal: new ApiError('line_item_price_override_not_allowed', {
        details: `The unitPrice of line ${index} differs from its catalogue item's price (${price}) and ${why}.`,
        errors: { [field('unitPrice')]: [`differs from the catalogue item's price ${price}, and ${why}.`] },
        entityId: item.id,
      }),
    };
  }
  return { line };
}

async function checkReferences(db: Knex, merchantId: string, input: InvoiceInput, settings: InvoiceSettingsRecord, errors: Errors) {
  const customerId = input.customerId?.toLowerCase() ?? null;
  const customerRecord = customerId === null ? undefined : await findCustomer(db, merchantId, customerId);
  if (customerId !== null && !customerRecord) addError(errors, 'customerId', 'names no customer of this merchant.');
  const contacts = await contactInfosOf(db, merchantId);
  let contactId: string | undefined;
  if (input.merchantContactInfoId !== undefined && input.merchantContactInfoId !== null) {
    const wanted = input.merchantContactInfoId.toLowerCase();
    contactId = contacts.find((c) => c.id === wanted)?.id;
    if (contactId === undefined) addError(errors, 'merchantContactInfoId', 'names no contact address of this merchant (see GET /pay-api/v1/configurations/contact-infos).');
  } else {
    contactId = (contacts.find((c) => Boolean(c.is_default_address)) ?? contacts[0])?.id;
    if (contactId === undefined) addError(errors, 'merchantContactInfoId', 'the merchant has no contact address to print on the invoice.');
  }
  const processor = async (given: string | null | undefined, fallback: string | null, kind: PaymentProcessorType, name: string): Promise<string | null> => {
    if (given === undefined || given === null) return fallback;
    const id = given.toLowerCase();
    if ((await processorType(db, merchantId, id)) !== kind) {
      addError(errors, name, `names no ${kind === PaymentProcessorType.CardProcessor ? 'card' : 'ACH (Eft)'} processor of this merchant.`);
    }
    return id;
  };
  return {
    customerId,
    customer: customerId !== null && !customerRecord ? {} : mergedCustomer(input.customer, customerRecord, errors),
    contactId: contactId ?? '',
    cardProcessorId: await processor(input.cardPaymentProcessorId, settings.cardPaymentProcessorId, PaymentProcessorType.CardProcessor, 'cardPaymentProcessorId'),
    achProcessorId: await processor(input.achPaymentProcessorId, settings.achPaymentProcessorId, PaymentProcessorType.Eft, 'achPaymentProcessorId'),
  };
}

/**
 * Checks an invoice request and settles it into the content to store. Validation problems (fields, ids)
 * answer 400 validation_failed together; a line that breaks a settings rule answers its own errorCode.
 */
export async function settleContent(scope: Scope, input: InvoiceInput, settings: InvoiceSettingsRecord, terms: ZeroCostTerms): Promise<InvoiceContent> {
  const { merchantId } = scope;
  const errors: Errors = {};
  const refs = await checkReferences(scope.db, merchantId, input, settings, errors);
  const overrideAllowed = (input.canPriceBeForceOverrided ?? false) && settings.canOverWriteInvoiceLineItemPrice;
  const lines: Omit<InvoiceLineValue, 'totalCents'>[] = [];
  let refusal: ApiError | undefined;
  for (const [index, lineInput] of input.lineItems.entries()) {
    const outcome = await lineOf(scope, lineInput, index, overrideAllowed, settings, errors);
    if (outcome.line) lines.push(outcome.line);
    refusal ??= outcome.refusal;
  }
  if (Object.keys(errors).length > 0) throw new ApiError('validation_failed', { errors });
  if (refusal) throw refusal;

  // Values left null or out come from the settings (InvoiceRequest).
  const defaults = invoiceDefaults(settings);
  const amounts = {
    shippingCents: input.shippingAmount === undefined || input.shippingAmount === null ? defaults.shippingCents : toCents(input.shippingAmount),
    taxPercentage: input.taxPercentage ?? defaults.taxPercentage,
    feesPercentage: input.feesPercentage ?? defaults.feesPercentage,
    discountPercentage: input.discountPercentage ?? defaults.discountPercentage,
  };
  const result = payableTotals(calcInputOf({ lines, ...amounts }, terms));
  return {
    dueDate: input.dueDate === undefined || input.dueDate === null ? null : normalizeDateTime(input.dueDate, 'dueDate'),
    cardProcessorId: refs.cardProcessorId,
    achProcessorId: refs.achProcessorId,
    additionalNotes: input.additionalNotes ?? defaults.additionalNotes,
    subTotalCents: result.ach.subTotalCents,
    totalCents: baseTotalCents(result),
    ...amounts,
    merchantContactInfoId: refs.contactId,
    customerId: refs.customerId,
    customer: customerOf(refs.customer),
    achAllowFasterProcessing: input.achAllowFasterProcessing ?? null,
    lines: lines.map((line, i) => ({ ...line, totalCents: result.lineTotalsCents[i] ?? ZERO_CENTS })),
  };
}
