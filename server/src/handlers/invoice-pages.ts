// The invoice's page, outside the API: GET /pay/invoices/:id, a read-only HTML page of a published invoice
// (a draft's answers 404), and GET /i/:code, the short address, which redirects (302) to it.
import express, { type Router } from 'express';
import type { components } from '../../../generated/types.ts';
import type { Services } from '../platform/context.ts';
import type { Deps } from '../platform/deps.ts';
import { offsetClock } from '../platform/time.ts';
import { clockOffsetOf } from '../repositories/merchants.ts';
import { invoiceDocument } from '../services/invoice-document.ts';
import * as service from '../services/invoices.ts';

type Invoice = components['schemas']['Invoice'];

const escapeHtml = (text: string): string =>
  text.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c] ?? c);

const NOT_FOUND_PAGE = '<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Invoice not found</title></head>'
  + '<body><h1>Invoice not found</h1><p>This invoice does not exist or is not published.</p></body></html>';

/** The invoice page: the view model the PDF renders too (invoice-document.ts), every text escaped. */
function page(invoice: Invoice, merchantName: string): string {
  const e = escapeHtml;
  const d = invoiceDocument(invoice, merchantName);
  const lines = (list: readonly string[]): string => list.map(e).join('<br>');
  const pairs = (rows: readonly [string, string][], id?: string): string => rows.map(([label, value]) => `<tr><th scope="row">${e(label)}</th><td class="n"${id !== undefined && label === 'Total' ? ` id="${id}"` : ''}>${e(value)}</td></tr>`).join('\n');
  const rows = d.lines.map((l) => `<tr><td>${e(l.product)}${l.description === null ? '' : `<br><small>${e(l.description)}</small>`}</td>`
    + `<td class="n">${e(l.quantity)}</td><td class="n">${e(l.unitPrice)}</td><td class="n">${e(l.discount)}</td><td class="n">${e(l.amount)}</td></tr>`).join('\n');
  const status = d.facts.find(([label]) => label === 'Status')?.[1] ?? '';
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${e(d.title)} from ${e(merchantName)}</title>
<style>body{font-family:Helvetica,Arial,sans-serif;max-width:760px;margin:2em auto;padding:0 1em;color:#222}
table{border-collapse:collapse;width:100%}td,th{padding:.3em .5em;border-bottom:1px solid #ddd;text-align:left}.n{text-align:right}
.parties{display:flex;gap:3em}</style>
</head>
<body>
<main>
<h1>${e(d.title)}</h1>
<p>${lines(d.merchant)}</p>
<p>${d.facts.map(([label, value]) => (label === 'Status' ? `${e(label)}: <strong id="status">${e(status)}</strong>` : `${e(label)}: ${e(value)}`)).join('<br>')}</p>
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
${d.toPay === null ? '' : `<h2>Amount to pay</h2><table>${pairs(d.toPay)}</table>`}
${d.notes === null ? '' : `<h2>Notes</h2><p>${e(d.notes)}</p>`}
${d.payOnline === null ? '' : `<p>View and pay online: ${e(d.payOnline)}</p>`}
</main>
</body>
</html>
`;
}

/**
 * The dependencies of a page of one merchant's invoice. No token names the merchant here, so the business
 * clock is read from the invoice's merchant: its sandbox offset (none in production).
 */
async function merchantDeps(services: Services, merchantId: string): Promise<Deps> {
  const offset = services.config.environment === 'sandbox' ? await clockOffsetOf(services.db, merchantId) : 0;
  return { db: services.db, log: services.log, config: services.config, wall: services.wall, clock: offsetClock(services.wall, offset) };
}

/** The invoice's page, or undefined for a draft's or none. */
async function invoicePage(services: Services, id: string): Promise<string | undefined> {
  const invoice = await service.findPublicInvoice(services, id);
  if (!invoice) return undefined;
  const found = await service.publicInvoice(await merchantDeps(services, invoice.merchantId), invoice);
  return page(found.invoice, found.merchantName);
}

/** The router of the invoice pages; mount it before the API router. */
export function invoicePages(services: Services): Router {
  const router = express.Router();
  router.get('/pay/invoices/:id', (req, res, next) => {
    invoicePage(services, req.params.id).then((html) => {
      res.set('Cache-Control', 'no-store');
      if (html === undefined) {
        res.status(404).type('html').send(NOT_FOUND_PAGE);
        return;
      }
      res.type('html').send(html);
    }, next);
  });
  router.get('/i/:code', (req, res, next) => {
    service.pageOfShortCode(services, req.params.code).then((target) => {
      if (target === undefined) {
        res.status(404).type('html').send(NOT_FOUND_PAGE);
        return;
      }
      res.redirect(302, target);
    }, next);
  });
  return router;
}
