// Which ids are time-ordered (platform/ids.ts): the rows a payment writes (its customer, transaction, history and
// event) have version 7 ids of the moment they were made, on both engines; an invoice and a payment link, whose ids
// are their hosted pages' addresses, keep wholly random (version 4) ones.
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { engines, startServer, type TestServer } from '../harness.ts';
import { invoiceCalls } from './invoice-helpers.ts';
import { achDebitBody, paymentCalls, type Headers } from './payment-helpers.ts';
import { createLink } from './quick-payment-helpers.ts';

const V7 = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
const V4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
const msOf = (id: string): number => parseInt(id.slice(0, 8) + id.slice(9, 13), 16);

describe.each(engines())('row ids (%s)', (engine) => {
  let s: TestServer;
  let h: Headers;
  const pay = paymentCalls(() => s);
  const invoices = invoiceCalls(() => s);
  beforeAll(async () => {
    s = await startServer(engine);
    h = await s.as(0);
  });
  afterAll(async () => { await s.close(); });

  it('a payment\'s customer, transaction, history and event ids are version 7, of the time of the request', async () => {
    const before = Date.now();
    const result = await pay.achDebit(h, achDebitBody(s));
    const after = Date.now();
    const row = await s.db('transactions').where({ id: result.transactionId }).first<{ customer_id: string | null } | undefined>('customer_id');
    const customerId = row?.customer_id ?? '';
    const history = await s.db('transaction_history').where({ transaction_id: result.transactionId }).select<{ id: string }[]>('id');
    const events = (await s.db('outbox_events').where({ merchant_id: s.merchantId(0) }).select<{ id: string; payload: string }[]>('id', 'payload'))
      .filter((e) => (JSON.parse(e.payload) as { transactionId?: string }).transactionId === result.transactionId);
    const ids = [result.transactionId, customerId, ...history.map((r) => r.id), ...events.map((e) => e.id)];
    expect(history.length).toBeGreaterThan(0);
    expect(events.length).toBeGreaterThan(0);
    for (const id of ids) {
      expect(id).toMatch(V7);
      expect(msOf(id)).toBeGreaterThanOrEqual(before);
      expect(msOf(id)).toBeLessThanOrEqual(after);
    }
    // Read back by them, as any id.
    const read = await request(s.app).get(`/pay-api/v1/customers/${customerId}`).set(h);
    expect(read.status, read.text).toBe(200);
  });

  it('an invoice\'s and a payment link\'s ids stay wholly random: they are the addresses of hosted pages', async () => {
    expect(await invoices.create(h)).toMatch(V4);
    expect((await createLink(s, 0)).id).toMatch(V4);
  });
});
