// API keys belong to one environment: a sandbox and a production server on one database (PostgreSQL: one
// schema, two instances; SQLite: one database, two apps), each refusing the other's keys at both token
// services (form and HTTP Basic, every grant), at the dashboard's sign-in and in the key API, as it refuses
// a wrong secret; and the migration that gives existing keys the environment of the server that migrates.
import { randomBytes } from 'node:crypto';
import request from 'supertest';
import type { Knex } from 'knex';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp, type App } from '../../src/app.ts';
import { loadConfig, type Environment } from '../../src/config.ts';
import { createDatabase, migrate } from '../../src/db/knex.ts';
import { seedDemoData } from '../../src/db/seed.ts';
import { createLogger } from '../../src/platform/log.ts';
import { hashSecret, newApiKey } from '../../src/platform/tokens.ts';
import { insertApiKey } from '../../src/repositories/api-keys.ts';
import { memoryStore } from '../../src/repositories/auth-throttle.ts';
import { signIn, SignInError } from '../../src/services/dashboard-sessions.ts';
import { engines, startServer, TestClock, type TestServer } from '../harness.ts';

const postgresUrl = process.env.PGW_TEST_DATABASE_URL;
const KEYS = '/pay-api/v1/merchants/tokens';

interface Key { clientId: string; clientSecret: string; merchant: 0 | 1 | null; userEmail?: string; userPassword?: string }

/** Every way a token service is asked with client credentials (both services, form and Basic, each grant). */
function tokenRequests(app: App, key: Key): { name: string; send: () => Promise<request.Response> }[] {
  const basic = `Basic ${Buffer.from(`${encodeURIComponent(key.clientId)}:${encodeURIComponent(key.clientSecret)}`).toString('base64')}`;
  const form = { client_id: key.clientId, client_secret: key.clientSecret };
  const password = { grant_type: 'password', scope: 'offline_access', username: key.userEmail ?? 'nobody@example.com', password: key.userPassword ?? 'x' };
  return [
    { name: 'client_credentials, form', send: () => request(app).post('/oauth2/token').type('form').send({ grant_type: 'client_credentials', scope: 'offline_access', ...form }) },
    { name: 'client_credentials, Basic', send: () => request(app).post('/oauth2/token').type('form').set('Authorization', basic).send({ grant_type: 'client_credentials', scope: 'offline_access' }) },
    { name: 'refresh_token, form', send: () => request(app).post('/oauth2/token').type('form').send({ grant_type: 'refresh_token', refresh_token: 'x.y.z', ...form }) },
    { name: 'crm password, form', send: () => request(app).post('/crm/oauth2/token').type('form').send({ ...password, ...form }) },
    { name: 'crm refresh_token, form', send: () => request(app).post('/crm/oauth2/token').type('form').send({ grant_type: 'refresh_token', refresh_token: 'x.y.z', ...form }) },
  ];
}

const expectInvalidClient = (res: request.Response, what: string): void => {
  expect([res.status, (res.body as { error?: string }).error], `${what}: ${res.text}`).toEqual([401, 'invalid_client']);
};

describe.each(engines())('API keys belong to one environment (%s)', (engine) => {
  let sandbox: TestServer;
  let production: App;
  let productionDb: Knex | undefined;
  const productionKeys: Key[] = [];
  let sandboxKeys: Key[];

  beforeAll(async () => {
    sandbox = await startServer(engine);
    let db: Knex = sandbox.db;
    if (engine === 'postgres') {
      // A second instance on the same schema, as a production server sharing the sandbox's database.
      const schema = (await sandbox.db.raw<{ rows: { s: string }[] }>('select current_schema() as s')).rows[0]?.s ?? '';
      productionDb = createDatabase(postgresUrl ?? '', { schema });
      db = productionDb;
    }
    const config = loadConfig({ PGW_ENV: 'production', DATABASE_URL: engine === 'postgres' ? (postgresUrl ?? '') : 'sqlite::memory:', PORT: '0', LOG_LEVEL: 'silent' });
    production = await createApp({ config, db, log: createLogger('silent'), clock: sandbox.clock });
    const m = sandbox.secrets.merchants;
    sandboxKeys = [
      { ...sandbox.secrets.partner, merchant: null, userEmail: m[0]?.userEmail ?? '', userPassword: m[0]?.userPassword ?? '' },
      ...m.map((k, i) => ({ clientId: k.clientId, clientSecret: k.clientSecret, merchant: i as 0 | 1, userEmail: k.userEmail, userPassword: k.userPassword })),
    ];
    // Production keys as an operator would provision them (the production server has no demo data of its own).
    for (const [i, merchant] of m.entries()) {
      const key = newApiKey();
      await insertApiKey(sandbox.db, {
        clientId: key.clientId, environment: 'production', partnerId: sandbox.secrets.partner.partnerId, merchantId: merchant.merchantId,
        name: 'Production key', secretHash: hashSecret(key.clientSecret), createdOn: new Date().toISOString(),
      });
      productionKeys.push({ ...key, merchant: i as 0 | 1, userEmail: merchant.userEmail, userPassword: merchant.userPassword });
    }
  });
  afterAll(async () => {
    await production.close();
    await productionDb?.destroy();
    await sandbox.close();
  });

  const servers = (): Record<Environment, App> => ({ sandbox: sandbox.app, production });

  it.each([['sandbox', 'production'], ['production', 'sandbox']] as const)('a %s key gets no token from the %s server: invalid_client, as for a wrong secret, on every grant and both services', async (owner, other) => {
    const keys = owner === 'sandbox' ? sandboxKeys : productionKeys;
    for (const key of keys) {
      for (const { name, send } of tokenRequests(servers()[other], key)) expectInvalidClient(await send(), `${owner} key ${key.clientId} at ${other}, ${name}`);
      // The same key with a wrong secret at its own server: the same answer.
      for (const { name, send } of tokenRequests(servers()[owner], { ...key, clientSecret: `${key.clientSecret}x` })) expectInvalidClient(await send(), `wrong secret, ${name}`);
      // And at its own server it works (client credentials; the password grant with its merchant's user).
      const own = tokenRequests(servers()[owner], key);
      expect((await own[0]?.send())?.status).toBe(200);
      expect((await own[3]?.send())?.status).toBe(200);
    }
  });

  it("a token of one environment is not honoured by the other, and each server's tokens work on it", async () => {
    for (const [owner, other] of [['sandbox', 'production'], ['production', 'sandbox']] as const) {
      const key = (owner === 'sandbox' ? sandboxKeys : productionKeys)[1];
      const token = await request(servers()[owner]).post('/oauth2/token').type('form')
        .send({ grant_type: 'client_credentials', scope: 'offline_access', client_id: key?.clientId, client_secret: key?.clientSecret });
      const bearer = { Authorization: `Bearer ${(token.body as { access_token: string }).access_token}` };
      expect((await request(servers()[owner]).get('/pay-api/v1/customers').set(bearer)).status).toBe(200);
      expect((await request(servers()[other]).get('/pay-api/v1/customers').set(bearer)).status).toBe(401);
    }
  });

  it("lists, finds and deletes only its own environment's keys", async () => {
    const h = await sandbox.auth(0);
    const listed = (await request(sandbox.app).get(KEYS).set(h).query({ pageSize: 100 })).body as { items: { clientId: string }[] };
    expect(listed.items.map((k) => k.clientId)).toContain(sandboxKeys[1]?.clientId);
    expect(listed.items.map((k) => k.clientId)).not.toContain(productionKeys[0]?.clientId);
    const deleted = await request(sandbox.app).delete(`${KEYS}/${productionKeys[0]?.clientId ?? ''}`).set(h);
    expect([deleted.status, (deleted.body as { errorCode: string }).errorCode]).toEqual([404, 'not_found']);
    // The production key still works on production.
    expect((await tokenRequests(production, productionKeys[0] as Key)[0]?.send())?.status).toBe(200);
  });

  it('refuses a production key at the sandbox dashboard sign-in, as a wrong secret', async () => {
    const deps = { db: sandbox.db, wall: sandbox.clock, config: sandbox.config, throttleStore: memoryStore(), hashKey: randomBytes(32), instances: sandbox.instances };
    for (const key of productionKeys) {
      await expect(signIn(deps, key.clientId, key.clientSecret, '127.0.0.1')).rejects.toThrow(SignInError);
      await expect(signIn(deps, key.clientId, key.clientSecret, '127.0.0.1')).rejects.toThrow(/not correct/);
    }
    await expect(signIn(deps, sandboxKeys[1]?.clientId ?? '', sandboxKeys[1]?.clientSecret ?? '', '127.0.0.1')).resolves.toMatchObject({ clientId: sandboxKeys[1]?.clientId });
  });
});

describe.each(engines())('migration 014 gives existing keys the environment of the server that migrates (%s)', (engine) => {
  it.each(['sandbox', 'production'] as const)('keys made before the migration work on the %s server that migrated, on no other', async (migrator) => {
    const schema = engine === 'postgres' ? `t_${Math.random().toString(16).slice(2, 10)}` : undefined;
    const url = engine === 'postgres' ? (postgresUrl ?? '') : 'sqlite::memory:';
    const db = createDatabase(url, schema ? { schema } : {});
    try {
      // A database as migration 013 left it, holding keys: migrate, seed, and take 014 back.
      await migrate(db, 'sandbox', schema);
      const clock = new TestClock();
      const secrets = await seedDemoData(db, clock, 'sandbox');
      // Later migrations first, then 014 itself.
      const source = (await import('../../src/db/migrations/index.ts')).migrationSource('sandbox');
      for (let i = 0; i < 100 && await db.schema.hasColumn('api_keys', 'environment'); i++) {
        await db.migrate.down({ migrationSource: source, ...(schema ? { schemaName: schema } : {}) });
      }
      expect(await db.schema.hasColumn('api_keys', 'environment')).toBe(false);
      await migrate(db, migrator, schema);
      const apps: Record<Environment, App> = {} as Record<Environment, App>;
      for (const environment of ['sandbox', 'production'] as const) {
        apps[environment] = await createApp({ config: loadConfig({ PGW_ENV: environment, DATABASE_URL: url, PORT: '0', LOG_LEVEL: 'silent' }), db, log: createLogger('silent'), clock });
      }
      const key = secrets?.merchants[0];
      const ask = (app: App): Promise<request.Response> => request(app).post('/oauth2/token').type('form')
        .send({ grant_type: 'client_credentials', scope: 'offline_access', client_id: key?.clientId, client_secret: key?.clientSecret });
      expect((await ask(apps[migrator])).status).toBe(200);
      expectInvalidClient(await ask(apps[migrator === 'sandbox' ? 'production' : 'sandbox']), 'the other environment');
      for (const app of Object.values(apps)) await app.close();
    } finally {
      if (schema) await db.raw('drop schema if exists ?? cascade', [schema]);
      await db.destroy();
    }
  });
});
