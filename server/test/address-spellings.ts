// The spellings of addresses the webhook address policy is tested with: each URL host as a merchant might
// write it (decimal, octal, hex, short forms, IPv4-mapped/compatible/translated, NAT64 and local-use NAT64, 6to4,
// Teredo, mixed dotted notation, expanded groups, trailing dots, case), by the kind of address it means (an
// IPv6 form embedding an IPv4 address: that IPv4 address's kind). TRANSLATED names the spellings a connection
// reaches through a translator (not IPv4-mapped). Shared by the policy's unit tests and the HTTP tests.
import type { AddressRange } from '../src/platform/address-policy.ts';

export const SPELLINGS: Readonly<Record<AddressRange, readonly string[]>> = {
  loopback: [
    '127.0.0.1', '127.1', '127.0.1', '2130706433', '0x7f.0.0.1', '0x7f000001', '0x7F.1', '0177.0.0.1', '0177.0.0.01', '127.0.0.1.',
    '127.255.255.254', '%31%32%37.0.0.1', '[::1]', '[0:0:0:0:0:0:0:1]', '[::ffff:127.0.0.1]', '[::ffff:7f00:1]', '[0:0:0:0:0:ffff:7f00:1]',
    '[::FFFF:7F00:1]', '[0:0:0:0:0:FFFF:127.0.0.1]', '[0000:0000:0000:0000:0000:ffff:7f00:0001]',
    '[::7f00:1]', '[::127.0.0.1]', '[0:0:0:0:0:0:127.0.0.1]', '[64:ff9b::7f00:1]', '[64:ff9b::127.0.0.1]', '[64:FF9B:0:0:0:0:7F00:1]',
    '[0064:ff9b:0000:0000:0000:0000:7f00:0001]', '[2002:7f00:1::]', '[2002:7f00:0001:0:0:0:0:1]', '[2002:7F00:1::FFFF]', '[::ffff:0:7f00:1]',
    '[::ffff:0:127.0.0.1]', '[64:ff9b:1::7f00:1]', '[2001:0:4136:e378:8000:63bf:80ff:fffe]', '[2001:0:4136:e378:8000:63bf:128.255.255.254]',
    '[2001::80ff:fffe]', 'localhost', 'LOCALHOST', 'localhost.', 'api.localhost', 'Api.LocalHost.',
  ],
  private: [
    '10.0.0.1', '10.1', '012.0.0.1', '0xa.0.0.1', '167772161', '172.16.0.1', '172.31.255.255', '192.168.1.1', '0xc0.0xa8.1.1', '3232235777',
    '100.64.0.1', '100.127.255.255', '[fc00::1]', '[fd12:3456::1]', '[FD00::1]', '[::ffff:10.0.0.1]', '[::ffff:c0a8:101]', '[64:ff9b::a00:1]',
    '[2002:a00:1::1]', '[fec0::1]', '[::10.0.0.1]', '[64:ff9b:1::a00:1]', '[2001:0:4136:e378:8000:63bf:f5ff:fffe]',
    // Teredo of a public client through a private server: a relay sends to the server too.
    '[2001:0:a00:1::f7f7:f7f7]',
  ],
  linkLocal: ['169.254.0.1', '169.254.255.255', '[fe80::1]', '[FE80::1]', '[febf::1]', '[::ffff:169.254.1.1]', '[::a9fe:101]', '[2002:a9fe:101::]'],
  metadata: [
    '169.254.169.254', '169.254.169.254.', '2852039166', '0xa9.0xfe.0xa9.0xfe', '0251.0376.0251.0376', '169.254.43518', '[::ffff:a9fe:a9fe]',
    '[::ffff:169.254.169.254]', '[0:0:0:0:0:ffff:a9fe:a9fe]', '[fd00:ec2::254]', '[64:ff9b::a9fe:a9fe]', '[2002:a9fe:a9fe::]', '100.100.100.200',
    '168.63.129.16', '[64:ff9b::169.254.169.254]', '[::ffff:0:a9fe:a9fe]', '[2001:0:4136:e378:8000:63bf:5601:5601]',
  ],
  unspecified: [
    '0.0.0.0', '0', '0x0', '0.0', '[::]', '[0:0:0:0:0:0:0:0]', '[::ffff:0.0.0.0]', '0.1.2.3', '[::0.1.2.3]', '[64:ff9b::]', '[2002::1]',
    // A local-use NAT64 address is judged by every IPv4 address it may carry (/96, /64, /56, /48 prefixes): here 0.0.0.8 of a /64.
    '[64:ff9b:1::808:808]',
  ],
  multicast: ['224.0.0.1', '239.255.255.250', '[ff02::1]', '[::ffff:224.0.0.1]'],
  broadcast: ['255.255.255.255', '4294967295', '0xffffffff'],
  reserved: ['240.0.0.1', '192.0.0.8', '192.0.0.192', '192.88.99.1', '[2001::1]', '[4000::1]', '[100::1]', '[2002:f000:1::]'],
  benchmarking: ['198.18.0.1', '198.19.255.255', '[2001:2::1]', '[::ffff:198.18.0.1]'],
  documentation: [
    '192.0.2.1', '198.51.100.1', '203.0.113.10', '[2001:db8::1]', '[3fff::1]', '[::ffff:203.0.113.10]',
    // RFC 4380's own example: client 192.0.2.45 (obfuscated 3fff:fdd2), server 65.54.227.120.
    '[2001:0:4136:e378:8000:63bf:3fff:fdd2]',
  ],
  public: [
    '8.8.8.8', '134744072', '0x8.0x8.0x8.0x8', '1.1.1.1', '93.184.215.14', '[2606:4700:4700::1111]', '[::ffff:8.8.8.8]', '[64:ff9b::808:808]',
    '[2002:808:808::1]', '172.15.255.255', '172.32.0.1', '100.63.255.255', '100.128.0.1', '169.253.255.255', '169.255.0.1', '198.17.255.255',
    '198.20.0.1', '223.255.255.255', '[64:ff9b::8.8.8.8]', '[::8.8.8.8]', '[2001:0:4136:e378:8000:63bf:f7f7:f7f7]', '[2002:808:808:0:0:0:0:1]',
  ],
};

/**
 * The spellings that embed an IPv4 address in an IPv6 form other than IPv4-mapped (IPv4-compatible, IPv4-translated,
 * NAT64, local-use NAT64, 6to4, Teredo): a connection goes to the IPv6 address, through a translator, so they are
 * never a local receiver, whatever the IPv4 address inside.
 */
export const TRANSLATED: ReadonlySet<string> = new Set([
  '[::7f00:1]', '[::127.0.0.1]', '[0:0:0:0:0:0:127.0.0.1]', '[64:ff9b::7f00:1]', '[64:ff9b::127.0.0.1]', '[64:FF9B:0:0:0:0:7F00:1]',
  '[0064:ff9b:0000:0000:0000:0000:7f00:0001]', '[2002:7f00:1::]', '[2002:7f00:0001:0:0:0:0:1]', '[2002:7F00:1::FFFF]', '[::ffff:0:7f00:1]',
  '[::ffff:0:127.0.0.1]', '[64:ff9b:1::7f00:1]', '[2001:0:4136:e378:8000:63bf:80ff:fffe]', '[2001:0:4136:e378:8000:63bf:128.255.255.254]',
  '[2001::80ff:fffe]',
  '[64:ff9b::a00:1]', '[2002:a00:1::1]', '[::10.0.0.1]', '[64:ff9b:1::a00:1]', '[2001:0:4136:e378:8000:63bf:f5ff:fffe]', '[2001:0:a00:1::f7f7:f7f7]',
  '[::a9fe:101]', '[2002:a9fe:101::]',
  '[64:ff9b::a9fe:a9fe]', '[2002:a9fe:a9fe::]', '[64:ff9b::169.254.169.254]', '[::ffff:0:a9fe:a9fe]', '[2001:0:4136:e378:8000:63bf:5601:5601]',
  '[::0.1.2.3]', '[64:ff9b::]', '[2002::1]', '[64:ff9b:1::808:808]',
  '[2001::1]', '[2002:f000:1::]',
  '[2001:0:4136:e378:8000:63bf:3fff:fdd2]',
  '[64:ff9b::808:808]', '[2002:808:808::1]', '[64:ff9b::8.8.8.8]', '[::8.8.8.8]', '[2001:0:4136:e378:8000:63bf:f7f7:f7f7]', '[2002:808:808:0:0:0:0:1]',
]);

/** Every (spelling, range) pair. */
export const ALL_SPELLINGS: readonly (readonly [string, AddressRange])[] = Object.entries(SPELLINGS)
  .flatMap(([range, hosts]) => hosts.map((host) => [host, range as AddressRange] as const));

/** The spellings that a connection on this machine would take to 127.0.0.1 (a counting receiver there sees them). */
export const REACHING_LOOPBACK_V4: readonly string[] = [
  '127.0.0.1', '127.1', '2130706433', '0x7f.0.0.1', '0x7f000001', '0177.0.0.1', '127.0.0.1.', '%31%32%37.0.0.1', '[::ffff:127.0.0.1]',
  '[::ffff:7f00:1]', '[0:0:0:0:0:ffff:7f00:1]', '[::FFFF:7F00:1]', '0.0.0.0', '0', '0x0',
];
