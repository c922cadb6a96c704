// The invoice of a subscription's period (invoicePerPeriod, as Stripe, Kill Bill and Lago bill each period):
// published when a scheduled payment falls due (invoice.created), paid by that payment (invoice.paid), a failed
// attempt recorded on it and its retries paying it, all in the payment's transaction.
import { newId } from '../platform/ids.ts';
import { PaymentMethodType } from '@pgw/client/enums';
import { ApiError } from '../platform/errors.ts';
import { type Cents, fromCents } from '../platform/money.ts';
import type { InTx, Scope } from '../platform/scope.ts';
import { iso } from '../platform/time.ts';
import { inSavepoint } from '../platform/transaction.ts';
import * as invoiceRepo from '../repositories/invoices.ts';
import type { InvoiceRecord } from '../repositories/invoices.ts';
import type { SubscriptionRecord } from '../repositories/subscriptions.ts';
import type { TransactionRecord } from '../repositories/transactions.ts';
import * as engine from './engine.ts';
import { History, invoiceFamily, lockInvoice, Status } from './invoice-machine.ts';
import { publishInvoice } from './invoices.ts';

/**
 * The invoice the payment at the scope's time pays, published now, or (a retry) the open one of its period;
 * undefined without invoicePerPeriod, or when the merchant's invoice settings refuse it (bare payments then).
 */
export async function periodInvoice(scope: InTx<Scope>, s: SubscriptionRecord, cents: Cents): Promise<InvoiceRecord | undefined> {
  if (!s.invoicePerPeriod) return undefined;
  if (s.status === 'PastDue' && s.latestInvoiceId !== null) {
    const open = await lockInvoice(scope, s.latestInvoiceId).catch(() => undefined);
    // PastDue is derived from the due date: an open invoice is stored Due.
    if (open && open.status === Status.Due) return open;
  }
  const at = iso(scope.clock.now());
  try {
    // A refusal (manual lines not allowed by the merchant's settings) undoes only the invoice.
    const id = await inSavepoint(scope.db, (tx) => publishInvoice({ ...scope, db: tx }, {
      customerId: s.customerId, dueDate: at, taxPercentage: 0, feesPercentage: 0, discountPercentage: 0, shippingAmount: 0,
      lineItems: [{ lineItemId: null, productName: s.description ?? 'Subscription', description: `Subscription ${s.id}, payment due ${at}`, unitTypeId: 1, unitPrice: fromCents(cents), quantity: 1 }],
    }));
    return await lockInvoice(scope, id);
  } catch (error) {
    if (!(error instanceof ApiError) || error.status >= 500) throw error;
    scope.log.warn({ subscriptionId: s.id, errorCode: error.code }, 'the invoice of a subscription period could not be made');
    return undefined;
  }
}

/**
 * Whether a retry's period was paid another way: its invoice was paid (by card or ACH on its page or through the
 * API, or marked paid) while the subscription was PastDue. The retry then charges nothing.
 */
export async function periodPaidElsewhere(scope: InTx<Scope>, s: SubscriptionRecord): Promise<boolean> {
  if (!s.invoicePerPeriod || s.status !== 'PastDue' || s.latestInvoiceId === null) return false;
  const invoice = await lockInvoice(scope, s.latestInvoiceId).catch(() => undefined);
  return invoice?.status === Status.Paid;
}

/**
 * The invoice after its payment: Paid with the payment's transaction (invoice.paid), marked paid when the credit
 * covered it (no transaction), or a PaymentFailed entry when the attempt failed (it stays open for the retry).
 */
export async function settlePeriodInvoice(scope: InTx<Scope>, invoice: InvoiceRecord, transaction: TransactionRecord | undefined, collected: boolean, cents: Cents): Promise<void> {
  const now = scope.clock.now();
  const at = iso(now);
  if (!collected) {
    if (transaction === undefined) return;
    await invoiceRepo.addHistory(scope.db, newId(), invoice.id, {
      typeId: History.PaymentFailed, errorCode: transaction.responseCode, errorMessage: transaction.responseDescription,
      transactionId: transaction.id, paymentMethodTypeId: transaction.paymentMethodTypeId, createdOn: at,
    });
    return;
  }
  if (transaction === undefined) {
    await engine.transition(scope, invoiceFamily, invoice, 'markInvoiceAsPaid', now, {
      payment: { paymentDate: at, paymentMethodTypeId: null, markedAsPaid: true, transactionId: null },
      history: { paymentMethodTypeId: null },
    });
    return;
  }
  const card = transaction.paymentMethodTypeId === PaymentMethodType.Card;
  await engine.transition(scope, invoiceFamily, invoice, card ? 'submitInvoiceCardPayment' : 'submitInvoiceAchPayment', now, {
    payment: {
      paymentDate: at, paymentMethodTypeId: transaction.paymentMethodTypeId, markedAsPaid: false, transactionId: transaction.id, totalCents: cents,
      surchargeCents: 0, surchargePercentage: 0, cashDiscountCents: 0, cashDiscountPercentage: 0, useCardPrice: null,
    },
    history: { transactionId: transaction.id, paymentMethodTypeId: transaction.paymentMethodTypeId },
  });
}
