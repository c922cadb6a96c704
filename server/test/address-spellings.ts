// The spellings of addresses the webhook address policy is tested with: each URL host as a merchant might
// write it (decimal, octal, hex, short forms, IPv4-mapped/compatible, NAT64, 6to4, trailing dots, case), by
// the kind of address it means. Shared by the policy's unit tests and the HTTP tests.
import type { AddressRange } from '../src/platform/address-policy.ts';

export const SPELLINGS: Readonly<Record<AddressRange, readonly string[]>> = {
  loopback: [
    '127.0.0.1', '127.1', '127.0.1', '2130706433', '0x7f.0.0.1', '0x7f000001', '0x7F.1', '0177.0.0.1', '0177.0.0.01', '127.0.0.1.',
    '127.255.255.254', '%31%32%37.0.0.1', '[::1]', '[0:0:0:0:0:0:0:1]', '[::ffff:127.0.0.1]', '[::ffff:7f00:1]', '[0:0:0:0:0:ffff:7f00:1]',
    '[::FFFF:7F00:1]', '[::7f00:1]', '[::127.0.0.1]', '[64:ff9b::7f00:1]', '[64:ff9b::127.0.0.1]', '[2002:7f00:1::]', '[2002:7f00:0001:0:0:0:0:1]',
    '[::ffff:0:7f00:1]', 'localhost', 'LOCALHOST', 'localhost.', 'api.localhost', 'Api.LocalHost.',
  ],
  private: [
    '10.0.0.1', '10.1', '012.0.0.1', '0xa.0.0.1', '167772161', '172.16.0.1', '172.31.255.255', '192.168.1.1', '0xc0.0xa8.1.1', '3232235777',
    '100.64.0.1', '100.127.255.255', '[fc00::1]', '[fd12:3456::1]', '[FD00::1]', '[::ffff:10.0.0.1]', '[::ffff:c0a8:101]', '[64:ff9b::a00:1]',
    '[2002:a00:1::1]', '[fec0::1]',
  ],
  linkLocal: ['169.254.0.1', '169.254.255.255', '[fe80::1]', '[FE80::1]', '[febf::1]', '[::ffff:169.254.1.1]', '[::a9fe:101]'],
  metadata: [
    '169.254.169.254', '169.254.169.254.', '2852039166', '0xa9.0xfe.0xa9.0xfe', '0251.0376.0251.0376', '169.254.43518', '[::ffff:a9fe:a9fe]',
    '[::ffff:169.254.169.254]', '[0:0:0:0:0:ffff:a9fe:a9fe]', '[fd00:ec2::254]', '[64:ff9b::a9fe:a9fe]', '[2002:a9fe:a9fe::]', '100.100.100.200',
    '168.63.129.16',
  ],
  unspecified: ['0.0.0.0', '0', '0x0', '0.0', '[::]', '[0:0:0:0:0:0:0:0]', '[::ffff:0.0.0.0]', '0.1.2.3', '[::0.1.2.3]'],
  multicast: ['224.0.0.1', '239.255.255.250', '[ff02::1]', '[::ffff:224.0.0.1]'],
  broadcast: ['255.255.255.255', '4294967295', '0xffffffff'],
  reserved: ['240.0.0.1', '192.0.0.8', '192.0.0.192', '192.88.99.1', '[2001::1]', '[2001:0:4136:e378:8000:63bf:3fff:fdd2]', '[4000::1]', '[100::1]'],
  benchmarking: ['198.18.0.1', '198.19.255.255', '[2001:2::1]', '[::ffff:198.18.0.1]'],
  documentation: ['192.0.2.1', '198.51.100.1', '203.0.113.10', '[2001:db8::1]', '[3fff::1]', '[::ffff:203.0.113.10]'],
  public: [
    '8.8.8.8', '134744072', '0x8.0x8.0x8.0x8', '1.1.1.1', '93.184.215.14', '[2606:4700:4700::1111]', '[::ffff:8.8.8.8]', '[64:ff9b::808:808]',
    '[2002:808:808::1]', '172.15.255.255', '172.32.0.1', '100.63.255.255', '100.128.0.1', '169.253.255.255', '169.255.0.1', '198.17.255.255',
    '198.20.0.1', '223.255.255.255',
  ],
};

/** Every (spelling, range) pair. */
export const ALL_SPELLINGS: readonly (readonly [string, AddressRange])[] = Object.entries(SPELLINGS)
  .flatMap(([range, hosts]) => hosts.map((host) => [host, range as AddressRange] as const));

/** The spellings that a connection on this machine would take to 127.0.0.1 (a counting receiver there sees them). */
export const REACHING_LOOPBACK_V4: readonly string[] = [
  '127.0.0.1', '127.1', '2130706433', '0x7f.0.0.1', '0x7f000001', '0177.0.0.1', '127.0.0.1.', '%31%32%37.0.0.1', '[::ffff:127.0.0.1]',
  '[::ffff:7f00:1]', '[0:0:0:0:0:ffff:7f00:1]', '[::FFFF:7F00:1]', '0.0.0.0', '0', '0x0',
];
