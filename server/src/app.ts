// The application: correlation ids and access logs for every request, the generated router over the handlers
// first, then Express for the rest (health, the spec and its docs, the dashboard and invoice pages), and the one
// error handler.
import { hkdfSync } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import express from 'express';
import { apiSpec, createApiRouter, isUnknownPath, requestPath } from '@pgw/client/server';
import type { ServerConfig } from './config.ts';
import { isPostgres, type Database } from './db/knex.ts';
import { createInstances, type Instances } from './instances.ts';
import { handlers } from './handlers/index.ts';
import { invoicePages } from './handlers/invoice-pages.ts';
import { quickPaymentPages } from './handlers/quick-payment-pages.ts';
import { dashboardPages } from './handlers/dashboard.ts';
import { contextFactory, raceLost, type Services } from './platform/context.ts';
import { DocsPage, docsLocation } from './platform/docs-page.ts';
import { ApiError } from './platform/errors.ts';
import { errorHandler } from './platform/error-handler.ts';
import { refuseFraming } from './platform/framing.ts';
import { accessLogger, type Logger } from './platform/log.ts';
import type { HostResolver } from './platform/outbound-http.ts';
import { addressBucket, clientAddress, trustedProxyList } from './platform/client-address.ts';
import { databaseStore, memoryStore } from './repositories/auth-throttle.ts';
import { ping } from './repositories/maintenance.ts';
import { correlate } from './platform/request-context.ts';
import { openMerchantScope } from './platform/scope.ts';
import { systemClock, type Clock } from './platform/time.ts';
import { TokenService } from './platform/tokens.ts';
import { signingKey } from './services/signing-keys.ts';

// The server package's folder: the parent of src/ in a checkout, of dist/ when installed.
const packageRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

export interface AppOptions {
  config: ServerConfig;
  db: Database;
  log: Logger;
  clock?: Clock;
  /** How webhook hosts are resolved (default: the system resolver); tests give their own answers. */
  resolveHost?: HostResolver;
  /** What the server keeps from start to stop, shared with the worker (main.ts); made here when not given, and then stopped by `close`. */
  instances?: Instances;
}

/** Writes the request's access line when its response has been sent. */
function logAccess(log: Logger, req: IncomingMessage, res: ServerResponse, correlationId: string): void {
  const started = process.hrtime.bigint();
  res.on('finish', () => {
    log.info(
      { correlationId, method: req.method, path: requestPath(req), status: res.statusCode, durationMs: Number(process.hrtime.bigint() - started) / 1e6 },
      'request',
    );
  });
}

/**
 * The server's request handler; `listen` starts an HTTP server on it (as an Express app's does); `close` stops
 * what the app runs beside requests (on PostgreSQL, its API-key state listener), before the database closes.
 */
export type App = ((req: IncomingMessage, res: ServerResponse) => void) & {
  listen: (port?: number, host?: string) => Server;
  close: () => Promise<void>;
  /** What the app keeps from start to stop (the worker of the same process is given the same). */
  instances: Instances;
  /** The Express application of what is not the API (pages, health, docs): its routes can be listed. */
  pages: express.Express;
};

/** Paths under `/sandbox` (compared as Express compares routes, without letter case). */
const isSandboxPath = (path: string): boolean => /^\/sandbox(\/|$)/i.test(path);

export async function createApp(options: AppOptions): Promise<App> {
  const clock = options.clock ?? systemClock;
  const key = await signingKey(options.db, options.config.environment, clock);
  const instances = options.instances ?? (await createInstances({ db: options.db, config: options.config, log: options.log, wall: clock }));
  const proxies = trustedProxyList(options.config.trustProxy);
  const services: Services = {
    db: options.db,
    log: options.log,
    config: options.config,
    wall: clock,
    tokens: new TokenService(options.config.environment, key, () => clock.now().getTime()),
    hashKey: Buffer.from(hkdfSync('sha256', Buffer.from(key, 'base64'), Buffer.alloc(0), 'payment-gateway request hash', 32)),
    instances,
    ...(options.resolveHost ? { resolveHost: options.resolveHost } : {}),
    throttleStore: isPostgres(options.db) ? databaseStore(options.db) : memoryStore(),
    addressOf: (req) => addressBucket(clientAddress(req, proxies)),
    scopeOf: (merchantId) => openMerchantScope(services, merchantId),
  };
  const app = express();
  app.disable('x-powered-by');
  // No ETag: every answer is no-store, so a validator is never used, and hashing each body cost ~2% of a read.
  app.set('etag', false);
  // X-Forwarded-Proto (and -For, -Host) only from the proxies PGW_TRUST_PROXY names: behind a TLS-terminating
  // one, req.protocol is https (the dashboard's cookies are Secure, its same-origin check expects https).
  app.set('trust proxy', proxies ?? false);
  // The root points to the documentation: a browser goes there; a program gets the links.
  app.get('/', (req, res) => {
    if (req.accepts(['json', 'html']) === 'html') {
      res.redirect(302, '/docs');
      return;
    }
    res.json({ service: 'payment-gateway', environment: options.config.environment, docs: '/docs', openapi: '/openapi.json', health: '/healthz' });
  });
  app.get('/healthz', (_req, res, next) => {
    ping(options.db).then(() => res.json({ status: 'ok', environment: options.config.environment }), next);
  });
  // The document names this server's address: the bundled sandbox's entry of `servers` (a loopback URL, as the
  // spec writes it for `npm start` on port 4000) becomes the address this server listens on.
  const served = servedDocument(apiSpec, options.config.baseUrl);
  app.get('/openapi.json', (_req, res) => {
    res.json(served);
  });
  // The documentation page, rebuilt when it was built from another spec than the one served, naming this server's address.
  const docs = new DocsPage({ ...docsLocation(packageRoot), spec: apiSpec, log: options.log, baseUrl: options.config.baseUrl });
  app.get('/docs', (_req, res) => {
    const answer = docs.answer();
    if (answer.kind === 'missing') res.status(404).type('text/plain').send(answer.text);
    else if (answer.kind === 'rebuilding') res.status(503).set('Retry-After', '3').type('html').send(answer.html);
    else res.type('html').send(answer.html);
  });
  app.use(invoicePages(services));
  app.use(quickPaymentPages(services));
  // The sandbox dashboard (HTML pages, their own sessions); a production server does not serve it.
  app.use(dashboardPages(services));
  // Anything no route answered (the API router is case-sensitive: `/PAY-API/…` ends here) is an unknown route.
  app.use((_req, _res, next) => { next(new ApiError('route_not_found')); });
  const handleError = errorHandler(options.log);
  app.use(handleError);

  const api = createApiRouter({ handlers: handlers(), context: contextFactory(services) });
  const access = accessLogger(options.log);
  // The sandbox controls exist only in the sandbox: a production server answers 404 there, before any token
  // is asked for (as it does for any path it does not serve).
  const sandboxServed = options.config.environment === 'sandbox';
  // The API is answered without Express: its per-request work was ~30% of a customer read (an Express
  // hello-world answers ~8,600 requests a second where Node's own answers ~50,000). The router hands a path
  // it does not document back (isUnknownPath); Express answers those.
  const handle = (req: IncomingMessage, res: ServerResponse): void => {
    // Every response: no MIME sniffing, no caching (answers are per tenant and may carry secrets or tokens),
    // and no framing (every HTML page, whoever writes it; harmless on the API's JSON).
    res.setHeader('X-Content-Type-Options', 'nosniff');
    res.setHeader('Cache-Control', 'no-store');
    refuseFraming(res);
    logAccess(access, req, res, correlate(res));
    if (!sandboxServed && isSandboxPath(requestPath(req))) {
      app(req, res);
      return;
    }
    api(req, res, (err?: unknown) => {
      if (err === undefined || isUnknownPath(err)) app(req, res);
      // A request that lost a race with its merchant's deletion answers 401 or 404, not 500.
      else raceLost(services, req, err).then((lost) => { handleError(lost ?? err, req, res); }, () => { handleError(err, req, res); });
    });
  };
  return Object.assign(handle, {
    listen: (port?: number, host?: string): Server => createServer(handle).listen(port, host),
    // Instances given by the caller are the caller's to stop.
    close: options.instances ? () => Promise.resolve() : () => instances.stop(),
    instances,
    pages: app,
  });
}

/** The document with its loopback `servers` entries naming `baseUrl` instead (the others as written). */
export function servedDocument(spec: Record<string, unknown>, baseUrl: string): Record<string, unknown> {
  if (!Array.isArray(spec.servers)) return spec;
  const servers = (spec.servers as unknown[]).map((server) => {
    if (typeof server !== 'object' || server === null) return server;
    const url = (server as { url?: unknown }).url;
    return typeof url === 'string' && /^https?:\/\/(127\.0\.0\.1|localhost|\[::1\])(:\d+)?\/?$/.test(url) ? { ...server, url: baseUrl } : server;
  });
  return { ...spec, servers };
}
