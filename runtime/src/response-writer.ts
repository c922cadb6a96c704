// Response writing: a handler's result sent as its media type says, and every JSON body sent for a validated
// request (the handler's, or an error handler's through `respondJson`) checked against the document first.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { sendBody, sendJson, sendStream, typeHeader } from './http-io.ts';
import type { OperationResult } from './router-types.ts';

/** Judges a JSON body about to be sent: true to send it; false when it was refused (and reported). */
export type ResponseCheck = (status: number, contentType: string | undefined, body: unknown) => boolean;

/** The response check armed for a request whose input was valid: the JSON body it is about to send is checked. */
const armed = new WeakMap<ServerResponse, ResponseCheck>();

/**
 * Arms the check of a response: the next JSON body sent with `respondJson` for it is judged by `check` first.
 * An error handler that writes its own bytes instead of calling `respondJson` is not checked.
 */
export function checkResponse(res: ServerResponse, check: ResponseCheck): void {
  armed.set(res, check);
}

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

/** Writes a handler's result: a JSON body through `respondJson` (checked when armed), other bodies as they are. */
export function writeResult(req: IncomingMessage, res: ServerResponse, result: OperationResult): void | Promise<void> {
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
