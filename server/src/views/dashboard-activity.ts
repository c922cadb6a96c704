// The dashboard's pages of activity: the transactions list, one transaction with its status history, and the
// events with their webhook deliveries, attempt by attempt, each Failed delivery with a Retry form.
import { formatUsd } from '../platform/money.ts';
import type { EventView, HistoryStep, Paged, TransactionSummary } from '../services/dashboard.ts';
import { formatTime, html } from './html.ts';
import { notice, page, pager, postForm, type Frame } from './dashboard-layout.ts';

export function transactionsPage(frame: Frame, list: Paged<TransactionSummary>): string {
  const rows = list.items.map((t) => html`<tr>
<td><a href="/dashboard/transactions/${t.id}">${formatTime(t.createdOn)}</a></td><td>${t.method}</td><td>${t.type}</td>
<td class="n">${formatUsd(t.amountCents)}</td><td>${t.status}</td><td>${t.account}</td></tr>`);
  return page(frame, 'Transactions', html`<p>${list.total} transactions, card and ACH, newest first. Open one for its status history.</p>
<table><tr><th scope="col">Created</th><th scope="col">Method</th><th scope="col">Type</th><th scope="col" class="n">Amount</th><th scope="col">Status</th><th scope="col">Account</th></tr>
${rows}</table>
${pager('/dashboard/transactions', list.page, list.pages, 'Transaction')}`);
}

export function transactionPage(frame: Frame, t: TransactionSummary, history: HistoryStep[]): string {
  const steps = history.map((h) => html`<tr><td>${formatTime(h.at)}</td><td>${h.from ?? '(created)'}</td><td>${h.to}</td><td>${h.trigger}</td>
<td>${h.responseCode}</td><td>${h.returnCode}</td></tr>`);
  return page(frame, `${t.method} ${t.type} ${formatUsd(t.amountCents)}`, html`<table>
<tr><th scope="row">Transaction id</th><td>${t.id}</td></tr>
<tr><th scope="row">Status</th><td id="status">${t.status}</td></tr>
<tr><th scope="row">Amount</th><td>${formatUsd(t.amountCents)}</td></tr>
<tr><th scope="row">Processed</th><td>${formatUsd(t.processedCents)}</td></tr>
<tr><th scope="row">Refunded</th><td>${formatUsd(t.refundedCents)}</td></tr>
<tr><th scope="row">Account</th><td>${t.account}</td></tr>
<tr><th scope="row">Response</th><td>${t.responseCode} ${t.responseDescription}</td></tr>
<tr><th scope="row">Created</th><td>${formatTime(t.createdOn)}</td></tr>
<tr><th scope="row">Settled</th><td>${formatTime(t.settledOn)}</td></tr>
</table>
<h2 id="history">Status history</h2>
<table aria-labelledby="history"><tr><th scope="col">When</th><th scope="col">From</th><th scope="col">To</th><th scope="col">Trigger</th><th scope="col">Response code</th><th scope="col">Return code</th></tr>
${steps}</table>
<p><a href="/dashboard/transactions">All transactions</a></p>`);
}

function deliveries(frame: Frame, e: EventView): ReturnType<typeof html> {
  if (e.deliveries.length === 0) return html`<p class="muted">No webhook deliveries.</p>`;
  return html`${e.deliveries.map((d) => html`<section class="delivery" id="delivery-${d.id}" aria-label="Delivery ${d.id}">
<h3>${d.triggerType === 'Manual' ? 'Manual retry' : 'Delivery'} to ${d.webhookName} <small>(${d.webhookUrl})</small>: <span class="delivery-status">${d.status}</span></h3>
<table><tr><th scope="col">Attempt</th><th scope="col">Time</th><th scope="col" class="n">Status code</th><th scope="col" class="n">Duration</th><th scope="col">Error</th></tr>
${d.attempts.map((a) => html`<tr class="attempt"><td>${a.attemptNumber}</td><td>${formatTime(a.attemptedOn)}</td><td class="n">${a.responseStatusCode ?? '—'}</td>
<td class="n">${a.durationMs} ms</td><td>${a.outcome === 'ok' ? '' : a.outcome}</td></tr>`)}
</table>
${d.status === 'Pending' && d.nextRetryAt !== null ? html`<p>Next attempt at ${formatTime(d.nextRetryAt)}.</p>` : ''}
${d.status !== 'Succeeded' ? postForm(`/dashboard/deliveries/${d.id}/retry`, frame.csrf, html`<button type="submit">Retry delivery<span class="sr"> ${d.id} of ${e.type}</span></button>`) : ''}
</section>`)}`;
}

export function eventsPage(frame: Frame, list: Paged<EventView> & { webhooks: boolean }, message: string | null, error: string | null): string {
  const events = list.items.map((e) => html`<article class="event" aria-labelledby="event-${e.id}">
<h2 id="event-${e.id}">${e.type} <small>${formatTime(e.occurredOn)}</small></h2>
<p class="muted">Event ${e.id}</p>
${deliveries(frame, e)}
</article>`);
  return page(frame, 'Events and webhook deliveries', html`${notice(message)}${notice(error, 'error')}
${list.webhooks ? '' : html`<p class="muted">This merchant has no webhooks permission: events have no deliveries.</p>`}
<p>${list.total} events, newest first.</p>
${events}
${pager('/dashboard/events', list.page, list.pages, 'Event')}`);
}
