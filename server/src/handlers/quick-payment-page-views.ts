// The HTML of a payment link's page: who asks, for what and how much (the unit amount and quantity, or the
// bounds of an amount or a quantity the payer chooses, with the inputs for the choice in each form); while the
// link is Active the card and bank-account forms (payment-page-views.ts, shared with the invoice page); a
// receipt once Paid; and what an Expired or Cancelled link says. Every text is escaped.
import { PaymentMethodType } from '@pgw/client/enums';
import { centsOfExact, formatUsd, wireText } from '../platform/money.ts';
import type { QuickPaymentRecord } from '../repositories/quick-payments.ts';
import type { PublicLink } from '../services/quick-payments.ts';
import { escapeHtml, formatTime } from '../views/html.ts';
import { achForm, cardForm, field, messageHtml, notFoundPage, pageDocument, type FormChoice, type PageForms, type PageMessage } from './payment-page-views.ts';

const e = escapeHtml;

export const LINK_NOT_FOUND_PAGE = notFoundPage('Payment link', 'This payment link does not exist.');

const METHOD: Record<number, string> = { [PaymentMethodType.Card]: 'by card', [PaymentMethodType.ElectronicCheck]: 'by bank account' };

/** What a link that can no longer be paid says instead of its forms. */
function closed(shown: PublicLink): string {
  const { link } = shown;
  switch (link.status) {
    case 'Paid':
      return `<section class="paid" role="status" id="receipt"><h2>Receipt</h2>`
        + `<p id="paid">Paid ${e(formatUsd(link.latest?.amountCents ?? link.amountCents))}${shown.paymentMethodTypeId === null ? '' : ` ${e(METHOD[shown.paymentMethodTypeId] ?? '')}`}`
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

/** The receipt of the payment the page was sent back with, while the link takes more (a Paid link shows its own). */
function thanks(shown: PublicLink): string {
  const paid = shown.receipt;
  if (paid === null || shown.link.status === 'Paid') return '';
  return `<section class="paid" role="status" id="receipt"><h2>Receipt</h2><p id="paid">Paid ${e(formatUsd(paid.amountCents))}`
    + `${paid.quantity === 1 ? '' : ` for ${String(paid.quantity)}`} on ${e(formatTime(paid.paidOn))}. Thank you.</p>`
    + `<p>Reference: <code id="reference">${e(paid.transactionId)}</code></p></section>`;
}

/** The inputs of what the payer chooses (the amount within customAmount, the quantity within adjustableQuantity); undefined when nothing is chosen. */
function choiceOf(link: QuickPaymentRecord): FormChoice | undefined {
  const amounts = link.amountRange;
  const quantities = link.quantityRange;
  if (amounts === null && quantities === null) return undefined;
  return {
    charged: amounts !== null ? 'the amount you enter' : `the unit price of ${formatUsd(link.amountCents)} times the quantity you choose`,
    inputs: (form) => (amounts !== null
      ? field(`${form}-link-amount`, 'linkAmount', `Amount in USD (${formatUsd(amounts.min)} to ${formatUsd(amounts.max)})`,
        `type="text" inputmode="decimal" required maxlength="10" pattern="[0-9]{1,7}(\\.[0-9]{1,2})?" value="${e(wireText(link.amountCents))}"`)
      : '')
      + (quantities !== null
        ? field(`${form}-link-quantity`, 'linkQuantity', `Quantity (${String(quantities.min)} to ${String(quantities.max)})`,
          `type="number" inputmode="numeric" required min="${String(quantities.min)}" max="${String(quantities.max)}" step="1" value="${String(link.quantity)}"`)
        : ''),
  };
}

/** The rows of what is charged: the amount (or its bounds), the quantity, and a reusable link's payments so far. */
function termsRows(link: QuickPaymentRecord): string {
  const rows: string[] = [];
  if (link.amountRange !== null) {
    rows.push(`<tr><th scope="row">Amount</th><td class="n" id="amount">${e(formatUsd(link.amountRange.min))} to ${e(formatUsd(link.amountRange.max))}, your choice</td></tr>`);
  } else if (link.quantity === 1 && link.quantityRange === null) {
    rows.push(`<tr><th scope="row">Amount</th><td class="n" id="amount">${e(formatUsd(link.amountCents))}</td></tr>`);
  } else {
    rows.push(`<tr><th scope="row">Unit price</th><td class="n" id="amount">${e(formatUsd(link.amountCents))}</td></tr>`);
    rows.push(link.quantityRange === null
      ? `<tr><th scope="row">Quantity</th><td class="n" id="quantity">${String(link.quantity)}</td></tr>`
        + `<tr><th scope="row">Total</th><td class="n" id="total">${e(formatUsd(centsOfExact(BigInt(link.amountCents) * BigInt(link.quantity))))}</td></tr>`
      : `<tr><th scope="row">Quantity</th><td class="n" id="quantity">${String(link.quantityRange.min)} to ${String(link.quantityRange.max)}, your choice</td></tr>`);
  }
  if (link.maxPayments !== 1) {
    rows.push(`<tr><th scope="row">Payments</th><td class="n" id="payments">${String(link.paymentCount)}${link.maxPayments === null ? '' : ` of ${String(link.maxPayments)}`}</td></tr>`);
  }
  return rows.join('\n');
}

/** The link's page; `forms` null when it cannot be paid (anything but Active). */
export function linkPageHtml(shown: PublicLink, page: { nonce: string; forms: PageForms | null; message: PageMessage | null }): string {
  const { link, merchantName } = shown;
  const action = (kind: string): string => `/pay/links/${link.id}/${kind}`;
  // A fixed payment: the unit amount times the quantity, in integer cents.
  const total = centsOfExact(BigInt(link.amountCents) * BigInt(link.quantity));
  const forms = page.forms === null ? ''
    : `${cardForm(action('card'), { credit: total, debit: total }, page.forms.cardToken, choiceOf(link))}\n`
      + achForm(action('ach'), total, merchantName, 'for this payment', page.forms.achToken, choiceOf(link));
  const content = `<h1>Payment to ${e(merchantName || 'the merchant')}</h1>
${link.description === null ? '' : `<p id="description">${e(link.description)}</p>`}
<table>
${termsRows(link)}
<tr><th scope="row">Status</th><td class="n"><strong id="status">${e(link.status)}</strong></td></tr>
${link.expiresOn === null || link.status !== 'Active' ? '' : `<tr><th scope="row">Pay by</th><td class="n" id="expires">${e(formatTime(link.expiresOn))}</td></tr>`}
</table>
${closed(shown)}
${thanks(shown)}
${messageHtml(page.message)}
${forms}`;
  return pageDocument(`Payment to ${merchantName || 'the merchant'}`, page.nonce, content, page.forms !== null);
}
