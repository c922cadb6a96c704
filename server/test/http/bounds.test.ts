// Every number the server computes or stores has a bound it checks before anything is written: the sandbox
// clock's offset (the contract's maximum, 50 years), an invoice's totals (no payment type's total above the
// largest payment, none beyond exact arithmetic), a subscription's amount however priced (the largest payment,
// and the merchant's maxTransactionAmount, above which every payment would decline). Each refusal is a 400
// naming the field, and a later read shows nothing moved or stored. Both engines.
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { engines, fieldsOf, startServer, type TestServer } from '../harness.ts';
import { INVOICES, invoiceBody, manualLine } from './invoice-helpers.ts';
import { createSandbox } from './sandbox-helpers.ts';
import { subscriptionCalls } from './subscription-helpers.ts';

const YEAR = 31_536_000;
const MAX_OFFSET = 1_577_880_000;

describe.each(engines())('bounds on computed and stored numbers (%s)', (engine) => {
  let s: TestServer;
  const sub = subscriptionCalls(() => s);
  beforeAll(async () => { s = await startServer(engine); });
  afterAll(async () => { await s.close(); });

  it('moves the sandbox clock up to 50 years ahead and no further: past it 400, nothing moved, every read still answers', async () => {
    const box = await createSandbox(s, await s.as('partner'), { name: 'clock bound', expiresInSeconds: 600 });
    const advance = (seconds: number) => request(s.app).post('/sandbox/v1/clock/advance').set(box.h).send({ seconds });
    for (let i = 0; i < 50; i++) expect((await advance(YEAR)).status).toBe(200);
    const refused = await advance(YEAR);
    expect([refused.status, fieldsOf(refused.body)]).toEqual([400, ['seconds']]);
    const clock = await request(s.app).get('/sandbox/v1/clock').set(box.h);
    expect([clock.status, (clock.body as { offsetSeconds: number }).offsetSeconds]).toEqual([200, 50 * YEAR]);
    expect((await advance(MAX_OFFSET - 50 * YEAR)).status).toBe(200);
    expect((await advance(1)).status).toBe(400);
    const last = await request(s.app).get('/sandbox/v1/clock').set(box.h);
    expect([last.status, (last.body as { offsetSeconds: number }).offsetSeconds]).toEqual([200, MAX_OFFSET]);
    // The merchant keeps working at the far end of its clock.
    expect((await request(s.app).get('/pay-api/v1/customers').set(box.h)).status).toBe(200);
    expect((await request(s.app).post('/sandbox/v1/reset').set(box.h)).status).toBe(200);
  });

  it('refuses an invoice no payment could pay: a total past the largest payment, or beyond exact arithmetic; none stored', async () => {
    const h = await s.as(0);
    const before = ((await request(s.app).get(INVOICES).set(h)).body as { total: number }).total;
    const cases = [
      // One line at the largest unit price and quantity the schema allows.
      invoiceBody({ lineItems: [manualLine({ unitPrice: 999999.99, quantity: 1000000 })] }),
      // One line that is payable alone, with 100% tax and 100% fees on top.
      invoiceBody({ taxPercentage: 100, feesPercentage: 100, lineItems: [manualLine({ unitPrice: 999999.99, quantity: 1 })] }),
      // Many lines whose sum passes 2^53 cents.
      invoiceBody({ lineItems: Array.from({ length: 100 }, () => manualLine({ unitPrice: 999999.99, quantity: 1000000 })) }),
    ];
    for (const body of cases) {
      for (const path of [INVOICES, `${INVOICES}/publish`]) {
        const res = await request(s.app).post(path).set(h).send(body);
        expect([res.status, fieldsOf(res.body)], res.text).toEqual([400, ['lineItems']]);
      }
    }
    // At the largest payment exactly it is taken.
    const largest = await request(s.app).post(INVOICES).set(h).send(invoiceBody({ lineItems: [manualLine({ unitPrice: 999999.99, quantity: 1 })] }));
    expect(largest.status, largest.text).toBe(200);
    expect(((await request(s.app).get(INVOICES).set(h)).body as { total: number }).total).toBe(before + 1);
  });

  it('refuses a subscription whose payments could never be taken, however it is priced', async () => {
    const h = await s.as(0);
    const customerId = await sub.customer();
    const cardId = await sub.card(customerId);
    const item = await request(s.app).post('/pay-int-api/line-items').set(h).send({ unitTypeId: 1, productName: 'Costly', unitPrice: 999999.99 });
    expect(item.status, item.text).toBe(200);
    const lineItemId = (item.body as { id: string }).id;
    const priced = await sub.create({ customerId, paymentMethodId: cardId, lineItemId, quantity: 1000, frequency: 'Monthly' });
    expect([priced.status, fieldsOf(priced.body)], priced.text).toEqual([400, ['quantity']]);
    // Above the merchant's maxTransactionAmount: every payment would decline.
    const limit = (await request(s.app).get('/pay-api/v1/configurations/payments').set(h)).body as { maxTransactionAmount?: number | null };
    // The demo merchant has a limit below the largest payment (the seed's); a test of the limit needs one.
    expect(limit.maxTransactionAmount).toBeLessThan(999999.99);
    if (typeof limit.maxTransactionAmount === 'number') {
      const above = await sub.create({ customerId, paymentMethodId: cardId, amount: limit.maxTransactionAmount + 1, frequency: 'Monthly' });
      expect([above.status, fieldsOf(above.body)], above.text).toEqual([400, ['amount']]);
      const ok = await sub.created({ customerId, paymentMethodId: cardId, amount: limit.maxTransactionAmount, frequency: 'Monthly' });
      const raised = await sub.update(ok.subscriptionId, { amount: limit.maxTransactionAmount + 1 });
      expect([raised.status, fieldsOf(raised.body)]).toEqual([400, ['amount']]);
      expect((await sub.read(ok.subscriptionId)).amount).toBe(limit.maxTransactionAmount);
    }
    const list = (await sub.list({ customerId })).body as { items: unknown[] };
    expect(list.items.length).toBeLessThanOrEqual(1);
  });
});
