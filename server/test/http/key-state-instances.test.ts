// Two server instances on one PostgreSQL database: each keeps API-key states in memory (one query fewer a
// request), and a change made through either (a key deleted, a sandbox clock moved) holds on the other by the
// time the request that made it has been answered, also when an instance's listening connection is cut.
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { App } from '../../src/app.ts';
import { channelOf, RENEW_MS } from '../../src/platform/key-state-pg.ts';
import { secondInstance, startServer, type TestServer } from '../harness.ts';

const postgresUrl = process.env.PGW_TEST_DATABASE_URL;
if (!postgresUrl) console.warn('\n*** SKIPPING key-state-instances.test.ts: it needs PostgreSQL (PGW_TEST_DATABASE_URL is not set; .ci/run sets it) ***\n');

const KEYS = '/pay-api/v1/merchants/tokens';
const CUSTOMERS = '/pay-api/v1/customers';
const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

describe.skipIf(!postgresUrl)('API-key states across instances (postgres)', () => {
  let a: TestServer;
  let second: Awaited<ReturnType<typeof secondInstance>>;
  let b: App;
  let bQueries: string[];

  /** Warnings the process printed while the instances ran (pg's, among them). */
  const warnings: string[] = [];
  const onWarning = (warning: Error): void => { warnings.push(`${warning.name}: ${warning.message}`); };

  beforeAll(async () => {
    process.on('warning', onWarning);
    a = await startServer('postgres');
    second = await secondInstance(a);
    ({ app: b, queries: bQueries } = second);
  });
  afterAll(async () => {
    process.off('warning', onWarning);
    await second.close();
    await a.close();
  });

  /** A new key of merchant 0 (so that deleting it never deletes the last) and a token of it. */
  const newKey = async (): Promise<{ clientId: string; bearer: Record<string, string> }> => {
    const created = (await request(a.app).post(KEYS).set(await a.auth(0)).send({ name: 'Till' })).body as { clientId: string; clientSecret: string };
    const token = await request(a.app).post('/oauth2/token').type('form')
      .send({ grant_type: 'client_credentials', scope: 'offline_access', client_id: created.clientId, client_secret: created.clientSecret });
    return { clientId: created.clientId, bearer: { Authorization: `Bearer ${(token.body as { access_token: string }).access_token}` } };
  };
  /** Waits until instance B uses its kept states (its listener is up under a lease): at once but for a (re)connection. */
  const whenBKeeps = async (bearer: Record<string, string>): Promise<void> => {
    for (let i = 0; i < 600; i++) {
      await request(b).get(CUSTOMERS).set(bearer);
      bQueries.length = 0;
      await request(b).get(CUSTOMERS).set(bearer);
      if (!bQueries.some((sql) => sql.includes('api_keys'))) return;
      await sleep(100);
    }
    throw new Error('instance B never kept the key state');
  };

  it('reads the key state once: later requests of the token on that instance read only their own data', async () => {
    const { bearer } = await newKey();
    await whenBKeeps(bearer);
    bQueries.length = 0;
    expect((await request(b).get(CUSTOMERS).set(bearer)).status).toBe(200);
    expect(bQueries.filter((sql) => sql.includes('api_keys'))).toEqual([]);
  });

  it('refuses a key deleted through the other instance as soon as the delete has been answered', async () => {
    for (let round = 0; round < 5; round++) {
      const { clientId, bearer } = await newKey();
      await whenBKeeps(bearer);
      expect((await request(a.app).delete(`${KEYS}/${clientId}`).set(await a.auth(0))).status).toBe(200);
      expect((await request(b).get(CUSTOMERS).set(bearer)).status).toBe(401);
    }
  });

  it('refuses the deleted key on every request started after the delete was answered, with requests in flight during it', async () => {
    const { clientId, bearer } = await newKey();
    await whenBKeeps(bearer);
    const answered = { yet: false };
    const after: number[] = [];
    let loading = (): void => undefined;
    const loaded = new Promise<void>((resolve) => { loading = resolve; });
    const load = (async () => {
      while (!answered.yet) {
        await request(b).get(CUSTOMERS).set(bearer);
        loading();
      }
      for (let i = 0; i < 20; i++) after.push((await request(b).get(CUSTOMERS).set(bearer)).status);
    })();
    // The delete starts while B answers the token's requests (its first one answered).
    await loaded;
    expect((await request(a.app).delete(`${KEYS}/${clientId}`).set(await a.auth(0))).status).toBe(200);
    answered.yet = true;
    await load;
    expect(new Set(after)).toEqual(new Set([401]));
  });

  it('moves the business clock on the other instance as soon as the advance has been answered', async () => {
    const bearer = await a.auth(0);
    await whenBKeeps(bearer);
    const advanced = await request(a.app).post('/sandbox/v1/clock/advance').set(bearer).send({ seconds: 86_400 * 40 });
    expect(advanced.status).toBe(200);
    const now = Date.parse((advanced.body as { now: string }).now);
    const created = await request(b).post(CUSTOMERS).set(bearer).send({ firstName: 'Clock', lastName: 'Check' });
    expect(created.status).toBe(200);
    const read = await request(a.app).get(`${CUSTOMERS}/${(created.body as { id: string }).id}`).set(bearer);
    const createdOn = Date.parse((read.body as { createdOn: string }).createdOn);
    expect(createdOn).toBeGreaterThanOrEqual(now - 1000);
  });

  it('stops using kept states when its listening connection is cut, and a delete still holds at once', async () => {
    const { clientId, bearer } = await newKey();
    await whenBKeeps(bearer);
    // Cut the listening connections of this schema's channel (A's and B's): they are named after it.
    const logFrom = second.logLines.length;
    const cut = await a.db.raw<{ rows: unknown[] }>('select pg_terminate_backend(pid) from pg_stat_activity where application_name = ?', [await channelOf(a.db)]);
    expect(cut.rows).toHaveLength(2);
    // B has seen its connection fail (it says so), and reads the key's state from the database from then on.
    await second.logged(/the listening connection failed/, logFrom);
    bQueries.length = 0;
    expect((await request(b).get(CUSTOMERS).set(bearer)).status).toBe(200);
    expect(bQueries.some((sql) => sql.includes('api_keys'))).toBe(true);
    // The delete's wait ends when the cut instances confirm after reconnecting, or their leases run out: answered
    // (not the 500 of a wait past its limit), and refused on B at once.
    expect((await request(a.app).delete(`${KEYS}/${clientId}`).set(await a.auth(0))).status).toBe(200);
    expect((await request(b).get(CUSTOMERS).set(bearer)).status).toBe(401);
    // And the instance keeps states again once it listens anew.
    const other = await newKey();
    await whenBKeeps(other.bearer);
  });

  it('waits for a crashed instance (a lease nobody renews) only until its lease runs out', async () => {
    const { clientId } = await newKey();
    await a.db.raw("insert into key_state_instances (id, lease_until, synced_seq) values ('crashed', now() + interval '2 seconds', 0)");
    const leaseOver = async (): Promise<boolean> =>
      (await a.db.raw<{ rows: { over: boolean }[] }>("select lease_until <= now() as over from key_state_instances where id = 'crashed'")).rows[0]?.over ?? false;
    const errorsFrom = a.logLines.length;
    expect((await request(a.app).delete(`${KEYS}/${clientId}`).set(await a.auth(0))).status).toBe(200);
    // Answered once the crashed lease had run out (by the database's clock, which the leases are on), and not by
    // giving up on it: a wait past its limit fails the request and logs the instances that did not confirm.
    expect(await leaseOver()).toBe(true);
    // Once expired, it holds nobody up: the next delete is answered too, with the crashed row still there.
    const next = await newKey();
    expect((await request(a.app).delete(`${KEYS}/${next.clientId}`).set(await a.auth(0))).status).toBe(200);
    expect(await leaseOver()).toBe(true);
    expect(a.logLines.slice(errorsFrom).filter((line) => /did not confirm/.test(line))).toEqual([]);
  });

  it("never overlaps statements on a listener's own connection (renewals, acknowledgements and publishers' waits take turns)", async () => {
    // Publishers wait on A's listener connection while both listeners renew and acknowledge.
    const keys = await Promise.all(Array.from({ length: 6 }, () => newKey()));
    await Promise.all(keys.map(async (key) => (await request(a.app).delete(`${KEYS}/${key.clientId}`).set(await a.auth(0))).status));
    await sleep(RENEW_MS * 2);
    expect(warnings.filter((w) => /already executing a query/.test(w))).toEqual([]);
  });
});
