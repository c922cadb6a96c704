// Express wiring for generated routes: context (authentication) first, then body parsing, then
// express-openapi-validator (requests and responses), then the handler; errors go to `next`.
import express, { type NextFunction, type Request, type RequestHandler, type Response, type Router } from 'express';
import * as OpenApiValidator from 'express-openapi-validator';

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
}

/** `{customerId}` -> `:customerId`; names that Express cannot take are mapped to safe ones. */
export function expressPath(route: RouteDefinition): string {
  return route.pathParams.reduce((path, p) => path.replace(`{${p.name}}`, `:${p.expressName}`), route.path);
}

/** Literal segments before parameters, so `/invoices/publish` is tried before `/invoices/{invoiceId}`. */
export function routeOrder(a: RouteDefinition, b: RouteDefinition): number {
  const as = a.path.split('/');
  const bs = b.path.split('/');
  for (let i = 0; i < Math.min(as.length, bs.length); i++) {
    const ap = (as[i] ?? '').startsWith('{');
    const bp = (bs[i] ?? '').startsWith('{');
    if (ap !== bp) return ap ? 1 : -1;
  }
  return as.length - bs.length || a.path.localeCompare(b.path) || a.method.localeCompare(b.method);
}

function matcher(route: RouteDefinition): RegExp {
  const source = route.path
    .split(/(\{[^}]+\})/)
    .map((part) => (part.startsWith('{') ? '[^/]+' : part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')))
    .join('');
  return new RegExp(`^${source}/?$`);
}

type JsonObject = Record<string, unknown>;
const isJsonObject = (v: unknown): v is JsonObject => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * The document as the validator reads it: no server URLs (the router serves the paths exactly as written,
 * mounted at the root), and path parameters renamed to the Express-safe names of the route table, since
 * the validator matches routes with Express syntax too (`{pet-id}` would read as `:pet` then `-id`).
 */
function validatorSpec(apiSpec: object, routes: readonly RouteDefinition[]): object {
  const copy = structuredClone(apiSpec) as JsonObject;
  copy.servers = [{ url: '/' }];
  const paths = (isJsonObject(copy.paths) ? copy.paths : {}) as Record<string, JsonObject>;
  const renamedPaths: Record<string, JsonObject> = {};
  const components = isJsonObject(copy.components) ? copy.components : {};
  const shared = isJsonObject(components.parameters) ? components.parameters : {};
  for (const [path, item] of Object.entries(paths)) {
    delete item.servers;
    const renames = new Map(
      routes.filter((r) => r.path === path).flatMap((r) => r.pathParams).filter((p) => p.name !== p.expressName).map((p) => [p.name, p.expressName]),
    );
    const rename = (list: unknown): unknown[] | undefined =>
      Array.isArray(list)
        ? list.map((raw: unknown) => {
            const ref = isJsonObject(raw) && typeof raw.$ref === 'string' ? raw.$ref : undefined;
            const param = ref?.startsWith('#/components/parameters/') ? shared[ref.slice(24)] : raw;
            if (!isJsonObject(param) || param.in !== 'path' || typeof param.name !== 'string') return raw;
            const safe = renames.get(param.name);
            return safe === undefined ? raw : { ...param, name: safe };
          })
        : undefined;
    for (const [key, value] of Object.entries(item)) {
      if (key === 'parameters') item.parameters = rename(value);
      else if (isJsonObject(value) && 'responses' in value) {
        delete value.servers;
        if (value.parameters !== undefined) value.parameters = rename(value.parameters);
      }
    }
    renamedPaths[[...renames].reduce((p, [name, safe]) => p.replace(`{${name}}`, `{${safe}}`), path)] = item;
  }
  copy.paths = renamedPaths;
  return copy;
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

const CONTEXT = Symbol('operation-context');
const ROUTE = Symbol('operation-route');
type Locals = Record<symbol, unknown>;

/** The router: mount it at the root of an Express app, after any routes the document does not describe. */
export function createRouterFromRoutes<Ctx>(options: RouterOptions<Ctx>): Router {
  // Case-sensitive, like the context step's matcher: `/PAY-API/...` is not `/pay-api/...` (a router that matched
  // paths without case would reach handlers the context step never authenticated).
  const router = express.Router({ caseSensitive: true });
  const routes = [...options.routes].sort(routeOrder);
  const matchers = routes.map((route) => ({ route, pattern: matcher(route), anyCase: new RegExp(matcher(route).source, 'i') }));
  const limit = options.bodyLimit ?? '1mb';

  const contextStep: RequestHandler = (req, res, next) => {
    const method = req.method.toLowerCase();
    const found = matchers.find((m) => m.route.method === method && m.pattern.test(req.path));
    if (!found) {
      // A path that differs from a route only in letter case is not that route; the validator would match it
      // without regard to case, so it is refused here, as an unknown path, before the validator sees it.
      if (!matchers.some((m) => m.pattern.test(req.path)) && matchers.some((m) => m.anyCase.test(req.path))) {
        next(Object.assign(new Error(`not found: ${req.path}`), { status: 404, path: req.path, errors: [] }));
        return;
      }
      next();
      return;
    }
    Promise.resolve(options.context(req, res, found.route))
      .then((context) => {
        (res.locals as Locals)[CONTEXT] = context;
        (res.locals as Locals)[ROUTE] = found.route;
        next();
      })
      .catch(next);
  };
  router.use(contextStep);

  const mediaTypes = new Set(routes.flatMap((r) => r.requestContentTypes));
  router.use(express.json({ limit, type: ['application/json', 'application/*+json'] }));
  if (mediaTypes.has('application/x-www-form-urlencoded')) router.use(express.urlencoded({ limit, extended: false }));
  if ([...mediaTypes].some((t) => t.startsWith('text/'))) router.use(express.text({ limit, type: 'text/*' }));

  router.use(
    OpenApiValidator.middleware({
      apiSpec: validatorSpec(options.apiSpec, routes) as Parameters<typeof OpenApiValidator.middleware>[0]['apiSpec'],
      validateApiSpec: false,
      validateRequests: { coerceTypes: false, allowUnknownQueryParameters: false },
      validateResponses: options.validateResponses === false ? false : { removeAdditional: false },
      validateSecurity: false,
      ignoreUndocumented: false,
    }),
  );

  // The validator knows path parameters by their Express-safe names; problems name them as the document does.
  router.use((err: unknown, _req: Request, res: Response, next: NextFunction) => {
    const route = (res.locals as Locals)[ROUTE] as RouteDefinition | undefined;
    if (route && isValidatorError(err)) {
      for (const item of err.errors ?? []) {
        for (const p of route.pathParams) item.path = item.path.replace(new RegExp(`([./]params[./])${p.expressName}$`), `$1${p.name}`);
      }
    }
    next(err);
  });

  for (const route of routes) {
    const handler = (req: Request, res: Response, next: NextFunction): void => {
      const path: Record<string, string> = {};
      for (const p of route.pathParams) path[p.name] = String(req.params[p.expressName]);
      const input: OperationInput = {
        path,
        query: { ...(req.query as Record<string, unknown>) },
        headers: pickHeaders(req, route.headerParams),
        body: route.requestContentTypes.length > 0 ? (req.body as unknown) : undefined,
      };
      if (!(CONTEXT in (res.locals as Locals))) {
        // Fail closed: a handler never runs without the context step (authentication) having run.
        next(new Error(`no context for ${route.operationId}: the context step did not match this request`));
        return;
      }
      const context = (res.locals as Locals)[CONTEXT] as Ctx;
      options
        .dispatch(route.operationId, input, context)
        .then((result) => send(res, result))
        .catch(next);
    };
    router[route.method](expressPath(route), handler);
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

/** Classifies an error raised by body parsing or validation; undefined for any other error. */
export function routerProblem(err: unknown): RouterProblem | undefined {
  if (typeof err === 'object' && err !== null && (err as { type?: unknown }).type === 'entity.parse.failed') {
    return { status: 400, kind: 'malformed_json', message: 'The request body is not valid JSON.', problems: [], allow: undefined };
  }
  if (typeof err === 'object' && err !== null && (err as { type?: unknown }).type === 'entity.too.large') {
    return { status: 413, kind: 'payload_too_large', message: 'The request body is too large.', problems: [], allow: undefined };
  }
  if (!isValidatorError(err)) return undefined;
  const problems = (err.errors ?? []).map((e) => ({
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
