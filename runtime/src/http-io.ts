// The router's HTTP reading and writing on Node's own request and response: the path and query as Express 5
// reads them (`req.path`, the 'simple' query parser), and bodies sent with the headers Express's `res.json`
// and `res.send` give them. The router works the same mounted in Express or called straight from a Node
// server, where it skips Express's per-request work (about 95 us a request: an Express hello-world answers
// ~8,600 requests a second on a machine where Node's own answers ~50,000).
import type { IncomingMessage, ServerResponse } from 'node:http';
import { parse as parseQuery, type ParsedUrlQuery } from 'node:querystring';

/** The request target's path and query string (without `?`), split as Express (parseurl) splits it. */
function target(req: IncomingMessage): { path: string; search: string } {
  const url = req.url ?? '/';
  // The common origin-form target, split as it is; anything else (absolute form, a fragment, white space) is
  // parsed as a URL.
  if (url.charCodeAt(0) === 0x2f && !/[\s#]/.test(url)) {
    const mark = url.indexOf('?');
    return mark < 0 ? { path: url, search: '' } : { path: url.slice(0, mark), search: url.slice(mark + 1) };
  }
  const parsed = new URL(url, 'http://localhost');
  return { path: parsed.pathname, search: parsed.search.slice(1) };
}

/** The request's path, as Express's `req.path`. */
export const requestPath = (req: IncomingMessage): string => target(req).path;

/** The request's query, as Express 5's `req.query` ('simple': Node's querystring). */
export const requestQuery = (req: IncomingMessage): ParsedUrlQuery => parseQuery(target(req).search);

/** `type` with `charset=utf-8` among its parameters (sorted, type in lower case), as Express sets a text body's. */
export function withUtf8Charset(type: string): string {
  const [bare = '', ...rest] = type.split(';');
  const parameters = new Map<string, string>();
  for (const part of rest) {
    const at = part.indexOf('=');
    if (at > 0) parameters.set(part.slice(0, at).trim().toLowerCase(), part.slice(at + 1).trim());
  }
  parameters.set('charset', 'utf-8');
  return [bare.trim().toLowerCase(), ...[...parameters.keys()].sort().map((name) => `${name}=${parameters.get(name) ?? ''}`)].join('; ');
}

/**
 * Ends the response with `body` as Express's `res.send` does: Content-Type (with charset for text), Content-Length,
 * no body for HEAD, and neither for 204 and 304.
 */
export function sendBody(req: IncomingMessage, res: ServerResponse, status: number, body: string | Buffer): void {
  res.statusCode = status;
  if (status === 204 || status === 304) {
    res.removeHeader('Content-Type');
    res.removeHeader('Content-Length');
    res.removeHeader('Transfer-Encoding');
    res.end();
    return;
  }
  const type = res.getHeader('Content-Type');
  if (typeof body === 'string') {
    res.setHeader('Content-Type', withUtf8Charset(typeof type === 'string' ? type : 'text/html'));
  } else if (type === undefined) {
    res.setHeader('Content-Type', 'application/octet-stream');
  }
  res.setHeader('Content-Length', typeof body === 'string' ? Buffer.byteLength(body) : body.length);
  if (req.method === 'HEAD') res.end();
  else res.end(body);
}

/** Sends a JSON body as Express's `res.json` does (`application/json` unless a Content-Type is set). */
export function sendJson(req: IncomingMessage, res: ServerResponse, status: number, body: unknown): void {
  if (res.getHeader('Content-Type') === undefined) res.setHeader('Content-Type', 'application/json');
  // JSON.stringify gives undefined for undefined (and a function): Express sends an empty body then.
  const text = JSON.stringify(body) as string | undefined;
  sendBody(req, res, status, text ?? '');
}

/** A Content-Type as Express's `res.type` sets it: a text or JSON type without a charset gets `charset=utf-8`. */
export function typeHeader(type: string): string {
  if (/;\s*charset=/i.test(type)) return type;
  const bare = (type.split(';')[0] ?? '').trim().toLowerCase();
  return bare.startsWith('text/') || bare === 'application/json' || bare === 'application/javascript' ? `${type}; charset=utf-8` : type;
}

/** The named request headers (lower-case names), each as one string. */
export function pickHeaders(req: IncomingMessage, names: readonly string[]): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const name of names) {
    const value = req.headers[name];
    if (typeof value === 'string') headers[name] = value;
    else if (Array.isArray(value)) headers[name] = value.join(', ');
  }
  return headers;
}

/** Writes a streamed body chunk by chunk, waiting for the socket to drain, and ends the response. */
export async function sendStream(res: ServerResponse, stream: AsyncIterable<string>): Promise<void> {
  for await (const chunk of stream) {
    // Respect back-pressure: wait for the socket to drain before producing more.
    if (!res.write(chunk)) await new Promise((resolve) => res.once('drain', resolve));
  }
  res.end();
}
