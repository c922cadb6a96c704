// The throttle's source address: buckets (IPv4 alone, IPv6 by /64, IPv4-mapped as IPv4) over many spellings,
// X-Forwarded-For read only from trusted proxies, and the configuration that declares them and the limits.
import type { IncomingMessage } from 'node:http';
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../config.ts';
import { ApiError } from './errors.ts';
import { addressBucket, clientAddress, forwardedAddress, trustedProxyList } from './client-address.ts';

describe('addressBucket', () => {
  it.each([
    ['10.0.0.1', 'v4:10.0.0.1'],
    ['::ffff:10.0.0.1', 'v4:10.0.0.1'],
    ['::FFFF:10.0.0.1', 'v4:10.0.0.1'],
    ['::ffff:a00:1', 'v4:10.0.0.1'],
    ['0:0:0:0:0:ffff:10.0.0.1', 'v4:10.0.0.1'],
    ['2001:db8::1', 'v6:2001:db8:0:0::/64'],
    ['2001:DB8::ffff:1', 'v6:2001:db8:0:0::/64'],
    ['2001:0db8:0000:0000:0001:0002:0003:0004', 'v6:2001:db8:0:0::/64'],
    ['2001:db8:0:0:1::', 'v6:2001:db8:0:0::/64'],
    ['2001:db8:1:2:3:4:1.2.3.4', 'v6:2001:db8:1:2::/64'],
    ['2001:db8:0:1::1', 'v6:2001:db8:0:1::/64'],
    ['fe80::1%eth0', 'v6:fe80:0:0:0::/64'],
    ['::1', 'v6:0:0:0:0::/64'],
    [' 192.0.2.9 ', 'v4:192.0.2.9'],
    [undefined, 'unknown'],
    ['', 'unknown'],
    ['not-an-address', 'other:not-an-address'],
  ])('%s -> %s', (address, bucket) => {
    expect(addressBucket(address)).toBe(bucket);
  });

  it('keeps two addresses of one /64 together and of neighbouring /64s apart', () => {
    for (let i = 1; i < 50; i++) expect(addressBucket(`2001:db8:aa:bb:${i.toString(16)}::${String(i)}`)).toBe('v6:2001:db8:aa:bb::/64');
    expect(addressBucket('2001:db8:aa:bc::1')).not.toBe(addressBucket('2001:db8:aa:bb::1'));
  });
});

const req = (peer: string | undefined, forwardedFor?: string | string[]): IncomingMessage =>
  ({ socket: { remoteAddress: peer }, headers: forwardedFor === undefined ? {} : { 'x-forwarded-for': forwardedFor } }) as unknown as IncomingMessage;

describe('clientAddress', () => {
  const proxies = trustedProxyList(['loopback', '10.0.0.0/8', '2001:db8:ffff::/48', '192.0.2.1']);

  it.each([
    ['no trusted proxy declared: the peer, whatever the header says', undefined, '127.0.0.1', '203.0.113.9', '127.0.0.1'],
    ['a peer that is no proxy: its own address', proxies, '198.51.100.1', '203.0.113.9', '198.51.100.1'],
    ['a trusted peer without the header: the peer', proxies, '10.1.2.3', undefined, '10.1.2.3'],
    ['a trusted peer: the address it names', proxies, '10.1.2.3', '203.0.113.9', '203.0.113.9'],
    ['IPv4-mapped peer of a trusted range', proxies, '::ffff:10.1.2.3', '203.0.113.9', '203.0.113.9'],
    ['chain of trusted proxies: passed over right to left', proxies, '127.0.0.1', '203.0.113.9, 192.0.2.1, 10.9.9.9', '203.0.113.9'],
    ['spoofed entries left of the first untrusted one are ignored', proxies, '127.0.0.1', '1.1.1.1, 2.2.2.2, 203.0.113.9', '203.0.113.9'],
    // Node joins several X-Forwarded-For lines with ', ' before anyone reads them.
    ['several header lines read as one list', proxies, '127.0.0.1', '1.1.1.1, 203.0.113.9, 10.0.0.1', '203.0.113.9'],
    ['an IPv6 proxy range', proxies, '2001:db8:ffff:1::1', '2001:db8:1:2::3', '2001:db8:1:2::3'],
    ['every hop trusted: the leftmost', proxies, '127.0.0.1', '10.0.0.7, 10.0.0.8', '10.0.0.7'],
    ['a malformed entry left of the client: never reached', proxies, '127.0.0.1', 'evil, 203.0.113.9, 10.0.0.8', '203.0.113.9'],
    ['an IPv4 address with a port', proxies, '127.0.0.1', '203.0.113.9:4711', '203.0.113.9'],
    ['an IPv6 address in brackets with a port', proxies, '127.0.0.1', '[2001:db8:1:2::3]:443', '2001:db8:1:2::3'],
    ['an IPv6 address in brackets', proxies, '127.0.0.1', '[2001:db8:1:2::3], 10.0.0.8', '2001:db8:1:2::3'],
    ['an IPv6 address with a zone id', proxies, '127.0.0.1', 'fe80::1%eth0', 'fe80::1%eth0'],
    ['an empty header: the peer', proxies, '127.0.0.1', ' , ', '127.0.0.1'],
    ['a named range (uniquelocal)', trustedProxyList(['uniquelocal']), '172.20.1.1', '203.0.113.9', '203.0.113.9'],
    ['outside a named range', trustedProxyList(['uniquelocal']), '172.32.0.1', '203.0.113.9', '172.32.0.1'],
    ['a named range (linklocal, IPv6)', trustedProxyList(['linklocal']), 'fe80::1', '203.0.113.9', '203.0.113.9'],
    ['an IPv4 netmask', trustedProxyList(['10.0.0.0/255.255.0.0']), '10.0.200.1', '203.0.113.9', '203.0.113.9'],
    ['outside an IPv4 netmask', trustedProxyList(['10.0.0.0/255.255.0.0']), '10.1.0.1', '203.0.113.9', '10.1.0.1'],
  ] as const)('%s', (_name, list, peer, header, expected) => {
    expect(clientAddress(req(peer, header as string | string[] | undefined), list)).toBe(expected);
  });
});

describe('malformed client addresses behind a trusted proxy', () => {
  const proxies = trustedProxyList(['loopback', '10.0.0.0/8']);
  // Each where the client's entry is: alone, after spoofed entries, before trusted hops.
  const MALFORMED = [
    'unknown', 'evil', '_hidden', 'UNKNOWN', '1.2.3', '1.2.3.4.5', '999.1.1.1', '256.0.0.1', '010.0.0.1', '0x7f.0.0.1', '0177.0.0.1', '2130706433',
    '127.1', '::ffff:1.2.3', '2001:db8::g', '2001:db8:::1', '1:2:3:4:5:6:7:8:9', '1.2.3.4%eth0', 'example.com', 'localhost', '[1.2.3.4]', '[1.2.3.4]:80',
    '1.2.3.4:', '1.2.3.4:123456', '1.2.3.4:http', '[2001:db8::1', '2001:db8::1]:80', '2001:db8::1:80:', 'for=203.0.113.9', '"203.0.113.9"',
    '203.0.113.9 198.51.100.1', '203.0.113.9;', ':80', '\t203.0.113.9', '203.0.113.9\t', '%', '[]', '[::]:', 'a'.repeat(300),
    '203.0.113.9/32', '１２７.0.0.1',
  ];
  it.each(MALFORMED.flatMap((entry) => [entry, `198.51.100.7, ${entry}`, `${entry}, 10.0.0.5`, `${entry}, 127.0.0.9, 10.1.1.1`].map((header) => [header, entry])))(
    'refuses %j: 400 validation_failed naming X-Forwarded-For, counted as no address', (header, entry) => {
      expect(forwardedAddress(entry)).toBeUndefined();
      let caught: unknown;
      try {
        clientAddress(req('127.0.0.1', header), proxies);
      } catch (error) {
        caught = error;
      }
      expect(caught).toBeInstanceOf(ApiError);
      const error = caught as ApiError;
      expect([error.status, error.code, Object.keys(error.context.errors ?? {})]).toEqual([400, 'validation_failed', ['X-Forwarded-For']]);
      expect(error.context.errors?.['X-Forwarded-For']?.[0]?.length).toBeLessThan(200);
    },
  );

  it('reads nothing from a peer that is no proxy, whatever its header says', () => {
    for (const entry of MALFORMED) expect(clientAddress(req('198.51.100.1', entry), proxies)).toBe('198.51.100.1');
    for (const entry of MALFORMED) expect(clientAddress(req('127.0.0.1', entry), undefined)).toBe('127.0.0.1');
  });

  it.each([
    ['203.0.113.9', '203.0.113.9'], ['203.0.113.9:4711', '203.0.113.9'], ['203.0.113.9:1', '203.0.113.9'], ['[2001:db8::1]', '2001:db8::1'],
    ['[2001:db8::1]:443', '2001:db8::1'], ['2001:DB8::1', '2001:DB8::1'], ['::ffff:203.0.113.9', '::ffff:203.0.113.9'], ['fe80::1%eth0', 'fe80::1%eth0'],
    ['[fe80::1%eth0]:80', 'fe80::1%eth0'], ['2001:db8::1.2.3.4', '2001:db8::1.2.3.4'],
  ])('takes %j as %j', (entry, address) => {
    expect(forwardedAddress(entry)).toBe(address);
  });
});

describe('configuration', () => {
  it('reads PGW_TRUST_PROXY and the throttle limits, with defaults', () => {
    const config = loadConfig({ PGW_TRUST_PROXY: 'loopback, 10.0.0.0/8,2001:db8::/32 ,192.0.2.1,uniquelocal,linklocal,10.0.0.0/255.0.0.0' }, '/tmp', false);
    expect(config.trustProxy).toEqual(['loopback', '10.0.0.0/8', '2001:db8::/32', '192.0.2.1', 'uniquelocal', 'linklocal', '10.0.0.0/255.0.0.0']);
    expect(config.throttle).toEqual({ windowMs: 300_000, identityAddressLimit: 10, addressLimit: 100, identityLimit: 50 });
    expect(loadConfig({}, '/tmp', false).trustProxy).toEqual([]);
    const set = loadConfig({ PGW_THROTTLE_WINDOW_SECONDS: '60', PGW_THROTTLE_IDENTITY_ADDRESS_LIMIT: '3', PGW_THROTTLE_ADDRESS_LIMIT: '7', PGW_THROTTLE_IDENTITY_LIMIT: '9' }, '/tmp', false);
    expect(set.throttle).toEqual({ windowMs: 60_000, identityAddressLimit: 3, addressLimit: 7, identityLimit: 9 });
  });

  it.each([
    ['PGW_TRUST_PROXY', 'everything'], ['PGW_TRUST_PROXY', '10.0.0.0/33'], ['PGW_TRUST_PROXY', '2001:db8::/129'], ['PGW_TRUST_PROXY', '10.0.0.1/8/8'],
    ['PGW_TRUST_PROXY', '10.0.0.256'], ['PGW_TRUST_PROXY', 'loopback,*'], ['PGW_TRUST_PROXY', '10.0.0.0/-1'], ['PGW_TRUST_PROXY', 'true'],
    ['PGW_THROTTLE_WINDOW_SECONDS', '0'], ['PGW_THROTTLE_WINDOW_SECONDS', '1.5'], ['PGW_THROTTLE_WINDOW_SECONDS', 'five'],
    ['PGW_THROTTLE_IDENTITY_ADDRESS_LIMIT', '0'], ['PGW_THROTTLE_IDENTITY_ADDRESS_LIMIT', '-3'], ['PGW_THROTTLE_ADDRESS_LIMIT', '1e400'],
    ['PGW_THROTTLE_IDENTITY_LIMIT', 'ten'], ['PGW_THROTTLE_IDENTITY_LIMIT', '0x10'],
  ])('refuses %s=%s', (name, value) => {
    expect(() => loadConfig({ [name]: value }, '/tmp', false)).toThrow(ConfigError);
    expect(() => loadConfig({ [name]: value }, '/tmp', false)).toThrow(name);
  });
});
