// The dashboard's subscriptions page: the merchant's subscriptions with their status (a trial's end, a pause),
// customer, amount (and a downgrade's credit), frequency and next payment date (read only: the payments are made by the business clock).
import type { components } from '@pgw/client/types';
import { formatUsd, toCents } from '../platform/money.ts';
import { formatTime, html } from './html.ts';
import { page, pager, type Frame } from './dashboard-layout.ts';

type Subscription = components['schemas']['WebhookSubscription'];

const usd = (amount: number): string => formatUsd(toCents(amount));

/** What a status does not say alone: when a trial ends, since when it is paused. */
const statusNote = (s: Subscription) => (s.status === 'Trialing' && s.trialEnd !== null ? html` (trial until ${formatTime(s.trialEnd)})`
  : s.status === 'Paused' && s.pausedOn !== null ? html` (since ${formatTime(s.pausedOn)})` : '');

export function subscriptionsPage(frame: Frame, list: { items: Subscription[]; total: number; page: number; pages: number }): string {
  const rows = list.items.map((s) => html`<tr id="subscription-${s.subscriptionId}">
<td>${s.description ?? html`<span class="muted">no description</span>`}</td><td>${s.status}${s.cancelAtPeriodEnd ? ' (cancels at period end)' : ''}${statusNote(s)}</td>
<td>${s.customerId}</td><td>${usd(s.amount)}${s.creditAmount > 0 ? html` <span class="muted">(credit ${usd(s.creditAmount)})</span>` : ''}</td><td>${s.frequency}</td>
<td>${s.nextPaymentDate === null ? html`<span class="muted">none</span>` : formatTime(s.nextPaymentDate)}</td><td>${String(s.paymentsCount)}</td><td>${String(s.failedPaymentCount)}</td></tr>`);
  return page(frame, 'Subscriptions', html`<p>${list.total} subscriptions, newest first. Payments are made when they fall due on the business clock (the Clock page moves it).</p>
<table><tr><th scope="col">Description</th><th scope="col">Status</th><th scope="col">Customer</th><th scope="col">Amount</th><th scope="col">Frequency</th><th scope="col">Next payment</th><th scope="col">Payments</th><th scope="col">Failed attempts</th></tr>
${rows}</table>
${pager('/dashboard/subscriptions', list.page, list.pages, 'Subscription')}`);
}
