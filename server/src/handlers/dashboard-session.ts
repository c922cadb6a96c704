// HTTP of the dashboard's session: the cookies (HttpOnly, SameSite=Strict, Path=/dashboard, Secure when the
// browser is on https: see overHttps), the headers of every dashboard answer (a Content-Security-Policy that
// allows no script at all), and the two checks of every POST: the request comes from this site (Origin, else
// Referer) and carries the form's CSRF token. A failed check is a 403 page and changes nothing.
import type { NextFunction, Request, Response } from 'express';
import type { ServerConfig } from '../config.ts';
import type { Services } from '../platform/context.ts';
import { csrfMatches, csrfToken, resume, type Session } from '../services/dashboard-sessions.ts';
import { sameOrigin } from './same-origin.ts';
import { errorPage } from '../views/dashboard-pages.ts';

export const SESSION_COOKIE = 'pgw_dashboard';
/** The sign-in form's nonce (its CSRF token is derived from it): login CSRF is refused too. */
export const SIGN_IN_COOKIE = 'pgw_dashboard_signin';

const CSP = "default-src 'none'; style-src 'self'; img-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'";

/** Headers of every dashboard answer; pages are per session and never cached. */
export function dashboardHeaders(_req: Request, res: Response, next: NextFunction): void {
  res.set({
    'Content-Security-Policy': CSP, 'X-Frame-Options': 'DENY', 'Referrer-Policy': 'same-origin', 'Cache-Control': 'no-store',
  });
  next();
}

/** The value of one cookie of the request (no cookie parser is installed: only ours are read). */
export function cookieOf(req: Request, name: string): string | undefined {
  for (const part of (req.headers.cookie ?? '').split(';')) {
    const eq = part.indexOf('=');
    if (eq > 0 && part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim();
  }
  return undefined;
}

/**
 * Whether the browser reached this request over https: the request itself came over TLS, or a proxy named in
 * PGW_TRUST_PROXY says so (X-Forwarded-Proto, through Express's `trust proxy`), or the public base URL is
 * https (browsers reach the server only through it, whatever the hop behind the proxy).
 */
export const overHttps = (config: Pick<ServerConfig, 'baseUrl'>, req: Request): boolean => req.secure || config.baseUrl.startsWith('https:');

/** Sets a dashboard cookie; `maxAgeSeconds` 0 removes it. Secure whenever the browser is on https. */
export function setCookie(config: Pick<ServerConfig, 'baseUrl'>, req: Request, res: Response, name: string, value: string, maxAgeSeconds: number): void {
  const attributes = [`${name}=${value}`, 'Path=/dashboard', 'HttpOnly', 'SameSite=Strict', `Max-Age=${String(maxAgeSeconds)}`];
  if (maxAgeSeconds > 0) attributes.push(`Expires=${new Date(Date.now() + maxAgeSeconds * 1000).toUTCString()}`);
  if (overHttps(config, req)) attributes.push('Secure');
  res.append('Set-Cookie', attributes.join('; '));
}

/** Whether a POST comes from a page of this site (same-origin.ts). */
export const postFromOwnPage = (services: Services, req: Request): boolean => sameOrigin(req, services.config.baseUrl);

export const forbidden = (res: Response): void => {
  res.status(403).type('html').send(errorPage('Request refused', 'This form was not sent from a dashboard page of this session (its security token is missing, wrong or expired). Nothing was changed. Open the page again and repeat.'));
};

/** The CSRF token of the session's forms. */
export const sessionCsrf = (services: Services, session: Session): string => csrfToken(services.hashKey, 'session', session.id);

/** The signed-in session of the request, or undefined (its cookie is then removed). */
export async function sessionOf(services: Services, req: Request, res: Response): Promise<Session | undefined> {
  const id = cookieOf(req, SESSION_COOKIE);
  if (id === undefined) return undefined;
  const session = await resume(services, id);
  if (!session) setCookie(services.config, req, res, SESSION_COOKIE, '', 0);
  return session;
}

/** Both checks of a POST of a session's form: same origin, and the session's CSRF token. */
export const postAllowed = (services: Services, req: Request, session: Session): boolean =>
  postFromOwnPage(services, req) && csrfMatches(services.hashKey, 'session', session.id, (req.body as Record<string, unknown> | undefined)?.csrf);
