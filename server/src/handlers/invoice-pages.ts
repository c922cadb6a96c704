// The invoice's page, outside the API: GET /pay/invoices/:id, the page of a published invoice (a draft's
// answers 404), which while the invoice is open takes its payment by card (POST …/card) or bank account
// (POST …/ach) with the API's own rules (payment-pages.ts: the form token, the Origin check); and GET /i/:code,
// the short address, which redirects (302) to it.
import express, { type Router } from 'express';
import { InvoiceStatus } from '@pgw/client/enums';
import type { Services } from '../platform/context.ts';
import type { InvoiceRecord } from '../repositories/invoices.ts';
import { payFromPage } from '../services/invoice-page-payments.ts';
import * as service from '../services/invoices.ts';
import { NOT_FOUND_PAGE, invoicePageHtml } from './invoice-page-views.ts';
import { pageHeaders, paymentPageRouter } from './payment-pages.ts';

/** The router of the invoice pages; mount it before the API router. */
export function invoicePages(services: Services): Router {
  const router = express.Router();
  router.use(paymentPageRouter<InvoiceRecord>(services, {
    path: '/pay/invoices/:id',
    subject: 'invoice',
    unpaid: 'The invoice is not paid',
    notFoundHtml: NOT_FOUND_PAGE,
    find: (id) => service.findPublicInvoice(services, id),
    /** Renders the invoice as it is now: forms (with fresh tokens) while open, and the message if any. */
    render: async (res, shown, nonce, status, message, tokens) => {
      // Read again: a payment may have changed it since (this one's decline, or another's payment).
      const invoice = (await service.findPublicInvoice(services, shown.id)) ?? shown;
      const found = await service.publicInvoice(await services.scopeOf(invoice.merchantId), invoice);
      const open = found.invoice.status === InvoiceStatus.Due || found.invoice.status === InvoiceStatus.PastDue;
      res.status(status).type('html').send(invoicePageHtml(found.invoice, found.merchantName, { nonce, forms: open ? tokens(invoice) : null, message }));
    },
    pay: payFromPage,
  }));

  router.get('/i/:code', (req, res, next) => {
    service.pageOfShortCode(services, req.params.code).then((target) => {
      if (target === undefined) {
        pageHeaders(res);
        res.status(404).type('html').send(NOT_FOUND_PAGE);
        return;
      }
      res.redirect(302, target);
    }, next);
  });
  return router;
}
