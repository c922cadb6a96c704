// No page of the server may be framed (clickjacking): every response says so, in the two headers browsers
// read (X-Frame-Options for old ones, CSP frame-ancestors for the rest). A page that sets its own
// Content-Security-Policy keeps it; frame-ancestors 'none' is added to it when it has no frame-ancestors.
import type { ServerResponse } from 'node:http';

export const FRAME_ANCESTORS = "frame-ancestors 'none'";

/** The policy with frame-ancestors 'none' added, unless it already names its frame ancestors. */
export function withFrameAncestors(policy: string | undefined): string {
  if (policy === undefined || policy.trim() === '') return FRAME_ANCESTORS;
  if (/(^|;)\s*frame-ancestors(\s|;|$)/i.test(policy)) return policy;
  return `${policy.replace(/[\s;]+$/, '')}; ${FRAME_ANCESTORS}`;
}

/**
 * Makes `res` refuse framing whoever writes it (the generated router, Express, a page handler): the headers
 * are completed just before they are sent, when every writer has set its own (writeHead runs for an explicit
 * head and for the implicit one of the first write).
 */
export function refuseFraming(res: ServerResponse): void {
  res.setHeader('X-Frame-Options', 'DENY');
  const writeHead = res.writeHead.bind(res) as (...args: unknown[]) => ServerResponse;
  // Replaced on this response only; the arguments are passed on as they came (writeHead has several forms).
  res.writeHead = ((...args: unknown[]): ServerResponse => {
    if (!res.headersSent) {
      const current = res.getHeader('Content-Security-Policy');
      res.setHeader('Content-Security-Policy', withFrameAncestors(Array.isArray(current) ? current.join('; ') : current?.toString()));
      res.setHeader('X-Frame-Options', 'DENY');
    }
    return writeHead(...args);
  });
}
