// The HTML of a payment link's page: who asks, for what and how much; while the link is Active the card and
// bank-account forms (payment-page-views.ts, shared with the invoice page); a receipt once Paid; and what an
// Expired or Cancelled link says. Every text is escaped.
import { PaymentMethodType } from '@pgw/client/enums';
import { formatUsd } from '../platform/money.ts';
import type { PublicLink } from '../services/quick-payments.ts';
import { escapeHtml, formatTime } from '../views/html.ts';
import { achForm, cardForm, messageHtml, notFoundPage, pageDocument, type PageForms, type PageMessage } from './payment-page-views.ts';

const e = escapeHtml;

export const LINK_NOT_FOUND_PAGE = notFoundPage('Payment link', 'This payment link does not exist.');

const METHOD: Record<number, string> = { [PaymentMethodType.Card]: 'by card', [PaymentMethodType.ElectronicCheck]: 'by bank account' };

/** What a link that can no longer be paid says instead of its forms. */
function closed(shown: PublicLink): string {
  const { link } = shown;
  switch (link.status) {
    case 'Paid':
      return `<section class="paid" role="status" id="receipt"><h2>Receipt</h2>`
        + `<p id="paid">Paid ${e(formatUsd(link.amountCents))}${shown.paymentMethodTypeId === null ? '' : ` ${e(METHOD[shown.paymentMethodTypeId] ?? '')}`}`
        + `${link.paidOn === null ? '' : ` on ${e(formatTime(link.paidOn))}`}. Thank you.</p>`
        + `${link.transactionId === null ? '' : `<p>Reference: <code id="reference">${e(link.transactionId)}</code></p>`}</section>`;
    case 'Expired':
      return `<p class="alert" role="status" id="closed">This payment link has expired${link.expiresOn === null ? '' : ` (${e(formatTime(link.expiresOn))})`}; it can no longer be paid. `
        + 'Please ask the merchant for a new one.</p>';
    case 'Cancelled':
      return '<p class="alert" role="status" id="closed">This payment link was cancelled by the merchant; it can no longer be paid.</p>';
    default:
      return '';
  }
}

/** The link's page; `forms` null when it cannot be paid (anything but Active). */
export function linkPageHtml(shown: PublicLink, page: { nonce: string; forms: PageForms | null; message: PageMessage | null }): string {
  const { link, merchantName } = shown;
  const action = (kind: string): string => `/pay/links/${link.id}/${kind}`;
  const forms = page.forms === null ? ''
    : `${cardForm(action('card'), { credit: link.amountCents, debit: link.amountCents }, page.forms.cardToken)}\n`
      + achForm(action('ach'), link.amountCents, merchantName, 'for this payment', page.forms.achToken);
  const content = `<h1>Payment to ${e(merchantName || 'the merchant')}</h1>
${link.description === null ? '' : `<p id="description">${e(link.description)}</p>`}
<table>
<tr><th scope="row">Amount</th><td class="n" id="amount">${e(formatUsd(link.amountCents))}</td></tr>
<tr><th scope="row">Status</th><td class="n"><strong id="status">${e(link.status)}</strong></td></tr>
${link.expiresOn === null || link.status !== 'Active' ? '' : `<tr><th scope="row">Pay by</th><td class="n" id="expires">${e(formatTime(link.expiresOn))}</td></tr>`}
</table>
${closed(shown)}
${messageHtml(page.message)}
${forms}`;
  return pageDocument(`Payment to ${merchantName || 'the merchant'}`, page.nonce, content, page.forms !== null);
}
