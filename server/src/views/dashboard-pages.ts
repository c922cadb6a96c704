// The dashboard's pages outside payments and webhooks: sign-in, overview, the clock with its advance form,
// the invoices, and the error pages. Every value goes through the html tag (escaped).
import type { components } from '@pgw/client/types';
import { formatUsd, toCents } from '../platform/money.ts';
import { enumeration } from '../platform/spec-data.ts';
import { formatTime, html } from './html.ts';
import { notice, page, pager, plainPage, postForm, type Frame } from './dashboard-layout.ts';

type Schemas = components['schemas'];

const INVOICE_STATUS = enumeration('InvoiceStatus');

export function signInPage(csrf: string, error: string | null, clientId = ''): string {
  return plainPage('Sign in to the sandbox dashboard', html`<p>Sign in with a merchant's API key: its client id and client secret.</p>
${notice(error, 'error')}
<form method="post" action="/dashboard/sign-in">
<input type="hidden" name="csrf" value="${csrf}">
<label for="clientId">Client id</label>
<input type="text" id="clientId" name="clientId" value="${clientId}" autocomplete="username" required autofocus>
<label for="clientSecret">Client secret</label>
<input type="password" id="clientSecret" name="clientSecret" autocomplete="current-password" required>
<p><button type="submit">Sign in</button></p>
</form>`);
}

export function overviewPage(frame: Frame, facts: { transactions: number; events: number; invoices: number; clock: Schemas['SandboxClock'] }): string {
  return page(frame, 'Overview', html`<p>The sandbox of ${frame.merchantName}: what the API did, as the gateway recorded it.</p>
<table>
<caption class="muted">This merchant's records</caption>
<tr><th scope="row"><a href="/dashboard/transactions">Transactions</a></th><td class="n">${facts.transactions}</td></tr>
<tr><th scope="row"><a href="/dashboard/events">Events</a></th><td class="n">${facts.events}</td></tr>
<tr><th scope="row"><a href="/dashboard/invoices">Invoices</a></th><td class="n">${facts.invoices}</td></tr>
<tr><th scope="row"><a href="/dashboard/clock">Sandbox clock</a></th><td class="n">${formatTime(facts.clock.now)}</td></tr>
</table>`);
}

const RAN_LABELS: [keyof Schemas['SandboxClockRun'], string][] = [
  ['achSubmitted', 'ACH entries submitted'], ['achSettled', 'ACH entries settled'], ['achReturned', 'ACH entries returned'],
  ['achFailed', 'ACH entries failed'], ['cardSettled', 'Card transactions settled'], ['cardExpired', 'Authorizations expired'],
  ['settlementBatches', 'Settlement batches'], ['invoicesPastDue', 'Invoices past due'],
  ['quickPaymentsExpired', 'Payment links expired'], ['subscriptionPayments', 'Subscription payments'], ['webhookAttempts', 'Webhook attempts queued'],
];

const PRESETS: [number, string][] = [[3600, '1 hour'], [86_400, '1 day'], [604_800, '7 days']];

export function clockPage(frame: Frame, clock: Schemas['SandboxClock'], ran: Schemas['SandboxClockRun'] | null, error: string | null): string {
  const days = Math.floor(clock.offsetSeconds / 86_400);
  const rest = clock.offsetSeconds % 86_400;
  return page(frame, 'Sandbox clock', html`${notice(error, 'error')}
<p>This merchant's business time runs ahead of real time by the offset; advancing it runs everything that falls due, in time order.</p>
<table>
<tr><th scope="row">Now</th><td id="clock-now">${formatTime(clock.now)}</td></tr>
<tr><th scope="row">Offset</th><td id="clock-offset">${clock.offsetSeconds} seconds (${days} days, ${Math.floor(rest / 3600)} hours, ${Math.floor((rest % 3600) / 60)} minutes)</td></tr>
</table>
${ran === null ? '' : html`<section aria-labelledby="ran"><h2 id="ran">What ran</h2>
<p class="notice" role="status">The clock advanced to ${formatTime(clock.now)}.</p>
<table><tr><th scope="col">Kind</th><th scope="col" class="n">Count</th></tr>
${RAN_LABELS.map(([key, label]) => html`<tr><th scope="row">${label}</th><td class="n">${ran[key]}</td></tr>`)}
</table></section>`}
<h2>Advance the clock</h2>
${postForm('/dashboard/clock/advance', frame.csrf, html`<p>${PRESETS.map(([seconds, label]) => html`<button type="submit" name="seconds" value="${seconds}">Advance ${label}</button> `)}</p>`)}
${postForm('/dashboard/clock/advance', frame.csrf, html`<label for="seconds">Seconds to advance (1 to 31536000)</label>
<input type="number" id="seconds" name="seconds" min="1" max="31536000" step="1" required>
<button type="submit">Advance</button>`)}`);
}

export function invoicesPage(frame: Frame, list: { items: Schemas['InvoiceListItem'][]; total: number; page: number; pages: number }): string {
  const rows = list.items.map((i) => html`<tr>
<td>${i.number ?? 'Draft'}</td><td>${i.customerName}</td><td class="n">${formatUsd(toCents(i.totalAmount))}</td>
<td>${INVOICE_STATUS.get(i.status) ?? String(i.status)}</td><td>${formatTime(i.dueDate)}</td>
<td>${i.number === null ? html`<span class="muted">not published</span>` : html`<a href="/pay/invoices/${i.id}">Hosted page<span class="sr"> of invoice ${i.number}</span></a>`}</td></tr>`);
  return page(frame, 'Invoices', html`<p>${list.total} invoices, newest first.</p>
<table><tr><th scope="col">Number</th><th scope="col">Customer</th><th scope="col" class="n">Total</th><th scope="col">Status</th><th scope="col">Due</th><th scope="col">Page</th></tr>
${rows}</table>
${pager('/dashboard/invoices', list.page, list.pages, 'Invoice')}`);
}

export const errorPage = (title: string, text: string): string =>
  plainPage(title, html`<p>${text}</p><p><a href="/dashboard">Back to the dashboard</a></p>`);
