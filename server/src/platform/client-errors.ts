// Requests Node.js refuses before Express sees them: headers over the parser's limit answer 431 in the
// standard error body (Node's own answer is a bare status line), with the headers every response carries; a
// request that did not arrive whole in time (PGW_REQUEST_TIMEOUT_SECONDS) answers 408 and the connection closes.
import { randomUUID } from 'node:crypto';
import type { Server, ServerResponse } from 'node:http';
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
    if (err.code === 'ERR_HTTP_REQUEST_TIMEOUT') {
      // Headers or body still trickling in at the limit. Answered only when nothing of a response went out yet
      // (as Node does); the spec has no error code for it, so the status line says it, without a body.
      log.info({ code: err.code }, 'request refused: it did not arrive within the request timeout');
      const inFlight = (socket as Duplex & { _httpMessage?: ServerResponse | null })._httpMessage;
      if (inFlight?.headersSent) {
        socket.destroy();
        return;
      }
      // Closed once written: the sender may still be trickling, and the request it belongs to ends (aborted).
      socket.end(['HTTP/1.1 408 Request Timeout', 'Content-Length: 0', 'Cache-Control: no-store', `X-Correlation-Id: ${randomUUID()}`, 'Connection: close', '', ''].join('\r\n'), () => { socket.destroy(); });
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
