// The frame of every dashboard page: a skip link, the header with the navigation and the sign-out form, the
// main landmark; and the pieces the pages share (a CSRF-carrying POST form, paging links, messages).
import { html, type Html } from './html.ts';

export type Section = 'overview' | 'transactions' | 'events' | 'clock' | 'invoices' | 'links' | 'terminals' | 'subscriptions';

const SECTIONS: [Section, string, string][] = [
  ['overview', 'Overview', '/dashboard'],
  ['transactions', 'Transactions', '/dashboard/transactions'],
  ['events', 'Events and webhooks', '/dashboard/events'],
  ['clock', 'Clock', '/dashboard/clock'],
  ['invoices', 'Invoices', '/dashboard/invoices'],
  ['links', 'Payment links', '/dashboard/links'],
  ['terminals', 'Terminals', '/dashboard/terminals'],
  ['subscriptions', 'Subscriptions', '/dashboard/subscriptions'],
];

/** What a page of a signed-in merchant knows about the session. */
export interface Frame { merchantName: string; clientId: string; csrf: string; section: Section }

function document(title: string, body: Html): string {
  return html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${title} · Sandbox dashboard</title>
<link rel="stylesheet" href="/dashboard/assets/dashboard.css">
<link rel="icon" href="/dashboard/assets/icon.svg" type="image/svg+xml">
</head>
<body>
${body}
</body>
</html>
`.text;
}

/** A POST form with the session's CSRF token; `fields` are its hidden fields and controls. */
export const postForm = (action: string, csrf: string, content: Html, className = ''): Html =>
  html`<form method="post" action="${action}"${className === '' ? '' : html` class="${className}"`}><input type="hidden" name="csrf" value="${csrf}">${content}</form>`;

export function page(frame: Frame, title: string, content: Html): string {
  const links = SECTIONS.map(([section, label, href]) =>
    html`<li><a href="${href}"${section === frame.section ? html` aria-current="page"` : ''}>${label}</a></li>`);
  return document(title, html`<a class="skip" href="#main">Skip to content</a>
<header>
<span><strong>Sandbox dashboard</strong> · ${frame.merchantName} (key ${frame.clientId})</span>
<nav aria-label="Dashboard"><ul>${links}</ul></nav>
${postForm('/dashboard/sign-out', frame.csrf, html`<button type="submit">Sign out</button>`, 'inline')}
</header>
<main id="main" tabindex="-1">
<h1>${title}</h1>
${content}
</main>`);
}

/** A page outside a session (sign-in, errors). */
export function plainPage(title: string, content: Html): string {
  return document(title, html`<a class="skip" href="#main">Skip to content</a>
<main id="main" tabindex="-1">
<h1>${title}</h1>
${content}
</main>`);
}

/** Previous and next links of a paged list (0-based page numbers). */
export function pager(base: string, page: number, pages: number, label: string): Html {
  if (pages <= 1) return html``;
  return html`<nav aria-label="${label} pages"><p>Page ${page + 1} of ${pages}.
${page > 0 ? html`<a href="${base}?page=${page - 1}" rel="prev">Newer</a>` : ''}
${page + 1 < pages ? html`<a href="${base}?page=${page + 1}" rel="next">Older</a>` : ''}</p></nav>`;
}

export const notice = (text: string | null, kind: 'notice' | 'error' = 'notice'): Html =>
  text === null ? html`` : html`<p class="${kind}" role="${kind === 'error' ? 'alert' : 'status'}">${text}</p>`;
