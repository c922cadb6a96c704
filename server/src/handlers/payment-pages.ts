// What the public payment pages share (an invoice's, a payment link's), outside the API: the headers of every
// page answer (no caching, no framing, only the response's own script and style), and the POST of a card or
// bank-account form with its protections: the Origin check, the form token (HMAC, bound to the record and the
// form, expiring; its nonce makes a double submit pay once), the form's fields as the API's request checked by
// its schema, the throttle of declines (one address declined over and over on one page is card testing: refused
// unpaid for a while), and the answer (303 to the page when paid, the page with the decline or the refusal
// otherwise). The page is public: the token and the Origin check stand in for the bearer token a customer does
// not have.
import { randomBytes } from 'node:crypto';
import express, { type Request, type Response, type Router } from 'express';
import type { Services } from '../platform/context.ts';
import { ApiError } from '../platform/errors.ts';
import { FormTokens, type FormTokenProblem } from '../platform/form-tokens.ts';
import type { Scope } from '../platform/scope.ts';
import type { PageOutcome, PagePayment } from '../services/page-payments.ts';
import { throttled, ThrottledError } from '../services/throttle.ts';
import { achRequest, cardRequest, fieldsOf, messageOf, validPayment, type FormKind } from './payment-page-forms.ts';
import type { PageForms, PageMessage } from './payment-page-views.ts';
import { sameOrigin } from './same-origin.ts';

/**
 * The headers of every page answer: no caching, no framing, and only the response's own script and style.
 * `redirectOrigin`: where a paid form's answer sends the browser (a payment link's redirectUrl), which
 * form-action must name too, as browsers hold a form's redirects to it.
 */
export function pageHeaders(res: Response, redirectOrigin?: string): string {
  const nonce = randomBytes(16).toString('base64');
  res.set({
    'Cache-Control': 'no-store',
    'Content-Security-Policy': `default-src 'none'; script-src 'nonce-${nonce}'; style-src 'nonce-${nonce}'; img-src 'self'; `
      + `form-action 'self'${redirectOrigin === undefined ? '' : ` ${redirectOrigin}`}; base-uri 'none'; frame-ancestors 'none'`,
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

/** One kind of payment page: how its record is found, shown and paid. */
export interface PaymentPage<R extends { id: string; merchantId: string }> {
  /** The path of the page with `:id` (`/pay/invoices/:id`); its forms post to `<path>/card` and `<path>/ach`. */
  readonly path: string;
  /** The form tokens' subject prefix (`invoice`): a token is bound to the record and the form. */
  readonly subject: string;
  /** What the decline message calls it ("The invoice is not paid"). */
  readonly unpaid: string;
  /** The record by the path's id, or undefined when the page does not exist (404). */
  readonly find: (id: string) => Promise<R | undefined>;
  /**
   * Writes the page (status and message given) with `forms` when it can be paid: the caller reads it again first.
   * `receipt`: the transaction the page was sent back with after a payment (its `receipt` query), unchecked.
   */
  readonly render: (res: Response, record: R, nonce: string, status: number, message: PageMessage | null, tokens: (record: R) => PageForms, receipt?: string) => Promise<void>;
  /** Pays the record as the form asks, once per form token. */
  readonly pay: (deps: Scope & { hashKey: Buffer }, record: R, payment: PagePayment, formKey: string, fields: Record<string, string>) => Promise<PageOutcome>;
  /** The not-found page. */
  readonly notFoundHtml: string;
  /** Where a paid form sends the browser instead of the page (a payment link's redirectUrl); null for the page. */
  readonly paidAddress?: (record: R) => string | null;
}

/** The origin of an absolute URL, as CSP names a source (its scheme, host and port only). */
const originOf = (address: string): string => new URL(address).origin;

/** The router of one kind of payment page: GET the page, POST its card and bank-account forms. */
export function paymentPageRouter<R extends { id: string; merchantId: string }>(services: Services, page: PaymentPage<R>): Router {
  const router = express.Router();
  const tokens = new FormTokens(services.hashKey, services.wall);
  const forms = express.urlencoded({ extended: false, limit: '16kb', parameterLimit: 50 });
  const subject = (id: string, kind: FormKind): string => `${page.subject}:${id}:${kind}`;
  const issue = (record: R): PageForms => ({ cardToken: tokens.issue(subject(record.id, 'card')), achToken: tokens.issue(subject(record.id, 'ach')) });

  const render = async (res: Response, record: R, status: number, message: PageMessage | null, receipt?: string): Promise<void> => {
    const paid = page.paidAddress?.(record) ?? null;
    const nonce = pageHeaders(res, paid === null ? undefined : originOf(paid));
    await page.render(res, record, nonce, status, message, issue, receipt);
  };

  function notFound(res: Response): void {
    pageHeaders(res);
    res.status(404).type('html').send(page.notFoundHtml);
  }

  router.get(page.path, (req: Request<{ id: string }>, res, next) => {
    page.find(req.params.id).then(async (record) => {
      if (!record) {
        notFound(res);
        return;
      }
      const receipt = req.query.receipt;
      await render(res, record, 200, null, typeof receipt === 'string' ? receipt : undefined);
    }).catch(next);
  });

  /** A payment from the page: checked, then paid; the page again, or 303 to it when paid. */
  async function pay(kind: FormKind, req: Request<{ id: string }>, res: Response): Promise<void> {
    if (!sameOrigin(req, services.config.baseUrl)) {
      pageHeaders(res);
      res.status(403).type('text/plain').send('This form must be sent from its payment page.');
      return;
    }
    const record = await page.find(req.params.id);
    if (!record) {
      notFound(res);
      return;
    }
    const token = tokens.verify((req.body as Record<string, unknown> | undefined)?.formToken, subject(record.id, kind));
    if ('problem' in token) return render(res, record, token.problem === 'expired' ? 400 : 403, TOKEN_MESSAGES[token.problem]);
    const fields = fieldsOf(kind, req.body);
    const deps = { ...(await services.scopeOf(record.merchantId)), hashKey: services.hashKey };
    try {
      // The consent time is the server's, on the merchant's business clock (payment-page-forms.ts).
      const body = kind === 'card' ? cardRequest(fields) : achRequest(fields, deps.clock.now());
      const payment = validPayment(kind, record.id, body);
      // A decline is the failure the throttle counts; a refusal (ApiError) is taken back, a payment clears it.
      let outcome: PageOutcome = { paid: false, decline: null };
      await throttled(services, { scope: 'page', identity: `${page.subject}:${record.id}`, address: services.addressOf(req) }, async () => {
        outcome = await page.pay(deps, record, payment, token.nonce, fields);
        return outcome.paid ? outcome : undefined;
      });
      if (outcome.paid) {
        // Back to the page (with the payment to show its receipt, where the page keeps taking payments), or the redirect.
        const back = `${page.path.replace(':id', record.id)}${outcome.reference === undefined ? '' : `?receipt=${encodeURIComponent(outcome.reference)}`}`;
        res.set('Cache-Control', 'no-store').redirect(303, page.paidAddress?.(record) ?? back);
        return;
      }
      const decline = outcome.decline ?? 'The payment was not accepted.';
      await render(res, record, 402, { text: `Your payment was declined: ${decline}. ${page.unpaid}; you can try another ${kind === 'card' ? 'card' : 'account'}.`, fields: [] });
    } catch (error) {
      if (error instanceof ThrottledError) {
        res.set('Retry-After', String(error.retryAfterSeconds));
        const text = `Too many declined payments from your network on this page: please try again in ${String(Math.ceil(error.retryAfterSeconds / 60))} minutes. Nothing was charged.`;
        await render(res, record, 429, { text, fields: [] });
        return;
      }
      if (!(error instanceof ApiError) || error.status >= 500) throw error;
      await render(res, record, error.status, messageOf(kind, error));
    }
  }

  for (const kind of ['card', 'ach'] as const) {
    router.post(`${page.path}/${kind}`, forms, (req: Request<{ id: string }>, res, next) => {
      pay(kind, req, res).catch(next);
    });
  }
  return router;
}
