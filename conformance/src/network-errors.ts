// What went wrong with a request that got no HTTP answer, in words a CI log reader can act on: connection
// refused, a name that does not resolve, a time-out, a TLS failure (undici puts the cause on `error.cause`).

const UNTRUSTED = 'the certificate is not trusted (a private CA: NODE_EXTRA_CA_CERTS=ca.pem)';
const CAUSES: [RegExp, string][] = [
  [/^ECONNREFUSED$/, 'connection refused (nothing listens there)'],
  [/^(ENOTFOUND|EAI_AGAIN|EAI_NONAME|EAI_NODATA|EAI_FAIL)$/, 'DNS lookup failed (the host name does not resolve)'],
  [/^(UND_ERR_CONNECT_TIMEOUT|UND_ERR_HEADERS_TIMEOUT|UND_ERR_BODY_TIMEOUT|ETIMEDOUT)$/, 'timed out'],
  [/^(ECONNRESET|UND_ERR_SOCKET|EPIPE)$/, 'the connection was reset'],
  [/^(DEPTH_ZERO_SELF_SIGNED_CERT|SELF_SIGNED_CERT_IN_CHAIN|UNABLE_TO_VERIFY_LEAF_SIGNATURE|UNABLE_TO_GET_ISSUER_CERT_LOCALLY)$/, `TLS error: ${UNTRUSTED}`],
  [/^CERT_HAS_EXPIRED$/, 'TLS error: the certificate has expired'],
  [/^ERR_TLS_CERT_ALTNAME_INVALID$/, 'TLS error: the certificate is not for this host name'],
  [/^ERR_SSL_WRONG_VERSION_NUMBER$/, 'TLS error: no TLS there (is it http:// rather than https://?)'],
  [/^(ERR_TLS_|ERR_SSL_|CERT_|UNABLE_TO_|EPROTO$)/, 'TLS error'],
  [/^(EHOSTUNREACH|ENETUNREACH)$/, 'the host is unreachable'],
];

/** A short cause and the code behind it: `connection refused (nothing listens there) (ECONNREFUSED)`. */
export function describeNetworkError(error: unknown, timeoutMs?: number): string {
  if (error instanceof Error && (error.name === 'TimeoutError' || error.name === 'AbortError')) {
    return `timed out (no answer within ${timeoutMs === undefined ? 'the time-out' : `${String(timeoutMs)} ms, --timeout`})`;
  }
  const cause = error instanceof Error ? (error.cause as { code?: unknown; message?: unknown } | undefined) : undefined;
  const own = (error as { code?: unknown } | undefined)?.code;
  const given = typeof cause?.code === 'string' ? cause.code : typeof own === 'string' ? own : undefined;
  // node:https says EPROTO for every TLS failure of the handshake; OpenSSL's reason names this one.
  const code = given === 'EPROTO' && error instanceof Error && /wrong version number/.test(error.message) ? 'ERR_SSL_WRONG_VERSION_NUMBER' : given;
  if (code !== undefined) {
    const known = CAUSES.find(([pattern]) => pattern.test(code));
    return `${known ? known[1] : 'network error'} (${code})`;
  }
  const message = error instanceof Error ? (typeof cause?.message === 'string' ? cause.message : error.message) : String(error);
  return `network error: ${message}`;
}
