// The source address of a request, as the throttle counts it: the socket's remote address, or the client named
// in X-Forwarded-For by proxies the operator trusts (PGW_TRUST_PROXY), bucketed so that one party has one
// bucket: an IPv4 address alone, an IPv6 address by its /64 (a host is given a whole /64 and can rotate inside it).
import type { IncomingMessage } from 'node:http';
import { BlockList, isIP } from 'node:net';

/** The dotted IPv4 address inside an IPv4-mapped IPv6 address (`::ffff:10.0.0.1`, `::ffff:a00:1`), else undefined. */
function mappedIpv4(address: string): string | undefined {
  const g = ipv6Groups(address);
  if (!g || g.slice(0, 5).some((group) => group !== 0) || g[5] !== 0xffff) return undefined;
  const [high = 0, low = 0] = g.slice(6);
  return [high >> 8, high & 0xff, low >> 8, low & 0xff].join('.');
}

/** The eight 16-bit groups of an IPv6 address (its zone, `%eth0`, dropped), or undefined when it is none. */
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

/** Express's (proxy-addr's) named ranges, which PGW_TRUST_PROXY accepts as Express's `trust proxy` does. */
const NAMED_RANGES: Record<string, [string, number, 'ipv4' | 'ipv6'][]> = {
  loopback: [['127.0.0.0', 8, 'ipv4'], ['::1', 128, 'ipv6']],
  linklocal: [['169.254.0.0', 16, 'ipv4'], ['fe80::', 10, 'ipv6']],
  uniquelocal: [['10.0.0.0', 8, 'ipv4'], ['172.16.0.0', 12, 'ipv4'], ['192.168.0.0', 16, 'ipv4'], ['fc00::', 7, 'ipv6']],
};

/** The prefix length of an IPv4 netmask (`255.255.0.0` -> 16). */
const maskBits = (mask: string): number => mask.split('.').reduce((bits, octet) => bits + Number(octet).toString(2).replace(/0/g, '').length, 0);

/**
 * The proxies PGW_TRUST_PROXY names (addresses, address/prefix, IPv4 address/netmask, or the named ranges
 * `loopback`, `linklocal`, `uniquelocal`), as a list `check` can test an address against.
 */
export function trustedProxyList(entries: readonly string[]): BlockList | undefined {
  if (entries.length === 0) return undefined;
  const list = new BlockList();
  for (const entry of entries) {
    const named = NAMED_RANGES[entry];
    if (named) {
      for (const [network, prefix, type] of named) list.addSubnet(network, prefix, type);
      continue;
    }
    const [address = '', range] = entry.split('/');
    const type = isIP(address) === 6 ? 'ipv6' : 'ipv4';
    if (range === undefined) list.addAddress(address, type);
    else list.addSubnet(address, isIP(range) === 4 ? maskBits(range) : Number(range), type);
  }
  return list;
}

/** Whether an address is one of the trusted proxies (an IPv4-mapped address is tested as IPv4). */
function trusted(list: BlockList, address: string): boolean {
  const plain = address.replace(/%.*$/, '');
  const v4 = isIP(plain) === 4 ? plain : mappedIpv4(plain);
  if (v4 !== undefined) return list.check(v4, 'ipv4');
  return isIP(plain) === 6 && list.check(plain, 'ipv6');
}

/**
 * The client's address: the socket's peer; when that peer is a trusted proxy, X-Forwarded-For is read from
 * its right end (the entry the nearest proxy added) leftwards, past every trusted proxy, to the first address
 * that is not one. Entries a client wrote itself are further left and never reached past an untrusted hop.
 */
export function clientAddress(req: IncomingMessage, proxies: BlockList | undefined): string | undefined {
  const peer = req.socket.remoteAddress;
  if (!proxies || peer === undefined || !trusted(proxies, peer)) return peer;
  const header = req.headers['x-forwarded-for'];
  const hops = (Array.isArray(header) ? header.join(',') : header ?? '').split(',').map((hop) => hop.trim()).filter((hop) => hop !== '');
  let address = peer;
  for (let i = hops.length - 1; i >= 0; i--) {
    const hop = hops[i] ?? '';
    // A malformed entry is no address: the last hop that gave one stands.
    if (isIP(hop.replace(/%.*$/, '')) === 0) break;
    address = hop;
    if (!trusted(proxies, hop)) break;
  }
  return address;
}
