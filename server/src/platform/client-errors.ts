// Requests Node.js refuses before Express sees them: headers over the parser's limit answer 431 in the
// standard error body (Node's own answer is a bare status line), with the headers every response carries.
import { randomUUID } from 'node:crypto';
import type { Server } from 'node:http';
import type { Duplex } from 'node:stream';
import { ApiError } from './errors.ts';
import type { Logger } from './log.ts';

/** The raw HTTP/1.1 response for a refused request: the standard body, then the connection closes. */
function rawResponse(error: ApiError, reason: string): string {
  const correlationId = randomUUID();
  const body = JSON.stringify(error.toResponse(correlationId));
  return [
    `HTTP/1.1 ${String(error.status)} ${reason}`,
    'Content-Type: application/json; charset=utf-8',
    `Content-Length: ${String(Buffer.byteLength(body))}`,
    'Cache-Control: no-store',
    'X-Content-Type-Options: nosniff',
    `X-Correlation-Id: ${correlationId}`,
    'Connection: close',
    '',
    body,
  ].join('\r\n');
}

export function answerClientErrors(server: Server, log: Logger): void {
  server.on('clientError', (err: NodeJS.ErrnoException, socket: Duplex) => {
    if (!socket.writable || err.code === 'ECONNRESET') {
      socket.destroy();
      return;
    }
    if (err.code === 'HPE_HEADER_OVERFLOW') {
      log.info({ code: err.code }, 'request refused: headers too large');
      socket.end(rawResponse(new ApiError('headers_too_large'), 'Request Header Fields Too Large'));
      return;
    }
    // Anything else the parser refuses gets Node's own answer.
    socket.end('HTTP/1.1 400 Bad Request\r\nConnection: close\r\n\r\n');
  });
}
