// The HTML of the invoice page: the invoice (the view model the PDF renders too, invoice-document.ts), the
// amount to pay per payment type, and while it is open the card and bank-account forms (payment-page-views.ts,
// shared with the payment link's page). Every text is escaped.
import { InvoiceStatus, PaymentMethodType } from '@pgw/client/enums';
import type { components } from '@pgw/client/types';
import { toCents } from '../platform/money.ts';
import { invoiceDocument } from '../services/invoice-document.ts';
import { escapeHtml } from '../views/html.ts';
import { achForm, cardForm, messageHtml, notFoundPage, pageDocument, type PageForms, type PageMessage } from './payment-page-views.ts';

export type { PageMessage } from './payment-page-views.ts';

type Invoice = components['schemas']['Invoice'];

const e = escapeHtml;

export const NOT_FOUND_PAGE = notFoundPage('Invoice', 'This invoice does not exist or is not published.');

export interface PageOptions {
  /** The CSP nonce of this response. */
  nonce: string;
  /** Null when the invoice cannot be paid (Paid, Cancelled): no forms. */
  forms: PageForms | null;
  message: PageMessage | null;
}

const PAYMENT_METHOD: Record<number, string> = { [PaymentMethodType.Card]: 'by card', [PaymentMethodType.ElectronicCheck]: 'by bank account' };

/** The invoice page: the document, what each payment type costs, the message, and the forms while open. */
export function invoicePageHtml(invoice: Invoice, merchantName: string, page: PageOptions): string {
  const d = invoiceDocument(invoice, merchantName);
  const lines = (list: readonly string[]): string => list.map(e).join('<br>');
  const pairs = (rows: readonly [string, string][], id?: string): string => rows.map(([label, value]) => `<tr><th scope="row">${e(label)}</th><td class="n"${id !== undefined && label === 'Total' ? ` id="${id}"` : ''}>${e(value)}</td></tr>`).join('\n');
  const rows = d.lines.map((l) => `<tr><td>${e(l.product)}${l.description === null ? '' : `<br><small>${e(l.description)}</small>`}</td>`
    + `<td class="n">${e(l.quantity)}</td><td class="n">${e(l.unitPrice)}</td><td class="n">${e(l.discount)}</td><td class="n">${e(l.amount)}</td></tr>`).join('\n');
  const status = d.facts.find(([label]) => label === 'Status')?.[1] ?? '';
  const amountIds = ['amount-credit', 'amount-debit', 'amount-ach'];
  const toPay = d.toPay === null ? '' : `<h2>Amount to pay</h2><table>${d.toPay.map(([label, value], i) => `<tr><th scope="row">${e(label)}</th><td class="n" id="${amountIds[i] ?? ''}">${e(value)}</td></tr>`).join('\n')}</table>`;
  const paid = invoice.status === InvoiceStatus.Paid
    ? `<p class="paid" role="status" id="paid">Paid${invoice.paymentMethodTypeId === null ? '' : ` ${e(PAYMENT_METHOD[invoice.paymentMethodTypeId] ?? '')}`}${invoice.paymentDate === null ? '' : ` on ${e(invoice.paymentDate.slice(0, 10))}`}. Thank you.</p>`
    : '';
  const calc = invoice.invoiceCalculations;
  const action = (kind: string): string => `/pay/invoices/${invoice.id}/${kind}`;
  const forms = page.forms === null ? ''
    : `${cardForm(action('card'), { credit: toCents(calc.creditCard.totalAmount), debit: toCents(calc.debitCard.totalAmount) }, page.forms.cardToken)}\n`
      + achForm(action('ach'), toCents(calc.ach.totalAmount), merchantName, 'to pay this invoice', page.forms.achToken);
  const content = `<h1>${e(d.title)}</h1>
<p>${lines(d.merchant)}</p>
<p>${d.facts.map(([label, value]) => (label === 'Status' ? `${e(label)}: <strong id="status">${e(status)}</strong>` : `${e(label)}: ${e(value)}`)).join('<br>')}</p>
${paid}
${messageHtml(page.message)}
<div class="parties">
<section><h2>Bill to</h2><p>${lines(d.billTo)}</p></section>
${d.shipTo === null ? '' : `<section><h2>Ship to</h2><p>${lines(d.shipTo)}</p></section>`}
</div>
<table>
<tr>${d.columns.map((c, i) => `<th scope="col"${i > 0 ? ' class="n"' : ''}>${e(c)}</th>`).join('')}</tr>
${rows}
</table>
<table>
${pairs([...d.totals, d.total], 'total')}
</table>
${toPay}
${d.notes === null ? '' : `<h2>Notes</h2><p>${e(d.notes)}</p>`}
${d.payOnline === null ? '' : `<p>View and pay online: ${e(d.payOnline)}</p>`}
${forms}`;
  return pageDocument(`${d.title} from ${merchantName}`, page.nonce, content, page.forms !== null);
}
