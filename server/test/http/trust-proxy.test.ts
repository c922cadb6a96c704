// PGW_TRUST_PROXY: its spellings (accepted, or refused at start with a message naming it), and the dashboard's
// cookies over real HTTP on 127.0.0.1: Secure when a trusted proxy says X-Forwarded-Proto: https (or the
// public base URL is https), never from an untrusted peer's header, for the sign-in nonce and the session.
import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import request from 'supertest';
import { afterAll, describe, expect, it } from 'vitest';
import { createApp } from '../../src/app.ts';
import { ConfigError, loadConfig } from '../../src/config.ts';
import { createDatabase, migrate, type Database } from '../../src/db/knex.ts';
import { seedDemoData } from '../../src/db/seed.ts';
import { createLogger } from '../../src/platform/log.ts';
import { TestClock } from '../harness.ts';
import { cookiePair, csrfIn, setCookie } from './dashboard-helpers.ts';

describe('PGW_TRUST_PROXY spellings', () => {
  it.each([
    [undefined, []], ['', []], ['  ', []], ['loopback', ['loopback']], ['127.0.0.1', ['127.0.0.1']], ['10.0.0.0/8', ['10.0.0.0/8']],
    ['::1', ['::1']], ['fd00::/8', ['fd00::/8']], ['10.0.0.0/255.0.0.0', ['10.0.0.0/255.0.0.0']], ['loopback, 10.1.2.3', ['loopback', '10.1.2.3']],
    ['linklocal,uniquelocal', ['linklocal', 'uniquelocal']], ['192.168.0.0/0', ['192.168.0.0/0']], ['2001:db8::/128', ['2001:db8::/128']],
  ] as const)('accepts %j', (value, list) => {
    expect(loadConfig(value === undefined ? {} : { PGW_TRUST_PROXY: value }).trustProxy).toEqual(list);
  });

  it.each([
    'true', '1', '*', 'all', 'localhost', 'proxy.example.com', '10.0.0.0/33', '::1/129', '10.0.0.1/8/8', 'loopback,,10.0.0.1',
    '300.1.1.1', 'loopback;10.0.0.1', 'fd00::/255.0.0.0', '10.0.0.0/-1', '10.0.0.0/', 'Loopback', '10.0.0.0/8x',
  ])('refuses %j, naming the variable', (value) => {
    expect(() => loadConfig({ PGW_TRUST_PROXY: value })).toThrow(ConfigError);
    expect(() => loadConfig({ PGW_TRUST_PROXY: value })).toThrow(/^PGW_TRUST_PROXY must be/);
  });
});

interface Running { base: string; server: Server; db: Database; close: () => Promise<void> }

/** A sandbox server with this environment, on a fresh in-memory database, listening on 127.0.0.1. */
async function serve(env: Record<string, string>): Promise<Running & { secrets: NonNullable<Awaited<ReturnType<typeof seedDemoData>>> }> {
  const db = createDatabase('sqlite::memory:');
  await migrate(db, 'sandbox');
  const secrets = await seedDemoData(db, new TestClock(), 'sandbox');
  if (!secrets) throw new Error('not seeded');
  const app = await createApp({ config: loadConfig({ PGW_ENV: 'sandbox', DATABASE_URL: 'sqlite::memory:', PORT: '0', LOG_LEVEL: 'silent', ...env }), db, log: createLogger('silent') });
  const server = app.listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  const base = `http://127.0.0.1:${String((server.address() as AddressInfo).port)}`;
  return {
    base, server, db, secrets,
    close: async () => {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
      await app.close();
      await db.destroy();
    },
  };
}

const isSecure = (header: string | undefined): boolean => (header ?? '').split(';').map((a) => a.trim()).includes('Secure');

describe('the dashboard cookies behind a proxy (real HTTP on 127.0.0.1)', () => {
  const running: Running[] = [];
  afterAll(async () => { for (const r of running) await r.close(); });

  // [PGW_TRUST_PROXY, PGW_BASE_URL, X-Forwarded-Proto the peer sends, Secure expected]. The peer is 127.0.0.1.
  it.each([
    [undefined, undefined, 'https', false],
    [undefined, undefined, undefined, false],
    ['loopback', undefined, 'https', true],
    ['loopback', undefined, 'https, http', true],
    ['loopback', undefined, undefined, false],
    ['loopback', undefined, 'http', false],
    ['127.0.0.1', undefined, 'https', true],
    ['127.0.0.0/8', undefined, 'https', true],
    ['10.0.0.0/8', undefined, 'https', false],
    ['10.0.0.0/8, 192.168.1.1', undefined, 'https', false],
    ['uniquelocal', undefined, 'https', false],
    [undefined, 'https://pay.example.com', undefined, true],
    [undefined, 'https://pay.example.com', 'http', true],
  ] as const)('trust %j, base URL %j, X-Forwarded-Proto %j: Secure %j on the sign-in nonce and the session cookie', async (trust, baseUrl, proto, secure) => {
    const r = await serve({ ...(trust === undefined ? {} : { PGW_TRUST_PROXY: trust }), ...(baseUrl === undefined ? {} : { PGW_BASE_URL: baseUrl }) });
    running.push(r);
    const forwarded = proto === undefined ? {} : { 'X-Forwarded-Proto': proto };
    const form = await request(r.base).get('/dashboard/sign-in').set(forwarded);
    expect(form.status).toBe(200);
    const nonce = setCookie(form, 'pgw_dashboard_signin');
    expect(isSecure(nonce), nonce).toBe(secure);
    // The browser's Origin is what it sees: the base URL's when set, else https or http as the proxy says.
    const origin = baseUrl ?? `${secure ? 'https' : 'http'}://${new URL(r.base).host}`;
    const merchant = r.secrets.merchants[0];
    const signedIn = await request(r.base).post('/dashboard/sign-in').set({ ...forwarded, Origin: origin, Cookie: cookiePair(nonce ?? '') }).type('form')
      .send({ csrf: csrfIn(form.text), clientId: merchant?.clientId, clientSecret: merchant?.clientSecret });
    expect(signedIn.status, signedIn.text).toBe(303);
    const session = setCookie(signedIn, 'pgw_dashboard');
    expect(isSecure(session), session).toBe(secure);
    expect(isSecure(setCookie(signedIn, 'pgw_dashboard_signin'))).toBe(secure);
  });
});
