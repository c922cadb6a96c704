// What went wrong with a request that got no HTTP answer, in words a CI log reader can act on: connection
// refused, a name that does not resolve, a time-out, a TLS failure (undici puts the cause on `error.cause`).

const CAUSES: [RegExp, string][] = [
  [/^ECONNREFUSED$/, 'connection refused (nothing listens there)'],
  [/^(ENOTFOUND|EAI_AGAIN|EAI_NONAME)$/, 'DNS lookup failed (the host name does not resolve)'],
  [/^(UND_ERR_CONNECT_TIMEOUT|UND_ERR_HEADERS_TIMEOUT|UND_ERR_BODY_TIMEOUT|ETIMEDOUT)$/, 'timed out'],
  [/^(ECONNRESET|UND_ERR_SOCKET|EPIPE)$/, 'the connection was reset'],
  [/^(ERR_TLS_|ERR_SSL_|CERT_|UNABLE_TO_|DEPTH_ZERO_|SELF_SIGNED_)/, 'TLS error'],
  [/^EHOSTUNREACH|ENETUNREACH$/, 'the host is unreachable'],
];

/** A short cause and the code behind it: `connection refused (ECONNREFUSED)`. */
export function describeNetworkError(error: unknown): string {
  if (error instanceof Error && (error.name === 'TimeoutError' || error.name === 'AbortError')) return 'timed out (no answer within the time-out)';
  const cause = error instanceof Error ? (error.cause as { code?: unknown; message?: unknown } | undefined) : undefined;
  const own = (error as { code?: unknown } | undefined)?.code;
  const code = typeof cause?.code === 'string' ? cause.code : typeof own === 'string' ? own : undefined;
  if (code !== undefined) {
    const known = CAUSES.find(([pattern]) => pattern.test(code));
    return `${known ? known[1] : 'network error'} (${code})`;
  }
  const message = error instanceof Error ? (typeof cause?.message === 'string' ? cause.message : error.message) : String(error);
  return `network error: ${message}`;
}
