// Manual retries of webhook deliveries in every status, on both engines: a Pending one (never attempted, and one
// waiting for its next scheduled attempt) is retried at once without touching its schedule and becomes Succeeded
// when the manual attempt succeeds; a Failed one as before; a Succeeded one only with force=true. A manual
// attempt and the delivery engine never send one delivery twice at once (409 webhook_delivery_in_flight).
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import request from 'supertest';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { runDue } from '../../src/worker/run-due.ts';
import { engines, startServer, type ErrorBody, type TestServer } from '../harness.ts';
import { achDebitBody, paymentCalls, type Headers } from './payment-helpers.ts';

const W = '/v2/webhooks';

interface Entry {
  id: string; webhookId: string; eventId: string; eventType: string; status: string; attemptNumber: number; nextRetryAt: string | null;
  lastAttemptAt: string | null; responseStatusCode: number | null; triggerType: string; createdOn: string;
}

/** A receiver answering `status`, or holding every answer while `hold` is set; it counts requests in flight per path. */
interface GateReceiver { url: string; status: number; hold: boolean; received: { path: string; id: string }[]; maxInFlight: number; release(): void; close(): Promise<void>; arrived(count: number): Promise<void> }

async function startGateReceiver(): Promise<GateReceiver> {
  let waiting: (() => void)[] = [];
  let inFlight = 0;
  // Who waits for requests to arrive: told at each one.
  const arrivals = new Set<() => void>();
  const r: GateReceiver = {
    url: '', status: 200, hold: false, received: [], maxInFlight: 0,
    release() { r.hold = false; for (const go of waiting) go(); waiting = []; },
    close: () => new Promise((resolve) => { r.release(); server.closeAllConnections(); server.close(() => { resolve(); }); }),
    // Once `count` requests have come, or a minute without them (then the count says what came).
    async arrived(count) {
      await new Promise<void>((resolve) => {
        const done = (): void => { clearTimeout(timer); arrivals.delete(check); resolve(); };
        const check = (): void => { if (r.received.length >= count) done(); };
        const timer = setTimeout(done, 60_000);
        arrivals.add(check);
        check();
      });
      expect(r.received.length).toBe(count);
    },
  };
  const server: Server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      inFlight += 1;
      r.maxInFlight = Math.max(r.maxInFlight, inFlight);
      r.received.push({ path: req.url ?? '', id: String(req.headers['webhook-id']) });
      for (const check of [...arrivals]) check();
      const answer = (): void => { inFlight -= 1; res.writeHead(r.status).end(); };
      if (r.hold) waiting.push(answer); else answer();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  r.url = `http://127.0.0.1:${String((server.address() as AddressInfo).port)}`;
  return r;
}

describe.each(engines())('manual retries of webhook deliveries (%s)', (engine) => {
  let s: TestServer;
  let h: Headers;
  let receiver: GateReceiver;
  const pay = paymentCalls(() => s);
  beforeAll(async () => {
    s = await startServer(engine);
    h = await s.as(0);
    receiver = await startGateReceiver();
  });
  afterAll(async () => {
    await receiver.close();
    await s.close();
  });
  beforeEach(async () => {
    // One webhook at a time: the previous test's is deleted (its Pending deliveries fail), the receiver reset.
    const hooks = await request(s.app).get(`${W}/endpoints`).set(h).query({ pageSize: 100 });
    for (const hook of (hooks.body as { items: { id: string }[] }).items) await request(s.app).delete(`${W}/endpoints/${hook.id}`).set(h).expect(200);
    receiver.release();
    receiver.status = 200;
    receiver.received.length = 0;
    receiver.maxInFlight = 0;
  });

  /** A webhook for payment.ach.scheduled and one ACH debit: its one Scheduled delivery, Pending and due now. */
  async function pendingDelivery(): Promise<Entry> {
    const hook = await request(s.app).post(`${W}/endpoints`).set(h).send({ name: 'Orders', endpointUrl: `${receiver.url}/${crypto.randomUUID()}`, eventTypes: ['payment.ach.scheduled'] });
    expect(hook.status, hook.text).toBe(200);
    await pay.achDebit(h, achDebitBody(s, 0));
    const log = await request(s.app).get(`${W}/delivery-logs/${(hook.body as { id: string }).id}`).set(h);
    const [entry] = (log.body as { items: Entry[] }).items;
    expect(entry).toMatchObject({ status: 'Pending', attemptNumber: 1, triggerType: 'Scheduled' });
    return entry as Entry;
  }
  const entry = async (id: string): Promise<Entry> => {
    const res = await request(s.app).get(`${W}/delivery-logs`).set(h).query({ pageSize: 100, orderBy: 'createdOn', asc: false });
    const found = (res.body as { items: Entry[] }).items.find((e) => e.id === id);
    if (!found) throw new Error(`no delivery ${id}`);
    return found;
  };
  const attemptsOf = async (id: string): Promise<number> => (await s.db('webhook_attempts').where({ delivery_id: id })).length;
  const retry = (id: string, force?: boolean): request.Test => request(s.app).post(`${W}/delivery-logs/${id}/retry`).query(force === undefined ? {} : { force }).set(h);
  const worker = async (): Promise<number> => (await runDue({ ...s, wall: s.clock }, s.clock.now())).webhookAttempts;
  /** The clock moved by `seconds`, and the delivery engine's attempts that fell due. */
  const later = async (seconds: number): Promise<number> => { await pay.advance(h, seconds); return worker(); };

  it('retries a Pending delivery never attempted: the manual attempt succeeds, so the delivery is Succeeded and nothing is scheduled', async () => {
    const original = await pendingDelivery();
    const res = await retry(original.id);
    expect(res.status, res.text).toBe(200);
    expect(res.body).toMatchObject({ triggerType: 'Manual', status: 'Succeeded', attemptNumber: 1, nextRetryAt: null, eventId: original.eventId, responseStatusCode: 200 });
    expect(await entry(original.id)).toMatchObject({ status: 'Succeeded', attemptNumber: 1, nextRetryAt: null, lastAttemptAt: null, responseStatusCode: null });
    expect(await attemptsOf(original.id)).toBe(0);
    expect(await later(3 * 86_400)).toBe(0);
    expect(receiver.received.map((r) => r.id)).toEqual([original.eventId]);
  });

  it('retries a delivery waiting for its next attempt: a failed manual attempt leaves the schedule as it was, a successful one ends it', async () => {
    const original = await pendingDelivery();
    receiver.status = 503;
    expect(await later(1)).toBe(1);
    expect(await later(60)).toBe(1);
    const waiting = await entry(original.id);
    expect(waiting).toMatchObject({ status: 'Pending', attemptNumber: 3, responseStatusCode: 503 });
    // Before: 400 webhook_delivery_not_failed. Now one attempt at once, not one of the delivery's own.
    const failed = await retry(original.id);
    expect(failed.status, failed.text).toBe(200);
    expect(failed.body).toMatchObject({ triggerType: 'Manual', status: 'Failed', attemptNumber: 1, responseStatusCode: 503 });
    expect(await entry(original.id)).toEqual(waiting);
    expect(await attemptsOf(original.id)).toBe(2);
    // The schedule holds: attempt 3 falls due 5 minutes after attempt 2, not earlier, not later.
    expect(Date.parse(waiting.nextRetryAt ?? '') - Date.parse(waiting.lastAttemptAt ?? '')).toBe(300_000);
    expect(await later(297)).toBe(0);
    expect(await later(3)).toBe(1);
    expect(await entry(original.id)).toMatchObject({ status: 'Pending', attemptNumber: 4 });
    receiver.status = 200;
    const succeeded = await retry(original.id);
    expect(succeeded.body).toMatchObject({ triggerType: 'Manual', status: 'Succeeded', responseStatusCode: 200 });
    expect(await entry(original.id)).toMatchObject({ status: 'Succeeded', attemptNumber: 3, nextRetryAt: null, responseStatusCode: 503 });
    expect(await attemptsOf(original.id)).toBe(3);
    expect(await later(2 * 86_400)).toBe(0);
    // 3 scheduled attempts and 2 manual ones, every one with the event's webhook-id.
    expect(receiver.received.map((r) => r.id)).toEqual(Array<string>(5).fill(original.eventId));
  });

  it('retries a Failed delivery as a new Manual entry and leaves it Failed', async () => {
    const original = await pendingDelivery();
    receiver.status = 500;
    expect(await later(2 * 86_400)).toBe(7);
    const failed = await entry(original.id);
    expect(failed).toMatchObject({ status: 'Failed', attemptNumber: 7 });
    receiver.status = 200;
    const res = await retry(original.id);
    expect(res.body).toMatchObject({ triggerType: 'Manual', status: 'Succeeded' });
    expect(await entry(original.id)).toEqual(failed);
  });

  it('resends a Succeeded delivery only with force=true', async () => {
    const original = await pendingDelivery();
    expect(await later(1)).toBe(1);
    const delivered = await entry(original.id);
    expect(delivered).toMatchObject({ status: 'Succeeded', attemptNumber: 1 });
    const refused = await retry(original.id);
    expect([refused.status, (refused.body as ErrorBody).errorCode]).toEqual([400, 'webhook_delivery_not_failed']);
    expect((refused.body as ErrorBody).details).toMatch(/force=true/);
    expect(await retry(original.id, false).then((r) => r.status)).toBe(400);
    expect(receiver.received).toHaveLength(1);
    const resent = await retry(original.id, true);
    expect(resent.status, resent.text).toBe(200);
    expect(resent.body).toMatchObject({ triggerType: 'Manual', status: 'Succeeded', eventId: original.eventId });
    expect(await entry(original.id)).toEqual(delivered);
    expect(receiver.received.map((r) => r.id)).toEqual([original.eventId, original.eventId]);
  });

  it('never sends one delivery twice at once: the worker skips a delivery under a manual attempt, and a retry of one in flight answers 409', async () => {
    const original = await pendingDelivery();
    receiver.hold = true;
    const manual = retry(original.id).then((r) => r);
    await receiver.arrived(1);
    // The manual attempt holds the delivery: the delivery engine leaves it, a second retry is refused.
    expect(await worker()).toBe(0);
    const second = await retry(original.id);
    expect([second.status, (second.body as ErrorBody).errorCode], second.text).toEqual([409, 'webhook_delivery_in_flight']);
    receiver.release();
    expect((await manual).body).toMatchObject({ triggerType: 'Manual', status: 'Succeeded' });
    expect(await entry(original.id)).toMatchObject({ status: 'Succeeded' });
    expect(await worker()).toBe(0);
    expect([receiver.received.length, receiver.maxInFlight]).toEqual([1, 1]);
  });

  it('refuses a manual retry while the delivery engine\'s attempt is in flight, and retries it once that attempt failed', async () => {
    const original = await pendingDelivery();
    receiver.status = 503;
    receiver.hold = true;
    const scheduled = worker();
    await receiver.arrived(1);
    const during = await retry(original.id);
    expect([during.status, (during.body as ErrorBody).errorCode], during.text).toEqual([409, 'webhook_delivery_in_flight']);
    receiver.release();
    expect(await scheduled).toBe(1);
    expect(await entry(original.id)).toMatchObject({ status: 'Pending', attemptNumber: 2 });
    receiver.status = 200;
    expect((await retry(original.id)).body).toMatchObject({ triggerType: 'Manual', status: 'Succeeded' });
    expect([receiver.received.length, receiver.maxInFlight]).toEqual([2, 1]);
  });
});
