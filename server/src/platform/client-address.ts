// The source address of a request, as the throttle counts it: the socket's remote address, or the client named
// in X-Forwarded-For by proxies the operator trusts (PGW_TRUST_PROXY), bucketed so that one party has one
// bucket: an IPv4 address alone, an IPv6 address by its /64 (a host is given a whole /64 and can rotate inside it).
import type { IncomingMessage } from 'node:http';
import { isIP } from 'node:net';
import proxyaddr from 'proxy-addr';

/** The dotted IPv4 address inside an IPv4-mapped IPv6 address (`::ffff:10.0.0.1`, `::ffff:a00:1`), else undefined. */
function mappedIpv4(address: string): string | undefined {
  const g = ipv6Groups(address);
  if (!g || g.slice(0, 5).some((group) => group !== 0) || g[5] !== 0xffff) return undefined;
  const [high = 0, low = 0] = g.slice(6);
  return [high >> 8, high & 0xff, low >> 8, low & 0xff].join('.');
}

/**
 * The eight 16-bit groups of an IPv6 address (its zone, `%eth0`, dropped), or undefined when it is none. Not
 * ipaddr.js: its 1.x (the one Express brings) throws on a dotted tail outside ::ffff: (`2001:db8::1.2.3.4`), which
 * Node accepts as a client address.
 */
export function ipv6Groups(text: string): number[] | undefined {
  const address = text.replace(/%.*$/, '');
  if (isIP(address) !== 6) return undefined;
  // A trailing dotted IPv4 part is two groups.
  const dotted = /(\d{1,3}(?:\.\d{1,3}){3})$/.exec(address);
  let hex = address;
  if (dotted?.[1]) {
    const [a = 0, b = 0, c = 0, d = 0] = dotted[1].split('.').map(Number);
    hex = `${address.slice(0, -dotted[1].length)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head = '', tail] = hex.split('::');
  const parse = (part: string): number[] => (part === '' ? [] : part.split(':').map((g) => parseInt(g, 16)));
  const front = parse(head);
  const back = tail === undefined ? [] : parse(tail);
  const zeros = tail === undefined ? 0 : 8 - front.length - back.length;
  return [...front, ...Array<number>(zeros).fill(0), ...back];
}

/**
 * The throttle's bucket of an address: `v4:<address>` or `v6:<first four groups>::/64`; an IPv4-mapped IPv6
 * address is its IPv4 address (a dual-stack socket reports IPv4 clients so). Anything else is kept as given.
 */
export function addressBucket(address: string | undefined): string {
  if (address === undefined || address === '') return 'unknown';
  const trimmed = address.trim();
  const v4 = isIP(trimmed) === 4 ? trimmed : mappedIpv4(trimmed);
  if (v4 !== undefined) return `v4:${v4}`;
  const groups = ipv6Groups(trimmed);
  if (groups) return `v6:${groups.slice(0, 4).map((g) => g.toString(16)).join(':')}::/64`;
  return `other:${trimmed.toLowerCase()}`;
}

/** Which peers are trusted proxies: proxy-addr's compiled test, the one Express's `trust proxy` also runs. */
export type ProxyTrust = (address: string, hop: number) => boolean;

/**
 * The proxies PGW_TRUST_PROXY names (addresses, address/prefix, IPv4 address/netmask, or the named ranges
 * `loopback`, `linklocal`, `uniquelocal`), compiled once by proxy-addr, so that the throttle's reading of
 * X-Forwarded-For and Express's (X-Forwarded-Proto for the Secure cookie) are the same reading.
 */
export function trustedProxyList(entries: readonly string[]): ProxyTrust | undefined {
  return entries.length === 0 ? undefined : proxyaddr.compile([...entries]);
}

/**
 * The client's address: the socket's peer; when that peer is a trusted proxy, X-Forwarded-For is read from
 * its right end (the entry the nearest proxy added) leftwards, past every trusted proxy, to the first address
 * that is not one (proxy-addr, as Express's req.ip). Entries a client wrote itself are further left and never
 * reached past an untrusted hop.
 */
export function clientAddress(req: IncomingMessage, proxies: ProxyTrust | undefined): string | undefined {
  const peer = req.socket.remoteAddress;
  if (!proxies || peer === undefined) return peer;
  // [peer, ...hops right to left] up to and including the first untrusted one; a malformed hop ends the walk
  // and does not count: the last address before it stands.
  const walk = proxyaddr.all(req, proxies);
  const malformed = walk.findIndex((hop) => isIP(hop.replace(/%.*$/, '')) === 0);
  return (malformed === -1 ? walk.at(-1) : walk[malformed - 1]) ?? peer;
}
