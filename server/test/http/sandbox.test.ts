// The sandbox controls over HTTP: the clock per merchant (read, advance, what it runs and counts), its
// isolation (another merchant's transactions and every token are untouched by an advance of 8 days),
// simulate's errors, the worker's runDue on the wall clock, and a production server answering 404.
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runDue } from '../../src/worker/run-due.ts';
import { engines, fieldsOf, startServer, type ErrorBody, type TestServer } from '../harness.ts';
import { invoiceBody } from './invoice-helpers.ts';
import { achDebitBody, cardBody, paymentCalls, UNKNOWN, type Headers } from './payment-helpers.ts';

describe.each(engines())('sandbox controls (%s)', (engine) => {
  let s: TestServer;
  let h0: Headers;
  let h1: Headers;
  const pay = paymentCalls(() => s);
  beforeAll(async () => {
    s = await startServer(engine);
    h0 = await s.as(0);
    h1 = await s.as(1);
  });
  afterAll(async () => { await s.close(); });

  it('reads the clock: real time and offset 0 before any advance', async () => {
    const asked = s.clock.now().getTime();
    const clock = await pay.clock(h1);
    const answered = s.clock.now().getTime();
    expect(clock.merchantId).toBe(s.merchantId(1));
    expect(clock.offsetSeconds).toBe(0);
    // The server's real time while it answered.
    expect(Date.parse(clock.now)).toBeGreaterThanOrEqual(asked);
    expect(Date.parse(clock.now)).toBeLessThanOrEqual(answered);
  });

  it("advances one merchant's clock by 8 days: its work runs; the other merchant's transactions and every token are untouched", async () => {
    const tokens = { m0: await s.token(0), m1: await s.token(1), partner: await s.token('partner') };
    const other = await pay.achDebit(h1, achDebitBody(s, 1));
    const otherAuth = await pay.cardCreate(h1, 'authorization', cardBody());
    const mine = await pay.achDebit(h0, achDebitBody(s, 0));
    const myAuth = await pay.cardCreate(h0, 'authorization', cardBody());
    const mySale = await pay.cardCreate(h0, 'sale', cardBody());
    const before = await pay.clock(h0);
    const run = await pay.advance(h0, 8 * 86_400);
    expect(run.offsetSeconds - before.offsetSeconds).toBe(8 * 86_400);
    expect(run.ran).toMatchObject({ cardExpired: 1, cardSettled: 1, settlementBatches: 1 });
    expect(run.ran.achSubmitted).toBeGreaterThanOrEqual(1);
    expect(run.ran.achSettled).toBeGreaterThanOrEqual(1);
    expect((await pay.status(h0, mine.transactionId)).statusId).toBe(25);
    expect((await pay.status(h0, myAuth.transactionId)).statusId).toBe(6);
    expect((await pay.status(h0, mySale.transactionId)).statusId).toBe(4);
    // The other merchant: unchanged records, its clock where it was, and the worker's real-time run finds nothing due for it.
    expect((await pay.status(h1, other.transactionId)).statusId).toBe(21);
    expect((await pay.status(h1, otherAuth.transactionId)).statusId).toBe(1);
    expect((await pay.clock(h1)).offsetSeconds).toBe(0);
    expect((await runDue({ ...s, wall: s.clock }, s.clock.now())).cardExpired).toBe(0);
    expect((await pay.status(h1, otherAuth.transactionId)).statusId).toBe(1);
    // Tokens live on the wall clock: each still works, for both merchants and the partner.
    for (const [who, token] of Object.entries(tokens)) {
      const res = await request(s.app).get('/pay-api/v1/customers').set({ Authorization: `Bearer ${token}`, ...(who === 'partner' ? { 'x-merchant-id': s.merchantId(0) } : {}) });
      expect(res.status, who).toBe(200);
    }
    // New records of the advanced merchant are created on its clock: real time while it answered, 8 days on.
    const asked = s.clock.now().getTime();
    const later = await pay.achDebit(h0, achDebitBody(s, 0));
    const answered = s.clock.now().getTime();
    const createdOn = Date.parse((await pay.status(h0, later.transactionId)).createdOn);
    expect(createdOn).toBeGreaterThanOrEqual(asked + run.offsetSeconds * 1000);
    expect(createdOn).toBeLessThanOrEqual(answered + run.offsetSeconds * 1000);
  });

  it('counts invoices whose due date the advance passes', async () => {
    const h = await s.as(1);
    const due = new Date(Date.parse((await pay.clock(h)).now) + 2 * 86_400_000).toISOString();
    const published = await request(s.app).post('/pay-int-api/invoices/publish').set(h).send(invoiceBody({ dueDate: due }));
    expect(published.status, published.text).toBe(200);
    const run = await pay.advance(h, 3 * 86_400);
    expect(run.ran.invoicesPastDue).toBe(1);
    const invoice = await request(s.app).get(`/pay-int-api/invoices/${(published.body as { id: string }).id}`).set(h);
    expect((invoice.body as { status: number }).status).toBe(3);
  });

  it('acts for a partner on the merchant x-merchant-id names', async () => {
    const res = await request(s.app).get('/sandbox/v1/clock').set(await s.as('partner', 1));
    expect([res.status, (res.body as { merchantId: string }).merchantId]).toEqual([200, s.merchantId(1)]);
  });

  it.each([
    ['seconds 0', { seconds: 0 }], ['seconds above a year', { seconds: 31_536_001 }], ['no seconds', {}], ['fractional seconds', { seconds: 1.5 }],
  ])('refuses an advance of %s (400), moving nothing', async (_name, body) => {
    const before = await pay.clock(h1);
    const res = await request(s.app).post('/sandbox/v1/clock/advance').set(h1).send(body);
    expect(res.status).toBe(400);
    expect((await pay.clock(h1)).offsetSeconds).toBe(before.offsetSeconds);
  });

  describe('simulate', () => {
    it('needs returnCode with return and refuses it otherwise (400 validation_failed), changing nothing', async () => {
      const { transactionId } = await pay.achDebit(h1, achDebitBody(s, 1));
      for (const body of [{ outcome: 'return' }, { outcome: 'settle', returnCode: 'R01' }]) {
        const res = await request(s.app).post(`/sandbox/v1/transactions/${transactionId}/simulate`).set(h1).send(body);
        expect([res.status, (res.body as ErrorBody).errorCode, fieldsOf(res.body)]).toEqual([400, 'validation_failed', ['returnCode']]);
      }
      expect((await pay.status(h1, transactionId)).statusId).toBe(21);
    });

    it("answers 404 for an unknown id and another merchant's transaction", async () => {
      const { transactionId } = await pay.achDebit(h1, achDebitBody(s, 1));
      for (const [id, headers] of [[UNKNOWN, h1], [transactionId, h0]] as const) {
        const res = await request(s.app).post(`/sandbox/v1/transactions/${id}/simulate`).set(headers).send({ outcome: 'settle' });
        expect([res.status, (res.body as ErrorBody).errorCode]).toEqual([404, 'not_found']);
      }
      expect((await pay.status(h1, transactionId)).statusId).toBe(21);
    });

    it('settles a Scheduled debit through the network (in_progress, then cleared) and forces a return of a magic-free account', async () => {
      const a = await pay.achDebit(h1, achDebitBody(s, 1));
      expect(await pay.simulate(h1, a.transactionId, { outcome: 'settle' })).toMatchObject({ statusId: 25, settledOn: expect.any(String) as string });
      const b = await pay.achDebit(h1, achDebitBody(s, 1));
      expect(await pay.simulate(h1, b.transactionId, { outcome: 'return', returnCode: 'R07' })).toMatchObject({ statusId: 23, returnCode: 'R07' });
    });
  });

  describe('the worker', () => {
    it('runs what fell due on the wall clock for merchants without an offset', async () => {
      const { transactionId } = await pay.achDebit(h1, achDebitBody(s, 1));
      const sale = await pay.cardCreate(h1, 'sale', cardBody());
      const ran = await runDue({ ...s, wall: s.clock }, new Date(s.clock.now().getTime() + 3 * 86_400_000));
      expect(ran.achSettled).toBeGreaterThanOrEqual(1);
      expect(ran.cardSettled).toBeGreaterThanOrEqual(1);
      expect((await pay.status(h1, transactionId)).statusId).toBe(25);
      expect((await pay.status(h1, sale.transactionId)).statusId).toBe(4);
    });
  });
});

describe.each(engines())('a production server (%s)', (engine) => {
  let s: TestServer;
  beforeAll(async () => { s = await startServer(engine, { environment: 'production' }); });
  afterAll(async () => { await s.close(); });

  it.each([
    ['GET', '/sandbox/v1/clock'], ['POST', '/sandbox/v1/clock/advance'], ['POST', `/sandbox/v1/transactions/${UNKNOWN}/simulate`],
  ])('answers 404 route_not_found to %s %s, with or without a token', async (method, path) => {
    for (const headers of [{}, await s.as(0)]) {
      const res = await request(s.app)[method === 'GET' ? 'get' : 'post'](path).set(headers).send(method === 'GET' ? undefined : { seconds: 60 });
      expect([res.status, (res.body as ErrorBody).errorCode]).toEqual([404, 'route_not_found']);
    }
  });

  it('takes payments without the sandbox magic values (a magic decline card approves)', async () => {
    const pay = paymentCalls(() => s);
    const result = await pay.cardCreate(await s.as(0), 'sale', cardBody('4000000000000002'));
    expect(result).toMatchObject({ statusId: 3, responseCode: '000' });
  });
});
