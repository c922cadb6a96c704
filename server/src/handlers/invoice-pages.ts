// The invoice's page, outside the API: GET /pay/invoices/:id, a read-only HTML page of a published invoice
// (a draft's answers 404), and GET /i/:code, the short address, which redirects (302) to it.
import express, { type Router } from 'express';
import type { components } from '../../../generated/types.ts';
import type { Services } from '../platform/context.ts';
import type { Deps } from '../platform/deps.ts';
import { offsetClock } from '../platform/time.ts';
import { clockOffsetOf } from '../repositories/merchants.ts';
import { usd } from '../services/invoice-pdf.ts';
import * as service from '../services/invoices.ts';

type Invoice = components['schemas']['Invoice'];

const STATUS_NAMES: Record<Invoice['status'], string> = { 1: 'Draft', 2: 'Due', 3: 'Past due', 4: 'Paid', 5: 'Cancelled' };

const escapeHtml = (text: string): string =>
  text.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c] ?? c);

const day = (date: string | null): string => (date === null ? '-' : date.slice(0, 10));

const NOT_FOUND_PAGE = '<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Invoice not found</title></head>'
  + '<body><h1>Invoice not found</h1><p>This invoice does not exist or is not published.</p></body></html>';

function page(invoice: Invoice, merchantName: string): string {
  const e = escapeHtml;
  const c = invoice.customer;
  const rows = invoice.lineItems.map((l) => `<tr><td>${e(l.productName)}${l.description ? `<br><small>${e(l.description)}</small>` : ''}</td>`
    + `<td class="n">${l.quantity}</td><td class="n">${e(usd(l.unitPrice))}</td><td class="n">${l.discountPercentage}%</td>`
    + `<td class="n">${e(usd(l.totalAmount))}</td></tr>`).join('\n');
  const calc = invoice.invoiceCalculations;
  const open = invoice.status === 2 || invoice.status === 3;
  const prices = open
    ? `<h2>Amount to pay</h2><table><tr><th>Credit card</th><td class="n">${e(usd(calc.creditCard.totalAmount))}</td></tr>`
      + `<tr><th>Debit card</th><td class="n">${e(usd(calc.debitCard.totalAmount))}</td></tr>`
      + `<tr><th>Bank account (ACH)</th><td class="n">${e(usd(calc.ach.totalAmount))}</td></tr></table>`
    : '';
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Invoice ${e(invoice.number ?? '')} from ${e(merchantName)}</title>
<style>body{font-family:Helvetica,Arial,sans-serif;max-width:760px;margin:2em auto;padding:0 1em;color:#222}
table{border-collapse:collapse;width:100%}td,th{padding:.3em .5em;border-bottom:1px solid #ddd;text-align:left}.n{text-align:right}</style>
</head>
<body>
<h1>Invoice ${e(invoice.number ?? '')}</h1>
<p><strong>${e(merchantName)}</strong><br>${e(invoice.merchantContactInfo.email)}</p>
<p>Status: <strong id="status">${STATUS_NAMES[invoice.status]}</strong><br>Issued: ${day(invoice.issueDate)}<br>Due: ${day(invoice.dueDate)}${
  invoice.paymentDate === null ? '' : `<br>Paid: ${day(invoice.paymentDate)}`}</p>
<p>Bill to: ${e(`${c.firstName} ${c.lastName}`)}${c.companyName ? `, ${e(c.companyName)}` : ''}</p>
<table>
<tr><th>Item</th><th class="n">Qty</th><th class="n">Unit price</th><th class="n">Discount</th><th class="n">Amount</th></tr>
${rows}
</table>
<table>
<tr><th>Subtotal</th><td class="n">${e(usd(invoice.subTotalAmount))}</td></tr>
<tr><th>Discount (${invoice.discountPercentage}%)</th><td class="n">${e(usd(0 - calc.ach.discountAmount))}</td></tr>
<tr><th>Tax (${invoice.taxPercentage}%)</th><td class="n">${e(usd(calc.ach.taxAmount))}</td></tr>
<tr><th>Fees (${invoice.feesPercentage}%)</th><td class="n">${e(usd(calc.ach.feesAmount))}</td></tr>
<tr><th>Shipping</th><td class="n">${e(usd(invoice.shippingAmount))}</td></tr>
<tr><th>Total</th><td class="n" id="total">${e(usd(invoice.totalAmount))}</td></tr>
</table>
${prices}
${invoice.additionalNotes === '' ? '' : `<p>${e(invoice.additionalNotes)}</p>`}
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
