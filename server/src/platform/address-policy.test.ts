// The address policy without HTTP: every spelling of every kind of address judged by what it means (after
// the URL parser, as the server sees it), each environment's verdict, the allow-list syntax, and the
// configuration that chooses the sandbox's reach.
import { describe, expect, it } from 'vitest';
import { ALL_SPELLINGS, SPELLINGS } from '../../test/address-spellings.ts';
import { ConfigError, loadConfig } from '../config.ts';
import { checkTarget, type TargetDeps } from '../services/webhook-urls.ts';
import { PRODUCTION_POLICY, classify, isLoopbackHost, judge, parseNetworks, type AddressRange } from './address-policy.ts';

const hostOf = (spelling: string): string => new URL(`http://${spelling}/`).hostname;

describe('classification', () => {
  it.each(ALL_SPELLINGS.filter(([host]) => !/localhost/i.test(host)))('%s is %s', (spelling, range) => {
    expect(classify(hostOf(spelling))?.range).toBe(range);
  });

  it('judges an embedded IPv4 address by that address, and says so', () => {
    expect(classify('::ffff:7f00:1')).toEqual({ range: 'loopback', effective: '127.0.0.1', description: 'an IPv4-mapped address of 127.0.0.1, a loopback address' });
    expect(classify('2002:a9fe:a9fe::')?.effective).toBe('169.254.169.254');
    expect(classify('64:ff9b::808:808')).toMatchObject({ range: 'public', effective: '8.8.8.8' });
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
  const expected = (range: AddressRange, policy: 'production' | 'local' | 'listed', host: string): boolean => {
    if (range === 'public') return true;
    if (policy === 'local') return range === 'loopback' || range === 'private';
    if (policy === 'listed') {
      const effective = classify(host)?.effective ?? '';
      return effective === '169.254.169.254' || effective === 'fd00:ec2::254' || effective.startsWith('198.18.') || effective.startsWith('198.19.');
    }
    return false;
  };
  const literal = ALL_SPELLINGS.filter(([host]) => !/localhost/i.test(host));
  it.each(literal)('%s (%s): production only if public', (spelling, range) => {
    expect(judge(hostOf(spelling), PRODUCTION_POLICY).allowed).toBe(expected(range, 'production', hostOf(spelling)));
  });
  it.each(literal)('%s (%s): a sandbox allowed local receivers takes loopback and private too', (spelling, range) => {
    expect(judge(hostOf(spelling), LOCAL).allowed).toBe(expected(range, 'local', hostOf(spelling)));
  });
  it.each(literal)('%s (%s): an allow-list adds exactly its networks, matched on the address meant', (spelling, range) => {
    expect(judge(hostOf(spelling), LISTED).allowed).toBe(expected(range, 'listed', hostOf(spelling)));
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
  it.each(cases)('%s (%s) in each configuration', async (url, range) => {
    const local = range === 'loopback' || range === 'private';
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
    for (const host of ['0.0.0.0', '::', '10.0.0.1', 'localhost.example', 'notlocalhost', '']) expect(isLoopbackHost(host), host).toBe(false);
  });
});

describe('spellings table', () => {
  it('covers every range the policy tells apart', () => {
    expect(Object.keys(SPELLINGS).sort()).toEqual(['benchmarking', 'broadcast', 'documentation', 'linkLocal', 'loopback', 'metadata', 'multicast', 'private', 'public', 'reserved', 'unspecified']);
  });
});
