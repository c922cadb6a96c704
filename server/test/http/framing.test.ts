// No response of the server may be framed: every route of the pages' Express application (listed from the app
// itself, every method, signed in to the dashboard and not, with real and unknown ids) and every operation of
// the API answer X-Frame-Options: DENY and a Content-Security-Policy with frame-ancestors 'none'; pages with a
// policy of their own keep it whole. And the merge of a policy, table-driven.
import request from 'supertest';
import type express from 'express';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { routes } from '@pgw/client/server';
import { withFrameAncestors } from '../../src/platform/framing.ts';
import { startServer, type TestServer } from '../harness.ts';
import { signIn, type Dash } from './dashboard-helpers.ts';
import { invoiceBody, UNKNOWN } from './invoice-helpers.ts';

interface Route { method: string; path: string }

/** Every route of an Express application, its mounted routers' included (Express 5's router stack). */
function routesOf(app: express.Express): Route[] {
  interface Layer { route?: { path: string; methods: Record<string, boolean> }; handle?: { stack?: Layer[] } }
  const walk = (stack: readonly Layer[]): Route[] => stack.flatMap((layer) => {
    if (layer.route) return Object.keys(layer.route.methods).map((method) => ({ method, path: layer.route?.path ?? '' }));
    return layer.handle?.stack ? walk(layer.handle.stack) : [];
  });
  return walk((app as unknown as { router: { stack: Layer[] } }).router.stack);
}

const denies = (res: request.Response): [string | undefined, boolean] =>
  [res.get('x-frame-options'), /(^|;)\s*frame-ancestors 'none'\s*(;|$)/.test(res.get('content-security-policy') ?? '')];

describe('framing is refused on every response', () => {
  let s: TestServer;
  let dash: Dash;
  let invoiceId: string;
  beforeAll(async () => {
    s = await startServer('sqlite');
    dash = await signIn(s, 0);
    const published = await request(s.app).post('/pay-int-api/invoices/publish').set(await s.as(0)).send(invoiceBody());
    expect(published.status, published.text).toBe(200);
    invoiceId = (published.body as { id: string }).id;
  });
  afterAll(async () => { await s.close(); });

  it('lists the pages from the app: the dashboard, the invoice page, the docs and the root are among them', () => {
    const paths = routesOf(s.app.pages).map((r) => r.path);
    for (const path of ['/', '/docs', '/dashboard', '/dashboard/sign-in', '/pay/invoices/:id', '/i/:code']) expect(paths).toContain(path);
  });

  it('answers DENY and frame-ancestors on every route of the pages, with and without a session, for real and unknown ids, HTML or not', async () => {
    const checked: string[] = [];
    for (const route of routesOf(s.app.pages)) {
      for (const id of [invoiceId, UNKNOWN]) {
        const path = route.path.replace(/:[A-Za-z]+/g, id);
        for (const cookie of [dash.cookie, undefined]) {
          const call = (request(s.app) as unknown as Record<string, (p: string) => request.Test>)[route.method]?.(path);
          if (!call) throw new Error(`no supertest method ${route.method}`);
          const res = await call.set('Accept', 'text/html').set(cookie ? { Cookie: cookie } : {});
          expect(denies(res), `${route.method.toUpperCase()} ${path} (${String(res.status)} ${res.get('content-type') ?? ''})`).toEqual(['DENY', true]);
          if (/text\/html/.test(res.get('content-type') ?? '')) checked.push(`${route.method} ${route.path}`);
        }
      }
    }
    // HTML was really answered by the pages (not only redirects and errors).
    for (const page of ['get /docs', 'get /dashboard', 'get /dashboard/sign-in', 'get /pay/invoices/:id', 'get /dashboard/clock']) expect(checked).toContain(page);
  });

  it('keeps the policy of a page that has its own, adding nothing it already says', async () => {
    const dashboard = await request(s.app).get('/dashboard').set('Cookie', dash.cookie);
    expect(dashboard.get('content-security-policy')).toBe("default-src 'none'; style-src 'self'; img-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'");
    const page = await request(s.app).get(`/pay/invoices/${invoiceId}`);
    expect(page.get('content-security-policy')).toMatch(/^default-src 'none'; script-src 'nonce-[^']+'; style-src 'nonce-[^']+'; img-src 'self'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'$/);
    const docs = await request(s.app).get('/docs');
    expect(docs.get('content-security-policy')).toBe("frame-ancestors 'none'");
  });

  it.each(routes.map((r) => [`${r.method.toUpperCase()} ${r.path}`, r] as const))('the API too: %s', async (_label, route) => {
    const res = await request(s.app)[route.method](route.path.replace(/\{[^}]+\}/g, UNKNOWN));
    expect(denies(res)).toEqual(['DENY', true]);
  });

  it.each([
    [undefined, "frame-ancestors 'none'"],
    ['', "frame-ancestors 'none'"],
    ["default-src 'none'", "default-src 'none'; frame-ancestors 'none'"],
    ["default-src 'none';", "default-src 'none'; frame-ancestors 'none'"],
    ["default-src 'none' ; ", "default-src 'none'; frame-ancestors 'none'"],
    ["default-src 'none'; frame-ancestors 'self'", "default-src 'none'; frame-ancestors 'self'"],
    ["frame-ancestors 'none'; default-src 'none'", "frame-ancestors 'none'; default-src 'none'"],
    ["default-src 'none';FRAME-ANCESTORS https://a.example", "default-src 'none';FRAME-ANCESTORS https://a.example"],
    ["default-src 'none'; x-frame-ancestors-like 'x'", "default-src 'none'; x-frame-ancestors-like 'x'; frame-ancestors 'none'"],
  ])('merges frame-ancestors into %j', (policy, merged) => {
    expect(withFrameAncestors(policy)).toBe(merged);
  });
});
