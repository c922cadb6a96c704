// The sandbox dashboard at /dashboard, outside the API router: sign-in with client credentials, then one
// merchant's transactions with their history, events with their webhook deliveries (and a retry of a failed
// one), the sandbox clock with its advance, and the invoices. It calls the services the API calls. Only a
// sandbox serves it (a production server answers 404, as it does for /sandbox).
import { controlCharacterProblems } from '@pgw/runtime/validation';
import express, { type Request, type Response, type Router } from 'express';
import type { Services } from '../platform/context.ts';
import { ApiError } from '../platform/errors.ts';
import { merchantName } from '../services/merchants.ts';
import type { Scope } from '../platform/scope.ts';
import * as dashboard from '../services/dashboard.ts';
import { csrfMatches, csrfToken, newNonce, signIn, SignInError, signOut, ABSOLUTE_MS, type Session } from '../services/dashboard-sessions.ts';
import { listInvoices } from '../services/invoices.ts';
import { ThrottledError } from '../services/throttle.ts';
import { advanceClock, getClock } from '../services/sandbox.ts';
import { cancelQuickPayment, listQuickPayments } from '../services/quick-payments.ts';
import { listSubscriptions } from '../services/subscriptions.ts';
import { listTerminals, reportPaperStatus } from '../services/terminals.ts';
import { retryDelivery } from '../services/webhook-logs.ts';
import { transactionPage, transactionsPage, eventsPage } from '../views/dashboard-activity.ts';
import type { Frame, Section } from '../views/dashboard-layout.ts';
import { clockPage, errorPage, invoicesPage, overviewPage, signInPage } from '../views/dashboard-pages.ts';
import { DASHBOARD_CSS, DASHBOARD_ICON } from '../views/dashboard-style.ts';
import { linksPage } from '../views/dashboard-links.ts';
import { subscriptionsPage } from '../views/dashboard-subscriptions.ts';
import { PAPER_REPORTS, terminalsPage } from '../views/dashboard-terminals.ts';
import {
  cookieOf, dashboardHeaders, forbidden, postAllowed, postFromOwnPage, sessionCsrf, sessionOf, setCookie, SESSION_COOKIE, SIGN_IN_COOKIE,
} from './dashboard-session.ts';

type Body = Record<string, unknown>;
const field = (req: Request, name: string): string => {
  const value = (req.body as Body | undefined)?.[name];
  return typeof value === 'string' ? value.trim() : '';
};

/** `42 seconds`, `5 minutes`: how long to wait, for a person. */
const waitText = (seconds: number): string =>
  seconds < 120 ? `${String(seconds)} second${seconds === 1 ? '' : 's'}` : `${String(Math.ceil(seconds / 60))} minutes`;

interface Signed { session: Session; deps: Scope; frame: (section: Section) => Frame }

/** A page's answer from an ApiError of a service: its status and text (a 404 for another merchant's record). */
function apiErrorPage(res: Response, error: ApiError): void {
  const title = error.status === 404 ? 'Not found' : 'Not possible';
  res.status(error.status).type('html').send(errorPage(title, error.message));
}

export function dashboardPages(services: Services): Router {
  const router = express.Router();
  if (services.config.environment !== 'sandbox') return router;
  // Text is text here as in the API: a control character (NUL, ESC...) in any field is refused before anything
  // is looked up with it (a client id with a NUL was another throttle identity).
  const parse = express.urlencoded({ extended: false, limit: '8kb', parameterLimit: 20 });
  const form: express.RequestHandler = (req, res, next) => {
    // eslint-disable-next-line @typescript-eslint/no-unsafe-class-instance-assignment -- the request express made, handed to its own parser as a Router would
    parse(req, res, (error?: unknown) => {
      const problem = error === undefined ? controlCharacterProblems(req.body, '')[0] : undefined;
      if (problem === undefined) {
        next(error);
        return;
      }
      res.status(400).type('html').send(errorPage('Not possible', `The field ${problem.path.slice(1) || '(a name)'} ${problem.message}.`));
    });
  };

  /** Runs a page of a signed-in merchant; without a session the browser goes to the sign-in page. */
  const signed = (work: (req: Request, res: Response, s: Signed) => Promise<void>, post = false) =>
    async (req: Request, res: Response): Promise<void> => {
      const session = await sessionOf(services, req, res);
      if (!session) {
        res.redirect(303, '/dashboard/sign-in');
        return;
      }
      if (post && !postAllowed(services, req, session)) {
        forbidden(res);
        return;
      }
      const deps = await services.scopeOf(session.merchantId);
      const name = await merchantName(deps);
      const csrf = sessionCsrf(services, session);
      const frame = (section: Section): Frame => ({ merchantName: name ?? session.merchantId, clientId: session.clientId, csrf, section });
      try {
        await work(req, res, { session, deps, frame });
      } catch (error) {
        if (error instanceof ApiError && error.status < 500) apiErrorPage(res, error);
        else throw error;
      }
    };

  router.use('/dashboard', dashboardHeaders);
  router.get('/dashboard/assets/dashboard.css', (_req, res) => {
    res.type('css').send(DASHBOARD_CSS);
  });
  router.get('/dashboard/assets/icon.svg', (_req, res) => {
    res.type('image/svg+xml').send(DASHBOARD_ICON);
  });

  // Sign-in: the form carries a token derived from a nonce in its own cookie, so another site cannot sign a
  // browser in to its key either.
  const showSignIn = (req: Request, res: Response, status: number, error: string | null, clientId = ''): void => {
    const nonce = newNonce();
    setCookie(services.config, req, res, SIGN_IN_COOKIE, nonce, 3600);
    res.status(status).type('html').send(signInPage(csrfToken(services.hashKey, 'sign-in', nonce), error, clientId));
  };
  router.get('/dashboard/sign-in', async (req, res) => {
    if (await sessionOf(services, req, res)) {
      res.redirect(303, '/dashboard');
      return;
    }
    showSignIn(req, res, 200, null);
  });
  router.post('/dashboard/sign-in', form, async (req, res) => {
    const nonce = cookieOf(req, SIGN_IN_COOKIE);
    if (!postFromOwnPage(services, req) || nonce === undefined || !csrfMatches(services.hashKey, 'sign-in', nonce, (req.body as Body | undefined)?.csrf)) {
      forbidden(res);
      return;
    }
    try {
      const session = await signIn(services, field(req, 'clientId'), field(req, 'clientSecret'), services.addressOf(req));
      setCookie(services.config, req, res, SIGN_IN_COOKIE, '', 0);
      setCookie(services.config, req, res, SESSION_COOKIE, session.id, Math.floor(ABSOLUTE_MS / 1000));
      res.redirect(303, '/dashboard');
    } catch (error) {
      if (error instanceof ThrottledError) {
        // Too many failed sign-ins of this key or from this address: the form again, with when to retry.
        res.set('Retry-After', String(error.retryAfterSeconds));
        showSignIn(req, res, 429, `Too many failed sign-ins. Try again in ${waitText(error.retryAfterSeconds)}.`, field(req, 'clientId'));
        return;
      }
      if (!(error instanceof SignInError)) throw error;
      // The client id is shown again (escaped); the secret never is.
      showSignIn(req, res, 401, error.message, field(req, 'clientId'));
    }
  });
  router.post('/dashboard/sign-out', form, signed(async (req, res, { session }) => {
    await signOut(services, session.id);
    setCookie(services.config, req, res, SESSION_COOKIE, '', 0);
    res.redirect(303, '/dashboard/sign-in');
  }, true));

  router.get('/dashboard', signed(async (_req, res, { deps, frame }) => {
    const [transactions, events, invoices, clock] = await Promise.all([
      dashboard.transactionsPage(deps, 0), dashboard.eventsPage(deps, 0), listInvoices(deps, { pageSize: 1 }), getClock(deps),
    ]);
    res.type('html').send(overviewPage(frame('overview'), { transactions: transactions.total, events: events.total, invoices: invoices.total, clock }));
  }));
  router.get('/dashboard/transactions', signed(async (req, res, { deps, frame }) => {
    res.type('html').send(transactionsPage(frame('transactions'), await dashboard.transactionsPage(deps, dashboard.pageNumber(req.query.page))));
  }));
  router.get('/dashboard/transactions/:id', signed(async (req, res, { deps, frame }) => {
    const found = await dashboard.transactionDetail(deps, String(req.params.id));
    res.type('html').send(transactionPage(frame('transactions'), found.transaction, found.history));
  }));

  const showEvents = async (req: Request, res: Response, s: Signed, message: string | null, error: string | null, status = 200): Promise<void> => {
    const list = await dashboard.eventsPage(s.deps, dashboard.pageNumber(req.query.page));
    res.status(status).type('html').send(eventsPage(s.frame('events'), list, message, error));
  };
  router.get('/dashboard/events', signed(async (req, res, s) => { await showEvents(req, res, s, null, null); }));
  router.post('/dashboard/deliveries/:id/retry', form, signed(async (req, res, s) => {
    try {
      const entry = await retryDelivery(s.deps, String(req.params.id));
      await showEvents(req, res, s, `Retried: the new attempt ${entry.status === 'Succeeded' ? 'succeeded' : 'failed'} (status code ${entry.responseStatusCode === null ? 'none' : String(entry.responseStatusCode)}).`, null);
    } catch (error) {
      // Another merchant's or an unknown delivery is a 404 page; a business rule (Succeeded, its webhook gone) or an
      // attempt in flight, a message on the list.
      if (error instanceof ApiError && (error.status === 400 || error.status === 409)) await showEvents(req, res, s, null, error.message, error.status);
      else throw error;
    }
  }, true));

  router.get('/dashboard/clock', signed(async (_req, res, { deps, frame }) => {
    res.type('html').send(clockPage(frame('clock'), await getClock(deps), null, null));
  }));
  router.post('/dashboard/clock/advance', form, signed(async (req, res, { deps, frame }) => {
    const text = field(req, 'seconds');
    const seconds = /^\d{1,8}$/.test(text) ? Number(text) : NaN;
    if (!(seconds >= 1 && seconds <= 31_536_000)) {
      res.status(400).type('html').send(clockPage(frame('clock'), await getClock(deps), null, 'Enter a whole number of seconds from 1 to 31536000. The clock did not move.'));
      return;
    }
    const result = await advanceClock(deps, seconds);
    res.type('html').send(clockPage(frame('clock'), { merchantId: result.merchantId, now: result.now, offsetSeconds: result.offsetSeconds }, result.ran, null));
  }, true));

  router.get('/dashboard/invoices', signed(async (req, res, { deps, frame }) => {
    const page = dashboard.pageNumber(req.query.page);
    const list = await listInvoices(deps, { page, pageSize: dashboard.PAGE_SIZE, orderBy: 'createdOn', asc: false });
    res.type('html').send(invoicesPage(frame('invoices'), { ...list, page, pages: Math.max(1, Math.ceil(list.total / dashboard.PAGE_SIZE)) }));
  }));

  const showLinks = async (req: Request, res: Response, s: Signed, message: string | null, error: string | null, status = 200): Promise<void> => {
    const page = dashboard.pageNumber(req.query.page);
    const list = await listQuickPayments(s.deps, { page, pageSize: dashboard.PAGE_SIZE, orderBy: 'createdOn', asc: false });
    res.status(status).type('html').send(linksPage(s.frame('links'), { ...list, page, pages: Math.max(1, Math.ceil(list.total / dashboard.PAGE_SIZE)) }, message, error));
  };
  router.get('/dashboard/links', signed(async (req, res, s) => { await showLinks(req, res, s, null, null); }));
  router.post('/dashboard/links/:id/cancel', form, signed(async (req, res, s) => {
    try {
      const link = await cancelQuickPayment(s.deps, String(req.params.id));
      await showLinks(req, res, s, `The payment link ${link.description ?? link.id} is cancelled.`, null);
    } catch (error) {
      // Another merchant's or an unknown link is a 404 page; a link no longer Active, a message on the list.
      if (error instanceof ApiError && error.status === 400) await showLinks(req, res, s, null, error.message, 400);
      else throw error;
    }
  }, true));

  const showTerminals = async (req: Request, res: Response, s: Signed, message: string | null, error: string | null, status = 200): Promise<void> => {
    const page = dashboard.pageNumber(req.query.page);
    const list = await listTerminals(s.deps, { page, pageSize: dashboard.PAGE_SIZE, orderBy: 'createdOn', asc: false });
    res.status(status).type('html').send(terminalsPage(s.frame('terminals'), { ...list, page, pages: Math.max(1, Math.ceil(list.total / dashboard.PAGE_SIZE)) }, message, error));
  };
  router.get('/dashboard/terminals', signed(async (req, res, s) => { await showTerminals(req, res, s, null, null); }));
  router.post('/dashboard/terminals/:id/paper', form, signed(async (req, res, s) => {
    const reported = PAPER_REPORTS.find((status) => status === field(req, 'paperStatus'));
    if (reported === undefined) {
      await showTerminals(req, res, s, null, `Choose a paper status: ${PAPER_REPORTS.join(', ')}. Nothing changed.`, 400);
      return;
    }
    try {
      const terminal = await reportPaperStatus(s.deps, String(req.params.id), reported);
      await showTerminals(req, res, s, `${terminal.serialNumber} reported ${reported} paper.`, null);
    } catch (error) {
      // Another merchant's or an unknown terminal is a 404 page; a report the paper machine refuses, a message on the list.
      if (error instanceof ApiError && error.status === 400) await showTerminals(req, res, s, null, error.message, 400);
      else throw error;
    }
  }, true));

  router.get('/dashboard/subscriptions', signed(async (req, res, s) => {
    const page = dashboard.pageNumber(req.query.page);
    const list = await listSubscriptions(s.deps, { page, pageSize: dashboard.PAGE_SIZE, orderBy: 'createdOn', asc: false });
    res.type('html').send(subscriptionsPage(s.frame('subscriptions'), { ...list, page, pages: Math.max(1, Math.ceil(list.total / dashboard.PAGE_SIZE)) }));
  }));

  // Any other address under /dashboard: a page, not the API's JSON.
  router.use('/dashboard', (_req, res) => {
    res.status(404).type('html').send(errorPage('Not found', 'There is no dashboard page at this address.'));
  });
  return router;
}
