// The address policy without HTTP: every spelling of every kind of address judged by what it means (after
// the URL parser, as the server sees it), each environment's verdict, the allow-list syntax, and the
// configuration that chooses the sandbox's reach.
import { describe, expect, it } from 'vitest';
import { ALL_SPELLINGS, SPELLINGS, TRANSLATED } from '../../test/address-spellings.ts';
import { ConfigError, loadConfig } from '../config.ts';
import { checkTarget, type TargetDeps } from '../services/webhook-urls.ts';
import { PRODUCTION_POLICY, classify, isLoopbackHost, judge, parseNetworks, type AddressPolicy, type AddressRange } from './address-policy.ts';

const hostOf = (spelling: string): string => new URL(`http://${spelling}/`).hostname;

describe('classification', () => {
  it.each(ALL_SPELLINGS.filter(([host]) => !/localhost/i.test(host)))('%s is %s', (spelling, range) => {
    expect(classify(hostOf(spelling))).toMatchObject({ range, translated: TRANSLATED.has(spelling) });
  });

  it('judges an embedded IPv4 address by that address, and says so', () => {
    expect(classify('::ffff:7f00:1')).toEqual({ range: 'loopback', effective: '127.0.0.1', description: 'an IPv4-mapped address of 127.0.0.1, a loopback address', translated: false });
    expect(classify('::7f00:1')).toEqual({ range: 'loopback', effective: '127.0.0.1', description: 'an IPv4-compatible address of 127.0.0.1, a loopback address', translated: true });
    expect(classify('2002:a9fe:a9fe::')?.effective).toBe('169.254.169.254');
    expect(classify('64:ff9b::808:808')).toMatchObject({ range: 'public', effective: '8.8.8.8', translated: true });
    // Teredo: the client (RFC 4380's example, de-obfuscated), and the server when the client is public.
    expect(classify('2001:0:4136:e378:8000:63bf:3fff:fdd2')).toMatchObject({ range: 'documentation', effective: '192.0.2.45', description: expect.stringMatching(/^a Teredo tunnel address of 192\.0\.2\.45, / ) as unknown });
    expect(classify('2001:0:a00:1::f7f7:f7f7')).toMatchObject({ range: 'private', effective: '10.0.0.1' });
    // Local-use NAT64: every IPv4 address it may carry must be public.
    expect(classify('64:ff9b:1::7f00:1')).toMatchObject({ range: 'loopback', effective: '127.0.0.1', translated: true });
    expect(classify('64:ff9b:1:808:8:808:808:808')).toMatchObject({ range: 'public', effective: '8.8.8.8' });
    expect(classify('64:ff9b:1:a:ff00:1:808:808')).toMatchObject({ range: 'unspecified', effective: '0.0.1.8' });
  });

  it.each(['0177.0.0.1', '2130706433', '0x7f.0.0.1', '127.1', 'localhost', 'fe80::1%eth0', '', '1.2.3.4.5', '::ffff:1.2.3'])(
    'takes no loose spelling from a resolver: %j is not an address, and is refused', (text) => {
      expect(classify(text)).toBeUndefined();
      expect(judge(text, { allowLocal: true, allowNetworks: ['0.0.0.0/0', '::/0'] }).allowed).toBe(false);
    },
  );
});

describe('verdicts', () => {
  const LOCAL = { allowLocal: true, allowNetworks: [] };
  const LISTED = { allowLocal: false, allowNetworks: ['169.254.169.254/32', '198.18.0.0/15', 'fd00:ec2::254/128'] };
  const expected = (range: AddressRange, policy: 'production' | 'local' | 'listed', spelling: string): boolean => {
    if (range === 'public') return true;
    // A translated form is never a local receiver, and an allow-list of IPv4 networks does not name its IPv6 address.
    if (TRANSLATED.has(spelling)) return false;
    if (policy === 'local') return range === 'loopback' || range === 'private';
    if (policy === 'listed') {
      const effective = classify(hostOf(spelling))?.effective ?? '';
      return effective === '169.254.169.254' || effective === 'fd00:ec2::254' || effective.startsWith('198.18.') || effective.startsWith('198.19.');
    }
    return false;
  };
  const literal = ALL_SPELLINGS.filter(([host]) => !/localhost/i.test(host));
  it.each(literal)('%s (%s): production only if public', (spelling, range) => {
    expect(judge(hostOf(spelling), PRODUCTION_POLICY).allowed).toBe(expected(range, 'production', spelling));
  });
  it.each(literal)('%s (%s): a sandbox allowed local receivers takes loopback and private too, not translated', (spelling, range) => {
    expect(judge(hostOf(spelling), LOCAL).allowed).toBe(expected(range, 'local', spelling));
  });
  it.each(literal)('%s (%s): an allow-list adds exactly its networks, matched on the address connected to', (spelling, range) => {
    expect(judge(hostOf(spelling), LISTED).allowed).toBe(expected(range, 'listed', spelling));
  });
});

describe('every IPv6 form that embeds an IPv4 address, in every spelling', () => {
  const groupsOf = (v4: string): [number, number] => {
    const [a = 0, b = 0, c = 0, d = 0] = v4.split('.').map(Number);
    return [(a << 8) | b, (c << 8) | d];
  };
  const h = (n: number): string => n.toString(16);
  const H = (n: number): string => n.toString(16).toUpperCase().padStart(4, '0');
  const dotted = (g1: number, g2: number): string => [g1 >> 8, g1 & 0xff, g2 >> 8, g2 & 0xff].join('.');
  interface Form { name: string; translated: boolean; network: string; spellings: (v4: string) => string[] }
  const FORMS: Form[] = [
    { name: 'IPv4-mapped', translated: false, network: '::ffff:0:0/96', spellings: (v4) => {
      const [g1, g2] = groupsOf(v4);
      return [`::ffff:${v4}`, `::ffff:${h(g1)}:${h(g2)}`, `0:0:0:0:0:ffff:${h(g1)}:${h(g2)}`, `0000:0000:0000:0000:0000:FFFF:${v4}`, `::FFFF:${H(g1)}:${H(g2)}`];
    } },
    { name: 'IPv4-compatible', translated: true, network: '::/96', spellings: (v4) => {
      const [g1, g2] = groupsOf(v4);
      return [`::${v4}`, `::${h(g1)}:${h(g2)}`, `0:0:0:0:0:0:${h(g1)}:${h(g2)}`, `0000:0000:0000:0000:0000:0000:${H(g1)}:${H(g2)}`, `0:0:0:0:0:0:${v4}`];
    } },
    { name: 'IPv4-translated', translated: true, network: '::ffff:0:0:0/96', spellings: (v4) => {
      const [g1, g2] = groupsOf(v4);
      return [`::ffff:0:${v4}`, `::ffff:0:${h(g1)}:${h(g2)}`, `0:0:0:0:FFFF:0:${H(g1)}:${H(g2)}`];
    } },
    { name: 'NAT64', translated: true, network: '64:ff9b::/96', spellings: (v4) => {
      const [g1, g2] = groupsOf(v4);
      return [`64:ff9b::${v4}`, `64:ff9b::${h(g1)}:${h(g2)}`, `0064:FF9B:0000:0000:0000:0000:${H(g1)}:${H(g2)}`, `64:ff9b:0:0:0:0:${v4}`, `64:FF9B::${v4}`];
    } },
    { name: 'local-use NAT64', translated: true, network: '64:ff9b:1::/48', spellings: (v4) => {
      const [g1, g2] = groupsOf(v4);
      return [`64:ff9b:1::${v4}`, `64:ff9b:1:0:0:0:${h(g1)}:${h(g2)}`, `0064:FF9B:0001:0000:0000:0000:${H(g1)}:${H(g2)}`];
    } },
    { name: '6to4', translated: true, network: '2002::/16', spellings: (v4) => {
      const [g1, g2] = groupsOf(v4);
      return [`2002:${h(g1)}:${h(g2)}::`, `2002:${h(g1)}:${h(g2)}::1`, `2002:${H(g1)}:${H(g2)}:0:0:0:0:1`, `2002:${h(g1)}:${h(g2)}::${v4}`, `2002:${h(g1)}:${h(g2)}:ab:cd::ef`];
    } },
    // Server 65.54.227.120 (public), so the client decides: its address inverted in the last 32 bits.
    { name: 'Teredo', translated: true, network: '2001::/32', spellings: (v4) => {
      const [g1, g2] = groupsOf(v4).map((g) => g ^ 0xffff) as [number, number];
      return [`2001:0:4136:e378:8000:63bf:${h(g1)}:${h(g2)}`, `2001:0000:4136:E378:8000:63BF:${H(g1)}:${H(g2)}`, `2001:0:4136:e378:8000:63bf:${dotted(g1, g2)}`, `2001:0:4136:e378::${h(g1)}:${h(g2)}`];
    } },
  ];
  const INSIDE: readonly (readonly [string, AddressRange])[] = [
    ['127.0.0.1', 'loopback'], ['127.255.255.254', 'loopback'], ['10.1.2.3', 'private'], ['192.168.1.1', 'private'], ['100.64.0.1', 'private'],
    ['169.254.169.254', 'metadata'], ['169.254.1.1', 'linkLocal'], ['224.0.0.1', 'multicast'], ['240.0.0.1', 'reserved'], ['192.0.2.1', 'documentation'],
    ['198.18.0.1', 'benchmarking'], ['8.8.8.8', 'public'], ['93.184.215.14', 'public'],
  ];
  const cases = FORMS.flatMap((form) => INSIDE.flatMap(([v4, range]) => form.spellings(v4).map((spelling) => [spelling, form, v4, range] as const)));
  const LOCAL: AddressPolicy = { allowLocal: true, allowNetworks: [] };

  it.each(cases)('%s', (spelling, form, v4, inside) => {
    // A local-use NAT64 address carries a public address only if all its readings are public (its /64 one is 0.0.x.x here).
    const range = form.name === 'local-use NAT64' && inside === 'public' ? 'unspecified' : inside;
    const local = range === 'loopback' || range === 'private';
    for (const text of [spelling, hostOf(`[${spelling}]`)]) {
      expect(classify(text), text).toMatchObject({ range, translated: form.translated, ...(range === inside ? { effective: v4 } : {}) });
      expect(judge(text, PRODUCTION_POLICY).allowed, `${text} in production`).toBe(range === 'public');
      // A sandbox on loopback: its own loopback and private receivers directly or IPv4-mapped, never through a translator.
      expect(judge(text, LOCAL).allowed, `${text} in a sandbox allowed local receivers`).toBe(range === 'public' || (local && !form.translated));
      // The allow-list is matched against where the connection goes: the IPv4 address (mapped), else the IPv6 one.
      expect(judge(text, { allowLocal: true, allowNetworks: [`${v4}/32`] }).allowed, `${text} with ${v4} listed`).toBe(range === 'public' || !form.translated);
      expect(judge(text, { allowLocal: false, allowNetworks: [form.network] }).allowed, `${text} with ${form.network} listed`).toBe(range === 'public' || form.translated);
    }
    // A zone id makes no address this policy judges: refused whatever is allowed.
    for (const zone of ['%eth0', '%1', '%25lo']) {
      expect(classify(`${spelling}${zone}`)).toBeUndefined();
      expect(judge(`${spelling}${zone}`, { allowLocal: true, allowNetworks: ['0.0.0.0/0', '::/0'] }).allowed).toBe(false);
    }
  });

  it('covers every form, and every range inside one', () => {
    expect([FORMS.length, cases.length]).toEqual([7, 390]);
    expect(new Set(INSIDE.map(([, range]) => range)).size).toBe(Object.keys(SPELLINGS).length - 2);
  });
});

describe('checkTarget: the URL, resolved once, every address judged', () => {
  const sandbox = (env: Record<string, string> = {}, answers: Record<string, string[]> = {}): TargetDeps & { asked: string[] } => {
    const asked: string[] = [];
    return {
      asked,
      config: loadConfig({ PGW_ENV: 'sandbox', DATABASE_URL: 'sqlite::memory:', ...env }, '/tmp', false),
      resolveHost: (name) => {
        asked.push(name);
        const found = answers[name];
        return found ? Promise.resolve(found) : Promise.reject(Object.assign(new Error('not found'), { code: 'ENOTFOUND' }));
      },
    };
  };
  const production = (answers: Record<string, string[]> = {}): TargetDeps => ({ ...sandbox({}, answers), config: loadConfig({ PGW_ENV: 'production', DATABASE_URL: 'sqlite::memory:' }, '/tmp', false) });

  const cases = ALL_SPELLINGS.flatMap(([host, range]) => (['http', 'https'] as const).map((scheme) => [`${scheme}://${host}:8443/hooks`, range] as const));
  const translated = new Set([...TRANSLATED].flatMap((host) => ['http', 'https'].map((scheme) => `${scheme}://${host}:8443/hooks`)));
  it.each(cases)('%s (%s) in each configuration', async (url, range) => {
    const local = (range === 'loopback' || range === 'private') && !translated.has(url);
    const https = url.startsWith('https:');
    expect((await checkTarget(url, production())).ok, 'production').toBe(https && range === 'public');
    expect((await checkTarget(url, sandbox())).ok, 'sandbox on loopback').toBe(local || (https && range === 'public'));
    expect((await checkTarget(url, sandbox({ HOST: '0.0.0.0' }))).ok, 'sandbox on a public interface').toBe(https && range === 'public');
    expect((await checkTarget(url, sandbox({ HOST: '203.0.113.5', PGW_WEBHOOK_ALLOW_PRIVATE: '1' }))).ok, 'public, private allowed').toBe(local || (https && range === 'public'));
    expect((await checkTarget(url, sandbox({ PGW_WEBHOOK_ALLOW_PRIVATE: '0' }))).ok, 'loopback, private refused').toBe(https && range === 'public');
  });

  it('resolves a name once and refuses it when any address is refused, without telling the address', async () => {
    const deps = sandbox({ HOST: '0.0.0.0' }, { 'hooks.example': ['93.184.215.14', '10.0.0.7'], 'ok.example': ['93.184.215.14', '2606:4700::1'] });
    const refused = await checkTarget('https://hooks.example/x', deps);
    expect(refused).toMatchObject({ ok: false, kind: 'blocked' });
    expect(refused.ok ? '' : refused.problem).toMatch(/^resolves to a private \(RFC 1918\) address, which this sandbox may not reach/);
    expect(refused.ok ? '' : refused.problem).not.toContain('10.0.0.7');
    expect(await checkTarget('https://ok.example/x', deps)).toMatchObject({ ok: true, addresses: ['93.184.215.14', '2606:4700::1'] });
    expect(deps.asked).toEqual(['hooks.example', 'ok.example']);
  });

  it.each([
    ['::ffff:7f00:1'], ['::ffff:127.0.0.1'], ['0:0:0:0:0:ffff:7f00:1'], ['::7f00:1'], ['64:ff9b::a9fe:a9fe'], ['2002:a00:1::'], ['0.0.0.0'], ['::'],
    ['169.254.169.254'], ['fd00:ec2::254'], ['2130706433'], ['0x7f.0.0.1'], ['not-an-address'],
  ])('production refuses a name resolving to %s', async (answer) => {
    expect(await checkTarget('https://hooks.example/x', production({ 'hooks.example': ['93.184.215.14', answer] }))).toMatchObject({ ok: false, kind: 'blocked' });
  });

  it('never asks a resolver about localhost names, and keeps http in the sandbox for local receivers only', async () => {
    const deps = sandbox({}, { 'public.example': ['93.184.215.14'], 'lan.example': ['192.168.1.20'] });
    expect(await checkTarget('http://Api.LocalHost.:3000/x', deps)).toMatchObject({ ok: true, addresses: ['127.0.0.1', '::1'] });
    expect(await checkTarget('http://lan.example/x', deps)).toMatchObject({ ok: true, addresses: ['192.168.1.20'] });
    expect(await checkTarget('http://public.example/x', deps)).toMatchObject({ ok: false, kind: 'blocked' });
    expect(await checkTarget('https://public.example/x', deps)).toMatchObject({ ok: true });
    expect(await checkTarget('https://nowhere.example/x', deps)).toMatchObject({ ok: false, kind: 'dns' });
    expect(deps.asked).toEqual(['lan.example', 'public.example', 'public.example', 'nowhere.example']);
  });

  it.each([
    ['not a url', 'is not a URL'], ['https://user:pw@hooks.example/x', 'must not carry credentials'], ['ftp://127.0.0.1/x', 'must use https'],
  ])('refuses %s', async (url, problem) => {
    const answer = await checkTarget(url, sandbox());
    expect(answer.ok ? '' : answer.problem).toContain(problem);
  });
});

describe('allow-list syntax', () => {
  it('takes networks and bare addresses, canonical', () => {
    expect(parseNetworks(' 10.0.0.0/8, 192.168.1.0/24,FD00::/8 ,1.2.3.4,2001:DB8:0:0::1,')).toEqual({
      networks: ['10.0.0.0/8', '192.168.1.0/24', 'fd00::/8', '1.2.3.4/32', '2001:db8::1/128'],
    });
    expect(parseNetworks('')).toEqual({ networks: [] });
  });
  it.each([
    ['10.1.2.3/8', /host bits set \(did you mean 10\.0\.0\.0\/8\?\)/], ['fd00::1/8', /did you mean fd00::\/8/], ['10.0.0.0/33', /not an IP network/],
    ['10.0.0.0/8/1', /not an IP network/], ['10/8', /not an IP network/], ['0x0a.0.0.0/8', /not an IP network/], ['example.com/24', /not an IP network/],
    ['10.0.0.0/-1', /not an IP network/], ['10.0.0.0/ 8', /not an IP network/], ['::ffff:10.0.0.0/104', /IPv4 form/], ['10.0.0.0/8;rm', /not an IP network/],
  ])('refuses %s', (text, message) => {
    const parsed = parseNetworks(text);
    expect('problem' in parsed ? parsed.problem : '').toMatch(message);
  });
});

describe('configuration of the sandbox reach', () => {
  const load = (env: Record<string, string>) => loadConfig({ DATABASE_URL: 'sqlite::memory:', ...env }, '/tmp', false);
  it.each([
    [{}, true], [{ HOST: '127.0.0.1' }, true], [{ HOST: '127.0.0.2' }, true], [{ HOST: '::1' }, true], [{ HOST: 'localhost' }, true], [{ HOST: 'LOCALHOST.' }, true],
    [{ HOST: '0.0.0.0' }, false], [{ HOST: '::' }, false], [{ HOST: '10.0.0.5' }, false], [{ HOST: 'gateway.example' }, false], [{ HOST: '' }, false],
    [{ HOST: '0.0.0.0', PGW_WEBHOOK_ALLOW_PRIVATE: '1' }, true], [{ HOST: '0.0.0.0', PGW_WEBHOOK_ALLOW_PRIVATE: 'true' }, true],
    [{ PGW_WEBHOOK_ALLOW_PRIVATE: '0' }, false], [{ PGW_WEBHOOK_ALLOW_PRIVATE: 'auto' }, true], [{ HOST: '::', PGW_WEBHOOK_ALLOW_PRIVATE: 'Auto' }, false],
  ])('%j: loopback and private receivers allowed = %s', (env, allowed) => {
    expect(load(env).webhookAllowLocal).toBe(allowed);
  });

  it('reads the allow-list, and production reaches public addresses only', () => {
    expect(load({ PGW_WEBHOOK_ALLOW_NETWORKS: '10.0.0.0/8,fd00::/8' }).webhookAllowNetworks).toEqual(['10.0.0.0/8', 'fd00::/8']);
    expect(load({ PGW_ENV: 'production' })).toMatchObject({ webhookAllowLocal: false, webhookAllowNetworks: [] });
    expect(load({ PGW_ENV: 'production', PGW_WEBHOOK_ALLOW_PRIVATE: '0' }).webhookAllowLocal).toBe(false);
  });

  it.each([
    [{ PGW_WEBHOOK_ALLOW_PRIVATE: 'yes' }, /PGW_WEBHOOK_ALLOW_PRIVATE must be auto, 1 or 0/], [{ PGW_WEBHOOK_ALLOW_NETWORKS: '10.0.0.1/8' }, /PGW_WEBHOOK_ALLOW_NETWORKS: .*host bits/],
    [{ PGW_WEBHOOK_ALLOW_NETWORKS: 'lan' }, /PGW_WEBHOOK_ALLOW_NETWORKS: lan is not an IP network/],
    [{ PGW_ENV: 'production', PGW_WEBHOOK_ALLOW_PRIVATE: '1' }, /for the sandbox/], [{ PGW_ENV: 'production', PGW_WEBHOOK_ALLOW_NETWORKS: '10.0.0.0/8' }, /for the sandbox/],
  ])('refuses %j', (env, message) => {
    expect(() => load(env)).toThrow(ConfigError);
    expect(() => load(env)).toThrow(message);
  });

  it('knows a loopback listening host in any spelling', () => {
    for (const host of ['127.0.0.1', '::1', '::ffff:127.0.0.1', 'localhost', 'a.localhost']) expect(isLoopbackHost(host), host).toBe(true);
    for (const host of ['0.0.0.0', '::', '10.0.0.1', 'localhost.example', 'notlocalhost', '', '::7f00:1', '64:ff9b::7f00:1', '2002:7f00:1::']) expect(isLoopbackHost(host), host).toBe(false);
  });
});

describe('spellings table', () => {
  it('covers every range the policy tells apart', () => {
    expect(Object.keys(SPELLINGS).sort()).toEqual(['benchmarking', 'broadcast', 'documentation', 'linkLocal', 'loopback', 'metadata', 'multicast', 'private', 'public', 'reserved', 'unspecified']);
  });
});
