// Whether a browser's POST comes from a page of this server (the dashboard's and the invoice page's forms).
import type { Request } from 'express';

/**
 * True when the request's Origin (or, when a browser sends none, its Referer) is the public base URL's
 * origin or the one the request was addressed to. A page of another site cannot make a browser send either.
 * An opaque Origin (`null`: a sandboxed frame, a cross-site redirect) is not ours.
 */
export function sameOrigin(req: Request, baseUrl: string): boolean {
  const allowed = new Set([`${req.protocol}://${req.get('host') ?? ''}`]);
  try {
    allowed.add(new URL(baseUrl).origin);
  } catch {
    // A base URL that is not a URL adds nothing.
  }
  const origin = req.get('origin');
  if (origin !== undefined) return allowed.has(origin);
  const referer = req.get('referer');
  if (referer === undefined) return false;
  try {
    return allowed.has(new URL(referer).origin);
  } catch {
    return false;
  }
}
