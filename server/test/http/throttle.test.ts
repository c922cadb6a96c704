// Throttling of credential guessing on every surface that checks a secret or a password (both token services'
// client authentication, their refresh grants, the management password grant, the dashboard sign-in): under
// the limit the answers of before; over it 429 with Retry-After and the documented body, without the
// expensive check; the right credentials again after the window; an attacker elsewhere never locks the
// rightful caller out; X-Forwarded-For only through a trusted proxy, IPv6 by /64.
import request from 'supertest';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { engines, startServer, type TestServer } from '../harness.ts';
import {
  expectThrottled, formFrom, listening, queriesDuring, succeeded, surfaces, tokenForm, type Answer,
} from './throttle-helpers.ts';

/** The defaults (config.ts): 10 failures of one identity from one address in 300 s. */
const WINDOW = 300;
const LIMIT = 10;

describe.each(engines())('throttling of credential checks (%s)', (engine) => {
  let s: TestServer;
  beforeAll(async () => { s = await startServer(engine); });
  afterAll(async () => { await s.close(); });
  // Every test starts with every window passed.
  beforeEach(() => { s.clock.advance(3600); });

  describe.each(surfaces)('$name', (surface) => {
    it('answers wrong credentials as before up to the limit, then 429 with Retry-After before any check', async () => {
      for (let i = 0; i < LIMIT; i++) {
        const res = await surface.attempt(s, false);
        expect([i, res.status]).toEqual([i, surface.wrongStatus]);
      }
      // Over the limit: refused, wrong or right, and the credentials are not even looked up.
      for (const right of [false, true, false]) {
        const { result, sql } = await queriesDuring(s.db, () => surface.attempt(s, right));
        expectThrottled(surface, result, WINDOW);
        expect(sql.filter((q) => q.includes(surface.guarded)), `${surface.guarded} was read`).toEqual([]);
      }
    });

    it('lets the right credentials in again when the window has passed, and not before', async () => {
      // Real time stopped meanwhile: the failures and the checks happen at the times the test moves the clock to.
      await s.clock.stopped(async () => {
        for (let i = 0; i < LIMIT; i++) await surface.attempt(s, false);
        const retryAfter = expectThrottled(surface, await surface.attempt(s, true), WINDOW);
        expect(retryAfter).toBe(WINDOW);
        s.clock.advance(retryAfter - 1);
        expectThrottled(surface, await surface.attempt(s, true), WINDOW);
        s.clock.advance(1);
        const res = await surface.attempt(s, true);
        expect(succeeded(surface, res), res.text).toBe(true);
      });
    });

    it('forgets the failures of an address once the right credentials succeed from it', async () => {
      for (let round = 0; round < 3; round++) {
        for (let i = 0; i < LIMIT - 1; i++) expect((await surface.attempt(s, false)).status).toBe(surface.wrongStatus);
        expect(succeeded(surface, await surface.attempt(s, true))).toBe(true);
      }
    });
  });

  it('shares one budget per client id between both token services and the dashboard sign-in', async () => {
    const clientSurfaces = surfaces.filter((x) => x.guarded === 'api_keys');
    for (let i = 0; i < LIMIT; i++) {
      const surface = clientSurfaces[i % clientSurfaces.length];
      if (!surface) throw new Error('no surface');
      expect((await surface.attempt(s, false)).status).toBe(surface.wrongStatus);
    }
    for (const surface of clientSurfaces) expectThrottled(surface, await surface.attempt(s, true), WINDOW);
  });

  it('counts the user name of the password grant apart from the client id, compared in any letter case', async () => {
    const m = s.secrets.merchants[0];
    if (!m) throw new Error('no merchant');
    const spellings = [m.userEmail, m.userEmail.toUpperCase(), m.userEmail.replace(/^./, (c) => c.toUpperCase())];
    for (let i = 0; i < LIMIT; i++) {
      const res = await tokenForm(s.app, '/crm/oauth2/token', {
        grant_type: 'password', username: spellings[i % spellings.length] ?? '', password: 'wrong', client_id: m.clientId, client_secret: m.clientSecret, scope: 'offline_access',
      });
      expect(res.status).toBe(400);
    }
    const passwordGrant = surfaces.find((x) => x.guarded === 'users');
    if (!passwordGrant) throw new Error('no password surface');
    expectThrottled(passwordGrant, await passwordGrant.attempt(s, true), WINDOW);
    // The client's own budget is untouched: its client credentials still buy tokens.
    const client = surfaces[0];
    if (!client) throw new Error('no client surface');
    expect((await client.attempt(s, true)).status).toBe(200);
  });

  it('refuses a source address that sprays many client ids (the per-address limit), yet never locks out a client that did not fail there', async () => {
    const grant = (clientId: string, secret: string): Record<string, string> => ({ grant_type: 'client_credentials', scope: 'offline_access', client_id: clientId, client_secret: secret });
    const ids = Array.from({ length: 120 }, (_, i) => `pgw_ck_${i.toString(16).padStart(16, '0')}`);
    const answers: Answer[] = [];
    for (const id of ids) answers.push(await tokenForm(s.app, '/oauth2/token', grant(id, 'pgw_cs_guess')));
    expect(answers.slice(0, 100).map((a) => a.status)).toEqual(Array(100).fill(401));
    // The attacker is limited: 429 with Retry-After and the documented body, whatever the id.
    for (const answer of answers.slice(100)) expectThrottled(surfaces[0] as (typeof surfaces)[number], answer, WINDOW);
    // An id it already tried is refused unchecked, not even looked up.
    const again = await queriesDuring(s.db, () => tokenForm(s.app, '/oauth2/token', grant(ids[0] ?? '', 'pgw_cs_guess')));
    expectThrottled(surfaces[0] as (typeof surfaces)[number], again.result, WINDOW);
    expect(again.sql.filter((q) => q.includes('api_keys'))).toEqual([]);
    // The merchants behind the same address, who never failed there: their right credentials buy tokens and open
    // the dashboard, on every surface, again and again.
    for (const surface of surfaces.filter((x) => x.guarded === 'api_keys')) {
      for (let i = 0; i < 3; i++) expect([surface.name, succeeded(surface, await surface.attempt(s, true))]).toEqual([surface.name, true]);
    }
    const other = s.secrets.merchants[1];
    if (!other) throw new Error('no second merchant');
    expect((await tokenForm(s.app, '/oauth2/token', grant(other.clientId, other.clientSecret))).status).toBe(200);
    // A wrong secret there is answered as the sprayer's are (429), and that client has now failed at this address:
    // refused unchecked, its right secret too, until the window ends.
    expectThrottled(surfaces[0] as (typeof surfaces)[number], await tokenForm(s.app, '/oauth2/token', grant(other.clientId, 'pgw_cs_wrong')), WINDOW);
    expect((await tokenForm(s.app, '/oauth2/token', grant(other.clientId, other.clientSecret))).status).toBe(429);
    s.clock.advance(WINDOW);
    expect((await tokenForm(s.app, '/oauth2/token', grant(other.clientId, other.clientSecret))).status).toBe(200);
    expect((await tokenForm(s.app, '/oauth2/token', grant(ids[0] ?? '', 'pgw_cs_guess'))).status).toBe(401);
  });

  it('lets exactly the limit of concurrent wrong attempts be checked (each reserves its count first)', async () => {
    const client = surfaces[0];
    if (!client) throw new Error('no client surface');
    const answers = await Promise.all(Array.from({ length: 3 * LIMIT }, () => client.attempt(s, false)));
    const counts = (status: number): number => answers.filter((a) => a.status === status).length;
    expect([counts(401), counts(429)]).toEqual([LIMIT, 2 * LIMIT]);
  });

  it('does not count requests that present no credentials or a malformed body', async () => {
    const m = s.secrets.merchants[0];
    if (!m) throw new Error('no merchant');
    for (let i = 0; i < 3 * LIMIT; i++) {
      expect((await tokenForm(s.app, '/oauth2/token', { grant_type: 'client_credentials', scope: 'offline_access' })).status).toBe(401);
      expect((await tokenForm(s.app, '/oauth2/token', { grant_type: 'client_credentials', client_id: m.clientId, client_secret: 'x' })).status).toBe(400);
    }
    const client = surfaces[0];
    expect(client && (await client.attempt(s, true)).status).toBe(200);
  });

  // The table is PostgreSQL's store; SQLite's is in memory (auth-throttle.test.ts tests both stores alike).
  it.skipIf(engine !== 'postgres')('sweeps counters whose window has passed, and keeps only keyed hashes', async () => {
    const client = surfaces[0];
    if (!client) throw new Error('no client surface');
    for (let i = 0; i < 3; i++) await client.attempt(s, false);
    const keys = (await s.db('auth_throttle').select<{ key: string }[]>('key')).map((r) => r.key);
    expect(keys.length).toBeGreaterThan(0);
    for (const key of keys) expect(key).toMatch(/^[A-Za-z0-9_-]{43}$/);
    s.clock.advance(WINDOW + 61);
    for (const surface of surfaces) expect([surface.name, succeeded(surface, await surface.attempt(s, true))]).toEqual([surface.name, true]);
    const expiredAt = s.clock.now().getTime() - WINDOW * 1000;
    const stale = await s.db('auth_throttle').where('window_start_ms', '<=', expiredAt).count<{ n: number | string }[]>({ n: '*' });
    expect(Number(stale[0]?.n)).toBe(0);
    const held = await s.db('auth_throttle').where('hits', '>', 0).count<{ n: number | string }[]>({ n: '*' });
    expect(Number(held[0]?.n)).toBe(0);
  });
});

describe.each(engines())('an attacker elsewhere cannot lock the rightful caller out (%s)', (engine) => {
  let s: TestServer;
  let http: Awaited<ReturnType<typeof listening>>;
  beforeAll(async () => {
    s = await startServer(engine);
    http = await listening(s.app);
  });
  afterAll(async () => {
    await http.close();
    await s.close();
  });
  beforeEach(() => { s.clock.advance(3600); });

  const clientGrant = (right: boolean): Record<string, string> => {
    const m = s.secrets.merchants[0];
    if (!m) throw new Error('no merchant');
    return { grant_type: 'client_credentials', scope: 'offline_access', client_id: m.clientId, client_secret: right ? m.clientSecret : 'pgw_cs_wrong' };
  };
  const passwordGrant = (right: boolean): Record<string, string> => {
    const m = s.secrets.merchants[0];
    if (!m) throw new Error('no merchant');
    return { grant_type: 'password', username: m.userEmail, password: right ? m.userPassword : 'wrong', client_id: m.clientId, client_secret: m.clientSecret, scope: 'offline_access' };
  };

  describe.each([
    ['client credentials', '/oauth2/token', clientGrant, 401],
    ['the password grant', '/crm/oauth2/token', passwordGrant, 400],
  ] as const)('%s', (_name, path, grant, wrongStatus) => {
    it('keeps issuing tokens to an address without failures while others flood the identity', async () => {
      // Five attacking addresses, each to its own limit and beyond: 50 failures of one identity (its limit).
      for (let a = 2; a <= 6; a++) {
        const from = `127.0.0.${String(a)}`;
        const statuses: number[] = [];
        for (let i = 0; i < 12; i++) statuses.push((await formFrom(http.port, from, path, grant(false))).status);
        expect([from, statuses]).toEqual([from, [...Array<number>(10).fill(wrongStatus), 429, 429]]);
        expect((await formFrom(http.port, from, path, grant(true))).status).toBe(429);
      }
      // The rightful caller at another address: tokens, again and again.
      for (let i = 0; i < 5; i++) expect((await formFrom(http.port, '127.0.0.9', path, grant(true))).status).toBe(200);
      // A fresh attacking address gets one try; then the identity's counter refuses it (it has failed itself).
      expect((await formFrom(http.port, '127.0.0.10', path, grant(false))).status).toBe(wrongStatus);
      const second: Answer = await formFrom(http.port, '127.0.0.10', path, grant(true));
      expect(second.status).toBe(429);
      expect(Number(second.headers['retry-after'])).toBeGreaterThan(0);
      // When the windows have passed, every address may try again.
      s.clock.advance(WINDOW);
      for (const from of ['127.0.0.2', '127.0.0.10']) expect((await formFrom(http.port, from, path, grant(true))).status).toBe(200);
    });
  });
});

describe.each(engines())('the source address behind proxies (%s)', (engine) => {
  let direct: TestServer;
  let proxied: TestServer;
  beforeAll(async () => {
    direct = await startServer(engine);
    proxied = await startServer(engine, { env: { PGW_TRUST_PROXY: 'loopback' } });
  });
  afterAll(async () => {
    await direct.close();
    await proxied.close();
  });
  beforeEach(() => {
    direct.clock.advance(3600);
    proxied.clock.advance(3600);
  });

  const attempt = (s: TestServer, right: boolean, forwardedFor: string) => {
    const m = s.secrets.merchants[0];
    if (!m) throw new Error('no merchant');
    return request(s.app).post('/oauth2/token').set('X-Forwarded-For', forwardedFor).type('form')
      .send({ grant_type: 'client_credentials', scope: 'offline_access', client_id: m.clientId, client_secret: right ? m.clientSecret : 'wrong' });
  };

  it('ignores X-Forwarded-For from a peer that is not a declared proxy (rotating it buys nothing)', async () => {
    const statuses: number[] = [];
    for (let i = 0; i < LIMIT + 2; i++) statuses.push((await attempt(direct, false, `203.0.113.${String(i + 1)}`)).status);
    expect(statuses).toEqual([...Array<number>(LIMIT).fill(401), 429, 429]);
  });

  it('counts the client a trusted proxy names, each address on its own', async () => {
    for (let i = 0; i < LIMIT; i++) expect((await attempt(proxied, false, '203.0.113.1')).status).toBe(401);
    expect((await attempt(proxied, true, '203.0.113.1')).status).toBe(429);
    expect((await attempt(proxied, true, '203.0.113.2')).status).toBe(200);
    // Entries left of the proxy's own are the client's words: changing them changes nothing.
    expect((await attempt(proxied, true, '198.51.100.7, 203.0.113.1')).status).toBe(429);
    // Trusted hops (loopback here) are passed over, right to left.
    expect((await attempt(proxied, true, '203.0.113.1, 127.0.0.5')).status).toBe(429);
    expect((await attempt(proxied, true, '::ffff:203.0.113.1')).status).toBe(429);
  });

  it('counts an IPv6 client by its /64: rotating inside it, in any spelling, shares one budget', async () => {
    const sameNetwork = [
      '2001:db8:1:2::1', '2001:DB8:1:2::2', '2001:0db8:0001:0002:0000:0000:0000:0003', '2001:db8:1:2:ffff:ffff:ffff:ffff',
      '2001:db8:1:2:1:2:3:4', '2001:db8:1:2::1.2.3.4', '2001:db8:1:2:a::', '2001:db8:1:2:0:0:0:9', '2001:db8:1:2::a:b', '2001:db8:1:2::beef',
    ];
    for (const address of sameNetwork) expect([address, (await attempt(proxied, false, address)).status]).toEqual([address, 401]);
    expect((await attempt(proxied, true, '2001:db8:1:2::abcd')).status).toBe(429);
    for (const other of ['2001:db8:1:3::1', '2001:db8:2:2::1']) expect([other, (await attempt(proxied, true, other)).status]).toEqual([other, 200]);
  });

  it('counts a client by its address however the proxy spells it (a port, brackets)', async () => {
    const spellings = ['203.0.113.77', '203.0.113.77:4711', '203.0.113.77:1', '::ffff:203.0.113.77', '[::ffff:203.0.113.77]:80'];
    for (let i = 0; i < LIMIT; i++) expect((await attempt(proxied, false, spellings[i % spellings.length] ?? '')).status).toBe(401);
    expect((await attempt(proxied, true, '203.0.113.77:9')).status).toBe(429);
    for (let i = 0; i < LIMIT; i++) expect((await attempt(proxied, false, i % 2 === 0 ? '[2001:db8:7:7::1]:443' : '[2001:db8:7:7::2]')).status).toBe(401);
    expect((await attempt(proxied, true, '2001:db8:7:7::3')).status).toBe(429);
  });

  // Malformed client entries once all counted as the proxy's own address: one bucket for every such client.
  const MALFORMED = [
    'unknown', 'evil', '_hidden', '1.2.3', '1.2.3.4.5', '999.1.1.1', '010.0.0.1', '0x7f.0.0.1', '0177.0.0.1', '2130706433', '127.1', '::ffff:1.2.3',
    '2001:db8::g', '1.2.3.4%eth0', 'example.com', '[1.2.3.4]', '1.2.3.4:123456', '[2001:db8::1', 'for=203.0.113.9', '"203.0.113.9"', '203.0.113.9;',
    '198.51.100.7, unknown', 'unknown, 127.0.0.5', 'x'.repeat(500),
  ];
  it('refuses a malformed client address a trusted proxy names: 400, nothing checked, nothing counted', async () => {
    for (const value of MALFORMED) {
      for (const right of [false, true]) {
        // The token services answer a refused request in RFC 6749's terms.
        const { result: res, sql } = await queriesDuring(proxied.db, () => attempt(proxied, right, value));
        const body = JSON.parse(res.text) as { error?: string; error_description?: string };
        expect([value, res.status, body.error]).toEqual([value, 400, 'invalid_request']);
        expect(body.error_description).toMatch(/^X-Forwarded-For, read through the trusted proxies \(PGW_TRUST_PROXY\), names no client address\. ".*" is not an IP address/);
        expect([res.headers['retry-after'], res.headers['cache-control']]).toEqual([undefined, 'no-store']);
        expect(sql.filter((q) => q.includes('api_keys') || q.includes('auth_throttle'))).toEqual([]);
      }
    }
    // The API answers it in the standard error body, naming the header.
    const api = await request(proxied.app).get('/pay-api/v1/customers').set(await proxied.as(0)).set('X-Forwarded-For', 'unknown');
    expect([api.status, (api.body as { errorCode?: string }).errorCode, (api.body as { errors?: Record<string, string[]> }).errors]).toEqual([400, 'validation_failed', { 'X-Forwarded-For': ['"unknown" is not an IP address (an address, address:port or [IPv6]:port)'] }]);
    // The proxy's own address (its health checks, a client it names properly) was charged nothing.
    const own = await request(proxied.app).post('/oauth2/token').type('form').send({
      grant_type: 'client_credentials', scope: 'offline_access', client_id: proxied.secrets.merchants[0]?.clientId, client_secret: proxied.secrets.merchants[0]?.clientSecret,
    });
    expect(own.status, own.text).toBe(200);
    for (let i = 0; i < LIMIT - 1; i++) expect((await attempt(proxied, false, '127.0.0.1')).status).toBe(401);
    expect((await attempt(proxied, true, '203.0.113.200')).status).toBe(200);
  });
});
