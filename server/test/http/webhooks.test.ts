// Webhooks over HTTP, on both engines: event types, endpoints (URL rules, permission, tenancy, delete), the
// delivery of events to a loopback receiver (verified with the standardwebhooks package), the retry schedule
// attempt by attempt on the sandbox clock, Failed after 7, manual retry with the same webhook-id, the logs
// with their filters and export, ping, and an inactive or deleted webhook.
import request from 'supertest';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { runDue } from '../../src/worker/run-due.ts';
import { engines, fieldsOf, startServer, type ErrorBody, type TestServer } from '../harness.ts';
import { achDebitBody, paymentCalls, UNKNOWN, type Headers } from './payment-helpers.ts';
import { startReceiver, type Receiver } from './webhook-receiver.ts';

const W = '/v2/webhooks';

interface Endpoint { id: string; name: string; endpointUrl: string; eventTypes: string[]; isActive: boolean; signingSecret: string; createdOn: string; modifiedOn: string }
interface Entry {
  id: string; webhookId: string; eventId: string; eventType: string; status: string; attemptNumber: number; nextRetryAt: string | null;
  lastAttemptAt: string | null; responseStatusCode: number | null; responseDurationMs: number | null; triggerType: string; createdOn: string;
}

describe.each(engines())('webhooks (%s)', (engine) => {
  let s: TestServer;
  let h: Headers;
  let receiver: Receiver;
  const pay = paymentCalls(() => s);
  beforeAll(async () => {
    s = await startServer(engine);
    h = await s.as(0);
    receiver = await startReceiver();
  });
  afterAll(async () => {
    await receiver.close();
    await s.close();
  });
  beforeEach(() => { receiver.answer(200); });

  /** A webhook of its own path on the receiver, so that what it receives can be told apart. */
  async function endpoint(eventTypes: string[] = ['payment.ach.scheduled'], headers: Headers = h): Promise<Endpoint> {
    const url = `${receiver.url}/${crypto.randomUUID()}`;
    const res = await request(s.app).post(`${W}/endpoints`).set(headers).send({ name: 'Orders', endpointUrl: url, eventTypes });
    expect(res.status, res.text).toBe(200);
    return res.body as Endpoint;
  }
  const logOf = async (webhookId: string): Promise<Entry[]> => {
    const res = await request(s.app).get(`${W}/delivery-logs/${webhookId}`).set(h).query({ pageSize: 100, asc: true });
    expect(res.status, res.text).toBe(200);
    return (res.body as { items: Entry[] }).items;
  };
  /** What the webhook received, each request verified with the standardwebhooks package and its secret. */
  const receivedBy = (hook: Endpoint): { headers: Record<string, string>; payload: { id: string; type: string; data: Record<string, unknown> } }[] =>
    receiver.received.filter((r) => hook.endpointUrl.endsWith(r.path)).map((r) => ({
      headers: r.headers as Record<string, string>,
      payload: new Webhook(hook.signingSecret).verify(r.body, r.headers as Record<string, string>) as { id: string; type: string; data: Record<string, unknown> },
    }));

  it('lists the event types of the spec, paged, ordered and searched', async () => {
    const all = await request(s.app).get(`${W}/event-types`).set(h).query({ pageSize: 100 });
    expect((all.body as { total: number }).total).toBe(29);
    const ach = await request(s.app).get(`${W}/event-types`).set(h).query({ search: 'ACH Payments', pageSize: 100, orderBy: 'name' });
    const names = (ach.body as { items: { name: string }[] }).items.map((t) => t.name);
    expect(names).toHaveLength(9);
    expect(names).toEqual([...names].sort());
  });

  describe('endpoints', () => {
    it('creates, reads, lists, updates and deletes a webhook; the secret is whsec_ and stays', async () => {
      const created = await endpoint(['payment.card.captured']);
      expect(created.signingSecret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
      expect(created).toMatchObject({ name: 'Orders', eventTypes: ['payment.card.captured'], isActive: true });
      expect(created.endpointUrl.startsWith(receiver.url)).toBe(true);
      expect((await request(s.app).get(`${W}/endpoints/${created.id}`).set(h)).body).toEqual(created);
      const list = await request(s.app).get(`${W}/endpoints`).set(h).query({ search: 'Orders', pageSize: 100 });
      expect((list.body as { items: Endpoint[] }).items.map((e) => e.id)).toContain(created.id);
      const updated = await request(s.app).put(`${W}/endpoints/${created.id}`).set(h).send({ name: 'Renamed', endpointUrl: receiver.url, eventTypes: ['payment.card.voided'], isActive: false });
      expect(updated.body).toMatchObject({ name: 'Renamed', eventTypes: ['payment.card.voided'], isActive: false, signingSecret: created.signingSecret });
      expect((await request(s.app).delete(`${W}/endpoints/${created.id}`).set(h)).status).toBe(200);
      expect((await request(s.app).get(`${W}/endpoints/${created.id}`).set(h)).status).toBe(404);
      expect((await request(s.app).delete(`${W}/endpoints/${created.id}`).set(h)).status).toBe(404);
    });

    it.each([
      ['http to a public host', 'http://hooks.example.com/x'],
      ['another scheme', 'ftp://127.0.0.1/x'],
      ['credentials in the URL', 'https://user:pw@hooks.example.com/x'],
    ])('refuses %s in the sandbox (400 endpointUrl)', async (_name, url) => {
      const res = await request(s.app).post(`${W}/endpoints`).set(h).send({ name: 'Bad', endpointUrl: url, eventTypes: ['payment.card.captured'] });
      expect([res.status, fieldsOf(res.body)]).toEqual([400, ['endpointUrl']]);
    });

    it('refuses an unknown or repeated event type (400)', async () => {
      for (const eventTypes of [['payment.card.teleported'], ['payment.card.captured', 'payment.card.captured'], []]) {
        const res = await request(s.app).post(`${W}/endpoints`).set(h).send({ name: 'Bad', endpointUrl: receiver.url, eventTypes });
        expect(res.status).toBe(400);
      }
    });

    it("answers 404 for another merchant's webhook on every operation, changing nothing", async () => {
      const mine = await endpoint();
      const other = await s.as(1);
      for (const res of [
        await request(s.app).get(`${W}/endpoints/${mine.id}`).set(other),
        await request(s.app).put(`${W}/endpoints/${mine.id}`).set(other).send({ name: 'X', endpointUrl: receiver.url, eventTypes: ['payment.card.captured'] }),
        await request(s.app).delete(`${W}/endpoints/${mine.id}`).set(other),
        await request(s.app).post(`${W}/endpoints/${mine.id}/ping`).set(other),
        await request(s.app).get(`${W}/delivery-logs/${mine.id}`).set(other),
      ]) expect([res.status, (res.body as ErrorBody).errorCode]).toEqual([404, 'not_found']);
      expect((await request(s.app).get(`${W}/endpoints/${mine.id}`).set(h)).body).toEqual(mine);
    });

    it('answers 403 webhooks_permission_required without the Webhooks permission', async () => {
      await s.db('merchants').where({ id: s.merchantId(1) }).update({ webhooks_permission: false });
      try {
        const h1 = await s.as(1);
        for (const res of [
          await request(s.app).get(`${W}/event-types`).set(h1),
          await request(s.app).get(`${W}/endpoints`).set(h1),
          await request(s.app).post(`${W}/endpoints`).set(h1).send({ name: 'X', endpointUrl: receiver.url, eventTypes: ['payment.card.captured'] }),
          await request(s.app).get(`${W}/delivery-logs`).set(h1),
        ]) expect([res.status, (res.body as ErrorBody).errorCode]).toEqual([403, 'webhooks_permission_required']);
      } finally {
        await s.db('merchants').where({ id: s.merchantId(1) }).update({ webhooks_permission: true });
      }
    });
  });

  describe('delivery', () => {
    it('delivers an event signed (standardwebhooks verifies it), with the envelope and the record as data', async () => {
      const hook = await endpoint(['payment.ach.scheduled']);
      const { transactionId } = await pay.achDebit(h, achDebitBody(s));
      const sentFrom = s.clock.now().getTime();
      const ran = await runDue({ ...s, wall: s.clock }, s.clock.now());
      const sentBy = s.clock.now().getTime();
      expect(ran.webhookAttempts).toBeGreaterThanOrEqual(1);
      const got = receivedBy(hook);
      expect(got).toHaveLength(1);
      expect(got[0]?.payload).toMatchObject({ type: 'payment.ach.scheduled', merchantId: s.merchantId(0), data: { transactionId, statusId: 21 } });
      expect(got[0]?.headers['webhook-id']).toBe(got[0]?.payload.id);
      // The time it was sent (whole seconds, on the wall clock), not the event's.
      expect(Number(got[0]?.headers['webhook-timestamp'])).toBeGreaterThanOrEqual(Math.floor(sentFrom / 1000));
      expect(Number(got[0]?.headers['webhook-timestamp'])).toBeLessThanOrEqual(Math.floor(sentBy / 1000));
      expect(await logOf(hook.id)).toMatchObject([{ status: 'Succeeded', attemptNumber: 1, nextRetryAt: null, responseStatusCode: 200, triggerType: 'Scheduled', eventType: 'payment.ach.scheduled', eventId: got[0]?.payload.id }]);
      // An event of a type the webhook did not select is not sent to it.
      await pay.achCommand(h, transactionId, 'hold');
      await runDue({ ...s, wall: s.clock }, s.clock.now());
      expect((await logOf(hook.id)).map((e) => e.eventType)).not.toContain('payment.ach.held');
    });

    it('retries on the schedule (1 min, 5 min, 30 min, 2 h, 8 h, 24 h) on the sandbox clock, Failed after the 7th; a manual retry resends the same webhook-id', async () => {
      const h1 = await s.as(1);
      const hook = await endpoint(['payment.ach.scheduled'], h1);
      receiver.answer(503);
      // An advance queues the attempts that fell due (ran.webhookAttempts); the delivery engine makes them afterwards.
      const clock = async (seconds: number): Promise<{ queued: number; made: number }> => {
        const queued = (await pay.advance(h1, seconds)).ran.webhookAttempts;
        return { queued, made: (await runDue({ ...s, wall: s.clock }, s.clock.now())).webhookAttempts };
      };
      const entry = async (): Promise<Entry> => {
        const res = await request(s.app).get(`${W}/delivery-logs/${hook.id}`).set(h1);
        return (res.body as { items: Entry[] }).items[0] as Entry;
      };
      /** Seconds from the merchant's now to the entry's next attempt. */
      const toNext = async (of: Entry): Promise<number> => (Date.parse(of.nextRetryAt ?? '') - Date.parse((await pay.clock(h1)).now)) / 1000;
      const delays = [60, 300, 1800, 7200, 28800, 86400];
      // Real time stopped (it would run on between the steps, and a slow step make a retry due early): a second
      // before each due time nothing is attempted, at it the retry is.
      const e = await s.clock.stopped(async () => {
        await pay.achDebit(h1, achDebitBody(s, 1));
        expect(await clock(1)).toEqual({ queued: 1, made: 1 });
        let last = await entry();
        expect(last).toMatchObject({ status: 'Pending', attemptNumber: 2, responseStatusCode: 503 });
        for (const [i, delay] of delays.entries()) {
          expect(Date.parse(last.nextRetryAt ?? '') - Date.parse(last.lastAttemptAt ?? '')).toBe(delay * 1000);
          const wait = await toNext(last);
          expect(await clock(wait - 1)).toEqual({ queued: 0, made: 0 });
          expect(await clock(1)).toEqual({ queued: 1, made: 1 });
          last = await entry();
          if (i < delays.length - 1) expect(last).toMatchObject({ status: 'Pending', attemptNumber: i + 3 });
        }
        return last;
      });
      expect(e).toMatchObject({ status: 'Failed', attemptNumber: 7, nextRetryAt: null, responseStatusCode: 503 });
      const attempts = receivedBy(hook);
      expect(attempts).toHaveLength(7);
      const ids = new Set(attempts.map((a) => a.headers['webhook-id']));
      expect(ids.size).toBe(1);
      // A manual retry: a new Manual entry, one attempt now, the same webhook-id.
      receiver.answer(200);
      const retried = await request(s.app).post(`${W}/delivery-logs/${e.id}/retry`).set(h1);
      expect(retried.status, retried.text).toBe(200);
      expect(retried.body).toMatchObject({ status: 'Succeeded', triggerType: 'Manual', attemptNumber: 1, eventId: e.eventId, responseStatusCode: 200 });
      expect(receivedBy(hook).at(-1)?.headers['webhook-id']).toBe([...ids][0]);
      // A Succeeded entry is not retried without force=true.
      const again = await request(s.app).post(`${W}/delivery-logs/${(retried.body as Entry).id}/retry`).set(h1);
      expect([again.status, (again.body as ErrorBody).errorCode]).toEqual([400, 'webhook_delivery_not_failed']);
      // A deleted webhook: its log stays; its Failed entry cannot be retried.
      await request(s.app).delete(`${W}/endpoints/${hook.id}`).set(h1).expect(200);
      expect((await request(s.app).get(`${W}/delivery-logs/${hook.id}`).set(h1)).body).toMatchObject({ total: 2 });
      const gone = await request(s.app).post(`${W}/delivery-logs/${e.id}/retry`).set(h1);
      expect([gone.status, (gone.body as ErrorBody).errorCode]).toEqual([400, 'webhook_endpoint_unavailable']);
    });

    it('fails, without an attempt, a pending delivery whose retry falls due while its webhook is paused', async () => {
      const h1 = await s.as(1);
      const hook = await endpoint(['payment.ach.scheduled'], h1);
      receiver.answer(500);
      await pay.achDebit(h1, achDebitBody(s, 1));
      await pay.advance(h1, 1);
      await runDue({ ...s, wall: s.clock }, s.clock.now());
      expect((await request(s.app).get(`${W}/delivery-logs/${hook.id}`).set(h1)).body).toMatchObject({ items: [{ status: 'Pending', attemptNumber: 2 }] });
      await request(s.app).put(`${W}/endpoints/${hook.id}`).set(h1).send({ name: 'Paused', endpointUrl: hook.endpointUrl, eventTypes: hook.eventTypes, isActive: false }).expect(200);
      expect((await pay.advance(h1, 120)).ran.webhookAttempts).toBe(0);
      expect((await runDue({ ...s, wall: s.clock }, s.clock.now())).webhookAttempts).toBe(0);
      expect((await request(s.app).get(`${W}/delivery-logs/${hook.id}`).set(h1)).body).toMatchObject({ items: [{ status: 'Failed', attemptNumber: 1, nextRetryAt: null }] });
      expect(receivedBy(hook)).toHaveLength(1);
    });

    it('sends nothing to an inactive webhook, and fails a pending delivery of a deleted one', async () => {
      const h1 = await s.as(1);
      const paused = await endpoint(['payment.ach.scheduled'], h1);
      await request(s.app).put(`${W}/endpoints/${paused.id}`).set(h1).send({ name: 'P', endpointUrl: receiver.url, eventTypes: ['payment.ach.scheduled'], isActive: false }).expect(200);
      const doomed = await endpoint(['payment.ach.scheduled'], h1);
      for (let i = 0; i < 3; i++) await pay.achDebit(h1, achDebitBody(s, 1));
      expect(await logOf(paused.id).catch(() => [])).toEqual([]);
      await request(s.app).delete(`${W}/endpoints/${doomed.id}`).set(h1).expect(200);
      const log = (await request(s.app).get(`${W}/delivery-logs/${doomed.id}`).set(h1)).body as { items: Entry[] };
      // Failed through the machine's webhook.deleted row: none was attempted, so the last attempt made is 1, none due.
      expect(log.items.map((i) => [i.status, i.attemptNumber, i.nextRetryAt])).toEqual([['Failed', 1, null], ['Failed', 1, null], ['Failed', 1, null]]);
    });
  });

  it('lists and exports the log with filters: JSON and CSV (RFC 4180, a header row), as attachments', async () => {
    const hook = await endpoint(['payment.ach.scheduled', 'payment.ach.held']);
    const { transactionId } = await pay.achDebit(h, achDebitBody(s));
    await pay.achCommand(h, transactionId, 'hold');
    await runDue({ ...s, wall: s.clock }, s.clock.now());
    const list = await request(s.app).get(`${W}/delivery-logs`).set(h).query({ webhookId: hook.id, eventType: 'payment.ach.held' });
    expect((list.body as { items: Entry[] }).items.map((e) => e.eventType)).toEqual(['payment.ach.held']);
    const json = await request(s.app).get(`${W}/delivery-logs/export`).set(h).query({ webhookId: hook.id });
    expect(json.headers['content-disposition']).toMatch(/^attachment; filename="webhook-delivery-logs-\d{8}T\d{6}Z\.json"$/);
    const entries = JSON.parse(json.text) as Entry[];
    expect(entries.map((e) => e.eventType).sort()).toEqual(['payment.ach.held', 'payment.ach.scheduled']);
    const csv = await request(s.app).get(`${W}/delivery-logs/export`).set(h).query({ webhookId: hook.id, format: 'csv' });
    expect(csv.headers['content-type']).toMatch(/^text\/csv/);
    const lines = csv.text.split('\r\n').filter((l) => l !== '');
    expect(lines[0]).toBe('id,webhookId,eventId,eventType,status,attemptNumber,nextRetryAt,lastAttemptAt,responseStatusCode,responseDurationMs,triggerType,createdOn');
    expect(lines).toHaveLength(3);
    expect(lines.slice(1).map((l) => l.split(',')[0]).sort()).toEqual(entries.map((e) => e.id).sort());
  });

  it('pings a webhook: a signed webhook.ping, reported, not logged', async () => {
    const hook = await endpoint(['payment.card.captured']);
    receiver.answer(204);
    const res = await request(s.app).post(`${W}/endpoints/${hook.id}/ping`).set(h);
    expect(res.body).toMatchObject({ success: true, responseStatusCode: 204 });
    const payload = receivedBy(hook).at(-1)?.payload;
    expect(payload).toMatchObject({ type: 'webhook.ping', id: (res.body as { deliveryId: string }).deliveryId, data: { webhookId: hook.id } });
    expect(await logOf(hook.id)).toEqual([]);
    receiver.answer(302);
    expect((await request(s.app).post(`${W}/endpoints/${hook.id}/ping`).set(h)).body).toMatchObject({ success: false, responseStatusCode: 302 });
    expect((await request(s.app).post(`${W}/endpoints/${UNKNOWN}/ping`).set(h)).status).toBe(404);
  });
});

describe.each(engines())('webhooks in production (%s)', (engine) => {
  let s: TestServer;
  beforeAll(async () => { s = await startServer(engine, { environment: 'production' }); });
  afterAll(async () => { await s.close(); });

  it.each([
    ['http', 'http://93.184.215.14/hooks'], ['a documentation address', 'https://203.0.113.10/hooks'], ['a loopback address', 'https://127.0.0.1/hooks'], ['localhost', 'https://localhost/hooks'],
    ['a private address', 'https://10.1.2.3/hooks'], ['a link-local (metadata) address', 'https://169.254.169.254/latest'], ['IPv6 loopback', 'https://[::1]/hooks'],
    ['IPv6 unique-local', 'https://[fd00::1]/hooks'], ['a host that does not resolve', 'https://hooks.invalid/x'],
  ])('refuses %s (400 endpointUrl)', async (_name, url) => {
    const res = await request(s.app).post(`${W}/endpoints`).set(await s.as(0)).send({ name: 'X', endpointUrl: url, eventTypes: ['payment.card.captured'] });
    expect([res.status, fieldsOf(res.body)]).toEqual([400, ['endpointUrl']]);
  });

  it('accepts https to a public address', async () => {
    const res = await request(s.app).post(`${W}/endpoints`).set(await s.as(0)).send({ name: 'X', endpointUrl: 'https://93.184.215.14/hooks', eventTypes: ['payment.card.captured'] });
    expect(res.status, res.text).toBe(200);
  });
});
