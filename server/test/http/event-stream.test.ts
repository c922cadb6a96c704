// The sandbox event stream over real HTTP (server-sent events): each new event once, in order, as the webhook
// envelope; the types filter; tenancy (a merchant, a partner naming one); resume by Last-Event-ID without a
// loss or a repeat; the 400s before the stream; polling that stops when the client goes; on PostgreSQL, an
// event committed late by a slower transaction is not skipped, and one committed before the stream opened is not sent
// while an older transaction holds the settled position back; production answers 404.
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { randomUUID } from 'node:crypto';
import { recordEvent } from '../../src/platform/outbox.ts';
import { setUpMerchant } from '../../src/repositories/merchant-setup.ts';
import { engines, fieldsOf, startServer, type TestServer } from '../harness.ts';
import { cardBody, paymentCalls, type Headers } from './payment-helpers.ts';
import { createSandbox } from './sandbox-helpers.ts';

interface Message { id: string; event: string; data: { id: string; type: string; timestamp: string; merchantId: string; data: Record<string, unknown> } }

/** An open stream: the messages parsed so far (comments counted apart), and ways to wait for more. */
interface Stream {
  messages: Message[]; comments: string[]; startIds: string[]; status: number;
  /** The messages once there are `n`, or those that came within `ms` (the assertions then say what is missing). */
  waitFor(n: number, ms?: number): Promise<Message[]>;
  /** The starting point's id (the stream sends it first), or nothing within `ms`. */
  waitForStart(ms?: number): Promise<string[]>;
  close(): void;
}

/** How long a wait for what a stream sends may last: an event arrives within a poll (1 s at the most) when idle. */
const STREAM_WAIT_MS = 60_000;

async function open(base: string, headers: Headers, query = ''): Promise<Stream> {
  const controller = new AbortController();
  const res = await fetch(`${base}/sandbox/v1/events/stream${query}`, { headers: { accept: 'text/event-stream', ...headers }, signal: controller.signal });
  // Who waits for something the stream sends: told at each message read.
  const waiting = new Set<() => void>();
  const until = (done: () => boolean, ms: number): Promise<void> => new Promise((resolve) => {
    const end = (): void => { clearTimeout(timer); waiting.delete(check); resolve(); };
    const check = (): void => { if (done()) end(); };
    const timer = setTimeout(end, ms);
    waiting.add(check);
    check();
  });
  const stream: Stream = {
    messages: [], comments: [], startIds: [], status: res.status,
    async waitFor(n, ms = STREAM_WAIT_MS) {
      await until(() => stream.messages.length >= n, ms);
      return stream.messages;
    },
    async waitForStart(ms = STREAM_WAIT_MS) {
      await until(() => stream.startIds.length > 0, ms);
      return stream.startIds;
    },
    close() { controller.abort(); },
  };
  if (!res.ok || !res.body) return stream;
  expect(res.headers.get('content-type')).toMatch(/^text\/event-stream/);
  const reader = res.body.pipeThrough(new TextDecoderStream()).getReader();
  void (async () => {
    let buffer = '';
    try {
      for (;;) {
        const { value, done } = await reader.read();
        if (done) return;
        buffer += value;
        let end: number;
        while ((end = buffer.indexOf('\n\n')) >= 0) {
          const block = buffer.slice(0, end);
          buffer = buffer.slice(end + 2);
          const fields = new Map<string, string>();
          for (const line of block.split('\n')) {
            if (line.startsWith(':')) stream.comments.push(line);
            else if (line.includes(': ')) fields.set(line.slice(0, line.indexOf(': ')), line.slice(line.indexOf(': ') + 2));
          }
          const id = fields.get('id');
          const data = fields.get('data');
          if (id !== undefined && data !== undefined) stream.messages.push({ id, event: fields.get('event') ?? '', data: JSON.parse(data) as Message['data'] });
          else if (id !== undefined) stream.startIds.push(id);
          for (const check of [...waiting]) check();
        }
      }
    } catch { /* aborted */ }
  })();
  return stream;
}

describe.each(engines())('sandbox event stream (%s)', (engine) => {
  let s: TestServer;
  let server: Server;
  let base: string;
  let h0: Headers;
  let h1: Headers;
  const pay = paymentCalls(() => s);
  const streams: Stream[] = [];
  const openStream = async (headers: Headers, query = ''): Promise<Stream> => {
    const st = await open(base, headers, query);
    streams.push(st);
    return st;
  };
  const sale = async (h: Headers, pan?: string): Promise<string> => (await pay.cardCreate(h, 'sale', cardBody(pan))).transactionId;
  /** The streams' responses on the server, until each closes (the server has seen its client go). */
  const serverSide = {
    open: new Set<ServerResponse>(),
    closed: new Set<() => void>(),
    track: (req: IncomingMessage, res: ServerResponse): void => {
      if (!req.url?.startsWith('/sandbox/v1/events/stream')) return;
      serverSide.open.add(res);
      res.once('close', () => {
        serverSide.open.delete(res);
        if (serverSide.open.size === 0) for (const done of [...serverSide.closed]) done();
      });
    },
    /** Resolves once every stream's response has closed on the server. */
    allClosed: (): Promise<void> => new Promise((resolve) => {
      if (serverSide.open.size === 0) { resolve(); return; }
      const done = (): void => { serverSide.closed.delete(done); resolve(); };
      serverSide.closed.add(done);
    }),
  };
  beforeAll(async () => {
    s = await startServer(engine);
    server = s.app.listen(0, '127.0.0.1');
    server.on('request', serverSide.track);
    await new Promise((r) => server.once('listening', r));
    base = `http://127.0.0.1:${String((server.address() as AddressInfo).port)}`;
    h0 = await s.as(0);
    h1 = await s.as(1);
  });
  afterAll(async () => {
    for (const st of streams) st.close();
    await serverSide.allClosed();
    server.closeAllConnections();
    await new Promise((r) => server.close(r));
    await s.close();
  });

  it('sends each new event once, in order, as the webhook envelope; nothing from before it opened', async () => {
    const before = await sale(h0);
    const st = await openStream(h0);
    expect(st.status).toBe(200);
    const ids = [await sale(h0), await sale(h0, '4000000000000002'), await sale(h0)];
    const got = await st.waitFor(3);
    await new Promise((r) => setTimeout(r, 300));
    expect(st.messages.map((m) => m.data.data.transactionId)).toEqual(ids);
    expect(st.messages.map((m) => m.event)).toEqual(['payment.card.captured', 'payment.card.declined', 'payment.card.captured']);
    expect(st.messages.some((m) => m.data.data.transactionId === before)).toBe(false);
    for (const m of got) {
      expect(m.id).toBe(m.data.id);
      expect(m.data.type).toBe(m.event);
      expect(m.data.merchantId).toBe(s.merchantId(0));
      const row = (await s.db('outbox_events').where({ id: m.id }).first()) as { payload: string; occurred_on: string };
      expect(m.data.data).toEqual(JSON.parse(row.payload));
      expect(m.data.timestamp).toBe(row.occurred_on);
    }
    expect(st.comments).toContain(': connected');
  });

  it('filters by types', async () => {
    const st = await openStream(h0, '?types=payment.card.declined,invoice.paid');
    await sale(h0);
    const declined = await sale(h0, '4000000000000002');
    await sale(h0);
    await st.waitFor(1);
    await new Promise((r) => setTimeout(r, 400));
    expect(st.messages.map((m) => [m.event, m.data.data.transactionId])).toEqual([['payment.card.declined', declined]]);
  });

  it("keeps tenants apart: a merchant never sees another's events; a partner sees the merchant it names", async () => {
    const mine = await openStream(h1);
    const partnerOn0 = await openStream(await s.as('partner', 0));
    const of0 = await sale(h0);
    const of1 = await sale(h1);
    await mine.waitFor(1);
    await partnerOn0.waitFor(1);
    await new Promise((r) => setTimeout(r, 400));
    expect(mine.messages.map((m) => m.data.data.transactionId)).toEqual([of1]);
    expect(partnerOn0.messages.map((m) => m.data.data.transactionId)).toEqual([of0]);
    expect(mine.messages.every((m) => m.data.merchantId === s.merchantId(1))).toBe(true);
  });

  it("follows all a partner's merchants without x-merchant-id: a sandbox merchant it creates arrives with merchant.created first", async () => {
    const hp = await s.as('partner');
    const wide = await openStream(hp);
    const typed = await openStream(hp, '?types=merchant.created');
    // Another partner's merchant, and its event: never on this partner's stream.
    const otherPartner = randomUUID();
    await s.db('partners').insert({ id: otherPartner, name: 'another partner', created_on: new Date().toISOString() });
    const foreign = await setUpMerchant(s.db, 'sandbox', otherPartner, {
      name: 'not ours', mcc: '5999', mccDescription: 'Misc', email: 'x@example.com', city: 'Austin', stateId: 44, stateName: 'Texas', zip: '78701',
    }, new Date().toISOString());
    await recordEvent(s.db, { merchantId: foreign.merchantId, type: 'merchant.created', data: { merchantId: foreign.merchantId, partnerId: otherPartner, companyName: 'not ours', createdOn: new Date().toISOString() }, occurredOn: new Date().toISOString() });
    const of0 = await sale(h0);
    const created = await request(s.app).post('/sandbox/v1/merchants').set(hp).send({ name: 'stream test', expiresInSeconds: 600 });
    expect(created.status).toBe(200);
    const made = created.body as { merchantId: string; clientId: string; clientSecret: string };
    const of1 = await sale(h1);
    await wide.waitFor(3);
    await typed.waitFor(1);
    await new Promise((r) => setTimeout(r, 400));
    expect(wide.messages.map((m) => [m.event, m.data.merchantId])).toEqual([
      ['payment.card.captured', s.merchantId(0)], ['merchant.created', made.merchantId], ['payment.card.captured', s.merchantId(1)],
    ]);
    expect(wide.messages.map((m) => m.data.data.transactionId ?? m.data.data.merchantId)).toEqual([of0, made.merchantId, of1]);
    expect(typed.messages.map((m) => m.data.data)).toEqual([expect.objectContaining({ merchantId: made.merchantId, companyName: 'stream test' })]);
    // Resuming names an event of any of its merchants; another partner's is unknown here.
    const resumed = await openStream({ ...hp, 'last-event-id': wide.messages[0]?.id ?? '' });
    await resumed.waitFor(2);
    await new Promise((r) => setTimeout(r, 300));
    expect(resumed.messages.map((m) => m.event)).toEqual(['merchant.created', 'payment.card.captured']);
    const [theirs] = await s.db('outbox_events').where({ merchant_id: foreign.merchantId }).select<{ id: string }[]>('id');
    const refused = await request(s.app).get('/sandbox/v1/events/stream').set({ ...hp, 'last-event-id': theirs?.id ?? '' });
    expect(refused.status).toBe(400);
    expect(fieldsOf(refused.body)).toEqual(['Last-Event-ID']);
    await request(s.app).delete(`/sandbox/v1/merchants/${made.merchantId}`).set(hp).expect(200);
  });

  it('resumes after Last-Event-ID: what happened while away arrives, nothing twice, nothing lost', async () => {
    const first = await openStream(h0);
    const ids = [await sale(h0), await sale(h0)];
    const seen = await first.waitFor(2);
    first.close();
    const lastId = seen[1]?.id ?? '';
    ids.push(await sale(h0), await sale(h0));
    const second = await openStream({ ...h0, 'last-event-id': lastId });
    ids.push(await sale(h0));
    await second.waitFor(3);
    await new Promise((r) => setTimeout(r, 300));
    expect([...seen, ...second.messages].map((m) => m.data.data.transactionId)).toEqual(ids);
  });

  it('never hands a position out twice: after a reset and after a sandbox deleted, new events stream, and a deleted event\'s id resumes after it', async () => {
    const hp = await s.as('partner');
    const box = await createSandbox(s, hp, { name: 'positions', expiresInSeconds: 600 });
    const other = await createSandbox(s, hp, { name: 'positions, deleted', expiresInSeconds: 600 });
    const live = await openStream(box.h);
    const partnerWide = await openStream(hp, '?types=payment.card.captured');
    const before = [await sale(box.h), await sale(box.h), await sale(box.h)];
    await live.waitFor(3);
    const deletedId = live.messages[2]?.id ?? '';
    // The reset deletes the merchant's newest events; another sandbox's events, the newest of all, go with it.
    // The partner's stream receives that sale before the sandbox goes: a stream polls, and an event deleted before
    // its next poll is not sent (on PostgreSQL the delete came first, and the wait below ran to its limit).
    const otherSale = await sale(other.h);
    expect((await partnerWide.waitFor(4)).map((m) => m.data.data.transactionId)).toContain(otherSale);
    expect((await request(s.app).post('/sandbox/v1/reset').set(box.h)).status).toBe(200);
    expect((await request(s.app).delete(`/sandbox/v1/merchants/${other.merchantId}`).set(hp)).status).toBe(200);
    const after = [await sale(box.h), await sale(box.h), await sale(box.h)];
    await live.waitFor(6);
    expect(live.messages.map((m) => m.data.data.transactionId)).toEqual([...before, ...after]);
    // The partner's stream, open throughout, got every sale of its merchants, the deleted sandbox's included.
    await partnerWide.waitFor(7);
    expect(partnerWide.messages.map((m) => m.data.data.transactionId).sort()).toEqual([...before, otherSale, ...after].sort());
    // A client that last saw a deleted event resumes after it: what is gone skipped, nothing refused.
    const resumed = await openStream({ ...box.h, 'last-event-id': deletedId });
    expect(resumed.status).toBe(200);
    await resumed.waitFor(3);
    expect(resumed.messages.map((m) => m.data.data.transactionId)).toEqual(after);
    const partnerResumed = await openStream({ ...hp, 'last-event-id': deletedId });
    await partnerResumed.waitFor(3);
    expect(partnerResumed.messages.map((m) => m.data.data.transactionId)).toEqual(expect.arrayContaining(after));
    await request(s.app).delete(`/sandbox/v1/merchants/${box.merchantId}`).set(hp).expect(200);
  });

  it('names its starting point (an id without data), so a client that drops before any event resumes from it', async () => {
    await sale(h0);
    const [latest] = await s.db('outbox_events').where({ merchant_id: s.merchantId(0) }).orderBy('stream_seq', 'desc').limit(1).select<{ id: string }[]>('id');
    const st = await openStream(h0);
    expect(await st.waitForStart()).toEqual([latest?.id]);
    st.close();
    const missed = await sale(h0);
    const again = await openStream({ ...h0, 'last-event-id': latest?.id ?? '' });
    await again.waitFor(1);
    expect(again.startIds).toEqual([latest?.id]);
    expect(again.messages.map((m) => m.data.data.transactionId)).toEqual([missed]);
  });

  // Another connection's short transaction (another tenant's request, the worker) holds the settled position behind
  // the merchant's newest event; the opening waits for it, so the start it names is still that newest event.
  it.runIf(engine === 'postgres')("names the merchant's newest event as its start while another tenant's transaction briefly runs", async () => {
    const data = { clientId: 'pgw_ck_other', name: 'other tenant', isActive: true, lastUsedAt: null, createdOn: new Date().toISOString() } as never;
    const other = await s.db.transaction();
    try {
      // It takes its transaction id first (as a request whose first write precedes its event does): until it ends,
      // events committed after that id are not settled. (Its event alone is held until its commit, db/pg-session.ts.)
      await other.raw('select pg_current_xact_id()');
      await recordEvent(other, { merchantId: s.merchantId(1), type: 'api_key.created', data, occurredOn: new Date().toISOString() });
      const newest = await sale(h0);
      const [latest] = await s.db('outbox_events').where({ merchant_id: s.merchantId(0) }).orderBy('stream_seq', 'desc').limit(1).select<{ id: string; payload: string }[]>('id', 'payload');
      expect(JSON.parse(latest?.payload ?? '{}')).toMatchObject({ transactionId: newest });
      // The other transaction commits once the opening has asked for its start a second time: the first answer
      // found the newest event unsettled, and the opening waits.
      let asked = 0;
      const commitOnSecondAsk = (q: { sql: string }): void => {
        if (q.sql.includes('pg_current_snapshot()::text as opened_in') && ++asked === 2) void other.commit();
      };
      s.db.on('query', commitOnSecondAsk);
      try {
        const st = await openStream(h0);
        expect(await st.waitForStart()).toEqual([latest?.id]);
        st.close();
      } finally {
        s.db.off('query', commitOnSecondAsk);
      }
      expect(asked).toBeGreaterThanOrEqual(2);
    } finally {
      if (!other.isCompleted()) await other.rollback();
    }
  });

  it('refuses, before streaming: an unknown type, a Last-Event-ID of another merchant or of nothing, no token', async () => {
    const unknownType = await request(s.app).get('/sandbox/v1/events/stream?types=payment.card.nope').set(h0);
    expect(unknownType.status).toBe(400);
    expect(fieldsOf(unknownType.body)).toEqual(['types']);
    expect(JSON.stringify(unknownType.body)).toContain('payment.card.nope');
    const badPattern = await request(s.app).get('/sandbox/v1/events/stream?types=,,').set(h0);
    expect(badPattern.status).toBe(400);
    const other = await openStream(h1);
    await sale(h1);
    const [theirs] = await other.waitFor(1);
    const foreign = await request(s.app).get('/sandbox/v1/events/stream').set({ ...h0, 'last-event-id': theirs?.id ?? '' });
    expect(foreign.status).toBe(400);
    expect(fieldsOf(foreign.body)).toEqual(['Last-Event-ID']);
    const none = await request(s.app).get('/sandbox/v1/events/stream').set({ ...h0, 'last-event-id': '7c9e6679-7425-40de-944b-e07fc1f90ae7' });
    expect(none.status).toBe(400);
    expect((await request(s.app).get('/sandbox/v1/events/stream')).status).toBe(401);
  });

  it('stops polling the database when the client disconnects', async () => {
    // The streams of the tests before: closed, and seen closed by the server, so that no poll of theirs is counted.
    for (const st of streams) st.close();
    await serverSide.allClosed();
    let reads = 0;
    let polled = (): void => undefined;
    const polling = new Promise<void>((resolve) => { polled = resolve; });
    // Its start, its first poll, and a poll again after a pause.
    const count = (q: { sql: string }): void => { if (q.sql.includes('stream_seq') && ++reads >= 3) polled(); };
    s.db.on('query', count);
    try {
      const st = await openStream(h0);
      await polling;
      st.close();
      await serverSide.allClosed();
      const atClose = reads;
      // Twice its longest pause between polls (1 s when nothing comes): nothing more is read.
      await new Promise((r) => setTimeout(r, 2000));
      expect(reads).toBe(atClose);
    } finally {
      s.db.off('query', count);
    }
  });

  it.runIf(engine === 'postgres')('does not skip an event a slower transaction commits after a later one', async () => {
    const st = await openStream(h0, '?types=api_key.created');
    const data = { clientId: 'pgw_ck_late', name: 'late', isActive: true, lastUsedAt: null, createdOn: new Date().toISOString() } as never;
    const slow = await s.db.transaction();
    // It takes its transaction id first (as a request whose first write precedes its event does): its event, held
    // until its commit (db/pg-session.ts), is then older than `early` in the stream's order.
    await slow.raw('select pg_current_xact_id()');
    const late = await recordEvent(slow, { merchantId: s.merchantId(0), type: 'api_key.created', data, occurredOn: new Date().toISOString() });
    const early = await s.db.transaction(async (trx) => recordEvent(trx, { merchantId: s.merchantId(0), type: 'api_key.created', data, occurredOn: new Date().toISOString() }));
    await new Promise((r) => setTimeout(r, 800));
    // Held back while the slower transaction runs: sending `early` now would put the cursor past `late`.
    expect(st.messages).toEqual([]);
    await slow.commit();
    await st.waitFor(2);
    await new Promise((r) => setTimeout(r, 300));
    expect(st.messages.map((m) => m.id)).toEqual([late, early]);
  });

  // A long-lived database is never idle: another connection's transaction (another tenant's request, the worker,
  // a second instance) holds the oldest running transaction back, and every event committed since then is not yet
  // "settled" when a stream opens. Those events happened before the stream opened and must not be sent.
  it.runIf(engine === 'postgres')('sends nothing committed before it opened while an older transaction still runs (a busy merchant, a moved clock)', async () => {
    const blocker = await s.db.transaction();
    try {
      // Its own event commits after the stream opened: that one is the stream's, and comes first (older transaction).
      const data = { clientId: 'pgw_ck_inflight', name: 'in flight', isActive: true, lastUsedAt: null, createdOn: new Date().toISOString() } as never;
      const inFlight = await recordEvent(blocker, { merchantId: s.merchantId(0), type: 'api_key.created', data, occurredOn: new Date().toISOString() });
      // Concurrent writers of the merchant's history, and a clock advance that commits its own work, all before the stream opens.
      const history = await Promise.all([sale(h0), sale(h0, '4000000000000002'), sale(h0), sale(h0)]);
      expect((await request(s.app).post('/sandbox/v1/clock/advance').set(h0).send({ seconds: 2 * 86_400 })).status).toBe(200);
      history.push(await sale(h0));
      const st = await openStream(h0);
      await new Promise((r) => setTimeout(r, 300));
      await blocker.commit();
      const mine = await sale(h0);
      await st.waitFor(2);
      await new Promise((r) => setTimeout(r, 1200));
      expect(st.messages.map((m) => m.data.data.transactionId ?? m.id)).toEqual([inFlight, mine]);
      expect(st.messages.some((m) => history.includes(String(m.data.data.transactionId)))).toBe(false);
    } finally {
      if (!blocker.isCompleted()) await blocker.rollback();
    }
  });
});

describe('sandbox event stream in production', () => {
  it('answers 404', async () => {
    const s = await startServer('sqlite', { environment: 'production' });
    try {
      const res = await request(s.app).get('/sandbox/v1/events/stream').set(await s.as(0));
      expect(res.status).toBe(404);
    } finally {
      await s.close();
    }
  });
});
