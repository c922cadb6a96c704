// The suite's requests over node:http(s) with kept-alive connections. A run sends some 5,000 requests: through
// fetch each cost the suite about three times the CPU time (and twice the wall time) it costs here, more than the
// bundled server spent answering. The answer is what fetch would give the checks: lower-case headers with repeated
// ones joined, the body decoded as UTF-8 (a BOM dropped), a time-out error named TimeoutError, no redirect followed.
import { Agent as HttpAgent, request as httpRequest, type IncomingMessage } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';

export interface TransportRequest {
  method: string;
  url: string;
  headers: Record<string, string>;
  body?: string | Uint8Array;
  timeoutMs: number;
}

export interface TransportResponse {
  status: number;
  headers: Record<string, string>;
  text: string;
}

/** Idle connections are kept for the next request (the server's Keep-Alive hint shortens how long). */
const agents = { 'http:': new HttpAgent({ keepAlive: true }), 'https:': new HttpsAgent({ keepAlive: true }) };

/** How long an event stream is read for its first message. */
const EVENT_STREAM_MS = 3000;

class TimeoutError extends Error {
  override name = 'TimeoutError';
}

function headersOf(res: IncomingMessage): Record<string, string> {
  const headers: Record<string, string> = {};
  for (let i = 0; i + 1 < res.rawHeaders.length; i += 2) {
    const name = (res.rawHeaders[i] ?? '').toLowerCase();
    const value = res.rawHeaders[i + 1] ?? '';
    headers[name] = name in headers ? `${headers[name] ?? ''}, ${value}` : value;
  }
  return headers;
}

/** A failure before any answer on a connection kept from an earlier request: safe to send again. */
class StaleConnection extends Error {}

function once(request: TransportRequest, url: URL): Promise<TransportResponse> {
  return new Promise((resolve, reject) => {
    const send = url.protocol === 'https:' ? httpsRequest : httpRequest;
    const body = request.body === undefined ? undefined : typeof request.body === 'string' ? Buffer.from(request.body, 'utf8') : request.body;
    const req = send(url, {
      method: request.method, agent: url.protocol === 'https:' ? agents['https:'] : agents['http:'],
      headers: { ...request.headers, ...(body === undefined ? {} : { 'content-length': String(body.length) }) },
    });
    // The whole exchange, the body included, within the time-out (as AbortSignal.timeout bounded the fetch).
    const timer = setTimeout(() => { req.destroy(new TimeoutError('The operation was aborted due to timeout')); }, request.timeoutMs);
    let answered = false;
    const fail = (error: Error): void => { clearTimeout(timer); reject(error); };
    req.on('error', (error: Error & { code?: unknown }) => {
      fail(!answered && req.reusedSocket && error.code === 'ECONNRESET' ? new StaleConnection(error.message, { cause: error }) : error);
    });
    req.on('response', (res) => {
      answered = true;
      const headers = headersOf(res);
      const chunks: Buffer[] = [];
      const decoded = (): string => new TextDecoder().decode(Buffer.concat(chunks));
      const done = (): void => { clearTimeout(timer); resolve({ status: res.statusCode ?? 0, headers, text: decoded() }); };
      res.on('error', fail);
      // An event stream never ends: its first message (or what came in the first seconds) stands for the body.
      if (/^text\/event-stream/.test(headers['content-type'] ?? '')) {
        const cut = setTimeout(() => { done(); res.destroy(); }, EVENT_STREAM_MS);
        res.on('data', (chunk: Buffer) => {
          chunks.push(chunk);
          if (!decoded().includes('\n\n')) return;
          clearTimeout(cut);
          done();
          res.destroy();
        });
        res.on('end', () => { clearTimeout(cut); done(); });
        return;
      }
      res.on('data', (chunk: Buffer) => { chunks.push(chunk); });
      res.on('end', done);
    });
    req.end(body);
  });
}

/** Sends one request and reads its answer; a network failure or time-out rejects (describeNetworkError names it). */
export async function send(request: TransportRequest): Promise<TransportResponse> {
  const url = new URL(request.url);
  if ((request.method === 'GET' || request.method === 'HEAD') && request.body !== undefined) {
    // What fetch refuses, refused alike: no such request is sent.
    throw new TypeError('Request with GET/HEAD method cannot have body.');
  }
  // A kept-alive connection the server closed as it was reused: the request never reached it, and is sent again
  // (what Node's documentation advises; fetch does the same). Again and again: a suite busy for longer than the
  // server keeps idle connections (a long-lived run's snapshots) finds every one in the pool closed, not only the
  // first. Each that failed is gone from the pool, so the tries end, on a new connection at the latest.
  for (;;) {
    try {
      return await once(request, url);
    } catch (error) {
      if (!(error instanceof StaleConnection)) throw error;
    }
  }
}

export interface OpenStream {
  status: number;
  headers: Record<string, string>;
  /** The body as it arrives, decoded as UTF-8. */
  text: AsyncIterable<string>;
  /** Stops reading: the connection is closed (a stream is never kept for another request). */
  close(): void;
}

/**
 * A response read as it arrives (an event stream, kept open until `close`): resolves when its headers came,
 * rejects when none came within the time-out. Its own connection, so that a stream never holds a kept one.
 */
export function openStream(request: Omit<TransportRequest, 'body'>): Promise<OpenStream> {
  const url = new URL(request.url);
  return new Promise((resolve, reject) => {
    const send = url.protocol === 'https:' ? httpsRequest : httpRequest;
    const req = send(url, { method: request.method, headers: request.headers, agent: false });
    const timer = setTimeout(() => { req.destroy(new TimeoutError('The operation was aborted due to timeout')); }, request.timeoutMs);
    req.on('error', (error) => { clearTimeout(timer); reject(error); });
    req.on('response', (res) => {
      clearTimeout(timer);
      res.setEncoding('utf8');
      // A reset after the headers ends the reading; what came is what the reader judges.
      res.on('error', () => undefined);
      resolve({ status: res.statusCode ?? 0, headers: headersOf(res), text: res, close: () => { req.destroy(); } });
    });
    req.end();
  });
}
