// A payment link's page, outside the API: GET /pay/links/:id shows the link; while it is Active its card form
// (POST …/card: a card sale) and bank-account form (POST …/ach: an ACH debit with the payer's authorization)
// pay it (once, or up to its maxPayments, for what the payer chose within its terms), then send the browser to
// the link's redirectUrl or back to the page, with the invoice page's protections (payment-pages.ts: the form token, the Origin check, no
// framing, nothing of the card kept). An Active link past its expiry on the merchant's business clock is
// shown, and moved, Expired.
import type { Router } from 'express';
import type { Services } from '../platform/context.ts';
import type { QuickPaymentRecord } from '../repositories/quick-payments.ts';
import { payFromLinkPage } from '../services/quick-payment-payments.ts';
import { findPublicLink, publicLink } from '../services/quick-payments.ts';
import { LINK_NOT_FOUND_PAGE, linkPageHtml } from './quick-payment-page-views.ts';
import { paymentPageRouter } from './payment-pages.ts';

/** The router of the payment links' pages; mount it before the API router. */
export function quickPaymentPages(services: Services): Router {
  return paymentPageRouter<QuickPaymentRecord>(services, {
    path: '/pay/links/:id',
    subject: 'quick-payment',
    unpaid: 'The link is not paid',
    notFoundHtml: LINK_NOT_FOUND_PAGE,
    find: (id) => findPublicLink(services, id),
    /** Renders the link as it is now (another payer may have paid it, its time may have come). */
    render: async (res, shown, nonce, status, message, tokens, receipt) => {
      const current = await publicLink(await services.scopeOf(shown.merchantId), shown, receipt);
      const forms = current.link.status === 'Active' ? tokens(current.link) : null;
      res.status(status).type('html').send(linkPageHtml(current, { nonce, forms, message }));
    },
    pay: payFromLinkPage,
    // A link with a redirectUrl sends the payer there once paid (checked by the address rules when it was made).
    paidAddress: (link) => link.redirectUrl,
  });
}
