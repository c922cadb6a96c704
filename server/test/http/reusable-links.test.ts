// Reusable payment links (issue 42) over HTTP, on both engines: a link that takes up to maxPayments payments (or
// no limit), each a QuickPayment transaction with its own quick_payment.paid, counted (paymentCount,
// totalCollected, latestPayment, the link's payment list) against the transactions actually made; the payer's
// quantity and amount within bounds, computed in integer cents; the redirect after payment on the page; every
// new request rule refused with 400 naming the field and changing nothing; concurrent payers up to the limit and
// no further; tenancy of the payment list; the sandbox control's query refused where the link allows no choice.
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TransactionCreatorType } from '@pgw/client/enums';
import { engines, fieldsOf, startServer, type ErrorBody, type TestServer } from '../harness.ts';
import { cardFields, linkPagePath, openPage, postForm } from './page-helpers.ts';
import { LINKS, createLink, type Link } from './quick-payment-helpers.ts';

const payPath = (id: string): string => `/sandbox/v1/quick-payments/${id}/pay`;

interface Payments { items: { transactionId: string; amount: number; quantity: number; paidOn: string }[]; total: number }

describe.each(engines())('reusable payment links (%s)', (engine) => {
  let s: TestServer;
  beforeAll(async () => { s = await startServer(engine); });
  afterAll(async () => { await s.close(); });

  const pay = async (i: 0 | 1, id: string, query: Record<string, string> = {}): Promise<request.Response> =>
    request(s.app).post(payPath(id)).query(query).set(await s.as(i));
  const read = async (i: 0 | 1, id: string): Promise<Link> => {
    const res = await request(s.app).get(`${LINKS}/${id}`).set(await s.as(i));
    expect(res.status, res.text).toBe(200);
    return res.body as Link;
  };
  const paymentsOf = async (i: 0 | 1, id: string, query: Record<string, string> = {}): Promise<request.Response> =>
    request(s.app).get(`${LINKS}/${id}/payments`).query(query).set(await s.as(i));
  /** The events of a type about one link, in the order of the payments they report (event ids are not ordered). */
  async function eventsOf(type: string, id: string): Promise<Link[]> {
    const rows = await s.db('outbox_events').where({ type }).select<{ payload: string }[]>('payload');
    return rows.map((r) => JSON.parse(r.payload) as Link).filter((l) => l.id === id).sort((a, b) => a.paymentCount - b.paymentCount);
  }
  /** The approved QuickPayment sales of the merchant by id: what was actually charged. */
  async function salesOf(i: 0 | 1, ids: readonly string[]): Promise<Map<string, number>> {
    const rows = await s.db('transactions').where({ merchant_id: s.merchantId(i), creator_type_id: TransactionCreatorType.QuickPayment, response_code: '000' })
      .whereIn('id', ids).select<{ id: string; amount_cents: number | string }[]>('id', 'amount_cents');
    return new Map(rows.map((r) => [r.id, Number(r.amount_cents)]));
  }
  /** Everything a refused request must leave as it was: the merchant's links, their payments, events and transactions. */
  async function state(i: 0 | 1): Promise<string> {
    const m = s.merchantId(i);
    return JSON.stringify([
      await s.db('quick_payments').where({ merchant_id: m }).orderBy('id').select('*'),
      await s.db('quick_payment_payments').where({ merchant_id: m }).orderBy('id').select('*'),
      await s.db('outbox_events').where({ merchant_id: m }).orderBy('id').select('id'),
      await s.db('transactions').where({ merchant_id: m }).orderBy('id').select('id'),
    ]);
  }

  /**
   * The link's count, total and latest payment agree with its payment list, the list with the transactions
   * actually made (amount to the cent), and each payment with its own quick_payment.paid event.
   */
  async function expectConsistent(i: 0 | 1, id: string): Promise<Link> {
    const link = await read(i, id);
    const res = await paymentsOf(i, id, { pageSize: '100' });
    expect(res.status, res.text).toBe(200);
    const list = res.body as Payments;
    expect(list.total).toBe(link.paymentCount);
    expect(list.items).toHaveLength(link.paymentCount);
    const sales = await salesOf(i, list.items.map((p) => p.transactionId));
    expect(list.items.map((p) => Math.round(p.amount * 100))).toEqual(list.items.map((p) => sales.get(p.transactionId)));
    expect(Math.round(link.totalCollected * 100)).toBe([...sales.values()].reduce((a, b) => a + b, 0));
    const last = list.items.at(-1);
    expect(link.latestPayment).toEqual(last ?? null);
    expect(link.transactionId).toBe(last?.transactionId ?? null);
    const paid = await eventsOf('quick_payment.paid', id);
    expect(paid.map((e) => [e.paymentCount, e.latestPayment?.transactionId])).toEqual(list.items.map((p, n) => [n + 1, p.transactionId]));
    return link;
  }

  describe('creation', () => {
    it('reads back every term as written; quick_payment.created carries them', async () => {
      const made = await createLink(s, 0, {
        amount: 12, description: 'Workshop ticket', maxPayments: 40, quantity: 2, adjustableQuantity: { minimum: 1, maximum: 4 },
        redirectUrl: 'https://shop.merchant-a.example/thanks?order=1#top',
      });
      expect(made).toMatchObject({
        amount: 12, status: 'Active', maxPayments: 40, paymentCount: 0, totalCollected: 0, quantity: 2, adjustableQuantity: { minimum: 1, maximum: 4 },
        customAmount: null, redirectUrl: 'https://shop.merchant-a.example/thanks?order=1#top', latestPayment: null, transactionId: null,
      });
      expect(await read(0, made.id)).toEqual(made);
      expect(await eventsOf('quick_payment.created', made.id)).toEqual([made]);
      const open = await createLink(s, 0, { amount: 25, description: 'Fundraiser', maxPayments: null, customAmount: { minimum: 5, maximum: 500 } });
      expect(open).toMatchObject({ maxPayments: null, customAmount: { minimum: 5, maximum: 500 }, quantity: 1, adjustableQuantity: null });
    });

    it('refuses each broken rule with 400 naming the field, and changes nothing', async () => {
      const limit = ((await request(s.app).get('/pay-api/v1/configurations/payments').set(await s.as(0))).body as { maxTransactionAmount: number | null }).maxTransactionAmount;
      const base = { amount: 10, description: 'x' };
      const cases: [string, object, string][] = [
        ['maxPayments 0', { maxPayments: 0 }, 'maxPayments'], ['maxPayments above 10000', { maxPayments: 10001 }, 'maxPayments'],
        ['maxPayments a fraction', { maxPayments: 1.5 }, 'maxPayments'], ['maxPayments text', { maxPayments: '3' }, 'maxPayments'],
        ['quantity 0', { quantity: 0 }, 'quantity'], ['quantity above 1000', { quantity: 1001 }, 'quantity'], ['quantity a fraction', { quantity: 2.5 }, 'quantity'],
        ['adjustableQuantity minimum above maximum', { adjustableQuantity: { minimum: 3, maximum: 2 } }, 'adjustableQuantity.minimum'],
        ['adjustableQuantity without maximum', { adjustableQuantity: { minimum: 1 } }, 'adjustableQuantity.maximum'],
        ['adjustableQuantity with an unknown field', { adjustableQuantity: { minimum: 1, maximum: 2, step: 1 } }, 'adjustableQuantity.step'],
        ['adjustableQuantity maximum above 1000', { adjustableQuantity: { minimum: 1, maximum: 1001 } }, 'adjustableQuantity.maximum'],
        ['quantity outside adjustableQuantity', { quantity: 5, adjustableQuantity: { minimum: 1, maximum: 4 } }, 'quantity'],
        ['customAmount minimum above maximum', { customAmount: { minimum: 50, maximum: 5 } }, 'customAmount.minimum'],
        ['customAmount of three decimals', { customAmount: { minimum: 1.005, maximum: 50 } }, 'customAmount.minimum'],
        ['customAmount minimum 0', { customAmount: { minimum: 0, maximum: 50 } }, 'customAmount.minimum'],
        ['amount outside customAmount', { amount: 60, customAmount: { minimum: 5, maximum: 50 } }, 'amount'],
        ['customAmount with a quantity', { quantity: 2, customAmount: { minimum: 5, maximum: 50 } }, 'customAmount'],
        ['customAmount with adjustableQuantity', { adjustableQuantity: { minimum: 1, maximum: 2 }, customAmount: { minimum: 5, maximum: 50 } }, 'customAmount'],
        ['a payment above the largest (amount times quantity)', { amount: 999999.99, quantity: 2 }, 'quantity'],
        ['a payment above the largest (the largest adjustable quantity)', { amount: 500000, adjustableQuantity: { minimum: 1, maximum: 2 } }, 'adjustableQuantity.maximum'],
        ['redirectUrl over http to a public host', { redirectUrl: 'http://shop.example.com/thanks' }, 'redirectUrl'],
        ['redirectUrl over http to a private address', { redirectUrl: 'http://10.0.0.8/thanks' }, 'redirectUrl'],
        ['redirectUrl with credentials', { redirectUrl: 'https://user:secret@shop.example.com/' }, 'redirectUrl'],
        ['redirectUrl of another scheme', { redirectUrl: 'javascript:alert(1)' }, 'redirectUrl'],
        ['redirectUrl that is no URL', { redirectUrl: 'https://' }, 'redirectUrl'],
        ['redirectUrl too long', { redirectUrl: `https://shop.example.com/${'a'.repeat(2040)}` }, 'redirectUrl'],
        ['redirectUrl null', { redirectUrl: null }, 'redirectUrl'],
        ['an unknown field', { maxUses: 3 }, 'maxUses'],
      ];
      if (limit !== null) cases.push(["a payment above the merchant's maxTransactionAmount", { amount: limit, quantity: 2 }, 'quantity']);
      const before = await state(0);
      for (const [name, extra, field] of cases) {
        const res = await request(s.app).post(LINKS).set(await s.as(0)).send({ ...base, ...extra });
        expect([res.status, fieldsOf(res.body).map((f) => f.replace(/^\$\./, ''))], name).toEqual([400, expect.arrayContaining([field])]);
      }
      expect(await state(0)).toBe(before);
    });

    it('the sandbox takes http:// to loopback and https:// anywhere; production takes https:// to public hosts only', async () => {
      for (const redirectUrl of ['http://localhost:3000/thanks', 'http://127.0.0.1/thanks', 'http://[::1]:8080/', 'https://10.0.0.8/thanks', 'https://shop.example.com/']) {
        expect((await createLink(s, 0, { amount: 1, description: 'x', redirectUrl })).redirectUrl).toBe(redirectUrl);
      }
      const p = await startServer('sqlite', { environment: 'production' });
      try {
        for (const [redirectUrl, ok] of [
          ['https://shop.example.com/thanks', true], ['https://93.184.216.34/thanks', true], ['http://localhost:3000/thanks', false], ['https://localhost/', false],
          ['https://127.0.0.1/', false], ['https://2130706433/', false], ['https://[::1]/', false], ['https://169.254.169.254/latest', false], ['https://10.1.2.3/', false],
        ] as const) {
          const res = await request(p.app).post(LINKS).set(await p.as(0)).send({ amount: 1, description: 'x', redirectUrl });
          expect([res.status, ok ? [] : fieldsOf(res.body)], redirectUrl).toEqual([ok ? 200 : 400, ok ? [] : ['redirectUrl']]);
        }
      } finally {
        await p.close();
      }
    });
  });

  describe('paying', () => {
    it('takes up to maxPayments, each its own sale and event, counted; the last makes it Paid; the next is refused and charges nothing', async () => {
      const link = await createLink(s, 0, { amount: 7.3, description: 'Three', maxPayments: 3, adjustableQuantity: { minimum: 1, maximum: 3 } });
      const first = await pay(0, link.id);
      expect(first.status, first.text).toBe(200);
      expect(first.body).toMatchObject({ status: 'Active', paymentCount: 1, totalCollected: 7.3, latestPayment: { amount: 7.3, quantity: 1 } });
      // 7.30 x 3 is 21.90 exactly (a double product would be 21.900000000000002).
      const second = await pay(0, link.id, { quantity: '3' });
      expect(second.body).toMatchObject({ status: 'Active', paymentCount: 2, totalCollected: 29.2, latestPayment: { amount: 21.9, quantity: 3 } });
      const third = await pay(0, link.id, { quantity: '2' });
      expect(third.body).toMatchObject({ status: 'Paid', paymentCount: 3, totalCollected: 43.8 });
      const before = await state(0);
      const fourth = await pay(0, link.id);
      expect([fourth.status, (fourth.body as ErrorBody).errorCode]).toEqual([400, 'quick_payment_not_active']);
      expect(await state(0)).toBe(before);
      const after = await expectConsistent(0, link.id);
      expect(after).toEqual(third.body);
      // Each event carries the link as it was right after its own payment.
      expect((await eventsOf('quick_payment.paid', link.id)).map((e) => [e.status, e.paymentCount, e.totalCollected])).toEqual([['Active', 1, 7.3], ['Active', 2, 29.2], ['Paid', 3, 43.8]]);
    });

    it('a link without a limit stays Active through any number of payments; cancelled, its payments stay counted', async () => {
      const link = await createLink(s, 0, { amount: 25, description: 'Open', maxPayments: null, customAmount: { minimum: 5, maximum: 500 } });
      for (const amount of ['5', '500', '33.33', '0.10']) await pay(0, link.id, amount === '0.10' ? {} : { amount });
      const counted = await expectConsistent(0, link.id);
      expect([counted.status, counted.paymentCount, counted.totalCollected]).toEqual(['Active', 4, 563.33]);
      expect((await request(s.app).post(`${LINKS}/${link.id}/cancel`).set(await s.as(0))).body).toMatchObject({ status: 'Cancelled', paymentCount: 4, totalCollected: 563.33 });
      expect((await expectConsistent(0, link.id)).status).toBe('Cancelled');
    });

    it('an expired reusable link keeps the payments it took and refuses more', async () => {
      const now = new Date(((await request(s.app).get('/sandbox/v1/clock').set(await s.as(1))).body as { now: string }).now);
      const link = await createLink(s, 1, { amount: 3, description: 'Soon over', maxPayments: 5, expiresOn: new Date(now.getTime() + 30_000).toISOString() });
      expect((await pay(1, link.id)).status).toBe(200);
      expect((await request(s.app).post('/sandbox/v1/clock/advance').set(await s.as(1)).send({ seconds: 31 })).status).toBe(200);
      expect((await pay(1, link.id)).status).toBe(400);
      expect(await expectConsistent(1, link.id)).toMatchObject({ status: 'Expired', paymentCount: 1, totalCollected: 3 });
    });

    it('a declined payment is not counted and leaves a reusable link Active', async () => {
      // 90.05 is a declining magic amount (magic values).
      const link = await createLink(s, 0, { amount: 90.05, description: 'Declines', maxPayments: 2 });
      const res = await pay(0, link.id);
      expect(res.body).toMatchObject({ status: 'Active', paymentCount: 0, totalCollected: 0, latestPayment: null });
      expect(await expectConsistent(0, link.id)).toMatchObject({ paymentCount: 0 });
    });

    it("refuses a choice the link does not allow with 400 naming the field, before anything is charged", async () => {
      const fixed = await createLink(s, 0, { amount: 10, description: 'Fixed', maxPayments: 3, quantity: 2 });
      const ranged = await createLink(s, 0, { amount: 10, description: 'Ranged', maxPayments: 3, quantity: 2, adjustableQuantity: { minimum: 2, maximum: 4 } });
      const custom = await createLink(s, 0, { amount: 10, description: 'Custom', maxPayments: 3, customAmount: { minimum: 5, maximum: 50 } });
      const before = await state(0);
      for (const [id, query, field] of [
        [fixed.id, { quantity: '3' }, 'quantity'], [fixed.id, { amount: '10' }, 'amount'], [ranged.id, { quantity: '1' }, 'quantity'], [ranged.id, { quantity: '5' }, 'quantity'],
        [custom.id, { amount: '4.99' }, 'amount'], [custom.id, { amount: '50.01' }, 'amount'], [custom.id, { amount: '10.001' }, 'amount'], [custom.id, { amount: 'ten' }, 'amount'],
        [custom.id, { quantity: '2' }, 'quantity'], [custom.id, { tip: '1' }, 'tip'],
      ] as const) {
        const res = await pay(0, id, query);
        expect([res.status, fieldsOf(res.body).map((f) => f.replace(/^(\$\.|query\.)/, ''))], JSON.stringify(query)).toEqual([400, [field]]);
      }
      expect(await state(0)).toBe(before);
      // What the link fixes may be said again: 2 x 10.00.
      expect((await pay(0, fixed.id, { quantity: '2', amount: '20' })).body).toMatchObject({ paymentCount: 1, totalCollected: 20 });
    });

    it('the payment list pages oldest first and is the merchant\'s own: another merchant gets 404', async () => {
      const link = await createLink(s, 0, { amount: 1, description: 'Paged', maxPayments: 4 });
      for (let n = 0; n < 3; n++) expect((await pay(0, link.id)).status).toBe(200);
      const page1 = (await paymentsOf(0, link.id, { pageSize: '2', page: '1' })).body as Payments;
      const all = (await paymentsOf(0, link.id)).body as Payments;
      expect([page1.total, page1.items]).toEqual([3, all.items.slice(2)]);
      const other = await paymentsOf(1, link.id);
      expect([other.status, (other.body as ErrorBody).errorCode]).toEqual([404, 'not_found']);
      expect((await paymentsOf(0, '7c9e6679-7425-40de-944b-e07fc1f90ae7')).status).toBe(404);
    });
  });

  describe('concurrent payers', () => {
    it('a link of 3 paid by 8 payers at once takes exactly 3: three sales, three events, the rest refused', async () => {
      const link = await createLink(s, 0, { amount: 4.21, description: 'Race to three', maxPayments: 3 });
      const answers = await Promise.all(Array.from({ length: 8 }, () => pay(0, link.id)));
      expect(answers.map((r) => r.status).sort()).toEqual([200, 200, 200, 400, 400, 400, 400, 400]);
      for (const r of answers.filter((a) => a.status === 400)) expect((r.body as ErrorBody).errorCode).toBe('quick_payment_not_active');
      const sales = await s.db('transactions').where({ merchant_id: s.merchantId(0), creator_type_id: TransactionCreatorType.QuickPayment, amount_cents: 421 });
      expect(sales).toHaveLength(3);
      expect(await expectConsistent(0, link.id)).toMatchObject({ status: 'Paid', paymentCount: 3, totalCollected: 12.63 });
      expect((await s.db('quick_payment_payments').where({ quick_payment_id: link.id }).orderBy('seq').select('seq')).map((r: { seq: number | string }) => Number(r.seq))).toEqual([1, 2, 3]);
    });

    it('a link without a limit paid by 6 payers at once counts all 6 (no payment lost to another)', async () => {
      const link = await createLink(s, 0, { amount: 2.5, description: 'Race, no limit', maxPayments: null, adjustableQuantity: { minimum: 1, maximum: 6 } });
      const answers = await Promise.all([1, 2, 3, 4, 5, 6].map((q) => pay(0, link.id, { quantity: String(q) })));
      expect(answers.map((r) => r.status)).toEqual([200, 200, 200, 200, 200, 200]);
      // 2.50 x (1 + ... + 6) = 52.50
      expect(await expectConsistent(0, link.id)).toMatchObject({ status: 'Active', paymentCount: 6, totalCollected: 52.5 });
    });
  });

  describe('the page', () => {
    const origin = (): string => new URL(s.config.baseUrl).origin;

    it('offers the amount and quantity to choose, charges what was chosen, and sends the payer to redirectUrl (form-action allows it)', async () => {
      const link = await createLink(s, 0, { amount: 25, description: 'Donation', maxPayments: null, customAmount: { minimum: 5, maximum: 500 }, redirectUrl: 'https://shop.example.com/thanks' });
      const res = await request(s.app).get(linkPagePath(link.id));
      expect(res.text).toContain('$5.00 to $500.00, your choice');
      expect(res.text).toMatch(/name="linkAmount" type="text" inputmode="decimal" required/);
      expect(res.headers['content-security-policy']).toContain("form-action 'self' https://shop.example.com;");
      const { cardToken } = await openPage(s, link.id, linkPagePath);
      const paid = await postForm(s, link.id, 'card', cardFields({ formToken: cardToken, linkAmount: '42.42' }), origin(), linkPagePath);
      expect([paid.status, paid.headers.location]).toEqual([303, 'https://shop.example.com/thanks']);
      expect(await expectConsistent(0, link.id)).toMatchObject({ paymentCount: 1, totalCollected: 42.42, status: 'Active' });
      // Outside the bounds: the page says which field, nothing is charged.
      const again = await openPage(s, link.id, linkPagePath);
      const before = await state(0);
      const refused = await postForm(s, link.id, 'card', cardFields({ formToken: again.cardToken, linkAmount: '4.99' }), origin(), linkPagePath);
      expect(refused.status).toBe(400);
      expect(refused.text).toContain('Amount: must be between 5 and 500 USD');
      expect(await state(0)).toBe(before);
    });

    it('a quantity link shows the unit price and charges unit x quantity; without redirectUrl the payer is sent back to the page, with the receipt of that payment only', async () => {
      const link = await createLink(s, 0, { amount: 19.99, description: 'Tickets', maxPayments: 2, adjustableQuantity: { minimum: 1, maximum: 5 } });
      const { html, cardToken } = await openPage(s, link.id, linkPagePath);
      expect(html).toContain('1 to 5, your choice');
      expect(html).toContain('<td class="n" id="payments">0 of 2</td>');
      const paid = await postForm(s, link.id, 'card', cardFields({ formToken: cardToken, linkQuantity: '3' }), origin(), linkPagePath);
      const after = await expectConsistent(0, link.id);
      expect(after).toMatchObject({ paymentCount: 1, totalCollected: 59.97, latestPayment: { quantity: 3, amount: 59.97 } });
      const transactionId = after.latestPayment?.transactionId ?? '';
      expect([paid.status, paid.headers.location]).toEqual([303, `${linkPagePath(link.id)}?receipt=${transactionId}`]);
      // The page it is sent back to shows the receipt of that payment, and still takes the next one.
      const back = await request(s.app).get(String(paid.headers.location));
      expect(back.text).toContain('<td class="n" id="payments">1 of 2</td>');
      expect(back.text).toContain('<p id="paid">Paid $59.97 for 3 on');
      expect(back.text).toContain(`<code id="reference">${transactionId}</code>`);
      expect(back.text).toContain('id="card-form"');
      // A receipt the link did not take (made up, another link's, not an id) shows none.
      const other = await createLink(s, 0, { amount: 1, description: 'Other' });
      const otherPaid = ((await pay(0, other.id)).body as Link).transactionId ?? '';
      for (const forged of ['7c9e6679-7425-40de-944b-e07fc1f90ae7', otherPaid, '<script>', '']) {
        const page = await request(s.app).get(linkPagePath(link.id)).query({ receipt: forged });
        expect([page.status, page.text.includes('id="receipt"'), page.text.includes('<script>')], forged).toEqual([200, false, false]);
      }
    });
  });
});
