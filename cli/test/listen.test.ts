// `pgw listen` and `pgw trigger` end to end against the bundled server: every event type of the spec is triggered
// and arrives at a local URL signed (verified with `standardwebhooks`), each event once and none missing: the
// merchant's through `pgw listen`, a new sandbox merchant's merchant.created through `pgw listen --partner`
// (which also gets every event of the partner's merchants, merged in order); another merchant's listener
// receives none of them; Ctrl-C exits 0 and leaves nothing on the server (every table's row count
// unchanged); the secret is made once (0600) and reused; a dropped stream resumes with Last-Event-ID and loses
// nothing. The listen transcript is saved under test-artifacts/cli/.
import { mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventTypes } from '../src/event-types.ts';
import { builtInFixture, recipes } from '../src/recipes.ts';
import { pgw, ROOT, spawnPgw, startGateway, startProxy, startReceiver, type Gateway, type Receiver } from './helpers.ts';

const ARTIFACTS = path.join(ROOT, 'test-artifacts', 'cli');
// The ids a trigger prints: record UUIDs, and API keys' client ids.
const PRINTED_ID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}|\bpgw_ck_[0-9a-f]+/g;

/** The ids of the merchant's outbox events (every merchant's: 'all'), in stream order. */
async function eventIds(g: Gateway, merchant: 0 | 1 | 'all'): Promise<string[]> {
  const query = g.s.db('outbox_events').orderBy('stream_seq');
  if (merchant !== 'all') void query.where({ merchant_id: g.s.merchantId(merchant) });
  const rows = await query.select<{ id: string }[]>('id');
  return rows.map((r) => r.id);
}

/** Every table's row count: "nothing registered" is nothing written anywhere. */
async function rowCounts(g: Gateway): Promise<Record<string, number>> {
  const tables = await g.s.db('sqlite_master').where({ type: 'table' }).select<{ name: string }[]>('name');
  const counts: Record<string, number> = {};
  for (const { name } of tables) {
    const row = await g.s.db(name).count<{ n: number | string }>({ n: '*' }).first();
    counts[name] = Number(row?.n ?? 0);
  }
  return counts;
}

const redact = (text: string): string => text.replace(/whsec_[A-Za-z0-9+/=]+/g, 'whsec_…(redacted in this transcript)');

describe('pgw listen and trigger', () => {
  let g: Gateway;
  let receiver: Receiver;
  let other: Receiver;
  let partner: Receiver;
  beforeAll(async () => {
    g = await startGateway();
    receiver = await startReceiver();
    other = await startReceiver();
    partner = await startReceiver();
    mkdirSync(ARTIFACTS, { recursive: true });
  });
  afterAll(async () => {
    await receiver.close();
    await other.close();
    await partner.close();
    await g.close();
  });

  it('makes the secret once (printed once, mode 0600), and Ctrl-C leaves nothing on the server', async () => {
    const env = { PGW_CONFIG: g.config };
    const before = await rowCounts(g);
    const first = spawnPgw(['listen', '--forward-to', receiver.url], env);
    await first.waitFor(/Ready: events of merchant/);
    const secret = /local signing secret is (whsec_\S+)/.exec(first.stdout())?.[1];
    expect(secret).toBeDefined();
    const file = path.join(g.dir, 'pgw-listen-secret');
    expect(readFileSync(file, 'utf8').trim()).toBe(secret);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    first.process.kill('SIGINT');
    const run = await first.exit();
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toMatch(/Stopped: 0 events forwarded; nothing was registered/);
    expect(await rowCounts(g)).toEqual(before);
    // A restart reuses it, and does not print it again.
    const second = spawnPgw(['listen', '--forward-to', receiver.url], env);
    await second.waitFor(/Ready/);
    expect(second.stdout()).toContain(`Signing with the local secret kept in ${file}`);
    expect(second.stdout()).not.toContain(secret);
    second.process.kill('SIGINT');
    expect((await second.exit()).code).toBe(0);
    expect(await rowCounts(g)).toEqual(before);
    receiver.secret = secret;
    other.secret = secret;
    partner.secret = secret;
  });

  it('forwards every event type of the spec, signed, each event once and none missing; another merchant receives none', async () => {
    // The bundled server's credentials file: the partner's key beside the merchants' (merchant.created needs it).
    const config = path.join(g.dir, 'with-partner.json');
    writeFileSync(config, JSON.stringify({ baseUrl: g.base, authUrl: g.base, merchants: g.s.secrets.merchants, partner: g.s.secrets.partner }), { mode: 0o600 });
    const env = { PGW_CONFIG: config };
    const known = new Set(await eventIds(g, 0));
    const knownOther = new Set(await eventIds(g, 1));
    const knownAll = new Set(await eventIds(g, 'all'));
    const listener = spawnPgw(['listen', '--forward-to', receiver.url], env);
    const otherListener = spawnPgw(['listen', '--forward-to', other.url, '--merchant', '1'], env);
    const partnerListener = spawnPgw(['listen', '--forward-to', partner.url, '--partner'], env);
    // Stopped whatever happens below (a listener left running would forward into the next test's receiver).
    const stopAll = (): void => { for (const l of [listener, otherListener, partnerListener]) l.process.kill('SIGINT'); };
    try {
      await listener.waitFor(/Ready/);
      await otherListener.waitFor(/Ready/);
      await partnerListener.waitFor(/Ready: events of every merchant of the partner/);
    } catch (error) {
      stopAll();
      throw error;
    }
    try {
      const types = Object.keys(recipes);
      // Every event type of the spec has a built-in fixture.
      expect([...types].sort()).toEqual([...eventTypes()].sort());
      const byPartner = types.filter((t) => builtInFixture(t as never)?.key === 'partner');
      expect(byPartner).toEqual(['merchant.created']);
      const transcript: string[] = [];
      const printed = new Map<string, string[]>();
      for (const type of types) {
        const run = await pgw(['trigger', type], env);
        expect(run.code, `${type}: ${run.stderr}`).toBe(0);
        transcript.push(`$ npx pgw trigger ${type}`, run.stdout.trimEnd());
        printed.set(type, run.stdout.match(PRINTED_ID) ?? []);
      }
      const expected = [...(await eventIds(g, 0))].filter((id) => !known.has(id));
      await receiver.waitForCount(expected.length);
      await new Promise((r) => setTimeout(r, 500));
      // The partner's listener: every new event of every merchant (merchant 0's and the new sandbox merchants').
      const expectedAll = (await eventIds(g, 'all')).filter((id) => !knownAll.has(id));
      await partner.waitForCount(expectedAll.length);
      await new Promise((r) => setTimeout(r, 500));
      const got = receiver.received;
      // Each event once, none missing, in the order they were recorded.
      expect(got.map((r) => r.id)).toEqual(expected);
      expect(partner.received.map((r) => r.id)).toEqual(expectedAll);
      expect(partner.received.every((r) => r.verified)).toBe(true);
      for (const r of got) {
        expect(r.verified, r.error).toBe(true);
        expect(r.merchantId).toBe(g.s.merchantId(0));
        expect(JSON.parse(r.body)).toMatchObject({ id: r.id, type: r.type });
      }
      // Every triggered type arrived, about a record the trigger printed: on the merchant's listener, or (a new
      // merchant's creation) on the partner's, naming the merchant the trigger printed.
      for (const type of types) {
        const ofType = (byPartner.includes(type) ? partner.received : got).filter((r) => r.type === type);
        expect(ofType.length, type).toBeGreaterThan(0);
        // A settlement batch's payload is the batch (counts, totals), not its transactions.
        if (type === 'settlement.batch.completed') continue;
        const ids = printed.get(type) ?? [];
        expect(ofType.some((r) => ids.some((id) => r.body.includes(id))), `${type}: no event names an id the trigger printed (${ids.join(', ')})`).toBe(true);
      }
      // Tenancy: merchant 1's listener got nothing of merchant 0, and merchant 1 had no events.
      expect(other.received).toEqual([]);
      expect((await eventIds(g, 1)).filter((id) => !knownOther.has(id))).toEqual([]);
      expect(got.some((r) => r.type === 'merchant.created')).toBe(false);
      stopAll();
      expect((await partnerListener.exit()).code).toBe(0);
      const run = await listener.exit();
      expect(run.code, run.stderr).toBe(0);
      expect((await otherListener.exit()).code).toBe(0);
      expect(run.stdout).toContain(`Stopped: ${String(expected.length)} events forwarded`);
      // One line per event: time, type, id, the local status, the duration.
      const lines = run.stdout.split('\n').filter((l) => /^\d{4}-\d\d-\d\dT/.test(l));
      expect(lines).toHaveLength(expected.length);
      for (const [i, l] of lines.entries()) expect(l).toMatch(new RegExp(`^\\S+Z\\s+${got[i]?.type ?? ''}\\s+${got[i]?.id ?? ''}\\s+204\\s+\\d+ ms$`));
      writeFileSync(path.join(ARTIFACTS, 'listen.txt'), redact(`$ npx pgw listen --forward-to ${receiver.url}\n${run.stdout}`));
      writeFileSync(path.join(ARTIFACTS, 'trigger.txt'), `${transcript.join('\n')}\n`);
    } finally {
      stopAll();
    }
    // A pgw process a type (29) and three listeners: 101 s with CI's three files at once on two cores, over 180 s
    // beside `stress --cpu 2`.
  }, 600_000);

  it('resumes a dropped stream after the last event it received (Last-Event-ID): nothing lost, nothing twice', async () => {
    const proxy = await startProxy(g.base);
    const config = path.join(g.dir, 'via-proxy.json');
    writeFileSync(config, JSON.stringify({ baseUrl: proxy.url, authUrl: g.base, merchants: g.s.secrets.merchants }));
    receiver.received.length = 0;
    const known = new Set(await eventIds(g, 0));
    const listener = spawnPgw(['listen', '--forward-to', receiver.url, '--events', 'payment.card.captured'], { PGW_CONFIG: config });
    try {
      await listener.waitFor(/Ready/);
      receiver.secret = readFileSync(path.join(g.dir, 'pgw-listen-secret'), 'utf8').trim();
      const h = await g.s.as(0);
      const sale = async (): Promise<void> => {
        const res = await request(g.s.app).post('/pay-api/v1/transactions/card/sale').set(h)
          .send({ amount: 12.5, card: { pan: '4111111111111111', expirationMonth: 12, expirationYear: 2030, securityCode: '123' } });
        expect(res.status).toBe(200);
      };
      await sale();
      await sale();
      await receiver.waitForCount(2);
      proxy.drop();
      // Recorded while the listener cannot reach the server.
      await sale();
      await sale();
      await sale();
      // The listener has seen its stream cut (and retries, refused, until the proxy lets it through again).
      await listener.waitFor(/reconnecting/);
      proxy.resume();
      await sale();
      await receiver.waitForCount(6);
      await new Promise((r) => setTimeout(r, 500));
      const expected = (await eventIds(g, 0)).filter((id) => !known.has(id));
      expect(expected).toHaveLength(6);
      expect(receiver.received.map((r) => r.id), listener.stdout()).toEqual(expected);
      expect(receiver.received.every((r) => r.verified)).toBe(true);
      expect(listener.stdout()).toMatch(/reconnected \(resuming after [0-9a-f-]{36}\)/);
    } finally {
      listener.process.kill('SIGINT');
      expect((await listener.exit()).code).toBe(0);
      await proxy.close();
    }
  });
});
