// What a request sends PostgreSQL (issues 25 and 43): a payment from details entered is one round trip, one of a
// stored card or bank account two, a customer create one, with no BEGIN or COMMIT of their own (db/pg-session.ts),
// once the instance keeps the merchant's payment setup (services/payment-setups.ts). Seen beneath the session, at
// pg's client.
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type TestServer } from '../harness.ts';
import { spyOnStatements, type StatementSpy } from '../pg-statements.ts';
import { ACH, CARD, achDebitBody, card, cardBody, type Headers } from './payment-helpers.ts';

const postgresUrl = process.env.PGW_TEST_DATABASE_URL;
if (!postgresUrl) console.warn('\n*** SKIPPING round-trips.test.ts: PGW_TEST_DATABASE_URL is not set (it counts PostgreSQL round trips) ***\n');

describe.skipIf(!postgresUrl)('round trips of a request on PostgreSQL', () => {
  let s: TestServer;
  let h: Headers;
  let spy: StatementSpy;

  beforeAll(async () => {
    spy = spyOnStatements();
    s = await startServer('postgres');
    h = await s.as(0);
  });
  afterAll(async () => {
    spy.restore();
    await s.close();
  });

  /** The statements one request sends (the API-key state's lease renewals left out: they are the instance's). */
  async function statementsOf(send: () => Promise<request.Response>): Promise<string[]> {
    // A first request reads what it caches (the key's state, the merchant's payment setup); the second is counted.
    expect((await send()).status).toBe(200);
    spy.sent.length = 0;
    const res = await send();
    expect(res.status, res.text).toBe(200);
    return spy.sent.filter((text) => !/key_state/i.test(text)).map((text) => text.replace(/\s+/g, ' ').trim());
  }

  it('an ACH debit from new account details: one insert of all it records, the merchant\'s setup read by the first only', async () => {
    const texts = await statementsOf(() => request(s.app).post(`${ACH}/payment`).set(h).send(achDebitBody(s, 0)));
    expect(texts).toHaveLength(1);
    // The customer, the transaction, its history, its event and the event's deliveries, in one statement.
    for (const insert of ['insert into "customers"', 'insert into "transactions"', 'insert into "transaction_history"', 'insert into "outbox_events"', 'insert into webhook_deliveries']) {
      expect(texts[0]).toContain(insert);
    }
  });

  it('a card sale with the card entered: the same one', async () => {
    const texts = await statementsOf(() => request(s.app).post(`${CARD}/sale`).set(h).send(cardBody()));
    expect(texts).toHaveLength(1);
    expect(texts[0]).toMatch(/^with h0 as \(insert into "transactions"/);
  });

  it('a payment of a merchant whose setup the instance has not kept yet reads it first, in the same request', async () => {
    // Merchant 1's first payment of this file.
    const h1 = await s.as(1);
    spy.sent.length = 0;
    const res = await request(s.app).post(`${CARD}/sale`).set(h1).send(cardBody());
    expect(res.status, res.text).toBe(200);
    const texts = spy.sent.filter((text) => !/key_state|api_keys|oauth/i.test(text)).map((text) => text.replace(/\s+/g, ' ').trim());
    expect(texts.at(-2)).toMatch(/^select .* from "merchants" as "m" left join "payment_processors"/);
    expect(texts.at(-1)).toMatch(/^with h0 as \(insert into "transactions"/);
  });

  /** A customer of merchant 0 with a stored bank account and a stored card. */
  async function storedMethods(): Promise<{ customerId: string; accountId: string; cardId: string }> {
    const customer = await request(s.app).post('/pay-api/v1/customers').set(h).send({ firstName: 'Sam', lastName: 'Lee' });
    const customerId = (customer.body as { id: string }).id;
    const account = await request(s.app).post(`/pay-api/v1/customers/${customerId}/payment-methods/ach`).set(h).send({ accountNumber: '000111222333', routingNumber: '021000021', accountType: 1, accountHolderType: 1 });
    const stored = await request(s.app).post(`/pay-api/v1/customers/${customerId}/payment-methods/cards`).set(h).send(card('4111111111111111', { cardholderName: undefined }));
    expect([account.status, stored.status], `${account.text} ${stored.text}`).toEqual([200, 200]);
    return { customerId, accountId: (account.body as { id: string }).id, cardId: (stored.body as { id: string }).id };
  }

  /** The customer's counters as the API answers them. */
  const countsOf = async (customerId: string): Promise<unknown> => {
    const res = await request(s.app).get(`/pay-api/v1/customers/${customerId}`).set(h);
    const body = res.body as { transactionsCount?: unknown; transactionsVolume?: unknown };
    return { count: body.transactionsCount, volume: body.transactionsVolume };
  };

  it('an ACH debit of a stored bank account: the customer with its account, then one statement that also counts the payment', async () => {
    const { customerId, accountId } = await storedMethods();
    const texts = await statementsOf(() => request(s.app).post(`${ACH}/payment`).set(h).send({ amount: 42, paymentProcessorId: s.secrets.merchants[0]?.achProcessorId, secCode: 3, requesterIPaddress: '2001:db8::1', paymentMethodId: accountId, customerId }));
    expect(texts).toHaveLength(2);
    expect(texts[0]).toMatch(/^select "c"\."id", "pm"\."id" as "pm__id"/);
    expect(texts[1]).toMatch(/^with h0 as \(insert into "transactions"/);
    expect(texts[1]).toMatch(/\) update "customers" set "transactions_count" = transactions_count \+ 1/);
    // Both debits (statementsOf sends the request twice) were counted.
    expect(await countsOf(customerId)).toEqual({ count: 2, volume: 84 });
  });

  it('a card sale of a stored card, and of a card entered for a customer: two each, the count in the last', async () => {
    const { customerId, cardId } = await storedMethods();
    const stored = await statementsOf(() => request(s.app).post(`${CARD}/sale`).set(h).send({ amount: 10, customerId, paymentMethodId: cardId }));
    const entered = await statementsOf(() => request(s.app).post(`${CARD}/sale`).set(h).send({ ...cardBody(), amount: 5, customerId }));
    for (const texts of [stored, entered]) {
      expect(texts).toHaveLength(2);
      expect(texts[1]).toMatch(/^with h0 as \(insert into "transactions".*update "customers" set "transactions_count"/);
    }
    expect(stored[0]).toMatch(/"pm"\."id" as "pm__id"/);
    expect(await countsOf(customerId)).toEqual({ count: 4, volume: 30 });
  });

  it('a customer create: one insert', async () => {
    const texts = await statementsOf(() => request(s.app).post('/pay-api/v1/customers').set(h).send({ firstName: 'Round', lastName: 'Trip' }));
    expect(texts).toEqual([expect.stringMatching(/^insert into "customers"/) as unknown as string]);
  });
});
