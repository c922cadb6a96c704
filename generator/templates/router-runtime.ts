// The router of generated routes, an Express middleware that also runs on Node's own request and response:
// one route match per request, then the context (authentication), body parsing, validation compiled once per
// operation (openapi-validation.ts), the handler, and the response checked against the document on its way
// out; errors go to `next`.
import type { IncomingMessage, ServerResponse } from 'node:http';
import express from 'express';
import { pickHeaders, requestPath, requestQuery, sendBody, sendJson, sendStream, typeHeader } from './http-io.ts';
import { bodyEncodingProblem, inexactNumbers, type NumberTexts } from './number-texts.ts';
import { DocumentValidators, ValidationError } from './openapi-validation.ts';

export type HttpMethod = 'get' | 'put' | 'post' | 'delete' | 'patch' | 'head' | 'options';

/** One operation of the document, as the router binds it. */
export interface RouteDefinition {
  readonly operationId: string;
  /** The key of the handler group (the operation's first tag, camel-cased). */
  readonly group: string;
  readonly method: HttpMethod;
  /** The path as the document writes it, e.g. `/customers/{customerId}`. */
  readonly path: string;
  /** Path parameters: the document's name and the Express-safe name used in the route. */
  readonly pathParams: readonly { readonly name: string; readonly expressName: string }[];
  /** Header parameters the operation declares (lower-case), the only headers a handler receives. */
  readonly headerParams: readonly string[];
  /** Media types the request body may have; empty when the operation takes no body. */
  readonly requestContentTypes: readonly string[];
  /** Alternative security requirements (scheme names); an empty list means none is required. */
  readonly security: readonly (readonly string[])[];
}

/** What a handler receives. */
export interface OperationInput {
  path: Record<string, string>;
  query: Record<string, unknown>;
  headers: Record<string, string>;
  body: unknown;
}

/** What a handler returns: a status the document allows, with the body it allows. */
export interface OperationResult {
  status: number;
  body?: unknown;
  contentType?: string;
  headers?: Record<string, string>;
  /**
   * A body written as it is produced (a large export), instead of `body`: each chunk is sent when it comes.
   * Response validation does not see a streamed body; its producer is responsible for its shape.
   */
  stream?: AsyncIterable<string>;
}

/** The default handler context. */
export interface RequestContext {
  req: IncomingMessage;
  res: ServerResponse;
  route: RouteDefinition;
}

/** What `next` receives: nothing to go on, or the error of the request. */
export type NextFunction = (err?: unknown) => void;

/** The router: an Express middleware, or a Node request handler with a `next` of its own. */
export type ApiRouter = (req: IncomingMessage, res: ServerResponse, next: NextFunction) => void;

export interface RouterOptions<Ctx> {
  /** The bundled OpenAPI document (all references local). */
  apiSpec: object;
  routes: readonly RouteDefinition[];
  /** Calls the handler of an operation; generated, so that every call is type-checked. */
  dispatch: (operationId: string, input: OperationInput, context: Ctx) => Promise<OperationResult>;
  /**
   * Builds the handler context for a matched route before the request is parsed or validated, so an
   * unauthenticated request is refused before its body is read. Throw to refuse the request.
   */
  context: (req: IncomingMessage, res: ServerResponse, route: RouteDefinition) => Ctx | Promise<Ctx>;
  /** Validate responses against the document (default true): a handler bug becomes a 500, not a lie. */
  validateResponses?: boolean;
  /** Largest accepted request body (default `1mb`). */
  bodyLimit?: string;
  /**
   * The handler groups. When given, every operation must have its method: a router is never built with an
   * operation that would fail at request time (an operation added to the document but not implemented).
   */
  handlers?: object;
}

/** Operations of the document that the handlers do not implement; the router refuses to be built. */
export class MissingHandlersError extends Error {
  constructor(readonly missing: readonly RouteDefinition[]) {
    super(
      `no handler for ${String(missing.length)} operation${missing.length === 1 ? '' : 's'} of the document: ` +
        missing.map((r) => `${r.group}.${r.operationId} (${r.method.toUpperCase()} ${r.path})`).join(', ') +
        '. Implement each as a method of its group\'s handlers (`npm run generate -- --scaffold <dir>` writes stubs).',
    );
    this.name = 'MissingHandlersError';
  }
}

/** The routes whose handler method is missing from the groups. */
export function missingHandlers(handlers: object, routes: readonly RouteDefinition[]): RouteDefinition[] {
  const groups = handlers as Record<string, Record<string, unknown> | undefined>;
  return routes.filter((route) => typeof groups[route.group]?.[route.operationId] !== 'function');
}

/** Literal segments before parameters, so `/invoices/publish` is tried before `/invoices/{invoiceId}`. */
export function routeOrder(a: { path: string; method: string }, b: { path: string; method: string }): number {
  const as = a.path.split('/');
  const bs = b.path.split('/');
  for (let i = 0; i < Math.min(as.length, bs.length); i++) {
    const ap = (as[i] ?? '').startsWith('{');
    const bp = (bs[i] ?? '').startsWith('{');
    if (ap !== bp) return ap ? 1 : -1;
  }
  return as.length - bs.length || a.path.localeCompare(b.path) || a.method.localeCompare(b.method);
}

/** One documented path: its pattern (parameters captured in order) and its operations by method. */
interface PathEntry {
  readonly path: string;
  readonly pattern: RegExp;
  readonly names: readonly string[];
  readonly methods: Map<string, RouteDefinition>;
  readonly allow: string;
}

function pathTable(routes: readonly RouteDefinition[]): { literal: Map<string, PathEntry>; patterns: PathEntry[] } {
  const byPath = new Map<string, RouteDefinition[]>();
  for (const route of routes) byPath.set(route.path, [...(byPath.get(route.path) ?? []), route]);
  const all = [...byPath].map(([path, list]): PathEntry => {
    const names: string[] = [];
    const source = path.split(/(\{[^}]+\})/).map((part) => {
      if (!part.startsWith('{')) return part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
      names.push(part.slice(1, -1));
      return '([^/]+)';
    }).join('');
    return {
      path, names, pattern: new RegExp(`^${source}/?$`),
      methods: new Map(list.map((r) => [r.method, r])),
      allow: list.map((r) => r.method.toUpperCase()).sort().join(', '),
    };
  }).sort((a, b) => routeOrder({ path: a.path, method: '' }, { path: b.path, method: '' }));
  // Paths without parameters are found by one map lookup; the others are tried in route order.
  const literal = new Map(all.filter((e) => e.names.length === 0).map((e) => [e.path, e]));
  return { literal, patterns: all.filter((e) => e.names.length > 0) };
}

/** A JSON result goes through `respondJson` (checked when the request is armed); other bodies as they are. */
function send(req: IncomingMessage, res: ServerResponse, result: OperationResult): void | Promise<void> {
  for (const [name, value] of Object.entries(result.headers ?? {})) res.setHeader(name, value);
  if (result.contentType) res.setHeader('Content-Type', typeHeader(result.contentType));
  if (result.stream !== undefined) {
    res.statusCode = result.status;
    return sendStream(res, result.stream);
  }
  if (result.body === undefined) {
    res.statusCode = result.status;
    res.end();
  } else if (result.contentType === undefined || /[/+]json(;|$)/.test(result.contentType)) {
    respondJson(req, res, result.status, result.body);
  } else {
    const body = result.body;
    // As Express's res.send: a string or bytes as they are, any other value as JSON.
    if (typeof body === 'string' || Buffer.isBuffer(body)) sendBody(req, res, result.status, body);
    else respondJson(req, res, result.status, body);
  }
}

/** The response check armed for a request whose input was valid: the JSON body it is about to send is checked. */
const armed = new WeakMap<ServerResponse, (status: number, contentType: string | undefined, body: unknown) => boolean>();

/**
 * Sends a JSON body (with `headers`) as Express's `res.json` would. For a request the router has validated, the
 * body is first checked against the document, once: one that does not match is not sent, and the router's
 * `next` gets the problem instead (the error handler's 500 is not checked again). Error handlers send with it.
 */
export function respondJson(req: IncomingMessage, res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  for (const [name, value] of Object.entries(headers)) res.setHeader(name, value);
  const check = armed.get(res);
  if (check) {
    armed.delete(res);
    const type = res.getHeader('Content-Type');
    if (!check(status, typeof type === 'string' ? type : undefined, body)) return;
  }
  sendJson(req, res, status, body);
}

/** The compiled validators of each document, shared by every router built from it (tests build many). */
const compiled = new WeakMap<object, DocumentValidators>();
function validatorsOf(apiSpec: object): DocumentValidators {
  let found = compiled.get(apiSpec);
  if (!found) {
    found = new DocumentValidators(apiSpec as Record<string, unknown>);
    compiled.set(apiSpec, found);
  }
  return found;
}

/**
 * The problems of a webhook event body (`{ id, type, timestamp, merchantId, data }`) against the document's
 * webhook of its type; empty when it matches. A server checks each event before it commits it (a final guard:
 * what a receiver would be sent, and what the API answers, must match the contract).
 */
export function webhookEventProblems(apiSpec: object, name: string, body: unknown): { path: string; message: string }[] {
  return validatorsOf(apiSpec).webhookEvent(name, body).map(({ path, message }) => ({ path, message }));
}

/** The errors the router raised for a path the document does not have. */
const unknownPaths = new WeakSet<object>();

/** True for the router's 404 of a path the document does not have (not a handler's 404 of an unknown id). */
export const isUnknownPath = (err: unknown): boolean => typeof err === 'object' && err !== null && unknownPaths.has(err);

/** The operation each request in flight was matched to (for error handlers that need its schemas). */
const matched = new WeakMap<IncomingMessage, RouteDefinition>();

/** The documented operation a request was matched to, once the router has matched it. */
export function matchedRoute(req: IncomingMessage): RouteDefinition | undefined {
  return matched.get(req);
}

/** The texts of a JSON body's numbers that JSON.parse reads inexactly (see number-texts.ts), by request. */
const bodyNumbers = new WeakMap<IncomingMessage, NumberTexts>();

/** A body parser's error for bytes refused before parsing: a 400 the error classifier names. */
class BodyReadError extends Error {
  readonly status = 400;
  constructor(message: string, readonly type: 'entity.encoding.invalid' | 'entity.parse.failed') {
    super(message);
  }
}

/** Every body's bytes must be UTF-8 (what JSON and this API's forms are written in). */
function readBody(_req: IncomingMessage, _res: ServerResponse, bytes: Buffer): void {
  const problem = bodyEncodingProblem(bytes);
  if (problem !== undefined) throw new BodyReadError(problem, 'entity.encoding.invalid');
}

/** A JSON body's bytes: UTF-8, and the texts of the numbers a double cannot stand for kept for validation. */
function readJsonBody(req: IncomingMessage, res: ServerResponse, bytes: Buffer): void {
  readBody(req, res, bytes);
  let texts: NumberTexts | undefined;
  try {
    texts = inexactNumbers(bytes.toString('utf8'));
  } catch {
    throw new BodyReadError('The request body is not valid JSON.', 'entity.parse.failed');
  }
  if (texts !== undefined) bodyNumbers.set(req, texts);
}

/** Runs an Express-style middleware (a body parser) as a promise. */
const run = (middleware: express.RequestHandler, req: IncomingMessage, res: ServerResponse): Promise<void> =>
  new Promise((resolve, reject) => {
    // body-parser reads only Node's request (headers, stream) and sets `body` on it.
    middleware(req as express.Request, res as express.Response, (err?: unknown) => {
      if (err === undefined || err === null) resolve();
      // eslint-disable-next-line @typescript-eslint/prefer-promise-reject-errors -- a parser's error is handed on as it is
      else reject(err);
    });
  });

/** The most fields a form (urlencoded) body may have. */
export const FORM_PARAMETER_LIMIT = 1000;

/** The router: mount it at the root of an Express app, after any routes the document does not describe. */
export function createRouterFromRoutes<Ctx>(options: RouterOptions<Ctx>): ApiRouter {
  const routes = [...options.routes].sort(routeOrder);
  const missing = options.handlers === undefined ? [] : missingHandlers(options.handlers, routes);
  if (missing.length > 0) throw new MissingHandlersError(missing);
  const table = pathTable(routes);
  const validators = validatorsOf(options.apiSpec);
  const limit = options.bodyLimit ?? '1mb';
  const mediaTypes = new Set(routes.flatMap((r) => r.requestContentTypes));
  const parsers: express.RequestHandler[] = [express.json({ limit, type: ['application/json', 'application/*+json'], verify: readJsonBody })];
  // More fields than FORM_PARAMETER_LIMIT is refused (413 parameters.too.many), never cut short.
  if (mediaTypes.has('application/x-www-form-urlencoded')) parsers.push(express.urlencoded({ limit, extended: false, parameterLimit: FORM_PARAMETER_LIMIT, verify: readBody }));
  if ([...mediaTypes].some((t) => t.startsWith('text/'))) parsers.push(express.text({ limit, type: 'text/*', verify: readBody }));
  const validateResponses = options.validateResponses !== false;

  /** The one route match of a request: the first documented path its path matches (case-sensitive). */
  const match = (path: string): { entry: PathEntry; values: string[] } | undefined => {
    const literal = table.literal.get(path) ?? (path.endsWith('/') ? table.literal.get(path.slice(0, -1)) : undefined);
    const firstPattern = (): { entry: PathEntry; values: string[] } | undefined => {
      for (const entry of table.patterns) {
        const found = entry.pattern.exec(path);
        if (found) return { entry, values: found.slice(1) };
      }
      return undefined;
    };
    if (!literal) return firstPattern();
    // A parameterised path sorted before the literal one (a longer literal prefix) wins, as in route order.
    const pattern = firstPattern();
    return pattern && routeOrder({ path: pattern.entry.path, method: '' }, { path: literal.path, method: '' }) < 0 ? pattern : { entry: literal, values: [] };
  };

  const router: ApiRouter = (req, res, next) => {
    const pathname = requestPath(req);
    const found = match(pathname);
    if (!found) {
      // Paths are case-sensitive: one that differs from a documented path only in letter case is unknown too.
      const unknown = new ValidationError(404, 'not found', [{ path: pathname, message: 'not found' }]);
      unknownPaths.add(unknown);
      next(unknown);
      return;
    }
    const route = found.entry.methods.get((req.method ?? '').toLowerCase());
    if (!route) {
      next(new ValidationError(405, `${String(req.method)} method not allowed`, [{ path: pathname, message: `${String(req.method)} method not allowed` }], { Allow: found.entry.allow }));
      return;
    }
    matched.set(req, route);
    const path: Record<string, string> = {};
    try {
      found.entry.names.forEach((name, i) => { path[name] = decodeURIComponent(found.values[i] ?? ''); });
    } catch {
      next(new ValidationError(400, "malformed uri'", [{ path: pathname, message: "malformed uri'" }]));
      return;
    }
    void handle(route, path, req, res, next);
  };

  async function handle(route: RouteDefinition, path: Record<string, string>, req: IncomingMessage & { body?: unknown }, res: ServerResponse, next: NextFunction): Promise<void> {
    try {
      // The context (authentication) before the body is read: an unauthenticated request is refused unread.
      const context = await options.context(req, res, route);
      for (const parser of parsers) await run(parser, req, res);
      const request = validators.request(route.operationId, route);
      const mediaType = request.mediaType(typeof req.headers['content-type'] === 'string' ? req.headers['content-type'] : undefined);
      if (mediaType instanceof ValidationError) throw mediaType;
      const body = route.requestContentTypes.length > 0 ? req.body : undefined;
      const checked = request.validate({ params: path, query: requestQuery(req), headers: req.headers, body: req.body, bodyNumbers: bodyNumbers.get(req) }, mediaType);
      if (checked instanceof ValidationError) throw checked;
      const input: OperationInput = { path: checked.params, query: checked.query, headers: pickHeaders(req, route.headerParams), body };
      // From here on, what is sent for the request (the handler's answer or its error) is checked.
      if (validateResponses) checkResponses(route, req, res, next);
      await send(req, res, await options.dispatch(route.operationId, input, context));
    } catch (error) {
      next(error);
    }
  }

  /**
   * Every JSON body sent for a valid request (the handler's, or the error handler's for what the handler threw)
   * is checked against the document: one that does not match becomes a 500, reported once (the 500's own body
   * is not checked again). Refusals before the handler (authentication, validation) are the caller's to shape.
   */
  function checkResponses(route: RouteDefinition, req: IncomingMessage, res: ServerResponse, next: NextFunction): void {
    armed.set(res, (status, contentType, body) => {
      const problem = validators.response(route.operationId, route, status, contentType, req.headers.accept, body);
      if (problem === undefined) return true;
      next(problem);
      return false;
    });
    // Mounted in Express, an error handler may answer with `res.json`: that body is checked the same way.
    const express = res as ServerResponse & { json?: (body: unknown) => unknown };
    const json = express.json;
    if (typeof json !== 'function') return;
    express.json = (body: unknown) => {
      express.json = json;
      const check = armed.get(res);
      armed.delete(res);
      const type = res.getHeader('content-type');
      return check === undefined || check(res.statusCode, typeof type === 'string' ? type : undefined, body) ? json.call(res, body) : res;
    };
  }

  return router;
}

/** Where a request problem was found. */
export type ProblemLocation = 'body' | 'query' | 'path' | 'headers' | 'response' | 'request';

/** A request or response problem found by the router, in one shape whatever raised it. */
export interface RouterProblem {
  status: number;
  kind:
    | 'validation'
    | 'malformed_json'
    | 'not_found'
    | 'method_not_allowed'
    | 'unsupported_media_type'
    | 'payload_too_large'
    | 'response_validation';
  message: string;
  /** Each offending value: where, its dotted path (`billingAddress.city`, `items.0.name`), the message. */
  problems: { location: ProblemLocation; path: string; message: string; keyword: string | undefined }[];
  /** For 405: the methods the path allows. */
  allow: string | undefined;
}

interface ValidatorErrorLike {
  status: number;
  message: string;
  errors?: { path: string; message: string; errorCode?: string }[];
  headers?: { Allow?: string };
}

const isValidatorError = (err: unknown): err is ValidatorErrorLike =>
  typeof err === 'object' && err !== null && 'status' in err && typeof (err).status === 'number' &&
  'message' in err;

/** `/body/billingAddress/city` or `.body.billingAddress.city` -> location `body`, path `billingAddress.city`. */
function splitPath(raw: string): { location: ProblemLocation; path: string } {
  const parts = raw.replace(/^[./]/, '').split(/[./]/).filter((p) => p.length > 0);
  const head = parts[0] ?? '';
  const known: Record<string, ProblemLocation> = { body: 'body', query: 'query', params: 'path', path: 'path', headers: 'headers', response: 'response' };
  const location = known[head];
  return location ? { location, path: parts.slice(1).join('.') } : { location: 'request', path: parts.join('.') };
}

/** The most problems one refused request reports. */
export const MAX_PROBLEMS = 50;

/** Classifies an error raised by body parsing or validation; undefined for any other error. */
export function routerProblem(err: unknown): RouterProblem | undefined {
  if (typeof err === 'object' && err !== null && (err as { type?: unknown }).type === 'entity.parse.failed') {
    return { status: 400, kind: 'malformed_json', message: 'The request body is not valid JSON.', problems: [], allow: undefined };
  }
  if (typeof err === 'object' && err !== null && (err as { type?: unknown }).type === 'entity.encoding.invalid') {
    return { status: 400, kind: 'malformed_json', message: (err as { message?: string }).message ?? 'The request body is not valid UTF-8.', problems: [], allow: undefined };
  }
  if (typeof err === 'object' && err !== null && (err as { type?: unknown }).type === 'entity.too.large') {
    return { status: 413, kind: 'payload_too_large', message: 'The request body is too large.', problems: [], allow: undefined };
  }
  if (typeof err === 'object' && err !== null && (err as { type?: unknown }).type === 'parameters.too.many') {
    return { status: 413, kind: 'payload_too_large', message: 'The request body has too many fields.', problems: [], allow: undefined };
  }
  if (!isValidatorError(err)) return undefined;
  // Bounded: a body of many bad items reports its first MAX_PROBLEMS problems.
  const problems = (err.errors ?? []).slice(0, MAX_PROBLEMS).map((e) => ({
    ...splitPath(e.path),
    message: e.message,
    keyword: e.errorCode?.replace(/\.openapi\.(validation|requestValidation)$/, ''),
  }));
  const allow = err.headers?.Allow;
  switch (err.status) {
    case 404: return { status: 404, kind: 'not_found', message: err.message, problems, allow: undefined };
    case 405: return { status: 405, kind: 'method_not_allowed', message: err.message, problems, allow };
    case 415: return { status: 415, kind: 'unsupported_media_type', message: err.message, problems, allow: undefined };
    case 413: return { status: 413, kind: 'payload_too_large', message: err.message, problems, allow: undefined };
    case 400: return { status: 400, kind: 'validation', message: err.message, problems, allow: undefined };
    case 500:
      if (problems.some((p) => p.location === 'response') || err.message.includes('.response')) {
        return { status: 500, kind: 'response_validation', message: err.message, problems, allow: undefined };
      }
      return undefined;
    default: return undefined;
  }
}
