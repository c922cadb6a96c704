// The dashboard's payment links page: the merchant's links with their status, amount (or the payer's bounds),
// the payments each took (of its limit) and what they collected, expiry, latest payment and page address (a
// link to open it), and per Active link a Cancel button that runs cancelQuickPayment's machine row.
import type { components } from '@pgw/client/types';
import { formatUsd, toCents } from '../platform/money.ts';
import { formatTime, html } from './html.ts';
import { notice, page, pager, postForm, type Frame } from './dashboard-layout.ts';

type QuickPayment = components['schemas']['QuickPayment'];

/** A link's amount as the merchant set it: fixed (times its quantity), or the bounds the payer chooses within. */
function amountOf(l: QuickPayment): string {
  if (l.customAmount !== null) return `${formatUsd(toCents(l.customAmount.minimum))} to ${formatUsd(toCents(l.customAmount.maximum))}`;
  const unit = formatUsd(toCents(l.amount));
  if (l.adjustableQuantity !== null) return `${unit} × ${String(l.adjustableQuantity.minimum)} to ${String(l.adjustableQuantity.maximum)}`;
  return l.quantity === 1 ? unit : `${unit} × ${String(l.quantity)}`;
}

export function linksPage(frame: Frame, list: { items: QuickPayment[]; total: number; page: number; pages: number }, message: string | null, error: string | null): string {
  const rows = list.items.map((l) => html`<tr id="link-${l.id}">
<td>${l.description ?? html`<span class="muted">none</span>`}</td><td class="n">${amountOf(l)}</td><td>${l.status}</td>
<td class="n" id="link-${l.id}-payments">${String(l.paymentCount)}${l.maxPayments === null ? ' (no limit)' : ` of ${String(l.maxPayments)}`}</td>
<td class="n" id="link-${l.id}-collected">${formatUsd(toCents(l.totalCollected))}</td>
<td>${l.expiresOn === null ? html`<span class="muted">never</span>` : formatTime(l.expiresOn)}</td>
<td>${l.paidOn === null ? html`<span class="muted">not paid</span>` : formatTime(l.paidOn)}</td>
<td><a href="${l.url}">${l.url}</a></td>
<td>${l.status === 'Active' ? postForm(`/dashboard/links/${l.id}/cancel`, frame.csrf, html`<button type="submit">Cancel<span class="sr"> the link ${l.description ?? l.id}</span></button>`, 'inline') : ''}</td></tr>`);
  return page(frame, 'Payment links', html`<p>${list.total} payment links, newest first. A customer pays an Active link on its page, once or up to its limit of payments; each payment sends quick_payment.paid.</p>
${notice(message)}${notice(error, 'error')}
<table><tr><th scope="col">Description</th><th scope="col">Amount</th><th scope="col">Status</th><th scope="col">Payments</th><th scope="col">Collected</th><th scope="col">Expires</th><th scope="col">Latest payment</th><th scope="col">Page</th><th scope="col">Cancel</th></tr>
${rows}</table>
${pager('/dashboard/links', list.page, list.pages, 'Payment link')}`);
}
