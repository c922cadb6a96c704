// Card payments over HTTP: authorization, sale and refund without reference with the sandbox's magic cards
// and amounts, AVS and CVV results, the merchant's limit, expired cards; stored and saved cards; capture,
// void and refund with their amounts and codes; settlement batches and the 7-day expiry on the merchant's
// clock; the customer's payment counters; validation and tenancy.
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { engines, fieldsOf, startServer, type ErrorBody, type TestServer } from '../harness.ts';
import { CARD, card, cardBody, paymentCalls, transactionEvents, UNKNOWN, type Headers } from './payment-helpers.ts';

describe.each(engines())('card payments (%s)', (engine) => {
  let s: TestServer;
  let h: Headers;
  const pay = paymentCalls(() => s);
  beforeAll(async () => {
    s = await startServer(engine);
    h = await s.as(0);
  });
  afterAll(async () => { await s.close(); });

  const post = (path: string, body: unknown, headers: Headers = h) => request(s.app).post(path).set(headers).send(body as object);
  const newCustomer = async (headers: Headers = h): Promise<string> =>
    ((await post('/pay-api/v1/customers', { firstName: 'Card', lastName: 'Holder' }, headers)).body as { id: string }).id;

  describe('authorization', () => {
    it('authorizes (000): Authorized, approvedAmount, nothing processed, expiresAt 7 days on, payment.card.authorized', async () => {
      const result = await pay.cardCreate(h, 'authorization', cardBody());
      expect(result).toMatchObject({
        typeId: 1, type: 'Authorization', statusId: 1, status: 'Authorized', responseCode: '000', responseDescription: 'Approved',
        requestedAmount: 54.25, approvedAmount: 54.25, processedAmount: 0, panMask: '411111******1111', cardType: 1, avsResult: 'Y', cvvResult: 'M',
        customerId: null, paymentMethodId: null,
      });
      expect(result.authorizationCode).toMatch(/^[A-Z0-9]{6}$/);
      expect(Date.parse(result.expiresAt ?? '') - Date.parse(result.createdOn ?? '')).toBe(7 * 86_400_000);
      const events = await transactionEvents(s, result.transactionId);
      expect(events.map((e) => e.type)).toEqual(['payment.card.authorized']);
      expect(events[0]?.data).toEqual(await pay.status(h, result.transactionId));
    });

    it.each([
      ['4000000000000002', 8, '005', 'payment.card.declined'],
      ['4000000000000044', 8, '014', 'payment.card.declined'],
      ['4000000000009995', 8, '051', 'payment.card.declined'],
      ['4000000000000069', 8, '054', 'payment.card.declined'],
      ['4000000000000127', 8, '082', 'payment.card.declined'],
      ['4000000000000119', 9, '096', 'payment.card.failed'],
    ])('answers the magic card %s with status %i and code %s (200, nothing approved)', async (pan, statusId, code, event) => {
      const result = await pay.cardCreate(h, 'authorization', cardBody(pan));
      expect(result).toMatchObject({ statusId, responseCode: code, approvedAmount: null, processedAmount: 0, authorizationCode: null });
      if (code === '082') expect(result.cvvResult).toBe('N');
      if (code === '096') expect([result.avsResult, result.cvvResult]).toEqual([null, null]);
      expect((await transactionEvents(s, result.transactionId)).map((e) => e.type)).toEqual([event]);
    });

    it.each([
      ['5555555555554444', 2], ['5105105105105100', 2], ['378282246310005', 3], ['30569309025904', 4], ['6011111111111117', 5], ['3530111333300000', 6], ['4242424242424242', 1],
    ])('approves the test card %s (cardType %i)', async (pan, cardType) => {
      expect(await pay.cardCreate(h, 'authorization', cardBody(pan))).toMatchObject({ statusId: 1, responseCode: '000', cardType });
    });

    it('partially approves the magic card 4000000000000093 (010, half, PartiallyAuthorized)', async () => {
      const result = await pay.cardCreate(h, 'authorization', cardBody('4000000000000093', { amount: 100.01 }));
      expect(result).toMatchObject({ statusId: 2, status: 'PartiallyAuthorized', responseCode: '010', requestedAmount: 100.01, approvedAmount: 50.01 });
    });

    it.each([[90.05, 8, '005', null], [90.1, 2, '010', 45.05], [90.51, 8, '051', null], [90.96, 9, '096', null]])(
      'answers the magic amount %d with status %i and code %s', async (amount, statusId, code, approved) => {
        expect(await pay.cardCreate(h, 'authorization', cardBody('4111111111111111', { amount }))).toMatchObject({ statusId, responseCode: code, approvedAmount: approved });
      });

    it('declines above maxTransactionAmount (102) before a magic amount, without reaching the processor', async () => {
      const result = await pay.cardCreate(h, 'authorization', cardBody('4111111111111111', { amount: 25_000.01 }));
      expect(result).toMatchObject({ statusId: 8, responseCode: '102', avsResult: null, cvvResult: null });
    });

    it('declines an expired card with 054 (not a 400)', async () => {
      const result = await pay.cardCreate(h, 'authorization', cardBody('4111111111111111', { card: card('4111111111111111', { expirationMonth: 1, expirationYear: 2020 }) }));
      expect(result).toMatchObject({ statusId: 8, responseCode: '054' });
    });

    it.each([
      [{ billingAddress: { postalCode: '00000', line1: '1 Main' } }, 'N'], [{ billingAddress: { postalCode: '11111', line1: '1 Main' } }, 'A'],
      [{ billingAddress: { postalCode: '78701' } }, 'Z'], [{ billingAddress: undefined }, 'U'],
    ])('reports AVS %j as %s', async (overrides, avs) => {
      expect((await pay.cardCreate(h, 'authorization', cardBody('4111111111111111', overrides))).avsResult).toBe(avs);
    });

    it('reports cvvResult P without a security code', async () => {
      const result = await pay.cardCreate(h, 'authorization', cardBody('4111111111111111', { card: card('4111111111111111', { securityCode: undefined }) }));
      expect(result.cvvResult).toBe('P');
    });
  });

  describe('validation', () => {
    it.each([
      ['neither card nor paymentMethodId', { card: undefined }, ['card']],
      ['both card and paymentMethodId', { paymentMethodId: UNKNOWN, customerId: UNKNOWN }, ['paymentMethodId']],
      ['a card failing Luhn', { card: card('4111111111111112') }, ['card.pan']],
      ['a number of no network', { card: card('9111111111111111') }, ['card.pan']],
      ['a 3-digit security code on American Express', { card: card('378282246310005', { securityCode: '123' }) }, ['card.securityCode']],
      ['a tip above the amount', { tipAmount: 60 }, ['tipAmount']],
      ['savePaymentMethod without customerId', { savePaymentMethod: true }, ['customerId']],
      ['an unknown customer', { customerId: UNKNOWN }, ['customerId']],
      ['a processor that is not a card processor of the merchant', { paymentProcessorId: UNKNOWN }, ['paymentProcessorId']],
    ])('answers 400 naming the fields for %s, creating nothing', async (_name, overrides, fields) => {
      const count = async (): Promise<number> => Number(((await s.db('transactions').count({ n: '*' }).first()) as { n: number | string }).n);
      const before = await count();
      const res = await post(`${CARD}/sale`, cardBody('4111111111111111', overrides));
      expect(res.status, res.text).toBe(400);
      expect(fieldsOf(res.body)).toEqual(fields);
      expect(await count()).toBe(before);
    });

    it('never stores or logs the card number or the security code', async () => {
      await pay.cardCreate(h, 'sale', cardBody('6011111111111117', { card: card('6011111111111117', { securityCode: '987' }) }));
      const rows = JSON.stringify(await s.db('transactions').select('*')) + JSON.stringify(await s.db('outbox_events').select('*'));
      expect(rows).not.toContain('6011111111111117');
      expect(s.logLines.join('')).not.toContain('6011111111111117');
    });
  });

  describe('stored and saved cards', () => {
    it('saves an approved card to the customer, then pays with it by paymentMethodId', async () => {
      const customerId = await newCustomer();
      const sale = await pay.cardCreate(h, 'sale', cardBody('5555555555554444', { customerId, savePaymentMethod: true }));
      expect(sale).toMatchObject({ statusId: 3, customerId, paymentMethodId: expect.any(String) as string });
      const methods = await request(s.app).get(`/pay-api/v1/customers/${customerId}/payment-methods`).set(h);
      expect((methods.body as { items: { id: string }[] }).items.map((m) => m.id)).toEqual([sale.paymentMethodId]);
      const again = await pay.cardCreate(h, 'sale', { amount: 19.99, customerId, paymentMethodId: sale.paymentMethodId });
      expect(again).toMatchObject({ statusId: 3, responseCode: '000', panMask: '555555******4444', cardType: 2, cvvResult: 'P', paymentMethodId: sale.paymentMethodId });
      const customer = await request(s.app).get(`/pay-api/v1/customers/${customerId}`).set(h);
      expect(customer.body).toMatchObject({ transactionsCount: 2, transactionsVolume: 74.24, lastTransactionAmount: 19.99 });
    });

    it('saves nothing when the payment is declined', async () => {
      const customerId = await newCustomer();
      const sale = await pay.cardCreate(h, 'sale', cardBody('4000000000000002', { customerId, savePaymentMethod: true }));
      expect(sale).toMatchObject({ statusId: 8, paymentMethodId: null });
      const methods = await request(s.app).get(`/pay-api/v1/customers/${customerId}/payment-methods`).set(h);
      expect((methods.body as { total: number }).total).toBe(0);
    });

    it('declines a stored magic card by its panMask', async () => {
      const customerId = await newCustomer();
      const saved = await post(`/pay-api/v1/customers/${customerId}/payment-methods/cards`, { pan: '4000000000009995', expirationMonth: 12, expirationYear: 2030 });
      expect(saved.status, saved.text).toBe(200);
      const result = await pay.cardCreate(h, 'sale', { amount: 10, customerId, paymentMethodId: (saved.body as { id: string }).id });
      expect(result).toMatchObject({ statusId: 8, responseCode: '051' });
    });

    it("refuses another customer's or another merchant's stored card (400 paymentMethodId)", async () => {
      const a = await newCustomer();
      const b = await newCustomer();
      const saved = await post(`/pay-api/v1/customers/${a}/payment-methods/cards`, { pan: '4111111111111111', expirationMonth: 12, expirationYear: 2030 });
      const id = (saved.body as { id: string }).id;
      const res = await post(`${CARD}/sale`, { amount: 10, customerId: b, paymentMethodId: id });
      expect([res.status, fieldsOf(res.body)]).toEqual([400, ['paymentMethodId']]);
      const other = await post(`${CARD}/sale`, { amount: 10, customerId: a, paymentMethodId: id }, await s.as(1));
      expect([other.status, fieldsOf(other.body)]).toEqual([400, ['customerId']]);
    });
  });

  describe('commands', () => {
    it('captures less than approved, not more (103); a second capture is refused (101)', async () => {
      const auth = await pay.cardCreate(h, 'authorization', cardBody('4111111111111111', { amount: 100 }));
      expect(await pay.cardCommand(h, auth.transactionId, 'capture', { amount: 100.01 })).toMatchObject({ responseCode: '103', statusId: 1, processedAmount: 0 });
      const captured = await pay.cardCommand(h, auth.transactionId, 'capture', { amount: 40 });
      expect(captured).toMatchObject({ typeId: 3, type: 'Capture', statusId: 3, responseCode: '000', requestedAmount: 40, approvedAmount: 40, processedAmount: 40 });
      expect(await pay.cardCommand(h, auth.transactionId, 'capture')).toMatchObject({ responseCode: '101', statusId: 3 });
      expect(await pay.status(h, auth.transactionId)).toMatchObject({ statusId: 3, processedAmount: 40, approvedAmount: 100 });
    });

    it('captures a partial authorization up to its approved amount', async () => {
      const auth = await pay.cardCreate(h, 'authorization', cardBody('4000000000000093', { amount: 80 }));
      expect(await pay.cardCommand(h, auth.transactionId, 'capture')).toMatchObject({ statusId: 3, processedAmount: 40 });
    });

    it('voids an authorization (releasing its approved amount) and a capture (reversing it)', async () => {
      const auth = await pay.cardCreate(h, 'authorization', cardBody());
      expect(await pay.cardCommand(h, auth.transactionId, 'void')).toMatchObject({ typeId: 4, type: 'Void', statusId: 5, processedAmount: 54.25 });
      const sale = await pay.cardCreate(h, 'sale', cardBody('4111111111111111', { amount: 12.5 }));
      expect(await pay.cardCommand(h, sale.transactionId, 'void')).toMatchObject({ statusId: 5, processedAmount: 12.5 });
      expect((await transactionEvents(s, sale.transactionId)).map((e) => e.type)).toEqual(['payment.card.captured', 'payment.card.voided']);
    });

    it('refunds a captured, unsettled sale by voiding it whole; a partial amount is 104', async () => {
      const sale = await pay.cardCreate(h, 'sale', cardBody('4111111111111111', { amount: 30 }));
      expect(await pay.cardCommand(h, sale.transactionId, 'refund', { amount: 10 })).toMatchObject({ responseCode: '104', statusId: 3 });
      expect(await pay.cardCommand(h, sale.transactionId, 'refund', { amount: 30 })).toMatchObject({ responseCode: '000', typeId: 4, statusId: 5, processedAmount: 30 });
    });

    it('refunds part of a settled sale (PartiallyRefunded), the rest without an amount (Refunded), not more than processed (103)', async () => {
      const sale = await pay.cardCreate(h, 'sale', cardBody('4111111111111111', { amount: 54.25 }));
      await pay.simulate(h, sale.transactionId, { outcome: 'settle' });
      expect(await pay.cardCommand(h, sale.transactionId, 'refund', { amount: 60 })).toMatchObject({ responseCode: '103', statusId: 4 });
      expect(await pay.cardCommand(h, sale.transactionId, 'refund', { amount: 10 })).toMatchObject({ responseCode: '000', typeId: 5, type: 'Refund', statusId: 11, status: 'PartiallyRefunded', processedAmount: 10 });
      expect(await pay.status(h, sale.transactionId)).toMatchObject({ statusId: 11, refundedAmount: 10, processedAmount: 54.25 });
      expect(await pay.cardCommand(h, sale.transactionId, 'refund')).toMatchObject({ responseCode: '000', statusId: 7, requestedAmount: 44.25, processedAmount: 44.25 });
      expect(await pay.status(h, sale.transactionId)).toMatchObject({ statusId: 7, refundedAmount: 54.25 });
      expect(await pay.cardCommand(h, sale.transactionId, 'refund')).toMatchObject({ responseCode: '101', statusId: 7 });
    });

    it('credits a card without reference (RefundWORef, Captured, payment.card.refunded); it cannot be refunded', async () => {
      const credit = await pay.cardCreate(h, 'refund', { amount: 15, card: card('5555555555554444', { securityCode: undefined }) });
      expect(credit).toMatchObject({ typeId: 7, type: 'RefundWORef', statusId: 3, responseCode: '000', processedAmount: 15, avsResult: 'U', cvvResult: 'P' });
      expect(await pay.cardCommand(h, credit.transactionId, 'refund')).toMatchObject({ responseCode: '101', statusId: 3 });
      expect((await transactionEvents(s, credit.transactionId)).map((e) => e.type)).toEqual(['payment.card.refunded']);
    });

    it("answers 404 to an unknown id, an ACH transaction's id and another merchant's transaction", async () => {
      const sale = await pay.cardCreate(h, 'sale', cardBody());
      const h1 = await s.as(1);
      for (const command of ['capture', 'void', 'refund']) {
        for (const [id, headers] of [[UNKNOWN, h], [sale.transactionId, h1]] as const) {
          const res = await request(s.app).post(`${CARD}/${id}/${command}`).set(headers);
          expect([res.status, (res.body as ErrorBody).errorCode]).toEqual([404, 'not_found']);
        }
      }
      expect((await pay.status(h, sale.transactionId)).statusId).toBe(3);
    });
  });

  describe('the network on the merchant\'s clock', () => {
    it('settles the captured transactions of a processor in one batch with settlement.batch.completed', async () => {
      const h1 = await s.as(1);
      const a = await pay.cardCreate(h1, 'sale', cardBody('4111111111111111', { amount: 10 }));
      const b = await pay.cardCreate(h1, 'sale', cardBody('4111111111111111', { amount: 20 }));
      const credit = await pay.cardCreate(h1, 'refund', { amount: 5, card: card('5555555555554444') });
      const auth = await pay.cardCreate(h1, 'authorization', cardBody());
      const run = await pay.advance(h1, 86_400);
      expect(run.ran).toMatchObject({ cardSettled: 3, settlementBatches: 1 });
      for (const t of [a, b, credit]) expect((await pay.status(h1, t.transactionId)).statusId).toBe(4);
      expect((await pay.status(h1, auth.transactionId)).statusId).toBe(1);
      const batches = (await s.db('outbox_events').where({ type: 'settlement.batch.completed', merchant_id: s.merchantId(1) })).map((r: { payload: string }) => JSON.parse(r.payload) as Record<string, unknown>);
      expect(batches).toHaveLength(1);
      expect(batches[0]).toMatchObject({ transactionCount: 3, saleAmount: 30, refundAmount: 5, totalAmount: 25, paymentProcessorTypeId: 1, currencyIsoCode: 'USD' });
    });

    it('expires an authorization not captured within 7 days (Expired; capture then refused with 101)', async () => {
      const auth = await pay.cardCreate(h, 'authorization', cardBody());
      await pay.advance(h, 6 * 86_400);
      expect((await pay.status(h, auth.transactionId)).statusId).toBe(1);
      const run = await pay.advance(h, 86_400 + 1);
      expect(run.ran.cardExpired).toBeGreaterThanOrEqual(1);
      expect((await pay.status(h, auth.transactionId)).statusId).toBe(6);
      expect(await pay.cardCommand(h, auth.transactionId, 'capture')).toMatchObject({ responseCode: '101', statusId: 6, status: 'Expired' });
    });
  });
});
