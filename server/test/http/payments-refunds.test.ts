// Repeated partial refunds of settled card sales, captured authorizations and ACH debits: each refund is
// answered and evented on its own, refundedAmount adds them up, the status is PartiallyRefunded until they sum
// to the processed amount (Refunded); a refund above what remains is 103 naming it and changes nothing; no
// amount refunds the rest; another merchant gets 404; the customer's payment counters do not move.
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AchTransactionStatus, CardTransactionStatus, TransactionType } from '@pgw/client/enums';
import { engines, startServer, type ErrorBody, type TestServer } from '../harness.ts';
import { ACH, CARD, achDebitBody, cardBody, paymentCalls, transactionEvents, type Details, type Headers, type Result } from './payment-helpers.ts';

interface Kind {
  name: string;
  path: string;
  refundType: number;
  event: string;
  statuses: { Settled: number; PartiallyRefunded: number; Refunded: number };
}

const KINDS: Kind[] = [
  { name: 'card sale', path: CARD, refundType: TransactionType.Refund, event: 'payment.card.refunded', statuses: CardTransactionStatus },
  { name: 'captured card authorization', path: CARD, refundType: TransactionType.Refund, event: 'payment.card.refunded', statuses: CardTransactionStatus },
  { name: 'ACH debit', path: ACH, refundType: TransactionType.AchRefund, event: 'payment.ach.refunded', statuses: AchTransactionStatus },
];

describe.each(engines())('repeated partial refunds (%s)', (engine) => {
  let s: TestServer;
  let h: Headers;
  const pay = paymentCalls(() => s);
  beforeAll(async () => {
    s = await startServer(engine);
    h = await s.as(0);
  });
  afterAll(async () => { await s.close(); });

  const newCustomer = async (): Promise<string> =>
    ((await request(s.app).post('/pay-api/v1/customers').set(h).send({ firstName: 'Refund', lastName: 'Holder' })).body as { id: string }).id;
  const customerOf = async (id: string): Promise<unknown> => (await request(s.app).get(`/pay-api/v1/customers/${id}`).set(h)).body;

  /** A settled payment of the kind, of `amount`, paid by a customer of the merchant. */
  async function settled(kind: Kind, amount: number): Promise<Details> {
    let id: string;
    if (kind.name === 'ACH debit') {
      id = (await pay.achDebit(h, achDebitBody(s, 0, { amount }))).transactionId;
    } else {
      const customerId = await newCustomer();
      const auth = kind.name === 'captured card authorization';
      id = (await pay.cardCreate(h, auth ? 'authorization' : 'sale', cardBody('4111111111111111', { amount, customerId }))).transactionId;
      if (auth) await pay.cardCommand(h, id, 'capture');
    }
    await pay.simulate(h, id, { outcome: 'settle' });
    const record = await pay.status(h, id);
    expect(record).toMatchObject({ statusId: kind.statuses.Settled, processedAmount: amount, refundedAmount: 0 });
    return record;
  }

  const refund = (kind: Kind, id: string, body?: Record<string, unknown>, headers: Headers = h): Promise<Result> =>
    (kind.path === ACH ? pay.achCommand(headers, id, 'refund', body) : pay.cardCommand(headers, id, 'refund', body));

  const snapshot = async (id: string): Promise<{ record: Details; events: number }> => ({ record: await pay.status(h, id), events: (await transactionEvents(s, id)).length });

  describe.each(KINDS)('$name', (kind) => {
    // Parts in cents that sum to the amount; each but the last leaves some refundable.
    it.each([
      ['three parts', 60, [10, 20.5, 29.5]],
      ['a cent, then the rest', 0.02, [0.01, 0.01]],
      ['many small parts', 1, [0.1, 0.2, 0.3, 0.15, 0.25]],
    ])('refunds %s up to the amount, each answered and evented on its own', async (_name, amount, parts) => {
      const { transactionId: id, customerId } = await settled(kind, amount);
      const customer = await customerOf(customerId ?? '');
      let refunded = 0;
      for (const [i, part] of parts.entries()) {
        const before = (await transactionEvents(s, id)).length;
        refunded = Math.round((refunded + part) * 100) / 100;
        const last = i === parts.length - 1;
        const status = last ? kind.statuses.Refunded : kind.statuses.PartiallyRefunded;
        expect(await refund(kind, id, { amount: part })).toMatchObject({
          transactionId: id, typeId: kind.refundType, statusId: status, status: last ? 'Refunded' : 'PartiallyRefunded', responseCode: '000', processedAmount: part,
        });
        const record = await pay.status(h, id);
        expect(record).toMatchObject({ statusId: status, refundedAmount: refunded, processedAmount: amount, amount });
        const events = await transactionEvents(s, id);
        expect(events.slice(before).map((e) => e.type)).toEqual([kind.event]);
        expect(events.at(-1)?.data).toEqual(record);
      }
      // Done: a further refund is refused (101), changing nothing; the customer's counters never moved.
      const done = await snapshot(id);
      expect(await refund(kind, id, { amount: 0.01 })).toMatchObject({ responseCode: '101', statusId: kind.statuses.Refunded });
      expect(await refund(kind, id)).toMatchObject({ responseCode: '101', statusId: kind.statuses.Refunded });
      expect(await snapshot(id)).toEqual(done);
      expect(await customerOf(customerId ?? '')).toEqual(customer);
    });

    it('refuses a refund above what remains with 103 naming the remainder, from Settled and PartiallyRefunded, changing nothing', async () => {
      const { transactionId: id } = await settled(kind, 40);
      for (const [refundedSoFar, remaining] of [[0, '40.00'], [15.25, '24.75']] as const) {
        if (refundedSoFar > 0) await refund(kind, id, { amount: refundedSoFar });
        const before = await snapshot(id);
        for (const overCents of [Math.round(Number(remaining) * 100) + 1, Math.round(Number(remaining) * 100) + 10_000, 4001]) {
          const over = overCents / 100;
          const answer = await refund(kind, id, { amount: over });
          expect(answer).toMatchObject({ responseCode: '103', statusId: before.record.statusId, processedAmount: 0 });
          expect(answer.responseDescription).toContain(remaining);
        }
        expect(await snapshot(id)).toEqual(before);
      }
    });

    it('refunds all that remains when a partially refunded payment is refunded without an amount', async () => {
      const { transactionId: id } = await settled(kind, 33.33);
      await refund(kind, id, { amount: 3.33 });
      expect(await refund(kind, id)).toMatchObject({ responseCode: '000', statusId: kind.statuses.Refunded, processedAmount: 30 });
      expect(await pay.status(h, id)).toMatchObject({ statusId: kind.statuses.Refunded, refundedAmount: 33.33 });
    });

    it("answers 404 to another merchant's refund of a partially refunded payment, changing nothing", async () => {
      const { transactionId: id } = await settled(kind, 20);
      await refund(kind, id, { amount: 5 });
      const before = await snapshot(id);
      const h1 = await s.as(1);
      for (const body of [{ amount: 1 }, undefined]) {
        const call = request(s.app).post(`${kind.path}/${id}/refund`).set(h1);
        const res = await (body === undefined ? call : call.send(body));
        expect([res.status, (res.body as ErrorBody).errorCode]).toEqual([404, 'not_found']);
      }
      expect(await snapshot(id)).toEqual(before);
    });
  });

  it('still voids a captured, unsettled card sale in full (104 for a part), refunding nothing', async () => {
    const sale = await pay.cardCreate(h, 'sale', cardBody('4111111111111111', { amount: 30 }));
    expect(await pay.cardCommand(h, sale.transactionId, 'refund', { amount: 10 })).toMatchObject({ responseCode: '104', statusId: CardTransactionStatus.Captured });
    expect(await pay.cardCommand(h, sale.transactionId, 'refund')).toMatchObject({ responseCode: '000', typeId: TransactionType.Void, statusId: CardTransactionStatus.Voided, processedAmount: 30 });
    expect(await pay.status(h, sale.transactionId)).toMatchObject({ statusId: CardTransactionStatus.Voided, refundedAmount: 0 });
  });
});
