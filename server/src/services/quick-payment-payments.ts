// Paying a payment link: the page's card form is a card sale and its bank-account form an ACH debit (the
// payer's authorization required), both for the link's amount with creatorTypeId QuickPayment, made in one
// transaction with the link's move to Paid and quick_payment.paid, the link locked through the engine first so
// that two payers never both pay. A decline leaves the link Active (the declined transaction is kept). The
// sandbox's paySandboxQuickPayment pays through the same function with the approving test card.
import { PaymentMethodType, SecCode, TransactionCreatorType as Creator, TransactionType as Type } from '@pgw/client/enums';
import { fromCents } from '../platform/money.ts';
import { within, type Scope } from '../platform/scope.ts';
import { iso } from '../platform/time.ts';
import { withTransaction } from '../platform/transaction.ts';
import type { QuickPaymentRecord } from '../repositories/quick-payments.ts';
import type { TransactionRecord } from '../repositories/transactions.ts';
import { createAch } from './ach.ts';
import { createCard } from './card.ts';
import * as engine from './engine.ts';
import { enteredCard, payOncePerForm, requireAuthorization, type PageOutcome, type PagePayment } from './page-payments.ts';
import { quickPaymentFamily, quickPaymentView, type QuickPaymentView } from './quick-payment-machine.ts';
import { getSettings } from './invoice-settings.ts';
import { processorFor } from './payments.ts';
import { currentLink, lockCurrent, notActive } from './quick-payments.ts';

/** The trigger a payment moves the link by: the page's, or the sandbox control that stands in for it. */
export type PayTrigger = 'page.paymentApproved' | 'paySandboxQuickPayment';

export interface LinkPaid {
  readonly link: QuickPaymentRecord;
  readonly outcome: PageOutcome;
}

const declineOf = (payment: TransactionRecord): string =>
  `${payment.responseDescription ?? 'The payment was not accepted.'}${payment.responseCode === null ? '' : ` (${payment.responseCode})`}`;

/**
 * Pays the link as `payment` asks, in the caller's transaction or one of its own: the link locked (and moved to
 * Expired when its expiry has come), refused with quick_payment_not_active unless the trigger is permitted
 * (nothing charged), then the card sale or ACH debit, and on approval the move to Paid with its event.
 */
export async function payLink(scope: Scope, id: string, payment: PagePayment, trigger: PayTrigger): Promise<LinkPaid> {
  // What needs no lock is checked before anything is locked or charged.
  const card = payment.kind === 'card' ? enteredCard(payment.body) : undefined;
  if (payment.kind === 'ach') requireAuthorization(payment.body);
  return withTransaction(scope.db, async (tx) => {
    const t = within(scope, tx);
    const now = t.clock.now();
    const link = await lockCurrent(t, id);
    // The page's trigger has no API refusal of its own: both are refused alike, with the sandbox control's code.
    if (!engine.permits(quickPaymentFamily, link, trigger, now)) throw notActive(link, 'paySandboxQuickPayment');
    const amount = fromCents(link.amountCents);
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
    const paid = await engine.transition(t, quickPaymentFamily, link, trigger, now, { transactionId: record.id });
    if (!paid) throw notActive(link, 'paySandboxQuickPayment');
    return { link: paid, outcome: { paid: true, decline: null } };
  });
}

/** Pays the link as its page's form asks, once per form token (page-payments.ts). */
export async function payFromLinkPage(
  deps: Scope & { hashKey: Buffer }, link: QuickPaymentRecord, payment: PagePayment, formKey: string, fields: Record<string, string>,
): Promise<PageOutcome> {
  const run = { tenant: `link-page:${link.merchantId}`, operationId: `payQuickPaymentPage.${payment.kind}`, path: { quickPaymentId: link.id }, merchantId: link.merchantId };
  return payOncePerForm(deps, run, formKey, fields, async (tx) => (await payLink(within(deps, tx), link.id, payment, 'page.paymentApproved')).outcome);
}

/** The sandbox's stand-in for a customer on the page: the approving test card (magic values), the page's own payment. */
export async function paySandboxQuickPayment(scope: Scope, id: string): Promise<QuickPaymentView> {
  const link = await currentLink(scope, id);
  const { link: after } = await payLink(scope, link.id, {
    kind: 'card',
    body: { totalAmount: fromCents(link.amountCents), accountNumber: '4111111111111111', expirationMonth: 12, expirationYear: scope.clock.now().getUTCFullYear() + 3, billingCountryId: 1, billingPostalCode: null, securityCode: null, savePaymentMethod: false },
  }, 'paySandboxQuickPayment');
  return quickPaymentView(scope.config.baseUrl, after);
}
