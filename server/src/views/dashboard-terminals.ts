// The dashboard's terminals page: the merchant's terminals with their paper status, and per terminal the
// sandbox's paper report (Ok, Low, Empty), which runs the paper machine as the API's sandbox control does.
import type { components } from '@pgw/client/types';
import { formatTime, html } from './html.ts';
import { notice, page, pager, postForm, type Frame } from './dashboard-layout.ts';

type Terminal = components['schemas']['Terminal'];

/** The paper statuses a terminal can report, in the order the buttons show them. */
export const PAPER_REPORTS = ['Ok', 'Low', 'Empty'] as const satisfies readonly Terminal['paperStatus'][];

export function terminalsPage(frame: Frame, list: { items: Terminal[]; total: number; page: number; pages: number }, message: string | null, error: string | null): string {
  const rows = list.items.map((t) => html`<tr id="terminal-${t.terminalId}">
<td>${t.name ?? html`<span class="muted">unnamed</span>`}</td><td>${t.serialNumber}</td><td>${t.model}</td><td>${t.paperStatus}</td>
<td>${t.lastSeenAt === null ? html`<span class="muted">never</span>` : formatTime(t.lastSeenAt)}</td>
<td>${postForm(`/dashboard/terminals/${t.terminalId}/paper`, frame.csrf, html`${PAPER_REPORTS.map((status) =>
    html`<button type="submit" name="paperStatus" value="${status}">${status}<span class="sr"> paper on ${t.serialNumber}</span></button> `)}`, 'inline')}</td></tr>`);
  return page(frame, 'Terminals', html`<p>${list.total} terminals, newest first. A report of Empty paper sends terminal.out_of_paper; a new roll is Ok.</p>
${notice(message)}${notice(error, 'error')}
<table><tr><th scope="col">Name</th><th scope="col">Serial number</th><th scope="col">Model</th><th scope="col">Paper</th><th scope="col">Last seen</th><th scope="col">Report paper</th></tr>
${rows}</table>
${pager('/dashboard/terminals', list.page, list.pages, 'Terminal')}`);
}
