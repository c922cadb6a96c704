// ACH payments over HTTP: debit and credit (new account details with a generated customer, or a stored
// bank account), validation, the merchant's limit, hold, unhold, void, refund and their answers, the
// status check, the network on the merchant's clock (batch submission, clearing, faster processing, the
// magic accounts' returns and failure), the customer's payment counters, and tenancy.
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { engines, fieldsOf, startServer, type ErrorBody, type TestServer } from '../harness.ts';
import { ACH, achCreditBody, achDebitBody, CARD, cardBody, paymentCalls, transactionEvents, UNKNOWN, type Headers } from './payment-helpers.ts';

describe.each(engines())('ACH payments (%s)', (engine) => {
  let s: TestServer;
  let h: Headers;
  const pay = paymentCalls(() => s);
  beforeAll(async () => {
    s = await startServer(engine);
    h = await s.as(0);
  });
  afterAll(async () => { await s.close(); });

  const post = (path: string, body: unknown, headers: Headers = h) => request(s.app).post(path).set(headers).send(body as object);

  describe('debit', () => {
    it('creates a Scheduled debit (000) with a generated customer, its record and payment.ach.scheduled', async () => {
      const result = await pay.achDebit(h, achDebitBody(s));
      expect(result).toEqual({
        transactionId: expect.any(String) as string, typeId: 11, type: 'AchDebit', statusId: 21, status: 'Scheduled',
        responseDescription: 'Approved', responseCode: '000', processedAmount: 125.5,
      });
      const record = await pay.status(h, result.transactionId);
      expect(record).toMatchObject({
        merchantId: s.merchantId(0), paymentMethodTypeId: 2, paymentProcessorId: s.secrets.merchants[0]?.achProcessorId, creatorTypeId: 2,
        amount: 125.5, approvedAmount: null, processedAmount: 125.5, refundedAmount: 0, returnCode: null, panMask: null, cardType: null,
        accountNumber: '********6789', routingNumber: '021000021', paymentMethodId: null, settledOn: null, expiresAt: null,
      });
      const customer = await request(s.app).get(`/pay-api/v1/customers/${record.customerId ?? ''}`).set(h);
      expect(customer.status).toBe(200);
      expect(customer.body).toMatchObject({ firstName: 'Jane', lastName: 'Doe', email: 'jane.doe@example.com', transactionsCount: 1, transactionsVolume: 125.5, lastTransactionAmount: 125.5 });
      const events = await transactionEvents(s, result.transactionId);
      expect(events.map((e) => e.type)).toEqual(['payment.ach.scheduled']);
      expect(events[0]?.data).toEqual(record);
    });

    it('debits a stored bank account of the customer', async () => {
      const customer = await post('/pay-api/v1/customers', { firstName: 'Sam', lastName: 'Lee' });
      const customerId = (customer.body as { id: string }).id;
      const account = await post(`/pay-api/v1/customers/${customerId}/payment-methods/ach`, { accountNumber: '000111222333', routingNumber: '021000021', accountType: 1, accountHolderType: 1 });
      expect(account.status, account.text).toBe(200);
      const paymentMethodId = (account.body as { id: string }).id;
      const result = await pay.achDebit(h, { amount: 42, paymentProcessorId: s.secrets.merchants[0]?.achProcessorId, secCode: 3, requesterIPaddress: '2001:db8::1', paymentMethodId, customerId, isFasterProcessing: true });
      const record = await pay.status(h, result.transactionId);
      expect(record).toMatchObject({ statusId: 21, customerId, paymentMethodId, accountNumber: '********2333', amount: 42 });
    });

    it.each([
      ['each field a new account needs', { routingNumber: undefined, accountNumber: undefined, accountType: undefined, accountHolderType: undefined, billingAddress: undefined, contactInfo: undefined },
        ['accountHolderType', 'accountNumber', 'accountType', 'billingAddress', 'contactInfo', 'routingNumber']],
      ['a routing number failing the ABA check', { routingNumber: '021000022' }, ['routingNumber']],
      ['a processor that is not the merchant\'s ACH processor', { paymentProcessorId: UNKNOWN }, ['paymentProcessorId']],
      ['a paymentMethodId without customerId', { paymentMethodId: UNKNOWN }, ['customerId']],
      ['a paymentMethodId of no customer of the merchant', { paymentMethodId: UNKNOWN, customerId: UNKNOWN }, ['customerId']],
      ['an amount rounding to nothing', { amount: 0.001 }, ['amount']],
    ])('answers 400 naming the fields for %s, and creates nothing', async (_name, overrides, fields) => {
      const before = Number(((await s.db('transactions').count({ n: '*' }).first()) as { n: number | string }).n);
      const res = await post(`${ACH}/payment`, achDebitBody(s, 0, overrides));
      expect(res.status, res.text).toBe(400);
      expect(fieldsOf(res.body)).toEqual(fields);
      expect(Number(((await s.db('transactions').count({ n: '*' }).first()) as { n: number | string }).n)).toBe(before);
    });

    it("refuses another merchant's processor and another merchant's stored account (400)", async () => {
      const other = await post(`${ACH}/payment`, achDebitBody(s, 0, { paymentProcessorId: s.secrets.merchants[1]?.achProcessorId }));
      expect([other.status, fieldsOf(other.body)]).toEqual([400, ['paymentProcessorId']]);
      const h1 = await s.as(1);
      const customer = await post('/pay-api/v1/customers', { firstName: 'B', lastName: 'Customer' }, h1);
      const customerId = (customer.body as { id: string }).id;
      const account = await post(`/pay-api/v1/customers/${customerId}/payment-methods/ach`, { accountNumber: '000111222333', routingNumber: '021000021', accountType: 1, accountHolderType: 1 }, h1);
      const res = await post(`${ACH}/payment`, { ...achDebitBody(s), paymentMethodId: (account.body as { id: string }).id, customerId });
      expect([res.status, fieldsOf(res.body)]).toEqual([400, ['customerId']]);
    });

    it("fails a debit above the merchant's maxTransactionAmount (102, processedAmount 0) with payment.ach.failed", async () => {
      const result = await pay.achDebit(h, achDebitBody(s, 0, { amount: 25_000.01 }));
      expect(result).toMatchObject({ statusId: 27, status: 'Failed', responseCode: '102', processedAmount: 0 });
      expect((await transactionEvents(s, result.transactionId)).map((e) => e.type)).toEqual(['payment.ach.failed']);
      const record = await pay.status(h, result.transactionId);
      expect(record.processedAmount).toBe(0);
      const customer = await request(s.app).get(`/pay-api/v1/customers/${record.customerId ?? ''}`).set(h);
      expect((customer.body as { transactionsCount: number }).transactionsCount).toBe(0);
    });
  });

  describe('credit', () => {
    it('creates a Scheduled AchRefund (12) credit; paymentMethodId is required but may be null', async () => {
      const result = await pay.achCredit(h, achCreditBody(s));
      expect(result).toMatchObject({ typeId: 12, type: 'AchRefund', statusId: 21, responseCode: '000', processedAmount: 80 });
      const missing = await post(`${ACH}/payment/credit`, { ...achCreditBody(s), paymentMethodId: undefined });
      expect([missing.status, fieldsOf(missing.body)]).toEqual([400, ['paymentMethodId']]);
    });

    it('cannot be refunded once settled (101)', async () => {
      const { transactionId } = await pay.achCredit(h, achCreditBody(s));
      await pay.simulate(h, transactionId, { outcome: 'settle' });
      const refund = await pay.achCommand(h, transactionId, 'refund');
      expect(refund).toMatchObject({ responseCode: '101', statusId: 25, processedAmount: 0, typeId: 12 });
    });
  });

  describe('commands', () => {
    it('answers hold, unhold and void without processedAmount, and refund with the refunded amount', async () => {
      const { transactionId } = await pay.achDebit(h, achDebitBody(s));
      const held = await pay.achCommand(h, transactionId, 'hold');
      expect(held).toEqual({ transactionId, typeId: 13, type: 'AchHold', statusId: 26, status: 'Held', responseDescription: 'Approved', responseCode: '000' });
      const released = await pay.achCommand(h, transactionId, 'unhold');
      expect(released).toEqual({ transactionId, typeId: 14, type: 'AchUnHold', statusId: 21, status: 'Scheduled', responseDescription: 'Approved', responseCode: '000' });
      const refused = await pay.achCommand(h, transactionId, 'unhold');
      expect(refused).toEqual({ transactionId, typeId: 14, type: 'AchUnHold', statusId: 21, status: 'Scheduled', responseDescription: 'The transaction cannot be released in status Scheduled.', responseCode: '101' });
      await pay.simulate(h, transactionId, { outcome: 'submit' });
      const voided = await pay.achCommand(h, transactionId, 'void');
      expect(voided).toEqual({ transactionId, typeId: 15, type: 'AchCancel', statusId: 24, status: 'InProgress', responseDescription: 'A transaction submitted to the network cannot be voided.', responseCode: '101' });
    });

    it('refunds part of a settled debit (PartiallyRefunded), the rest without an amount (Refunded), refuses more than processed (103) and a refund after the last (101)', async () => {
      const { transactionId } = await pay.achDebit(h, achDebitBody(s, 0, { amount: 100 }));
      await pay.simulate(h, transactionId, { outcome: 'settle' });
      expect(await pay.achCommand(h, transactionId, 'refund', { amount: 100.01 })).toMatchObject({ responseCode: '103', statusId: 25, processedAmount: 0 });
      expect(await pay.achCommand(h, transactionId, 'refund', { amount: 25 })).toMatchObject({ responseCode: '000', statusId: 29, status: 'PartiallyRefunded', typeId: 12, processedAmount: 25 });
      expect(await pay.status(h, transactionId)).toMatchObject({ statusId: 29, refundedAmount: 25, processedAmount: 100 });
      expect(await pay.achCommand(h, transactionId, 'refund')).toMatchObject({ responseCode: '000', statusId: 28, status: 'Refunded', processedAmount: 75 });
      expect(await pay.status(h, transactionId)).toMatchObject({ statusId: 28, refundedAmount: 100, processedAmount: 100 });
      expect(await pay.achCommand(h, transactionId, 'refund')).toMatchObject({ responseCode: '101', statusId: 28 });
      const events = await transactionEvents(s, transactionId);
      expect(events.map((e) => e.type).filter((t) => t === 'payment.ach.refunded')).toHaveLength(2);
    });

    it('answers 404 to an unknown id, a card transaction and another merchant\'s transaction, changing nothing', async () => {
      const sale = await pay.cardCreate(h, 'sale', cardBody());
      const { transactionId } = await pay.achDebit(h, achDebitBody(s));
      const h1 = await s.as(1);
      for (const [id, headers] of [[UNKNOWN, h], [sale.transactionId, h], [transactionId, h1]] as const) {
        for (const command of ['hold', 'unhold', 'void', 'refund']) {
          const res = await request(s.app).post(`${ACH}/${id}/${command}`).set(headers);
          expect([res.status, (res.body as ErrorBody).errorCode], `${command} ${id}`).toEqual([404, 'not_found']);
        }
      }
      const status = await request(s.app).post(`/pay-api/v1/transactions/${transactionId}`).set(h1);
      expect(status.status).toBe(404);
      expect((await pay.status(h, transactionId)).statusId).toBe(21);
      const partner = await request(s.app).post(`/pay-api/v1/transactions/${transactionId}`).set(await s.as('partner', 0));
      expect(partner.status).toBe(200);
    });
  });

  describe('the network on the merchant\'s clock', () => {
    it('submits at the next batch slot, clears 24 hours later (2 with faster processing), each with its event', async () => {
      const standard = await pay.achDebit(h, achDebitBody(s));
      const faster = await pay.achDebit(h, achDebitBody(s, 0, { isFasterProcessing: true }));
      // The demo ACH processor batches at 18:00 New York time: within a day the debits are submitted.
      const day = await pay.advance(h, 86_400);
      expect(day.ran.achSubmitted).toBeGreaterThanOrEqual(2);
      const submitted = await pay.status(h, standard.transactionId);
      expect(submitted.statusId).toBe(24);
      const fasterNow = await pay.status(h, faster.transactionId);
      // Faster processing clears 2 hours after submission, so within the same day unless the slot was late.
      const clock = await pay.clock(h);
      const submittedAt = Date.parse(submitted.modifiedOn);
      expect(fasterNow.statusId).toBe(Date.parse(clock.now) - submittedAt >= 2 * 3600_000 ? 25 : 24);
      const next = await pay.advance(h, 86_400);
      expect(next.ran.achSettled).toBeGreaterThanOrEqual(1);
      const settled = await pay.status(h, standard.transactionId);
      expect(settled.statusId).toBe(25);
      expect(Date.parse(settled.settledOn ?? '') - submittedAt).toBe(24 * 3600_000);
      expect((await transactionEvents(s, standard.transactionId)).map((e) => e.type)).toEqual(['payment.ach.scheduled', 'payment.ach.in_progress', 'payment.ach.cleared']);
    });

    it.each([
      ['990000000001', 27, 'R01', 'payment.ach.failed'],
      ['990000000010', 23, 'R10', 'payment.ach.charged_back'],
      ['990000000029', 23, 'R29', 'payment.ach.charged_back'],
      ['990000000016', 27, 'R16', 'payment.ach.failed'],
    ])('returns the magic account %s at clearing: status %i, %s', async (accountNumber, statusId, returnCode, event) => {
      const { transactionId } = await pay.achDebit(h, achDebitBody(s, 0, { accountNumber }));
      await pay.advance(h, 3 * 86_400);
      const record = await pay.status(h, transactionId);
      expect(record).toMatchObject({ statusId, returnCode, responseCode: '000', processedAmount: record.amount });
      expect((await transactionEvents(s, transactionId)).map((e) => e.type)).toEqual(['payment.ach.scheduled', 'payment.ach.in_progress', event]);
      const customer = await request(s.app).get(`/pay-api/v1/customers/${record.customerId ?? ''}`).set(h);
      expect((customer.body as { transactionsCount: number }).transactionsCount).toBe(0);
    });

    it('fails the magic account 990000000096 at submission (096, no return code)', async () => {
      const { transactionId } = await pay.achDebit(h, achDebitBody(s, 0, { accountNumber: '990000000096' }));
      const run = await pay.advance(h, 86_400);
      expect(run.ran.achFailed).toBeGreaterThanOrEqual(1);
      expect(await pay.status(h, transactionId)).toMatchObject({ statusId: 27, responseCode: '096', returnCode: null });
    });

    it('settles an account that only looks magic (9900000000NN with no such return code)', async () => {
      const { transactionId } = await pay.achDebit(h, achDebitBody(s, 0, { accountNumber: '990000000011' }));
      await pay.advance(h, 3 * 86_400);
      expect((await pay.status(h, transactionId)).statusId).toBe(25);
    });

    it('does not submit a held debit until it is released', async () => {
      const { transactionId } = await pay.achDebit(h, achDebitBody(s));
      await pay.achCommand(h, transactionId, 'hold');
      await pay.advance(h, 3 * 86_400);
      expect((await pay.status(h, transactionId)).statusId).toBe(26);
      await pay.achCommand(h, transactionId, 'unhold');
      await pay.advance(h, 86_400);
      expect((await pay.status(h, transactionId)).statusId).toBe(24);
    });
  });

  it('keeps card paths for cards: an ACH id on a card command answers 404', async () => {
    const { transactionId } = await pay.achDebit(h, achDebitBody(s));
    const res = await request(s.app).post(`${CARD}/${transactionId}/void`).set(h);
    expect(res.status).toBe(404);
  });
});
