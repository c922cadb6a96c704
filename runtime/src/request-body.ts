// Body reading and parsing: the media types the document's operations take (JSON, forms, text), read with
// Express's body parsers, refused when not UTF-8, and the exact texts of JSON numbers a double cannot hold.
import type { IncomingMessage, ServerResponse } from 'node:http';
import express from 'express';
import { bodyEncodingProblem, inexactNumbers, type NumberTexts } from './number-texts.ts';
import type { RouteDefinition } from './router-types.ts';

/** The most fields a form (urlencoded) body may have. */
export const FORM_PARAMETER_LIMIT = 1000;

/** The texts of a JSON body's numbers that JSON.parse reads inexactly (see number-texts.ts), by request. */
const bodyNumbers = new WeakMap<IncomingMessage, NumberTexts>();

/** The inexact number texts of a request's JSON body, once it has been read. */
export const bodyNumbersOf = (req: IncomingMessage): NumberTexts | undefined => bodyNumbers.get(req);

/** A body parser's error for bytes refused before parsing: a 400 the error classifier names. */
class BodyReadError extends Error {
  readonly status = 400;
  constructor(message: string, readonly type: 'entity.encoding.invalid' | 'entity.parse.failed') {
    super(message);
  }
}

/**
 * Requests whose body was sent empty. The JSON and form parsers make an empty body `{}`, which would satisfy a
 * required body of an object schema: it is no body at all (`undefined`), refused where the body is required.
 */
const emptyBodies = new WeakSet<IncomingMessage>();

/** Every body's bytes must be UTF-8 (what JSON and this API's forms are written in). */
function readBody(req: IncomingMessage, _res: ServerResponse, bytes: Buffer): void {
  if (bytes.length === 0) emptyBodies.add(req);
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

/** A request whose body the parsers have read (`body` is undefined when it had none they take). */
export type ParsedRequest = IncomingMessage & { body?: unknown };

/**
 * The body reader of a set of routes: a parser for each media type their operations take (JSON always), each
 * refusing a body over `limit`. It sets the parsed body on the request, or rejects with the parser's error.
 */
export function bodyReader(routes: readonly RouteDefinition[], limit: string): (req: ParsedRequest, res: ServerResponse) => Promise<void> {
  const mediaTypes = new Set(routes.flatMap((r) => r.requestContentTypes));
  const parsers: express.RequestHandler[] = [express.json({ limit, type: ['application/json', 'application/*+json'], verify: readJsonBody })];
  // More fields than FORM_PARAMETER_LIMIT is refused (413 parameters.too.many), never cut short.
  if (mediaTypes.has('application/x-www-form-urlencoded')) parsers.push(express.urlencoded({ limit, extended: false, parameterLimit: FORM_PARAMETER_LIMIT, verify: readBody }));
  if ([...mediaTypes].some((t) => t.startsWith('text/'))) parsers.push(express.text({ limit, type: 'text/*', verify: readBody }));
  return async (req, res) => {
    for (const parser of parsers) await run(parser, req, res);
    if (emptyBodies.has(req)) req.body = undefined;
  };
}
