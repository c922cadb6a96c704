// The sandbox clock advance does not wait on webhook receivers, on both engines: with a receiver that never
// answers (it accepts the connection and holds the request) and one that answers only once the advance has
// returned, a 7-day advance over several endpoints and events makes no HTTP call itself (it queues the attempts
// that fell due) and returns while a receiver still holds an unanswered request of the delivery pump; the pump
// makes the queued attempts afterwards. Ordering is asserted, never timings.
import { createServer as createTcpServer, type AddressInfo, type Server as TcpServer, type Socket } from 'node:net';
import { createServer as createHttpServer, type Server as HttpServer } from 'node:http';
import request from 'supertest';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../src/platform/log.ts';
import { DeliveryPump } from '../../src/worker/delivery-pump.ts';
import { runDue } from '../../src/worker/run-due.ts';
import { engines, startServer, type TestServer } from '../harness.ts';
import { achDebitBody, cardBody, paymentCalls, type Headers } from './payment-helpers.ts';
import { startReceiver, type Receiver } from './webhook-receiver.ts';

const EVENT_TYPES = ['payment.ach.scheduled', 'payment.ach.in_progress', 'payment.ach.cleared', 'payment.card.authorized', 'payment.card.captured', 'settlement.batch.completed'];

/** What happened, in the order it happened (the assertions are about this order, not about durations). */
type Happening = 'hang:request' | 'slow:request' | 'slow:answered' | 'advance:returned';

/** A receiver that accepts every connection, reads the request and never answers. */
async function hangingReceiver(log: Happening[]): Promise<{ url: string; requests: () => number; open: () => number; close: () => Promise<void> }> {
  const sockets = new Set<Socket>();
  let requests = 0;
  const server: TcpServer = createTcpServer((socket) => {
    sockets.add(socket);
    socket.once('data', () => { requests += 1; log.push('hang:request'); });
    socket.on('close', () => { sockets.delete(socket); });
    socket.on('error', () => undefined);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${String((server.address() as AddressInfo).port)}/hang`,
    requests: () => requests,
    open: () => sockets.size,
    close: () => new Promise((resolve) => { for (const s of sockets) s.destroy(); server.close(() => { resolve(); }); }),
  };
}

/** A receiver that holds each request until released, then answers 200 (and at once from then on). */
async function slowReceiver(log: Happening[]): Promise<{ url: string; requests: () => number; answered: () => number; release: () => void; close: () => Promise<void> }> {
  let requests = 0;
  let answered = 0;
  let held: (() => void)[] | undefined = [];
  const server: HttpServer = createHttpServer((req, res) => {
    req.resume();
    requests += 1;
    log.push('slow:request');
    const answer = (): void => {
      answered += 1;
      log.push('slow:answered');
      res.writeHead(200).end('late');
    };
    if (held) held.push(answer); else answer();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${String((server.address() as AddressInfo).port)}/slow`,
    requests: () => requests,
    answered: () => answered,
    release: () => { const answers = held ?? []; held = undefined; for (const answer of answers) answer(); },
    close: () => new Promise((resolve) => { held = undefined; server.closeAllConnections(); server.close(() => { resolve(); }); }),
  };
}

/** Polls `check` (in-memory counts, or a delivery log read through the API) until it holds. */
async function until(what: string, check: () => boolean | Promise<boolean>, ms = 60_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`gave up waiting: ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

describe.each(engines())('the clock advance queues webhook deliveries (%s)', (engine) => {
  let s: TestServer;
  let h: Headers;
  let fast: Receiver;
  let hang: Awaited<ReturnType<typeof hangingReceiver>>;
  let slow: Awaited<ReturnType<typeof slowReceiver>>;
  let log: Happening[];
  let stopPump: (() => Promise<void>) | undefined;
  const pay = paymentCalls(() => s);

  beforeAll(async () => {
    s = await startServer(engine);
  });
  afterAll(async () => { await s.close(); });
  afterEach(async () => {
    // The receivers go first (their held requests fail at once), then the pump drains what it has in flight.
    await Promise.all([hang.close(), slow.close(), fast.close()]);
    await stopPump?.();
    stopPump = undefined;
  });

  /** Three webhooks of merchant `who` (the hanging, the slow and the fast receiver) and several events of each kind. */
  async function setUp(who: 0 | 1): Promise<string[]> {
    log = [];
    h = await s.as(who);
    fast = await startReceiver('/fast');
    hang = await hangingReceiver(log);
    slow = await slowReceiver(log);
    const ids: string[] = [];
    for (const url of [hang.url, slow.url, fast.url]) {
      const res = await request(s.app).post('/v2/webhooks/endpoints').set(h).send({ name: 'Receiver', endpointUrl: url, eventTypes: EVENT_TYPES });
      expect(res.status, res.text).toBe(200);
      ids.push((res.body as { id: string }).id);
    }
    for (let i = 0; i < 2; i++) {
      await pay.achDebit(h, achDebitBody(s, who));
      await pay.cardCreate(h, 'sale', cardBody());
      await pay.cardCreate(h, 'authorization', cardBody());
    }
    return ids;
  }

  /** The delivery pump of the worker, ticking until stopped. */
  function runPump(): void {
    const pump = new DeliveryPump({ db: s.db, config: s.config, wall: s.clock, log: createLogger('silent'), instances: s.instances });
    const state = { stopped: false };
    const loop = (async () => {
      while (!state.stopped) {
        await pump.tick();
        await new Promise((r) => setTimeout(r, 20));
      }
    })();
    stopPump = async () => { state.stopped = true; await loop; await pump.drain(); };
  }

  const pendingDue = async (merchant: string): Promise<number> => {
    const rows = await s.db('webhook_deliveries').where({ merchant_id: merchant, status: 'Pending' }).select<{ next_retry_at: string }[]>('next_retry_at');
    const now = Date.parse((await pay.clock(h)).now);
    return rows.filter((r) => Date.parse(r.next_retry_at) <= now).length;
  };

  it('makes no HTTP call itself: the attempts that fell due are queued, and the delivery engine makes them afterwards', async () => {
    const hooks = await setUp(0);
    const run = await pay.advance(h, 7 * 86_400);
    log.push('advance:returned');
    // Nothing reached any receiver during the advance, and what fell due is queued, due now.
    expect([hang.requests(), slow.requests(), fast.received.length]).toEqual([0, 0, 0]);
    expect(run.ran.cardSettled).toBeGreaterThanOrEqual(2);
    expect(run.ran.achSettled).toBeGreaterThanOrEqual(2);
    expect(run.ran.webhookAttempts).toBe(await pendingDue(s.merchantId(0)));
    expect(run.ran.webhookAttempts).toBeGreaterThanOrEqual(3 * 8);
    // The engine makes them afterwards (the two awkward receivers gone now, so that waiting on them costs
    // nothing): the fast receiver gets every event, the events of the advance among them.
    await Promise.all([hang.close(), slow.close()]);
    const made = await runDue({ ...s, wall: s.clock }, s.clock.now());
    expect(made.webhookAttempts).toBeGreaterThanOrEqual(run.ran.webhookAttempts);
    const types = fast.received.map((r) => (JSON.parse(r.body) as { type: string }).type);
    for (const type of ['payment.ach.in_progress', 'payment.ach.cleared', 'settlement.batch.completed', 'payment.card.captured']) expect(types).toContain(type);
    const fastLog = await request(s.app).get(`/v2/webhooks/delivery-logs/${hooks[2] ?? ''}`).set(h).query({ pageSize: 100 });
    expect((fastLog.body as { items: { status: string }[] }).items.every((e) => e.status === 'Succeeded')).toBe(true);
    expect(log.indexOf('advance:returned')).toBe(0);
  });

  it('returns while a receiver holds an unanswered request of the delivery pump, and the pump attempts what the advance queued', async () => {
    const hooks = await setUp(1);
    runPump();
    // The pump's first attempts are out: the hanging receiver holds one; the slow one has not answered.
    await until('the hanging and the slow receiver to hold a request', () => hang.open() > 0 && hang.requests() > 0 && slow.requests() > 0);
    const run = await pay.advance(h, 7 * 86_400);
    log.push('advance:returned');
    expect(run.ran.webhookAttempts).toBeGreaterThan(0);
    // The advance returned with the slow receiver's requests unanswered, while the hanging one still holds its
    // request (an advance that waited for the pump's attempts would have met their time-out: the hanging socket
    // closed). Now the slow one answers.
    expect(hang.open()).toBeGreaterThan(0);
    expect(log.slice(0, log.indexOf('advance:returned'))).not.toContain('slow:answered');
    slow.release();
    // Afterwards the pump attempts what the advance queued: the events of the advance reach the fast receiver.
    const typesOf = (): string[] => fast.received.map((r) => (JSON.parse(r.body) as { type: string }).type);
    await until('the events of the advance at the fast receiver', () => ['payment.ach.cleared', 'settlement.batch.completed'].every((t) => typesOf().includes(t)));
    // And the slow receiver's answer, when it comes, is recorded as the attempt's outcome.
    await until('an attempt to the slow receiver recorded as answered', async () => {
      const res = await request(s.app).get(`/v2/webhooks/delivery-logs/${hooks[1] ?? ''}`).set(h).query({ pageSize: 100 });
      return (res.body as { items: { status: string }[] }).items.some((e) => e.status === 'Succeeded');
    });
    expect(log.indexOf('slow:answered')).toBeGreaterThan(log.indexOf('advance:returned'));
  });
});
