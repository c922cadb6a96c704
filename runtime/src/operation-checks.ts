// Validation wiring: the document's validators compiled once per document, a matched request's input checked
// against its operation before the handler sees it, and the check of what is answered for it armed.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { pickHeaders, requestQuery } from './http-io.ts';
import { DocumentValidators, ValidationError } from './openapi-validation.ts';
import { bodyNumbersOf, type ParsedRequest } from './request-body.ts';
import { checkResponse } from './response-writer.ts';
import type { NextFunction, OperationInput, RouteDefinition } from './router-types.ts';

/** The compiled validators of each document, shared by every router built from it (tests build many). */
const compiled = new WeakMap<object, DocumentValidators>();

export function validatorsOf(apiSpec: object): DocumentValidators {
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

/**
 * The handler input of a matched request whose body has been read: its media type, path, query, headers and
 * body checked against the operation (query values coerced, defaults filled). Throws the ValidationError.
 */
export function checkedInput(validators: DocumentValidators, route: RouteDefinition, path: Record<string, string>, req: ParsedRequest): OperationInput {
  const request = validators.request(route.operationId, route);
  const mediaType = request.mediaType(typeof req.headers['content-type'] === 'string' ? req.headers['content-type'] : undefined);
  if (mediaType instanceof ValidationError) throw mediaType;
  const body = route.requestContentTypes.length > 0 ? req.body : undefined;
  const checked = request.validate({ params: path, query: requestQuery(req), headers: req.headers, body: req.body, bodyNumbers: bodyNumbersOf(req) }, mediaType);
  if (checked instanceof ValidationError) throw checked;
  return { path: checked.params, query: checked.query, headers: pickHeaders(req, route.headerParams), body };
}

/**
 * Every JSON body sent with `respondJson` for a valid request (the handler's, or the error handler's for what
 * the handler threw) is checked against the document: one that does not match becomes a 500, reported once
 * (the 500's own body is not checked again). Refusals before the handler (authentication, validation) are the
 * caller's to shape.
 */
export function armResponseCheck(validators: DocumentValidators, route: RouteDefinition, req: IncomingMessage, res: ServerResponse, next: NextFunction): void {
  checkResponse(res, (status, contentType, body) => {
    const problem = validators.response(route.operationId, route, status, contentType, req.headers.accept, body);
    if (problem === undefined) return true;
    next(problem);
    return false;
  });
}
