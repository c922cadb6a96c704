// The source address of a request, as the throttle counts it: the socket's remote address, or the client named
// in X-Forwarded-For by proxies the operator trusts (PGW_TRUST_PROXY; a malformed client entry there is refused
// with 400, never merged into another bucket), bucketed so that one party has one bucket: an IPv4 address alone,
// an IPv6 address by its /64 (a host is given a whole /64 and can rotate inside it).
import type { IncomingMessage } from 'node:http';
import { isIP } from 'node:net';
import proxyaddr from 'proxy-addr';
import { ApiError } from './errors.ts';

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
  if (entries.length === 0) return undefined;
  const trusted = proxyaddr.compile([...entries]);
  // Only an address in Node's strict spelling is a trusted hop: proxy-addr (ipaddr.js 1.x) also reads the
  // inet_aton forms (`0x7f.0.0.1`, `0177.0.0.1`, `2130706433`), which no proxy writes, as addresses it trusts.
  return (address, hop) => isIP(address) !== 0 && trusted(address, hop);
}

/** At most this much of a refused X-Forwarded-For entry is quoted back (it is the sender's own text). */
const QUOTED = 64;

/**
 * The address a forwarded entry names, in the spellings proxies write: an IP address (an IPv6 zone id kept),
 * an IPv4 address with a port (`203.0.113.9:4711`, Azure's gateways), an IPv6 address in brackets with or
 * without a port (`[2001:db8::1]:4711`, RFC 7239's form); anything else (`unknown`, `_hidden`, `1.2.3`,
 * `0x7f.1`, a name, a port alone) is undefined.
 */
export function forwardedAddress(entry: string): string | undefined {
  // Node's test: dotted quads without leading zeros, IPv6 in any RFC 4291 spelling (a zone id only on IPv6).
  if (isIP(entry) !== 0) return entry;
  const v4 = /^(\d{1,3}(?:\.\d{1,3}){3}):\d{1,5}$/.exec(entry)?.[1];
  if (v4 !== undefined && isIP(v4) === 4) return v4;
  const v6 = /^\[([^\]]+)\](?::\d{1,5})?$/.exec(entry)?.[1];
  if (v6 !== undefined && isIP(v6) === 6) return v6;
  return undefined;
}

/**
 * The client's address: the socket's peer; when that peer is a trusted proxy, X-Forwarded-For is read from
 * its right end (the entry the nearest proxy added) leftwards, past every trusted proxy, to the first address
 * that is not one (proxy-addr, as Express's req.ip). Entries a client wrote itself are further left and never
 * reached past an untrusted hop.
 *
 * A malformed entry where the client's address should be is refused: 400 `validation_failed` naming the
 * X-Forwarded-For header. It is never counted as some other address (it once counted as the proxy's own, which
 * merged every such client, and the proxy's health checks, into one throttle bucket), nor counted per value
 * (`unknown` from many clients would still be one bucket, and a client writing its own entries would choose a
 * fresh bucket at will). Only a trusted hop puts such an entry there: a proxy that hides or garbles the address,
 * or a client inside a trusted range writing the header itself; both are configuration to fix, said loudly.
 */
export function clientAddress(req: IncomingMessage, proxies: ProxyTrust | undefined): string | undefined {
  const peer = req.socket.remoteAddress;
  if (!proxies || peer === undefined) return peer;
  // [peer, ...hops right to left] up to and including the first untrusted one: a malformed entry is never
  // trusted, so it can only be the last, the client's.
  const walk = proxyaddr.all(req, proxies);
  const named = walk.at(-1) ?? peer;
  const address = forwardedAddress(named);
  if (address === undefined) {
    const quoted = named.length > QUOTED ? `${named.slice(0, QUOTED)}…` : named;
    throw new ApiError('validation_failed', {
      details: 'X-Forwarded-For, read through the trusted proxies (PGW_TRUST_PROXY), names no client address.',
      errors: { 'X-Forwarded-For': [`${JSON.stringify(quoted)} is not an IP address (an address, address:port or [IPv6]:port)`] },
    });
  }
  return address;
}
