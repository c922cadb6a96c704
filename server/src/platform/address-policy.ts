// The one policy of which IP addresses the server's outbound requests (webhook pings and deliveries) may
// reach: every address is judged by the address it means, by the most specific special-purpose range it falls
// in. An IPv6 address that embeds an IPv4 address is judged by that IPv4 address, in every form: IPv4-mapped
// (::ffff:a.b.c.d), IPv4-compatible (::a.b.c.d), IPv4-translated (::ffff:0:a.b.c.d), NAT64 (64:ff9b::/96, and
// the local-use 64:ff9b:1::/48 by every IPv4 address it may carry), 6to4 (2002::/16) and Teredo (2001::/32: its
// client, de-obfuscated, and its server). Only an IPv4-mapped address is that IPv4 address on the wire (the
// system connects to it over IPv4); every other form is *translated*: the connection goes to the IPv6 address,
// and a translator or relay somewhere on the path carries it to the IPv4 address inside. So:
// - production reaches only public addresses, a translated one only when the IPv4 address inside is public;
// - a sandbox allowed local receivers (listening on loopback, or PGW_WEBHOOK_ALLOW_PRIVATE=1) also reaches
//   loopback and private addresses, directly or IPv4-mapped, never translated: `[::7f00:1]`, `[64:ff9b::7f00:1]`
//   or `[2002:7f00:1::]` are no way to this machine's loopback (the connection would leave for the IPv6 address);
// - an operator's allow-list adds networks, matched against the address the connection goes to (an IPv4-mapped
//   address as its IPv4 address, a translated one as the IPv6 address itself: list 64:ff9b:1::/48 to reach
//   one's own NAT64 translator whatever it carries).
// An address with a zone id (fe80::1%eth0) is no address this policy judges: refused everywhere.
import { isIP } from 'node:net';
import ipaddr from 'ipaddr.js';

/** The kinds of address the policy tells apart. */
export type AddressRange =
  | 'public' | 'loopback' | 'private' | 'linkLocal' | 'metadata' | 'unspecified' | 'multicast' | 'broadcast'
  | 'reserved' | 'benchmarking' | 'documentation';

type Ip = ipaddr.IPv4 | ipaddr.IPv6;

/**
 * Where an IPv6 prefix carries an IPv4 address: `mapped`, its last 32 bits, reached as that IPv4 address;
 * every other one is translated: its last 32 bits (`last32`), bits 16 to 47 (`sixToFour`), Teredo's client
 * (the last 32 bits inverted) and server (bits 32 to 63), or the local-use NAT64 prefix's candidates (below).
 */
type Embedding = 'mapped' | 'last32' | 'sixToFour' | 'teredo' | 'localNat64';

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
  row('::ffff:0:0/96', 'reserved', 'an IPv4-mapped address', 'mapped'),
  row('::ffff:0:0:0/96', 'reserved', 'an IPv4-translated address', 'last32'),
  row('64:ff9b::/96', 'reserved', 'a NAT64 address', 'last32'),
  row('64:ff9b:1::/48', 'private', 'a local-use NAT64 address', 'localNat64'),
  row('100::/64', 'reserved', 'a discard-only address'),
  row('2001::/23', 'reserved', 'a reserved (IETF protocol) address'),
  row('2001::/32', 'reserved', 'a Teredo tunnel address', 'teredo'),
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
  /**
   * Whether a connection goes to another address than `effective`: an IPv6 form that embeds an IPv4 address
   * other than IPv4-mapped (IPv4-compatible, IPv4-translated, NAT64, 6to4, Teredo), which a translator or relay
   * carries to the IPv4 address inside. False for IPv4, plain IPv6 and IPv4-mapped addresses.
   */
  readonly translated: boolean;
}

/**
 * The address an IP literal means (strict: a canonical dotted quad, or IPv6 in any RFC 4291 spelling, a dotted
 * IPv4 tail included), or undefined for anything else (a zone id among it).
 */
export function parseAddress(text: string): Ip | undefined {
  const bare = text.replace(/^\[(.*)\]$/, '$1');
  // ipaddr.js also takes the old inet_aton spellings (0x7f.1, 0177.0.0.1): those reach here only already
  // normalised by the URL parser, so anything but four decimal parts or IPv6 is not an address we judge.
  if (ipaddr.IPv4.isValidFourPartDecimal(bare)) return ipaddr.IPv4.parse(bare);
  if (bare.includes('%') || isIP(bare) !== 6) return undefined;
  // A dotted tail is two groups: ipaddr.js 1.x reads it only after ::ffff:, and a resolver writes `::127.0.0.1`.
  const hex = bare.replace(/:(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/, (_all, a: string, b: string, c: string, d: string) =>
    `:${((Number(a) << 8) | Number(b)).toString(16)}:${((Number(c) << 8) | Number(d)).toString(16)}`);
  return ipaddr.IPv6.isValid(hex) ? ipaddr.IPv6.parse(hex) : undefined;
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

/** The IPv4 address of four bytes of an IPv6 address (by index), each inverted when `invert`. */
const v4At = (bytes: readonly number[], at: readonly number[], invert = false): ipaddr.IPv4 =>
  new ipaddr.IPv4(at.map((i) => ((bytes[i] ?? 0) ^ (invert ? 0xff : 0)) & 0xff));

/**
 * The IPv4 addresses an IPv6 address of this embedding may carry, the one it means first. Teredo: its client
 * (the last 32 bits, inverted: RFC 4380) and its server (bits 32 to 63), which a relay also sends to. The
 * local-use NAT64 prefix 64:ff9b:1::/48 (RFC 8215) is divided by its operator into NAT64 prefixes of /48, /56,
 * /64 or /96, each embedding the IPv4 address elsewhere (RFC 6052 section 2.2, skipping bits 64 to 71): all
 * four readings, the /96 one first.
 */
function embedded(ip: ipaddr.IPv6, how: Embedding): ipaddr.IPv4[] {
  const b = ip.toByteArray();
  switch (how) {
    case 'mapped':
    case 'last32': return [v4At(b, [12, 13, 14, 15])];
    case 'sixToFour': return [v4At(b, [2, 3, 4, 5])];
    case 'teredo': return [v4At(b, [12, 13, 14, 15], true), v4At(b, [4, 5, 6, 7])];
    case 'localNat64': return [v4At(b, [12, 13, 14, 15]), v4At(b, [9, 10, 11, 12]), v4At(b, [7, 9, 10, 11]), v4At(b, [6, 7, 9, 10])];
  }
}

function classifyIp(ip: Ip): Classification {
  if (ip.kind() === 'ipv4') {
    const found = mostSpecific(ip, IPV4);
    return { range: found?.range ?? 'public', description: found?.description ?? 'a public address', effective: ip.toString(), translated: false };
  }
  const v6 = ip as ipaddr.IPv6;
  const found = mostSpecific(v6, IPV6);
  if (found?.embeds) {
    // Judged by the IPv4 addresses inside: the first that is not public, if any (every one must be public).
    const inner = embedded(v6, found.embeds).map(classifyIp);
    const judged = inner.find((c) => c.range !== 'public') ?? inner[0];
    if (!judged) throw new Error('unreachable: an embedding without an address');
    return { ...judged, description: `${found.description} of ${judged.effective}, ${judged.description}`, translated: found.embeds !== 'mapped' };
  }
  if (found) return { range: found.range, description: found.description, effective: textOf(v6), translated: false };
  if (!within(v6, GLOBAL_UNICAST)) return { range: 'reserved', description: 'a reserved address', effective: textOf(v6), translated: false };
  return { range: 'public', description: 'a public address', effective: textOf(v6), translated: false };
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

/**
 * Judges one address (an IP literal, as a resolver or a URL gives it) under a policy. Not an address: refused.
 * Public (a translated form: the IPv4 address inside is public): allowed. Loopback or private: allowed when the
 * policy allows local receivers and the connection goes there (not translated). Otherwise allowed only when
 * listed, matched against the address the connection goes to.
 */
export function judge(address: string, policy: AddressPolicy): Verdict {
  const ip = parseAddress(address);
  const found = ip && classifyIp(ip);
  if (!ip || !found) return { allowed: false, range: 'reserved', description: 'not an IP address', effective: address, translated: false };
  if (found.range === 'public') return { ...found, allowed: true };
  if (policy.allowLocal && !found.translated && (found.range === 'loopback' || found.range === 'private')) return { ...found, allowed: true };
  const destination = found.translated ? ip : parseAddress(found.effective);
  const listed = destination !== undefined && policy.allowNetworks.some((cidr) => within(destination, ipaddr.parseCIDR(cidr)));
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

/** Whether a listening host is loopback only (`localhost`, `*.localhost`, 127.0.0.0/8, ::1 in any spelling, IPv4-mapped included). */
export function isLoopbackHost(host: string): boolean {
  if (isLocalhostName(host)) return true;
  const found = classify(host);
  return found?.range === 'loopback' && !found.translated;
}

/** `localhost` and names under it are loopback by definition (RFC 6761), never asked of DNS. */
export const isLocalhostName = (name: string): boolean => /^(?:[^.]+\.)*localhost\.?$/i.test(name);
