// Where a webhook may send: production takes only https to public addresses (a host that is, or resolves
// to, a loopback, private, link-local, unique-local or metadata address is refused, and checked again at
// delivery time, so a DNS answer that changes later does not get through); the sandbox also takes http://
// to a loopback host, for a receiver on the developer's machine.
import { lookup } from 'node:dns/promises';
import { isIP } from 'node:net';
import type { Environment } from '../config.ts';

const LOOPBACK_NAMES = new Set(['localhost', 'localhost.']);

/** Whether an IP address (v4 or v6) is one a webhook may never reach in production. */
export function isNonPublicAddress(address: string): boolean {
  const v4mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  const ip = v4mapped?.[1] ?? address;
  if (isIP(ip) === 4) {
    const [a = 0, b = 0] = ip.split('.').map(Number);
    return a === 0 || a === 10 || a === 127 || (a === 100 && b >= 64 && b <= 127) || (a === 169 && b === 254)
      || (a === 172 && b >= 16 && b <= 31) || (a === 192 && b === 168) || (a === 198 && (b === 18 || b === 19)) || a >= 224;
  }
  const lower = ip.toLowerCase();
  return lower === '::' || lower === '::1' || lower.startsWith('fc') || lower.startsWith('fd') || /^fe[89ab]/.test(lower) || lower.startsWith('ff');
}

export const isLoopbackHost = (host: string): boolean => {
  const bare = host.replace(/^\[|\]$/g, '');
  if (LOOPBACK_NAMES.has(bare.toLowerCase())) return true;
  if (isIP(bare) === 4) return bare.startsWith('127.');
  return bare === '::1';
};

/** Why the URL may not receive webhooks in this environment (checked on create and update); undefined when it may. */
export function urlProblem(text: string, environment: Environment): string | undefined {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return 'is not a URL';
  }
  if (url.username !== '' || url.password !== '') return 'must not carry credentials';
  const host = url.hostname;
  if (url.protocol === 'https:') {
    if (environment === 'production' && (isLoopbackHost(host) || (isIP(host.replace(/^\[|\]$/g, '')) !== 0 && isNonPublicAddress(host.replace(/^\[|\]$/g, ''))))) {
      return 'must not point to a loopback, private or link-local address';
    }
    return undefined;
  }
  if (url.protocol === 'http:') {
    if (environment === 'sandbox' && isLoopbackHost(host)) return undefined;
    return environment === 'sandbox' ? 'must use https (the sandbox also accepts http:// to a loopback host)' : 'must use https';
  }
  return 'must use https';
}

/**
 * Whether the host may be reached now (production: every address it resolves to is public). The sandbox
 * reaches what its create rules admitted. Called before each delivery attempt.
 */
export async function reachable(text: string, environment: Environment): Promise<boolean> {
  if (environment === 'sandbox') return true;
  const host = new URL(text).hostname.replace(/^\[|\]$/g, '');
  const addresses = isIP(host) !== 0 ? [host] : (await lookup(host, { all: true })).map((a) => a.address);
  return addresses.length > 0 && !addresses.some(isNonPublicAddress);
}
