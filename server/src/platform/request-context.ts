// Per-request values kept beside the response: the correlation id that ties a response to its log line.
import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';

const ids = new WeakMap<ServerResponse, string>();

/** Gives the request its correlation id, returned in X-Correlation-Id and written in its log line. */
export function correlate(res: ServerResponse): string {
  const id = randomUUID();
  ids.set(res, id);
  res.setHeader('X-Correlation-Id', id);
  return id;
}

/** `correlate` as a middleware. */
export function correlation(_req: IncomingMessage, res: ServerResponse, next: () => void): void {
  correlate(res);
  next();
}

export function correlationIdOf(res: ServerResponse): string {
  return ids.get(res) ?? randomUUID();
}
