// The delivery pump records finished attempts together (AttemptRecorder): attempts that finish while a batch is
// written form the next one, each batch written in a fixed number of statements whatever its size; an attempt
// that cannot be recorded costs the others nothing; a delivery removed meanwhile is dropped.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../src/platform/log.ts';
import * as repo from '../../src/repositories/webhook-deliveries.ts';
import type { Attempted } from '../../src/services/webhook-delivery.ts';
import { AttemptRecorder, DeliveryPump } from '../../src/worker/delivery-pump.ts';
import { engines, startServer, type TestServer } from '../harness.ts';
import { achDebitBody, ACH } from './payment-helpers.ts';

const COUNT = 30;

describe.each(engines())('webhook attempts recorded together (%s)', (engine) => {
  let s: TestServer;
  let receiver: Server;
  let url: string;
  /** Answers held until COUNT requests came, then all at once: the attempts finish together. */
  const held: (() => void)[] = [];
  beforeAll(async () => {
    s = await startServer(engine);
    receiver = createServer((req, res) => {
      req.resume();
      req.on('end', () => {
        held.push(() => { res.writeHead(204).end(); });
        if (held.length >= COUNT) for (const answer of held.splice(0)) answer();
      });
    });
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${String((receiver.address() as AddressInfo).port)}/hooks`;
  });
  afterAll(async () => {
    receiver.closeAllConnections();
    await new Promise((r) => receiver.close(r));
    await s.close();
  });

  /** A webhook of merchant 0 for ACH debits, and `count` debits: as many Pending deliveries to it. */
  async function pendingDeliveries(count: number): Promise<{ webhookId: string; ids: string[] }> {
    const h = await s.as(0);
    const hook = await request(s.app).post('/v2/webhooks/endpoints').set(h).send({ name: 'Batch', endpointUrl: url, eventTypes: ['payment.ach.scheduled'] });
    expect(hook.status, hook.text).toBe(200);
    const webhookId = (hook.body as { id: string }).id;
    for (let i = 0; i < count; i++) expect((await request(s.app).post(`${ACH}/payment`).set(h).send(achDebitBody(s))).status).toBe(200);
    const ids = (await s.db('webhook_deliveries').where({ endpoint_id: webhookId, status: 'Pending' }).select<{ id: string }[]>('id')).map((r) => r.id);
    expect(ids).toHaveLength(count);
    return { webhookId, ids };
  }

  it('attempts that finish together are written in a few statements, each recorded once', async () => {
    const { webhookId, ids } = await pendingDeliveries(COUNT);
    const updates: string[] = [];
    const count = (q: { sql: string }): void => { if (/^update\s+["`]?webhook_deliveries["`]?\s+set\s+status/i.test(q.sql)) updates.push(q.sql); };
    s.db.on('query', count);
    try {
      const pump = new DeliveryPump({ db: s.db, config: s.config, wall: s.clock, log: createLogger('silent'), instances: s.instances });
      expect(await pump.tick()).toBe(COUNT);
      await pump.drain();
    } finally {
      s.db.off('query', count);
    }
    const rows = await s.db('webhook_deliveries').whereIn('id', ids).select<{ status: string; attempt_number: number | string; response_status_code: number | string }[]>('status', 'attempt_number', 'response_status_code');
    expect(rows.map((r) => [r.status, Number(r.attempt_number), Number(r.response_status_code)])).toEqual(ids.map(() => ['Succeeded', 1, 204]));
    expect(Number(((await s.db('webhook_attempts').whereIn('delivery_id', ids).count({ n: '*' }).first()) as { n: number | string }).n)).toBe(COUNT);
    // One row by row would take COUNT updates; the first attempt to finish is written alone, the rest together.
    expect(updates.length, `${String(updates.length)} updates for ${String(COUNT)} attempts of webhook ${webhookId}`).toBeLessThanOrEqual(3);
  });

  it("one attempt that cannot be recorded costs the others nothing, and a removed delivery's attempt is dropped", async () => {
    const { ids } = await pendingDeliveries(4);
    const deliveries = await Promise.all(ids.map(async (id) => {
      const found = await repo.findDelivery(s.db, s.merchantId(0), id);
      if (!found) throw new Error(`delivery ${id} is missing`);
      return found;
    }));
    const at = s.clock.now();
    const attempted = (d: repo.DeliveryRecord, outcome: string | null): Attempted => ({
      delivery: d, trigger: 'attempt.succeeded', at,
      change: { attemptNumber: 1, nextRetryAt: null, attempt: { attemptNumber: 1, attemptedOn: at.toISOString(), responseStatusCode: 200, durationMs: 3, outcome: outcome as string, responseExcerpt: 'ok' } },
    });
    const [good, bad, removed, other] = deliveries as [repo.DeliveryRecord, repo.DeliveryRecord, repo.DeliveryRecord, repo.DeliveryRecord];
    await s.db('webhook_deliveries').where({ id: removed.id }).delete();
    const recorder = new AttemptRecorder(s.db);
    // outcome is NOT NULL: the batch's insert fails, and each is then recorded alone.
    const results = await Promise.allSettled([attempted(good, 'ok'), attempted(bad, null), attempted(removed, 'ok'), attempted(other, 'ok')].map((a) => recorder.record(a)));
    expect(results.map((r) => r.status)).toEqual(['fulfilled', 'rejected', 'fulfilled', 'fulfilled']);
    const status = async (id: string): Promise<string | undefined> => (await s.db('webhook_deliveries').where({ id }).first<{ status: string } | undefined>('status'))?.status;
    expect([await status(good.id), await status(bad.id), await status(removed.id), await status(other.id)]).toEqual(['Succeeded', 'Pending', undefined, 'Succeeded']);
    const attempts = await s.db('webhook_attempts').whereIn('delivery_id', ids).select<{ delivery_id: string }[]>('delivery_id');
    expect(attempts.map((a) => a.delivery_id).sort()).toEqual([good.id, other.id].sort());
  });
});
