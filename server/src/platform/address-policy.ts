// The one policy of which IP addresses the server's outbound requests (webhook pings and deliveries) may
// reach: every address is judged by the address it means (an IPv4-mapped, IPv4-compatible, NAT64 or 6to4
// IPv6 address as its embedded IPv4 address), by the most specific special-purpose range it falls in.
// Production reaches only public addresses; a sandbox also reaches loopback and private ones when allowed
// (listening on loopback, or PGW_WEBHOOK_ALLOW_PRIVATE=1), and any network its operator lists.
import ipaddr from 'ipaddr.js';

/** The kinds of address the policy tells apart. */
export type AddressRange =
  | 'public' | 'loopback' | 'private' | 'linkLocal' | 'metadata' | 'unspecified' | 'multicast' | 'broadcast'
  | 'reserved' | 'benchmarking' | 'documentation';

type Ip = ipaddr.IPv4 | ipaddr.IPv6;

/** Where an IPv6 prefix carries an IPv4 address: its last 32 bits, or (6to4) bits 16 to 47. */
type Embedding = 'last32' | 'sixToFour';

interface Row { network: [Ip, number]; range: AddressRange; description: string; embeds?: Embedding }

const row = (cidr: string, range: AddressRange, description: string, embeds?: Embedding): Row =>
  ({ network: ipaddr.parseCIDR(cidr), range, description, ...(embeds ? { embeds } : {}) });

// IANA's special-purpose registries (RFC 6890 and successors), plus the cloud metadata services. The most
// specific row that matches wins, so a metadata address inside a link-local or shared range is named as such.
const IPV4: readonly Row[] = [
  row('0.0.0.0/8', 'unspecified', 'an unspecified ("this network") address'),
  row('10.0.0.0/8', 'private', 'a private (RFC 1918) address'),
  row('100.64.0.0/10', 'private', 'a shared (carrier-grade NAT) address'),
  row('100.100.100.200/32', 'metadata', 'a cloud metadata address'),
  row('127.0.0.0/8', 'loopback', 'a loopback address'),
  row('169.254.0.0/16', 'linkLocal', 'a link-local address'),
  row('169.254.169.254/32', 'metadata', 'a cloud metadata address'),
  // Azure's host endpoint: a public-looking address that only answers inside Azure, for the VM's agent.
  row('168.63.129.16/32', 'metadata', 'a cloud metadata address'),
  row('172.16.0.0/12', 'private', 'a private (RFC 1918) address'),
  row('192.0.0.0/24', 'reserved', 'a reserved (IETF protocol) address'),
  row('192.0.2.0/24', 'documentation', 'a documentation address'),
  row('192.88.99.0/24', 'reserved', 'a reserved (6to4 relay) address'),
  row('192.168.0.0/16', 'private', 'a private (RFC 1918) address'),
  row('198.18.0.0/15', 'benchmarking', 'a benchmarking address'),
  row('198.51.100.0/24', 'documentation', 'a documentation address'),
  row('203.0.113.0/24', 'documentation', 'a documentation address'),
  row('224.0.0.0/4', 'multicast', 'a multicast address'),
  row('240.0.0.0/4', 'reserved', 'a reserved address'),
  row('255.255.255.255/32', 'broadcast', 'the broadcast address'),
];

const IPV6: readonly Row[] = [
  row('::/128', 'unspecified', 'the unspecified address'),
  row('::1/128', 'loopback', 'a loopback address'),
  row('::/96', 'reserved', 'an IPv4-compatible address', 'last32'),
  row('::ffff:0:0/96', 'reserved', 'an IPv4-mapped address', 'last32'),
  row('::ffff:0:0:0/96', 'reserved', 'an IPv4-translated address', 'last32'),
  row('64:ff9b::/96', 'reserved', 'a NAT64 address', 'last32'),
  row('64:ff9b:1::/48', 'private', 'a local-use NAT64 address'),
  row('100::/64', 'reserved', 'a discard-only address'),
  row('2001::/23', 'reserved', 'a reserved (IETF protocol) address'),
  row('2001::/32', 'reserved', 'a Teredo tunnel address'),
  row('2001:2::/48', 'benchmarking', 'a benchmarking address'),
  row('2001:db8::/32', 'documentation', 'a documentation address'),
  row('2002::/16', 'reserved', 'a 6to4 address', 'sixToFour'),
  row('3fff::/20', 'documentation', 'a documentation address'),
  row('fc00::/7', 'private', 'a unique-local address'),
  row('fd00:ec2::254/128', 'metadata', 'a cloud metadata address'),
  row('fe80::/10', 'linkLocal', 'a link-local address'),
  row('fec0::/10', 'private', 'a site-local address'),
  row('ff00::/8', 'multicast', 'a multicast address'),
];

/** Only 2000::/3 is allocated for global unicast; anything else not named above is reserved. */
const GLOBAL_UNICAST = ipaddr.parseCIDR('2000::/3');

/** What an address is: its range, a phrase for messages, and the address it means (the embedded IPv4 one, if any). */
export interface Classification {
  readonly range: AddressRange;
  readonly description: string;
  /** The address as judged: an embedded IPv4 address, or the address itself (canonical text). */
  readonly effective: string;
}

/** The address an IP literal means (strict: a canonical dotted quad, or IPv6), or undefined for anything else. */
export function parseAddress(text: string): Ip | undefined {
  const bare = text.replace(/^\[(.*)\]$/, '$1');
  // ipaddr.js also takes the old inet_aton spellings (0x7f.1, 0177.0.0.1): those reach here only already
  // normalised by the URL parser, so anything but four decimal parts or IPv6 is not an address we judge.
  if (ipaddr.IPv4.isValidFourPartDecimal(bare)) return ipaddr.IPv4.parse(bare);
  if (!bare.includes('%') && ipaddr.IPv6.isValid(bare)) return ipaddr.IPv6.parse(bare);
  return undefined;
}

/** Canonical text: dotted quad, or RFC 5952 IPv6 (ipaddr.js has the method; its type declarations lack it). */
const textOf = (ip: Ip): string => (ip.kind() === 'ipv4' ? ip.toString() : (ip as ipaddr.IPv6 & { toRFC5952String(): string }).toRFC5952String());

/** Whether an address is in a network (of its own family). */
function within(ip: Ip, [base, bits]: [Ip, number]): boolean {
  if (ip.kind() !== base.kind()) return false;
  return ip.kind() === 'ipv4' ? (ip as ipaddr.IPv4).match(base as ipaddr.IPv4, bits) : (ip as ipaddr.IPv6).match(base as ipaddr.IPv6, bits);
}

/** The first address of the network of `prefix` bits that holds `ip`. */
function networkOf(ip: Ip, prefix: number): Ip {
  const bytes = ip.toByteArray().map((byte, i) => {
    const kept = Math.min(8, Math.max(0, prefix - i * 8));
    return byte & (0xff << (8 - kept)) & 0xff;
  });
  return ipaddr.fromByteArray(bytes);
}

function mostSpecific(ip: Ip, rows: readonly Row[]): Row | undefined {
  let best: Row | undefined;
  for (const r of rows) {
    if (!within(ip, r.network)) continue;
    if (!best || r.network[1] > best.network[1]) best = r;
  }
  return best;
}

function embedded(ip: ipaddr.IPv6, how: Embedding): ipaddr.IPv4 {
  const [a = 0, b = 0] = how === 'last32' ? ip.parts.slice(6) : ip.parts.slice(1, 3);
  return new ipaddr.IPv4([a >> 8, a & 0xff, b >> 8, b & 0xff]);
}

function classifyIp(ip: Ip): Classification {
  if (ip.kind() === 'ipv4') {
    const found = mostSpecific(ip, IPV4);
    return { range: found?.range ?? 'public', description: found?.description ?? 'a public address', effective: ip.toString() };
  }
  const v6 = ip as ipaddr.IPv6;
  const found = mostSpecific(v6, IPV6);
  if (found?.embeds) {
    const inner = classifyIp(embedded(v6, found.embeds));
    return { ...inner, description: `${found.description} of ${inner.effective}, ${inner.description}` };
  }
  if (found) return { range: found.range, description: found.description, effective: textOf(v6) };
  if (!within(v6, GLOBAL_UNICAST)) return { range: 'reserved', description: 'a reserved address', effective: textOf(v6) };
  return { range: 'public', description: 'a public address', effective: textOf(v6) };
}

/** The range of an IP literal (brackets allowed); undefined when the text is not one. */
export function classify(address: string): Classification | undefined {
  const ip = parseAddress(address);
  return ip ? classifyIp(ip) : undefined;
}

/** What a server may reach besides public addresses. Production: nothing (`PRODUCTION_POLICY`). */
export interface AddressPolicy {
  /** Loopback and private (RFC 1918, shared, unique-local) addresses too. */
  readonly allowLocal: boolean;
  /** Networks reachable whatever their range, matched against the address meant (CIDR text). */
  readonly allowNetworks: readonly string[];
}

export const PRODUCTION_POLICY: AddressPolicy = { allowLocal: false, allowNetworks: [] };

/** The verdict on one address: whether it may be reached, and what it is. */
export interface Verdict extends Classification {
  readonly allowed: boolean;
}

/** Judges one address (an IP literal, as a resolver or a URL gives it) under a policy. Not an address: refused. */
export function judge(address: string, policy: AddressPolicy): Verdict {
  const found = classify(address);
  if (!found) return { allowed: false, range: 'reserved', description: 'not an IP address', effective: address };
  if (found.range === 'public') return { ...found, allowed: true };
  if (policy.allowLocal && (found.range === 'loopback' || found.range === 'private')) return { ...found, allowed: true };
  const ip = parseAddress(found.effective);
  const listed = ip !== undefined && policy.allowNetworks.some((cidr) => within(ip, ipaddr.parseCIDR(cidr)));
  return { ...found, allowed: listed };
}

/**
 * Parses an allow-list (`10.0.0.0/8, 192.168.1.0/24, fd00::/8`; a bare address is a network of one): the
 * networks as canonical CIDR text, or the first entry's problem. A network written with host bits set
 * (`10.1.2.3/8`) is refused, as it is usually a mistake.
 */
export function parseNetworks(text: string): { networks: string[] } | { problem: string } {
  const networks: string[] = [];
  for (const entry of text.split(',').map((e) => e.trim()).filter((e) => e !== '')) {
    const [addressText = '', bits, extra] = entry.split('/');
    const ip = parseAddress(addressText);
    const max = ip?.kind() === 'ipv4' ? 32 : 128;
    const prefix = bits === undefined ? max : /^\d{1,3}$/.test(bits) ? Number(bits) : NaN;
    if (!ip || extra !== undefined || !(prefix >= 0 && prefix <= max)) return { problem: `${entry} is not an IP network (write 10.0.0.0/8 or fd00::/8)` };
    if (ip.kind() === 'ipv6' && (ip as ipaddr.IPv6).isIPv4MappedAddress()) return { problem: `${entry}: write IPv4 networks in IPv4 form (10.0.0.0/8)` };
    const network = networkOf(ip, prefix);
    if (textOf(network) !== textOf(ip)) return { problem: `${entry} has host bits set (did you mean ${textOf(network)}/${String(prefix)}?)` };
    networks.push(`${textOf(network)}/${String(prefix)}`);
  }
  return { networks };
}

/** Whether a listening host is loopback only (`localhost`, `*.localhost`, 127.0.0.0/8, ::1 in any spelling). */
export function isLoopbackHost(host: string): boolean {
  if (isLocalhostName(host)) return true;
  return classify(host)?.range === 'loopback';
}

/** `localhost` and names under it are loopback by definition (RFC 6761), never asked of DNS. */
export const isLocalhostName = (name: string): boolean => /^(?:[^.]+\.)*localhost\.?$/i.test(name);
