// Express wiring for generated routes: one route match per request, then the context (authentication), body
// parsing, validation compiled once per operation (openapi-validation.ts), the handler, and the response checked
// against the document on its way out; errors go to `next`.
import express, { type NextFunction, type Request, type Response, type Router } from 'express';
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
  req: Request;
  res: Response;
  route: RouteDefinition;
}

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
  context: (req: Request, res: Response, route: RouteDefinition) => Ctx | Promise<Ctx>;
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

function pickHeaders(req: Request, names: readonly string[]): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const name of names) {
    const value = req.headers[name];
    if (typeof value === 'string') headers[name] = value;
    else if (Array.isArray(value)) headers[name] = value.join(', ');
  }
  return headers;
}

async function sendStream(res: Response, stream: AsyncIterable<string>): Promise<void> {
  for await (const chunk of stream) {
    // Respect back-pressure: wait for the socket to drain before producing more.
    if (!res.write(chunk)) await new Promise((resolve) => res.once('drain', resolve));
  }
  res.end();
}

function send(res: Response, result: OperationResult): void | Promise<void> {
  for (const [name, value] of Object.entries(result.headers ?? {})) res.setHeader(name, value);
  res.status(result.status);
  if (result.stream !== undefined) {
    if (result.contentType) res.type(result.contentType);
    return sendStream(res, result.stream);
  }
  if (result.body === undefined) {
    res.end();
  } else if (result.contentType === undefined || /[/+]json(;|$)/.test(result.contentType)) {
    if (result.contentType) res.type(result.contentType);
    res.json(result.body);
  } else {
    res.type(result.contentType).send(result.body);
  }
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

/** The operation each request in flight was matched to (for error handlers that need its schemas). */
const matched = new WeakMap<Request, RouteDefinition>();

/** The documented operation a request was matched to, once the router has matched it. */
export function matchedRoute(req: Request): RouteDefinition | undefined {
  return matched.get(req);
}

/** Runs an Express-style middleware (a body parser) as a promise. */
const run = (middleware: express.RequestHandler, req: Request, res: Response): Promise<void> =>
  new Promise((resolve, reject) => {
    middleware(req, res, (err?: unknown) => {
      if (err === undefined || err === null) resolve();
      // eslint-disable-next-line @typescript-eslint/prefer-promise-reject-errors -- a parser's error is handed on as it is
      else reject(err);
    });
  });

/** The router: mount it at the root of an Express app, after any routes the document does not describe. */
export function createRouterFromRoutes<Ctx>(options: RouterOptions<Ctx>): Router {
  const router = express.Router();
  const routes = [...options.routes].sort(routeOrder);
  const missing = options.handlers === undefined ? [] : missingHandlers(options.handlers, routes);
  if (missing.length > 0) throw new MissingHandlersError(missing);
  const table = pathTable(routes);
  const validators = validatorsOf(options.apiSpec);
  const limit = options.bodyLimit ?? '1mb';
  const mediaTypes = new Set(routes.flatMap((r) => r.requestContentTypes));
  const parsers: express.RequestHandler[] = [express.json({ limit, type: ['application/json', 'application/*+json'] })];
  if (mediaTypes.has('application/x-www-form-urlencoded')) parsers.push(express.urlencoded({ limit, extended: false }));
  if ([...mediaTypes].some((t) => t.startsWith('text/'))) parsers.push(express.text({ limit, type: 'text/*' }));
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

  router.use((req: Request, res: Response, next: NextFunction) => {
    const found = match(req.path);
    if (!found) {
      // Paths are case-sensitive: one that differs from a documented path only in letter case is unknown too.
      next(new ValidationError(404, 'not found', [{ path: req.path, message: 'not found' }]));
      return;
    }
    const route = found.entry.methods.get(req.method.toLowerCase());
    if (!route) {
      next(new ValidationError(405, `${req.method} method not allowed`, [{ path: req.path, message: `${req.method} method not allowed` }], { Allow: found.entry.allow }));
      return;
    }
    matched.set(req, route);
    const path: Record<string, string> = {};
    try {
      found.entry.names.forEach((name, i) => { path[name] = decodeURIComponent(found.values[i] ?? ''); });
    } catch {
      next(new ValidationError(400, "malformed uri'", [{ path: req.path, message: "malformed uri'" }]));
      return;
    }
    void handle(route, path, req, res, next);
  });

  async function handle(route: RouteDefinition, path: Record<string, string>, req: Request, res: Response, next: NextFunction): Promise<void> {
    try {
      // The context (authentication) before the body is read: an unauthenticated request is refused unread.
      const context = await options.context(req, res, route);
      for (const parser of parsers) await run(parser, req, res);
      const request = validators.request(route.operationId, route);
      const mediaType = request.mediaType(typeof req.headers['content-type'] === 'string' ? req.headers['content-type'] : undefined);
      if (mediaType instanceof ValidationError) throw mediaType;
      const body = route.requestContentTypes.length > 0 ? (req.body as unknown) : undefined;
      const checked = request.validate({ params: path, query: req.query, headers: req.headers, body: req.body as unknown }, mediaType);
      if (checked instanceof ValidationError) throw checked;
      const input: OperationInput = { path: checked.params, query: checked.query, headers: pickHeaders(req, route.headerParams), body };
      // From here on, what is sent for the request (the handler's answer or its error) is checked.
      if (validateResponses) checkResponses(route, req, res, next);
      await send(res, await options.dispatch(route.operationId, input, context));
    } catch (error) {
      next(error);
    }
  }

  /**
   * Every JSON body sent for a valid request (the handler's, or the error handler's for what the handler threw)
   * is checked against the document: one that does not match becomes a 500, reported once (the 500's own body
   * is not checked again). Refusals before the handler (authentication, validation) are the caller's to shape.
   */
  function checkResponses(route: RouteDefinition, req: Request, res: Response, next: NextFunction): void {
    const json = res.json.bind(res);
    res.json = (body: unknown) => {
      const type = res.getHeader('content-type');
      const problem = validators.response(route.operationId, route, res.statusCode, typeof type === 'string' ? type : undefined, req.headers.accept, body);
      if (problem === undefined) return json(body);
      res.json = json;
      next(problem);
      return res;
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
  if (typeof err === 'object' && err !== null && (err as { type?: unknown }).type === 'entity.too.large') {
    return { status: 413, kind: 'payload_too_large', message: 'The request body is too large.', problems: [], allow: undefined };
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
