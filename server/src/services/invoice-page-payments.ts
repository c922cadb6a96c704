// Paying an invoice from its public page: the API's own card and ACH payments of an invoice
// (invoice-payments.ts, so every rule of submit and ach/submit holds here too), run once per form token
// (page-payments.ts), and what the page shows afterwards (paid, or the processor's decline).
import { InvoiceHistoryType } from '@pgw/client/enums';
import type { Deps } from '../platform/deps.ts';
import { within, type Scope } from '../platform/scope.ts';
import { historyOf, type InvoiceRecord } from '../repositories/invoices.ts';
import { payByAch, payByCard } from './invoice-payments.ts';
import { payOncePerForm, type PageOutcome, type PagePayment } from './page-payments.ts';

export type { PageOutcome, PagePayment } from './page-payments.ts';

const OPERATION = { card: 'submitInvoiceCardPayment', ach: 'submitInvoiceAchPayment' } as const;

/** The decline the payment just recorded: the invoice's last PaymentFailed entry, read in the same transaction. */
async function lastDecline(deps: Deps, invoiceId: string): Promise<string> {
  const failed = (await historyOf(deps.db, invoiceId)).filter((e) => e.typeId === InvoiceHistoryType.PaymentFailed).at(-1);
  if (!failed) return 'The payment was not accepted.';
  const code = failed.errorCode === null ? '' : ` (${failed.errorCode})`;
  return `${failed.errorMessage ?? 'The payment was not accepted.'}${code}`;
}

/** Pays the invoice as its page's form asks, once per form token (see payOncePerForm). */
export async function payFromPage(
  deps: Scope & { hashKey: Buffer }, invoice: InvoiceRecord, payment: PagePayment, formKey: string, fields: Record<string, string>,
): Promise<PageOutcome> {
  const run = { tenant: `invoice-page:${invoice.merchantId}`, operationId: OPERATION[payment.kind], path: { invoiceId: invoice.id }, merchantId: invoice.merchantId };
  return payOncePerForm(deps, run, formKey, fields, async (tx) => {
    const t = within(deps, tx);
    const answer = payment.kind === 'card'
      ? await payByCard(t, invoice.id, payment.body)
      : await payByAch(t, invoice.id, payment.body);
    return { paid: answer.success, decline: answer.success ? null : await lastDecline(t, invoice.id) };
  });
}
