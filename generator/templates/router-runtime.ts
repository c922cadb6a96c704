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
  // Query values may carry RFC 3986's sub-delimiters unencoded (`* ( ) ' !` are legal in a query, and
  // encodeURIComponent leaves them as they are): allowReserved only tells clients how to serialize, so a
  // server must not refuse them. The validator refuses them unless the parameter allows reserved characters.
  for (const param of Object.values(shared)) if (isJsonObject(param) && param.in === 'query') param.allowReserved = true;
  for (const item of Object.values(renamedPaths)) {
    for (const value of [item, ...Object.values(item)]) {
      if (!isJsonObject(value) || !Array.isArray(value.parameters)) continue;
      for (const param of value.parameters) if (isJsonObject(param) && param.in === 'query') param.allowReserved = true;
    }
  }
  return copy;
}

type NumericKind = 'integer' | 'number';

/**
 * The integer and number query parameters of each operation. The validator converts query strings with
 * JavaScript's number rules, which take `0x10`, `1e3` and ` 1`; these are checked as decimal text first.
 */
function numericQueryParameters(apiSpec: object, routes: readonly RouteDefinition[]): Map<string, Map<string, NumericKind>> {
  const doc = apiSpec as JsonObject;
  const resolve = (node: unknown): unknown => {
    let current = node;
    for (let i = 0; i < 20 && isJsonObject(current) && typeof current.$ref === 'string'; i++) {
      current = current.$ref.slice(2).split('/').reduce<unknown>((acc, key) => (isJsonObject(acc) ? acc[key] : undefined), doc);
    }
    return current;
  };
  const kindOf = (schema: unknown): NumericKind | undefined => {
    const resolved = resolve(schema);
    if (!isJsonObject(resolved)) return undefined;
    const types = Array.isArray(resolved.type) ? resolved.type : [resolved.type];
    if (types.includes('integer')) return 'integer';
    if (types.includes('number')) return 'number';
    const parts = [resolved.allOf, resolved.oneOf, resolved.anyOf].flatMap((list): unknown[] => (Array.isArray(list) ? (list as unknown[]) : []));
    return parts.map(kindOf).find((kind) => kind !== undefined);
  };
  const paths = isJsonObject(doc.paths) ? doc.paths : {};
  const found = new Map<string, Map<string, NumericKind>>();
  for (const route of routes) {
    const item = resolve(paths[route.path]);
    if (!isJsonObject(item)) continue;
    const op = item[route.method];
    const listOf = (value: unknown): unknown[] => (Array.isArray(value) ? (value as unknown[]) : []);
    const params = [...listOf(item.parameters), ...(isJsonObject(op) ? listOf(op.parameters) : [])];
    const kinds = new Map<string, NumericKind>();
    for (const raw of params) {
      const param = resolve(raw);
      if (!isJsonObject(param) || param.in !== 'query' || typeof param.name !== 'string') continue;
      const kind = kindOf(param.schema);
      if (kind) kinds.set(param.name, kind);
    }
    if (kinds.size > 0) found.set(route.operationId, kinds);
  }
  return found;
}

const DECIMAL: Record<NumericKind, RegExp> = { integer: /^-?\d+$/, number: /^-?\d+(\.\d+)?$/ };

/** Numeric query values that are not plain decimal text, in the validator's error shape. */
function numericQueryErrors(kinds: Map<string, NumericKind> | undefined, query: Record<string, unknown>): { path: string; message: string; errorCode: string }[] {
  if (!kinds) return [];
  const errors: { path: string; message: string; errorCode: string }[] = [];
  for (const [name, kind] of kinds) {
    const raw = query[name];
    for (const value of Array.isArray(raw) ? raw : raw === undefined ? [] : [raw]) {
      if (typeof value === 'string' && !DECIMAL[kind].test(value)) {
        errors.push({ path: `/query/${name}`, message: `must be ${kind === 'integer' ? 'an integer' : 'a number'} written in decimal digits`, errorCode: 'type.openapi.validation' });
      }
    }
  }
  return errors;
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
const NUMERIC_QUERY = Symbol('numeric-query-errors');
type Locals = Record<symbol, unknown>;

/** The router: mount it at the root of an Express app, after any routes the document does not describe. */
export function createRouterFromRoutes<Ctx>(options: RouterOptions<Ctx>): Router {
  // Case-sensitive, like the context step's matcher: `/PAY-API/...` is not `/pay-api/...` (a router that matched
  // paths without case would reach handlers the context step never authenticated).
  const router = express.Router({ caseSensitive: true });
  const routes = [...options.routes].sort(routeOrder);
  const missing = options.handlers === undefined ? [] : missingHandlers(options.handlers, routes);
  if (missing.length > 0) throw new MissingHandlersError(missing);
  const matchers = routes.map((route) => ({ route, pattern: matcher(route), anyCase: new RegExp(matcher(route).source, 'i') }));
  const limit = options.bodyLimit ?? '1mb';
  const numericQuery = numericQueryParameters(options.apiSpec, routes);

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

  // Read before the validator, which converts query values in place.
  router.use((req: Request, res: Response, next: NextFunction) => {
    const route = (res.locals as Locals)[ROUTE] as RouteDefinition | undefined;
    if (route) (res.locals as Locals)[NUMERIC_QUERY] = numericQueryErrors(numericQuery.get(route.operationId), req.query);
    next();
  });

  router.use(
    OpenApiValidator.middleware({
      apiSpec: validatorSpec(options.apiSpec, routes) as Parameters<typeof OpenApiValidator.middleware>[0]['apiSpec'],
      validateApiSpec: false,
      // allErrors: a refused request names every problem, not the first; the body limit bounds the work.
      validateRequests: { coerceTypes: false, allowUnknownQueryParameters: false, allErrors: true },
      validateResponses: options.validateResponses === false ? false : { removeAdditional: false },
      validateSecurity: false,
      ignoreUndocumented: false,
    }),
  );

  // Numeric query values in other notations than decimal digits: reported with the validator's problems,
  // or on their own when the validator found none.
  router.use((_req: Request, res: Response, next: NextFunction) => {
    const found = (res.locals as Locals)[NUMERIC_QUERY] as ValidatorErrorLike['errors'];
    if (found && found.length > 0) next(Object.assign(new Error('request/query has numbers not written in decimal digits'), { status: 400, errors: found }));
    else next();
  });

  // The validator knows path parameters by their Express-safe names; problems name them as the document does.
  router.use((err: unknown, _req: Request, res: Response, next: NextFunction) => {
    const route = (res.locals as Locals)[ROUTE] as RouteDefinition | undefined;
    const numeric = (res.locals as Locals)[NUMERIC_QUERY] as ValidatorErrorLike['errors'];
    if (numeric && isValidatorError(err) && err.status === 400 && err.errors !== numeric) {
      const known = new Set((err.errors ?? []).map((e) => e.path));
      err.errors = [...(err.errors ?? []), ...numeric.filter((e) => !known.has(e.path))];
    }
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
