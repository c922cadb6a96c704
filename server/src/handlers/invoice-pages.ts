// The invoice's page, outside the API: GET /pay/invoices/:id, the page of a published invoice (a draft's
// answers 404), which while the invoice is open takes its payment by card (POST …/card) or bank account
// (POST …/ach) with the API's own rules; and GET /i/:code, the short address, which redirects (302) to it.
// The page is public: a form token (HMAC, bound to the invoice and form, expiring) and the Origin check
// stand in for the bearer token a customer does not have.
import { randomBytes } from 'node:crypto';
import express, { type Request, type Response, type Router } from 'express';
import { InvoiceStatus } from '../../../generated/enums.ts';
import type { Services } from '../platform/context.ts';
import { ApiError } from '../platform/errors.ts';
import { FormTokens, type FormTokenProblem } from '../platform/form-tokens.ts';
import type { InvoiceRecord } from '../repositories/invoices.ts';
import { payFromPage } from '../services/invoice-page-payments.ts';
import * as service from '../services/invoices.ts';
import { achRequest, cardRequest, fieldsOf, messageOf, validPayment, type FormKind } from './invoice-page-forms.ts';
import { NOT_FOUND_PAGE, invoicePageHtml, type PageMessage } from './invoice-page-views.ts';
import { sameOrigin } from './same-origin.ts';

/** The headers of every page answer: no caching, no framing, and only the response's own script and style. */
function pageHeaders(res: Response): string {
  const nonce = randomBytes(16).toString('base64');
  res.set({
    'Cache-Control': 'no-store',
    'Content-Security-Policy': `default-src 'none'; script-src 'nonce-${nonce}'; style-src 'nonce-${nonce}'; img-src 'self'; `
      + "form-action 'self'; base-uri 'none'; frame-ancestors 'none'",
    'X-Frame-Options': 'DENY',
    'Referrer-Policy': 'same-origin',
  });
  return nonce;
}

const TOKEN_MESSAGES: Record<FormTokenProblem, PageMessage> = {
  missing: { text: 'This payment form could not be verified; please enter your details again. Nothing was charged.', fields: [] },
  forged: { text: 'This payment form could not be verified; please enter your details again. Nothing was charged.', fields: [] },
  expired: { text: 'This payment form has expired; please enter your details again. Nothing was charged.', fields: [] },
};

const subject = (invoiceId: string, kind: FormKind): string => `invoice:${invoiceId}:${kind}`;

/** The router of the invoice pages; mount it before the API router. */
export function invoicePages(services: Services): Router {
  const router = express.Router();
  const tokens = new FormTokens(services.hashKey, services.wall);
  const forms = express.urlencoded({ extended: false, limit: '16kb', parameterLimit: 50 });

  /** Renders the invoice as it is now: forms (with fresh tokens) while open, and the message if any. */
  async function render(res: Response, shown: InvoiceRecord, status: number, message: PageMessage | null): Promise<void> {
    // Read again: a payment may have changed it since (this one's decline, or another's payment).
    const invoice = (await service.findPublicInvoice(services, shown.id)) ?? shown;
    const nonce = pageHeaders(res);
    const found = await service.publicInvoice(await services.scopeOf(invoice.merchantId), invoice);
    const open = found.invoice.status === InvoiceStatus.Due || found.invoice.status === InvoiceStatus.PastDue;
    const pageForms = open ? { cardToken: tokens.issue(subject(invoice.id, 'card')), achToken: tokens.issue(subject(invoice.id, 'ach')) } : null;
    res.status(status).type('html').send(invoicePageHtml(found.invoice, found.merchantName, { nonce, forms: pageForms, message }));
  }

  function notFound(res: Response): void {
    pageHeaders(res);
    res.status(404).type('html').send(NOT_FOUND_PAGE);
  }

  router.get('/pay/invoices/:id', (req, res, next) => {
    service.findPublicInvoice(services, req.params.id).then(async (invoice) => {
      if (!invoice) {
        notFound(res);
        return;
      }
      await render(res, invoice, 200, null);
    }).catch(next);
  });

  /** A payment from the page: checked, then the API's payment of the invoice; the page again, or 303 to it when paid. */
  async function pay(kind: FormKind, req: Request<{ id: string }>, res: Response): Promise<void> {
    if (!sameOrigin(req, services.config.baseUrl)) {
      pageHeaders(res);
      res.status(403).type('text/plain').send('This form must be sent from the invoice page.');
      return;
    }
    const invoice = await service.findPublicInvoice(services, req.params.id);
    if (!invoice) {
      notFound(res);
      return;
    }
    const token = tokens.verify((req.body as Record<string, unknown> | undefined)?.formToken, subject(invoice.id, kind));
    if ('problem' in token) return render(res, invoice, token.problem === 'expired' ? 400 : 403, TOKEN_MESSAGES[token.problem]);
    const fields = fieldsOf(kind, req.body);
    const deps = { ...(await services.scopeOf(invoice.merchantId)), hashKey: services.hashKey };
    try {
      const body = kind === 'card' ? cardRequest(fields) : achRequest(fields, services.wall.now());
      const outcome = await payFromPage(deps, invoice, validPayment(kind, invoice.id, body), token.nonce, fields);
      if (outcome.paid) {
        res.set('Cache-Control', 'no-store').redirect(303, `/pay/invoices/${invoice.id}`);
        return;
      }
      const decline = outcome.decline ?? 'The payment was not accepted.';
      await render(res, invoice, 402, { text: `Your payment was declined: ${decline}. The invoice is not paid; you can try another ${kind === 'card' ? 'card' : 'account'}.`, fields: [] });
    } catch (error) {
      if (!(error instanceof ApiError) || error.status >= 500) throw error;
      await render(res, invoice, error.status, messageOf(kind, error));
    }
  }

  for (const kind of ['card', 'ach'] as const) {
    router.post(`/pay/invoices/:id/${kind}`, forms, (req: Request<{ id: string }>, res, next) => {
      pay(kind, req, res).catch(next);
    });
  }

  router.get('/i/:code', (req, res, next) => {
    service.pageOfShortCode(services, req.params.code).then((target) => {
      if (target === undefined) {
        notFound(res);
        return;
      }
      res.redirect(302, target);
    }, next);
  });
  return router;
}
