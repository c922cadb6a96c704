// The one mapping from anything thrown to a response: API errors, router problems (validation, malformed
// JSON, unknown route, wrong method, media type), OAuth errors on the token routes, and faults.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { requestPath, respondJson, routerProblem, type RouterProblem } from '@pgw/client/server';
import { ApiError, WrongJsonTypeError } from './errors.ts';
import type { Logger } from './log.ts';
import { isWrongJsonType, requestBodySchema } from './json-types.ts';
import { OAuthError, isTokenPath } from './oauth-errors.ts';
import { correlationIdOf } from './request-context.ts';

/** `items.0.name` -> `items[0].name`. */
const fieldPath = (path: string): string => path.replace(/\.(\d+)(?=\.|$)/g, '[$1]');

/** Names the field a problem is about: the missing property of a `required` error, else its path. */
function fieldOf(problem: RouterProblem['problems'][number]): string {
  const missing = /must have required property '([^']+)'/.exec(problem.message);
  const parent = fieldPath(problem.path);
  if (missing?.[1] && !parent.endsWith(missing[1])) return parent ? `${parent}.${missing[1]}` : missing[1];
  return parent || problem.location;
}

/** Turns a router problem into the error the API documents for it. */
export function problemToError(problem: RouterProblem, request: { schema: unknown; body: unknown } = { schema: undefined, body: undefined }): ApiError | WrongJsonTypeError {
  switch (problem.kind) {
    case 'validation': {
      // A body value whose JSON type the schema does not accept there (a string where an integer goes) is
      // refused before validation in the interface's model: the alternative body, keyed by JSON path.
      const typeErrors = problem.problems.filter((p) => p.location === 'body' && p.keyword === 'type' &&
        isWrongJsonType(request.schema, request.body, p.path.split('.').filter((seg) => seg !== '')));
      if (typeErrors.length > 0) {
        return new WrongJsonTypeError(
          Object.fromEntries(typeErrors.map((p) => [`$${p.path ? `.${fieldPath(p.path)}` : ''}`, `The JSON value ${p.message}.`])),
        );
      }
      const errors: Record<string, string[]> = {};
      for (const p of problem.problems) (errors[fieldOf(p)] ??= []).push(p.message);
      return new ApiError('validation_failed', { errors });
    }
    case 'malformed_json': return new ApiError('malformed_json', { details: problem.message });
    case 'not_found': return new ApiError('route_not_found');
    case 'method_not_allowed': return new ApiError('method_not_allowed', problem.allow ? { headers: { Allow: problem.allow } } : {});
    case 'unsupported_media_type': return new ApiError('unsupported_media_type');
    case 'payload_too_large': return new ApiError('payload_too_large', { details: problem.message });
    case 'response_validation': return new ApiError('internal_error');
  }
}

export function errorHandler(log: Logger) {
  // Express recognises an error handler by its four parameters; a Node server calls it with three.
  // eslint-disable-next-line @typescript-eslint/no-unused-vars
  return (err: unknown, req: IncomingMessage & { body?: unknown }, res: ServerResponse, _next?: unknown): void => {
    const correlationId = correlationIdOf(res);
    if (res.headersSent) {
      log.error({ correlationId, err }, 'error after the response was sent');
      return;
    }
    const problem = routerProblem(err);
    // The token services answer in RFC 6749's terms what is wrong with the request's parameters. A body too
    // large (or of too many fields) was never read: it is the standard 413, not a missing grant_type.
    const requestProblem = problem !== undefined && ['validation', 'malformed_json', 'unsupported_media_type'].includes(problem.kind);
    if (isTokenPath(requestPath(req)) && (err instanceof OAuthError || requestProblem)) {
      // A body that could not be read (not UTF-8) says so; one that was read is judged by its fields.
      const oauth = err instanceof OAuthError ? err
        : problem?.kind === 'malformed_json' ? new OAuthError('invalid_request', problem.message)
          : OAuthError.fromInvalidBody(req.body, problem?.problems ?? []);
      respondJson(req, res, oauth.status, oauth.toResponse(), { 'Cache-Control': 'no-store', Pragma: 'no-cache', ...oauth.headers });
      return;
    }
    const mapped = err instanceof ApiError || err instanceof WrongJsonTypeError ? err
      : problem ? problemToError(problem, { schema: requestBodySchema(req), body: req.body }) : undefined;
    if (problem?.kind === 'response_validation') {
      log.error({ correlationId, problems: problem.problems, message: problem.message }, 'response failed validation against the spec');
    }
    if (mapped instanceof WrongJsonTypeError) {
      respondJson(req, res, 400, mapped.toResponse(correlationId));
      return;
    }
    const error = mapped ?? new ApiError('internal_error');
    if (!mapped) log.error({ correlationId, err }, 'unhandled error');
    respondJson(req, res, error.status, error.toResponse(correlationId), error.context.headers ?? {});
  };
}
