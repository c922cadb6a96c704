// What a request sends PostgreSQL (issue 25): a payment from details entered is two round trips, a customer
// create one, with no BEGIN or COMMIT of their own (db/pg-session.ts). Seen beneath the session, at pg's client.
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type TestServer } from '../harness.ts';
import { spyOnStatements, type StatementSpy } from '../pg-statements.ts';
import { ACH, CARD, achDebitBody, cardBody, type Headers } from './payment-helpers.ts';

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
    // A first request reads what it caches (the key's state); the second is the one counted.
    expect((await send()).status).toBe(200);
    spy.sent.length = 0;
    const res = await send();
    expect(res.status, res.text).toBe(200);
    return spy.sent.filter((text) => !/key_state/i.test(text)).map((text) => text.replace(/\s+/g, ' ').trim());
  }

  it('an ACH debit from new account details: one read of the merchant, one insert of all it records', async () => {
    const texts = await statementsOf(() => request(s.app).post(`${ACH}/payment`).set(h).send(achDebitBody(s, 0)));
    expect(texts).toHaveLength(2);
    expect(texts[0]).toMatch(/^select .* from "merchants" as "m" left join "payment_processors"/);
    // The customer, the transaction, its history, its event and the event's deliveries, in one statement.
    for (const insert of ['insert into "customers"', 'insert into "transactions"', 'insert into "transaction_history"', 'insert into "outbox_events"', 'insert into webhook_deliveries']) {
      expect(texts[1]).toContain(insert);
    }
  });

  it('a card sale with the card entered: the same two', async () => {
    const texts = await statementsOf(() => request(s.app).post(`${CARD}/sale`).set(h).send(cardBody()));
    expect(texts).toHaveLength(2);
    expect(texts[1]).toMatch(/^with h0 as \(insert into "transactions"/);
  });

  it('a customer create: one insert', async () => {
    const texts = await statementsOf(() => request(s.app).post('/pay-api/v1/customers').set(h).send({ firstName: 'Round', lastName: 'Trip' }));
    expect(texts).toEqual([expect.stringMatching(/^insert into "customers"/) as unknown as string]);
  });
});
