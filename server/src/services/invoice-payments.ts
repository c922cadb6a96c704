// Paying an invoice through the gateway: by card (a sale for the total of the card's kind) or by ACH (a
// debit for the ACH total, with the payer's authorization). Approved: the invoice is Paid with the payment's
// amounts, a Paid history entry, invoice.paid and the receipt SMS the settings ask for. Declined: the
// invoice stays as it was, a PaymentFailed entry records the code, and the failure SMS is sent when asked.
// A returned or failed ACH payment makes the invoice Due again (invoicePaymentFailed).
import { newId } from '../platform/ids.ts';
import type { Knex } from 'knex';
import { CreditDebitType, InvoiceNotificationTemplateType, InvoiceNotificationType, SecCode, TransactionCreatorType as Creator, TransactionType as Type, ZeroCostProcessingOption } from '@pgw/client/enums';
import type { components } from '@pgw/client/types';
import { type InTx, type Scope, within } from '../platform/scope.ts';
import { ApiError } from '../platform/errors.ts';
import { type Cents, formatUsd, fromCents, toCents, wireText } from '../platform/money.ts';
import { iso } from '../platform/time.ts';
import { withTransaction } from '../platform/transaction.ts';
import * as customers from '../repositories/customers.ts';
import { setCustomer } from '../repositories/invoice-payments.ts';
import * as repo from '../repositories/invoices.ts';
import type { InvoiceRecord } from '../repositories/invoices.ts';
import { findMerchant } from '../repositories/merchants.ts';
import type { TransactionRecord } from '../repositories/transactions.ts';
import { createAch } from './ach.ts';
import { createCard } from './card.ts';
import { creditDebitTypeOf } from './cards.ts';
import type { PaymentTypeCalc } from './invoice-calculations.ts';
import { getSettings } from './invoice-settings.ts';
import { calculationsOf, invoiceUrls } from './invoice-view.ts';
import * as engine from './engine.ts';
import { History, invoiceFamily, lockInvoice, permit } from './invoice-machine.ts';
import { addBankAccount, addCard } from './payment-methods.ts';
import { enteredCard, requireAuthorization } from './page-payments.ts';

type Schemas = components['schemas'];
type PaymentResponse = Schemas['InvoicePaymentResponse'];

type PaymentTrigger = 'submitInvoiceCardPayment' | 'submitInvoiceAchPayment';

/** The invoice, locked for the payment, and permitted to be paid (400 invoice_not_open otherwise). */
async function payable(t: InTx<Scope>, id: string, trigger: PaymentTrigger): Promise<InvoiceRecord> {
  const invoice = await lockInvoice(t, id);
  permit(invoice, trigger, t.clock.now());
  return invoice;
}

/** The total of the payment type; 400 invoice_amount_mismatch when the payer agreed to another amount. */
function expected(calc: PaymentTypeCalc, totalAmount: number | undefined, kind: string): Cents {
  if (totalAmount !== undefined && toCents(totalAmount) !== calc.totalCents) {
    throw new ApiError('invoice_amount_mismatch', {
      details: `The ${kind} total of the invoice is ${wireText(calc.totalCents)}, not ${wireText(toCents(totalAmount))}.`,
      errors: { totalAmount: [`must be the invoice's ${kind} total, ${wireText(calc.totalCents)}`] },
    });
  }
  return calc.totalCents;
}

/** The invoice's customer record, created from the invoice's customer when it has none (then linked to it). */
async function customerOf(t: Scope, invoice: InvoiceRecord, now: string): Promise<{ customerId: string; created: boolean }> {
  if (invoice.customerId !== null) return { customerId: invoice.customerId, created: false };
  const c = invoice.customer;
  const address = (a: repo.InvoiceAddress | null): customers.AddressValue | null => (a ? {
    addressLine1: a.line1 ?? null, addressLine2: a.line2 ?? null, city: a.city ?? null, zip: a.zip ?? null,
    stateName: a.stateName ?? null, stateId: a.stateId ?? null, countryId: a.countryId ?? null,
  } : null);
  const customerId = newId();
  await customers.insertCustomer(t.db, {
    id: customerId, merchantId: invoice.merchantId, createdOn: now,
    fields: {
      firstName: c.firstName, lastName: c.lastName, companyName: c.companyName, email: c.email, mobilePhoneNumber: c.mobilePhoneNumber,
      smsNotificationsEnabled: c.smsEnabled, useBillingAsShipping: c.useBillingAsShipping,
      billingAddress: address(c.billingAddress), shippingAddress: c.useBillingAsShipping ? null : address(c.shippingAddress),
    },
  });
  await setCustomer(t.db, invoice.id, customerId);
  return { customerId, created: true };
}

/** The SMS after a payment (receipt, or failure) when the settings ask for it and the customer has a mobile number. */
async function paymentSms(t: Scope, invoice: InvoiceRecord, approved: boolean, cents: Cents, now: string): Promise<void> {
  const settings = await getSettings(t);
  const wanted = approved ? settings.isSmsNotificationAfterPaymentEnabled : settings.isSmsNotificationAfterPaymentFailedEnabled;
  const to = invoice.customer.mobilePhoneNumber;
  if (!wanted || to === null) return;
  const merchant = (await findMerchant(t.db, invoice.merchantId))?.company_name ?? 'Your merchant';
  const { shortUrl } = invoiceUrls(t.config.baseUrl, invoice);
  const template = approved ? InvoiceNotificationTemplateType.PaymentReceipt : InvoiceNotificationTemplateType.PaymentFailed;
  const text = approved
    ? `${merchant}: payment of ${formatUsd(cents)} received for invoice ${invoice.number ?? ''}. Thank you!`
    : `${merchant}: your payment for invoice ${invoice.number ?? ''} did not go through. Pay here: ${shortUrl}`;
  const notificationId = await t.instances.notifierFor(t.db).send({ merchantId: invoice.merchantId, invoiceId: invoice.id, channel: InvoiceNotificationType.Sms, template, to, subject: null, text, createdOn: now });
  await repo.addHistory(t.db as Knex.Transaction, newId(), invoice.id, {
    typeId: History.SmsNotificationSent, notificationId, notificationTypeId: InvoiceNotificationType.Sms, notificationTemplateTypeId: template, notificationTarget: to, createdOn: now,
  });
}

/** Paid (the trigger's row): the amounts of the payment type, the history entry and invoice.paid; then the receipt. */
async function settlePaid(
  t: InTx<Scope>, invoice: InvoiceRecord, trigger: PaymentTrigger, payment: TransactionRecord, calc: PaymentTypeCalc, useCardPrice: boolean | null, now: Date,
): Promise<void> {
  const at = iso(now);
  const changed = await engine.transition(t, invoiceFamily, invoice, trigger, now, {
    payment: {
      paymentDate: at, paymentMethodTypeId: payment.paymentMethodTypeId, markedAsPaid: false, transactionId: payment.id, totalCents: calc.totalCents,
      surchargeCents: calc.surchargeCents, surchargePercentage: calc.surchargePercentage, cashDiscountCents: calc.cashDiscountCents,
      cashDiscountPercentage: calc.cashDiscountPercentage, useCardPrice,
    },
    history: { transactionId: payment.id, paymentMethodTypeId: payment.paymentMethodTypeId },
  });
  if (!changed) throw new ApiError('invoice_not_open', { entityId: invoice.id });
  await paymentSms(t, invoice, true, calc.totalCents, at);
}

/** Declined: the invoice stays as it was; PaymentFailed records the processor's code; the failure SMS when asked. */
async function recordFailure(t: Scope, invoice: InvoiceRecord, payment: TransactionRecord, now: Date): Promise<PaymentResponse> {
  const at = iso(now);
  await repo.addHistory(t.db as Knex.Transaction, newId(), invoice.id, {
    typeId: History.PaymentFailed, errorCode: payment.responseCode, errorMessage: payment.responseDescription,
    transactionId: payment.id, paymentMethodTypeId: payment.paymentMethodTypeId, createdOn: at,
  });
  await paymentSms(t, invoice, false, payment.amountCents, at);
  return { success: false, paymentMethodCreated: false, customerInfoSaved: false };
}

/** Pays a Due or PastDue invoice by card: a sale for the total of the card's kind (credit or debit). */
export async function payByCard(scope: Scope, id: string, body: Schemas['InvoiceCardPaymentRequest']): Promise<PaymentResponse> {
  const { pan, code } = enteredCard(body);
  return withTransaction(scope.db, async (tx) => {
    const t = within(scope, tx);
    const now = t.clock.now();
    const invoice = await payable(t, id, 'submitInvoiceCardPayment');
    if (invoice.cardProcessorId === null) throw new ApiError('payment_method_not_available', { details: 'The invoice has no card payment processor.', entityId: invoice.id });
    const { terms, result } = await calculationsOf(t, invoice, await repo.linesOf(tx, invoice.id));
    const debit = creditDebitTypeOf(pan) === CreditDebitType.Debit;
    const calc = debit ? result.debitCard : result.creditCard;
    const cents = expected(calc, body.totalAmount, debit ? 'debit card' : 'credit card');
    const { record } = await createCard(t, 'createCardSale', {
      amount: fromCents(cents), tipAmount: 0, savePaymentMethod: false, paymentProcessorId: invoice.cardProcessorId,
      ...(invoice.customerId === null ? {} : { customerId: invoice.customerId }),
      card: { pan, expirationMonth: body.expirationMonth, expirationYear: body.expirationYear, ...(code === undefined ? {} : { securityCode: code }) },
      ...(body.billingPostalCode ? { billingAddress: { postalCode: body.billingPostalCode } } : {}),
      orderNumber: invoice.number ?? undefined,
    }, { creatorTypeId: Creator.Invoice, invoiceId: invoice.id, partialAllowed: false });
    if (record.responseCode !== '000') return recordFailure(t, invoice, record, now);
    let saved = { paymentMethodCreated: false, customerInfoSaved: false };
    if (body.savePaymentMethod) {
      const { customerId, created } = await customerOf(t, invoice, iso(now));
      await addCard(t, customerId, { pan, expirationMonth: body.expirationMonth, expirationYear: body.expirationYear });
      saved = { paymentMethodCreated: true, customerInfoSaved: created };
    }
    await settlePaid(t, invoice, 'submitInvoiceCardPayment', record, calc, terms.optionId === ZeroCostProcessingOption.DualPricing ? true : null, now);
    return { success: true, ...saved };
  });
}

/** Pays a Due or PastDue invoice by ACH: a WEB debit for the ACH total, with the payer's authorization. */
export async function payByAch(scope: Scope, id: string, body: Schemas['InvoiceAchPaymentRequest']): Promise<PaymentResponse> {
  requireAuthorization(body);
  return withTransaction(scope.db, async (tx) => {
    const t = within(scope, tx);
    const now = t.clock.now();
    const invoice = await payable(t, id, 'submitInvoiceAchPayment');
    if (invoice.achProcessorId === null) throw new ApiError('payment_method_not_available', { details: 'The invoice has no ACH payment processor.', entityId: invoice.id });
    const { result } = await calculationsOf(t, invoice, await repo.linesOf(tx, invoice.id));
    const cents = result.ach.totalCents;
    const settings = await getSettings(t);
    const record = await createAch(t, {
      amount: fromCents(cents), paymentProcessorId: invoice.achProcessorId, secCode: SecCode.WEB, requesterIPaddress: 'invoice-payment',
      routingNumber: body.routingNumber, accountNumber: body.accountNumber, accountType: body.accountType, accountHolderType: body.accountHolderType,
      isFasterProcessing: invoice.achAllowFasterProcessing ?? settings.achAllowFasterProcessing,
    }, {
      typeId: Type.AchDebit, creatorTypeId: Creator.Invoice, invoiceId: invoice.id, customerId: invoice.customerId,
      authorizationConsentOn: iso(new Date(body.authorizationConsentTimestamp)),
    });
    t.log.info({ invoiceId: invoice.id, transactionId: record.id, authorizationConsentOn: record.authorizationConsentOn }, 'ACH authorization recorded for an invoice payment');
    if (record.responseCode !== '000') return recordFailure(t, invoice, record, now);
    let saved = { paymentMethodCreated: false, customerInfoSaved: false };
    if (body.savePaymentMethod) {
      const { customerId, created } = await customerOf(t, invoice, iso(now));
      await addBankAccount(t, customerId, {
        routingNumber: body.routingNumber, accountNumber: body.accountNumber, accountType: body.accountType, accountHolderType: body.accountHolderType,
      });
      saved = { paymentMethodCreated: true, customerInfoSaved: created };
    }
    await settlePaid(t, invoice, 'submitInvoiceAchPayment', record, result.ach, null, now);
    return { success: true, ...saved };
  });
}
