// Paying a payment link: the page's card form is a card sale and its bank-account form an ACH debit (the
// payer's authorization required), both for what the payer chose within the link's terms (its amount times the
// quantity, or an amount within customAmount) with creatorTypeId QuickPayment, made in one transaction with the
// link's move and quick_payment.paid, the link locked through the engine first: concurrent payers are counted
// one at a time, so a link never takes more than maxPayments. The last of maxPayments moves it to Paid; a
// reusable link with payments left stays Active. A decline leaves the link as it was (the declined transaction
// is kept). The sandbox's paySandboxQuickPayment pays through the same function with the approving test card.
import { PaymentMethodType, SecCode, TransactionCreatorType as Creator, TransactionType as Type } from '@pgw/client/enums';
import { type Cents, centsOfExact, fromCents, toCents } from '../platform/money.ts';
import { invalid } from '../platform/errors.ts';
import { within, type Scope } from '../platform/scope.ts';
import { iso } from '../platform/time.ts';
import { withTransaction } from '../platform/transaction.ts';
import type { QuickPaymentRecord } from '../repositories/quick-payments.ts';
import type { TransactionRecord } from '../repositories/transactions.ts';
import { createAch } from './ach.ts';
import { createCard } from './card.ts';
import * as engine from './engine.ts';
import { enteredCard, payOncePerForm, requireAuthorization, type PageOutcome, type PagePayment } from './page-payments.ts';
import { paymentsLeft, quickPaymentFamily, quickPaymentView, type QuickPaymentView } from './quick-payment-machine.ts';
import { getSettings } from './invoice-settings.ts';
import { processorFor } from './payments.ts';
import { currentLink, lockCurrent, notActive } from './quick-payments.ts';

/** The trigger a payment moves the link by: the page's, or the sandbox control that stands in for it. */
export type PayTrigger = 'page.paymentApproved' | 'paySandboxQuickPayment';

export interface LinkPaid {
  readonly link: QuickPaymentRecord;
  readonly outcome: PageOutcome;
}

/** What the payer chose on the page (or the sandbox control's query): absent, the link's suggestion. */
export interface PayerChoice {
  readonly amount?: number | undefined;
  readonly quantity?: number | undefined;
}

/** A wire amount in cents, refused naming the field when it is no amount of whole cents above 0. */
function choiceCents(amount: number, field: string): Cents {
  let cents: Cents;
  try {
    cents = toCents(amount);
  } catch {
    throw invalid(field, 'must be an amount in USD with at most two decimal places');
  }
  if (cents <= 0) throw invalid(field, 'must be at least 0.01');
  return cents;
}

/**
 * What one payment of the link charges and is for, from the payer's choice within the link's terms (400 naming
 * the field otherwise, before anything is charged): the unit amount times the quantity in integer cents, or the
 * amount chosen within customAmount.
 */
export function chargeOf(link: QuickPaymentRecord, choice: PayerChoice): { amountCents: Cents; quantity: number } {
  let quantity = link.quantity;
  if (choice.quantity !== undefined) {
    const range = link.quantityRange;
    if (range === null && choice.quantity !== link.quantity) throw invalid('quantity', `is fixed at ${String(link.quantity)} on this payment link`);
    if (range !== null && (choice.quantity < range.min || choice.quantity > range.max)) {
      throw invalid('quantity', `must be between ${String(range.min)} and ${String(range.max)}`);
    }
    quantity = choice.quantity;
  }
  const fixed = centsOfExact(BigInt(link.amountCents) * BigInt(quantity));
  if (link.amountRange === null) {
    if (choice.amount !== undefined && choiceCents(choice.amount, 'amount') !== fixed) {
      throw invalid('amount', `is fixed on this payment link: ${String(fromCents(fixed))} USD`);
    }
    return { amountCents: fixed, quantity };
  }
  const { min, max } = link.amountRange;
  const chosen = choice.amount === undefined ? link.amountCents : choiceCents(choice.amount, 'amount');
  if (chosen < min || chosen > max) throw invalid('amount', `must be between ${String(fromCents(min))} and ${String(fromCents(max))} USD`);
  return { amountCents: chosen, quantity };
}

const declineOf = (payment: TransactionRecord): string =>
  `${payment.responseDescription ?? 'The payment was not accepted.'}${payment.responseCode === null ? '' : ` (${payment.responseCode})`}`;

/**
 * Pays the link as `payment` asks, in the caller's transaction or one of its own: the link locked (and moved to
 * Expired when its expiry has come), refused with quick_payment_not_active unless the trigger is permitted
 * (nothing charged), then the card sale or ACH debit, and on approval the move to Paid with its event.
 */
export async function payLink(scope: Scope, id: string, payment: PagePayment, trigger: PayTrigger, choice: PayerChoice = {}): Promise<LinkPaid> {
  // What needs no lock is checked before anything is locked or charged.
  const card = payment.kind === 'card' ? enteredCard(payment.body) : undefined;
  if (payment.kind === 'ach') requireAuthorization(payment.body);
  return withTransaction(scope.db, async (tx) => {
    const t = within(scope, tx);
    const now = t.clock.now();
    const link = await lockCurrent(t, id);
    // The page's trigger has no API refusal of its own: both are refused alike, with the sandbox control's code.
    // Active with no payment left cannot be (the last one moves it to Paid): refused like a Paid link all the same.
    if (!engine.permits(quickPaymentFamily, link, trigger, now) || paymentsLeft(link) < 1) throw notActive(link, 'paySandboxQuickPayment');
    const charge = chargeOf(link, choice);
    const amount = fromCents(charge.amountCents);
    let record: TransactionRecord;
    if (payment.kind === 'card' && card) {
      const body = payment.body;
      ({ record } = await createCard(t, 'createCardSale', {
        amount, tipAmount: 0, savePaymentMethod: false,
        card: { pan: card.pan, expirationMonth: body.expirationMonth, expirationYear: body.expirationYear, ...(card.code === undefined ? {} : { securityCode: card.code }) },
        ...(body.billingPostalCode ? { billingAddress: { postalCode: body.billingPostalCode } } : {}),
        ...(link.description === null ? {} : { description: link.description }),
      }, { creatorTypeId: Creator.QuickPayment, partialAllowed: false }));
    } else if (payment.kind === 'ach') {
      const body = payment.body;
      const settings = await getSettings(t);
      // The merchant's default ACH processor (a link names none), as an ACH debit without paymentProcessorId would.
      const processor = await processorFor(tx, link.merchantId, PaymentMethodType.ElectronicCheck, undefined);
      record = await createAch(t, {
        amount, paymentProcessorId: processor.id, paymentMethodId: null, secCode: SecCode.WEB, requesterIPaddress: 'quick-payment',
        routingNumber: body.routingNumber, accountNumber: body.accountNumber, accountType: body.accountType, accountHolderType: body.accountHolderType,
        isFasterProcessing: settings.achAllowFasterProcessing,
      }, {
        typeId: Type.AchDebit, creatorTypeId: Creator.QuickPayment, customerId: null,
        authorizationConsentOn: iso(new Date(body.authorizationConsentTimestamp)),
      });
      t.log.info({ quickPaymentId: link.id, transactionId: record.id, authorizationConsentOn: record.authorizationConsentOn }, 'ACH authorization recorded for a payment link');
    } else {
      throw new Error('unreachable: a card payment without its card');
    }
    if (record.responseCode !== '000') return { link, outcome: { paid: false, decline: declineOf(record) } };
    // The row by what is left: the last payment moves the link to Paid, any other keeps it Active.
    const to = paymentsLeft(link) === 1 ? 'Paid' : 'Active';
    const paid = await engine.transition(t, quickPaymentFamily, link, trigger, now, { transactionId: record.id, ...charge }, { to });
    if (!paid) throw notActive(link, 'paySandboxQuickPayment');
    // A link that takes more payments shows this one's receipt when the page is sent back with it; a Paid link shows its own.
    return { link: paid, outcome: { paid: true, decline: null, ...(paid.status === 'Active' ? { reference: record.id } : {}) } };
  });
}

/** Pays the link as its page's form asks, once per form token (page-payments.ts). */
export async function payFromLinkPage(
  deps: Scope & { hashKey: Buffer }, link: QuickPaymentRecord, payment: PagePayment, formKey: string, fields: Record<string, string>,
): Promise<PageOutcome> {
  const run = { tenant: `link-page:${link.merchantId}`, operationId: `payQuickPaymentPage.${payment.kind}`, path: { quickPaymentId: link.id }, merchantId: link.merchantId };
  const choice = pageChoice(fields);
  return payOncePerForm(deps, run, formKey, fields, async (tx) => (await payLink(within(deps, tx), link.id, payment, 'page.paymentApproved', choice)).outcome);
}

/** The page's amount and quantity fields (linkAmount, linkQuantity) as the payer's choice; text that is no number is refused naming the field. */
export function pageChoice(fields: Record<string, string>): PayerChoice {
  const amount = fields.linkAmount?.trim();
  const quantity = fields.linkQuantity?.trim();
  if (amount !== undefined && amount !== '' && !/^[0-9]{1,7}(\.[0-9]{1,2})?$/.test(amount)) throw invalid('amount', 'must be an amount in USD with at most two decimal places');
  if (quantity !== undefined && quantity !== '' && !/^[0-9]{1,4}$/.test(quantity)) throw invalid('quantity', 'must be a whole number');
  return {
    ...(amount === undefined || amount === '' ? {} : { amount: Number(amount) }),
    ...(quantity === undefined || quantity === '' ? {} : { quantity: Number(quantity) }),
  };
}

/** The sandbox's stand-in for a customer on the page: the approving test card (magic values), the page's own payment. */
export async function paySandboxQuickPayment(scope: Scope, id: string, choice: PayerChoice = {}): Promise<QuickPaymentView> {
  const link = await currentLink(scope, id);
  const { link: after } = await payLink(scope, link.id, {
    kind: 'card',
    body: { totalAmount: fromCents(link.amountCents), accountNumber: '4111111111111111', expirationMonth: 12, expirationYear: scope.clock.now().getUTCFullYear() + 3, billingCountryId: 1, billingPostalCode: null, securityCode: null, savePaymentMethod: false },
  }, 'paySandboxQuickPayment', choice);
  return quickPaymentView(scope.config.baseUrl, after);
}
