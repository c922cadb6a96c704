// The dashboard's payment links page: the merchant's links with their status, amount, description, expiry and
// page address (a link to open it), and per Active link a Cancel button that runs cancelQuickPayment's machine row.
import type { components } from '@pgw/client/types';
import { formatUsd, toCents } from '../platform/money.ts';
import { formatTime, html } from './html.ts';
import { notice, page, pager, postForm, type Frame } from './dashboard-layout.ts';

type QuickPayment = components['schemas']['QuickPayment'];

export function linksPage(frame: Frame, list: { items: QuickPayment[]; total: number; page: number; pages: number }, message: string | null, error: string | null): string {
  const rows = list.items.map((l) => html`<tr id="link-${l.id}">
<td>${l.description ?? html`<span class="muted">none</span>`}</td><td class="n">${formatUsd(toCents(l.amount))}</td><td>${l.status}</td>
<td>${l.expiresOn === null ? html`<span class="muted">never</span>` : formatTime(l.expiresOn)}</td>
<td>${l.paidOn === null ? html`<span class="muted">not paid</span>` : formatTime(l.paidOn)}</td>
<td><a href="${l.url}">${l.url}</a></td>
<td>${l.status === 'Active' ? postForm(`/dashboard/links/${l.id}/cancel`, frame.csrf, html`<button type="submit">Cancel<span class="sr"> the link ${l.description ?? l.id}</span></button>`, 'inline') : ''}</td></tr>`);
  return page(frame, 'Payment links', html`<p>${list.total} payment links, newest first. A customer pays an Active link once on its page; paid, it sends quick_payment.paid.</p>
${notice(message)}${notice(error, 'error')}
<table><tr><th scope="col">Description</th><th scope="col">Amount</th><th scope="col">Status</th><th scope="col">Expires</th><th scope="col">Paid</th><th scope="col">Page</th><th scope="col">Cancel</th></tr>
${rows}</table>
${pager('/dashboard/links', list.page, list.pages, 'Payment link')}`);
}
