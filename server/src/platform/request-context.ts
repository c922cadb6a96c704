// Per-request values kept on the response: the correlation id that ties a response to its log line.
import { randomUUID } from 'node:crypto';
import type { NextFunction, Request, Response } from 'express';

const CORRELATION = 'correlationId';

/** Gives every request a correlation id, returned in X-Correlation-Id and written in its log line. */
export function correlation(req: Request, res: Response, next: NextFunction): void {
  const id = randomUUID();
  res.locals[CORRELATION] = id;
  res.setHeader('X-Correlation-Id', id);
  next();
}

export function correlationIdOf(res: Response): string {
  const id: unknown = res.locals[CORRELATION];
  return typeof id === 'string' ? id : randomUUID();
}
