// The router of generated routes, an Express middleware that also runs on Node's own request and response:
// one route match per request (route-match.ts), then the context (authentication), the body (request-body.ts),
// the input checked against the document (operation-checks.ts), the operation's handler through the typed
// dispatch table, and the result written (response-writer.ts), checked on its way out; errors go to `next`,
// where router-problems.ts classifies them.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { armResponseCheck, checkedInput, validatorsOf } from './operation-checks.ts';
import { bodyReader, type ParsedRequest } from './request-body.ts';
import { writeResult } from './response-writer.ts';
import { routeMatcher, routeOrder } from './route-match.ts';
import type { ApiRouter, Dispatch, NextFunction, OperationsMap, RouteDefinition } from './router-types.ts';

export type { ApiRouter, Dispatch, HttpMethod, NextFunction, OperationInput, OperationResult, OperationsMap, OperationTypes, RequestContext, RouteDefinition } from './router-types.ts';
export { isUnknownPath, matchedRoute, routeOrder } from './route-match.ts';
export { FORM_PARAMETER_LIMIT } from './request-body.ts';
export { respondJson } from './response-writer.ts';
export { webhookEventProblems } from './operation-checks.ts';
export { requestPath, requestQuery } from './http-io.ts';
export { MAX_PROBLEMS, routerProblem, type ProblemLocation, type RouterProblem } from './router-problems.ts';

/** The operationIds of an operations map, as route definitions carry them. */
type IdOf<Ops> = keyof Ops & string;

export interface RouterOptions<Ops extends OperationsMap<Ops>, Ctx> {
  /** The bundled OpenAPI document (all references local). */
  apiSpec: object;
  routes: readonly RouteDefinition<IdOf<Ops>>[];
  /** The handler of every operation, by operationId; generated, so that every call is type-checked. */
  dispatch: Dispatch<Ops, Ctx>;
  /**
   * Builds the handler context for a matched route before the request is parsed or validated, so an
   * unauthenticated request is refused before its body is read. Throw to refuse the request.
   */
  context: (req: IncomingMessage, res: ServerResponse, route: RouteDefinition<IdOf<Ops>>) => Ctx | Promise<Ctx>;
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
  // Read as untyped groups: the point is to find what a handlers object that claims the interface lacks.
  const groups = handlers as Record<string, Record<string, unknown> | undefined>;
  return routes.filter((route) => typeof groups[route.group]?.[route.operationId] !== 'function');
}

/** The router: mount it at the root of an Express app, after any routes the document does not describe. */
export function createRouterFromRoutes<Ops extends OperationsMap<Ops>, Ctx>(options: RouterOptions<Ops, Ctx>): ApiRouter {
  const routes = [...options.routes].sort(routeOrder);
  const missing = options.handlers === undefined ? [] : missingHandlers(options.handlers, routes);
  if (missing.length > 0) throw new MissingHandlersError(missing);
  const match = routeMatcher(routes);
  const validators = validatorsOf(options.apiSpec);
  const readBody = bodyReader(routes, options.bodyLimit ?? '1mb');
  const validateResponses = options.validateResponses !== false;

  async function handle(route: RouteDefinition<IdOf<Ops>>, path: Record<string, string>, req: ParsedRequest, res: ServerResponse, next: NextFunction): Promise<void> {
    try {
      // The context (authentication) before the body is read: an unauthenticated request is refused unread.
      const context = await options.context(req, res, route);
      await readBody(req, res);
      const input = checkedInput(validators, route, path, req);
      // From here on, what is sent for the request (the handler's answer or its error) is checked.
      if (validateResponses) armResponseCheck(validators, route, req, res, next);
      // The input has passed the validators compiled from this operation's schemas, which is what its generated
      // input type describes; each operation's own call is typed in the generated dispatch table.
      await writeResult(req, res, await options.dispatch[route.operationId](input, context));
    } catch (error) {
      next(error);
    }
  }

  return (req, res, next) => {
    const found = match(req);
    if ('problem' in found) {
      next(found.problem);
      return;
    }
    void handle(found.route, found.path, req, res, next);
  };
}
