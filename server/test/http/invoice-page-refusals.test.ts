// Refusals on the invoice page, on both engines: the form token (missing, forged, for another invoice or
// form, expired), the Origin check, the API's rules (consent, validation, amount, closed invoices) answered
// on the page with the invoice unchanged and nothing charged.
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { engines, startServer, type TestServer } from '../harness.ts';
import { INVOICES, invoiceCalls } from './invoice-helpers.ts';
import { achFields, alertOf, cardFields, hiddenOf, openPage, pagePath, postForm, transactionsOf } from './page-helpers.ts';

describe.each(engines())('the invoice page refuses (%s)', (engine) => {
  let s: TestServer;
  let h: Record<string, string>;
  const calls = invoiceCalls(() => s);
  beforeAll(async () => {
    s = await startServer(engine);
    h = await s.as(0);
  });
  afterAll(async () => { await s.close(); });

  /** The invoice is as it was: Due, unpaid, no transaction. */
  const unchanged = async (id: string): Promise<void> => {
    expect(await calls.get(h, id)).toMatchObject({ status: 2, paymentDate: null, transactionId: null, paymentMethodTypeId: null });
    expect(await transactionsOf(s, id)).toEqual([]);
  };

  describe('refusals change nothing', () => {
    it.each([
      ['missing', () => '', 403],
      ['forged (another signature)', (t: string) => `${t.slice(0, -4)}AAAA`, 403],
      // Another first character (a token that began with B was left unchanged: 1 run in 64 failed).
      ['forged (another nonce)', (t: string) => `${t.startsWith('B') ? 'C' : 'B'}${t.slice(1)}`, 403],
      ['forged (a later expiry)', (t: string) => t.replace(/\.(\d+)\./, (_m, e: string) => `.${String(Number(e) + 86_400_000)}.`), 403],
      ['garbage', () => 'not-a-token', 403],
    ] as const)('a %s form token: the page with an alert, nothing paid', async (_name, mangle, status) => {
      const id = await calls.publish(h);
      const { cardToken, achToken } = await openPage(s, id);
      for (const [kind, token] of [['card', cardToken], ['ach', achToken]] as const) {
        const fields = kind === 'card' ? cardFields({ formToken: mangle(token) }) : achFields({ formToken: mangle(token) });
        const res = await postForm(s, id, kind, fields);
        expect(res.status, kind).toBe(status);
        expect(alertOf(res.text)).toContain('could not be verified');
        // A fresh form comes with it.
        expect(hiddenOf(res.text, 'card-form', 'formToken')).not.toBe(cardToken);
      }
      await unchanged(id);
    });

    it("refuses another invoice's token, the other form's token and an expired token", async () => {
      const id = await calls.publish(h);
      const other = await calls.publish(h);
      const theirs = await openPage(s, other);
      const mine = await openPage(s, id);
      expect((await postForm(s, id, 'card', cardFields({ formToken: theirs.cardToken }))).status).toBe(403);
      expect((await postForm(s, id, 'card', cardFields({ formToken: mine.achToken }))).status).toBe(403);
      expect((await postForm(s, id, 'ach', achFields({ formToken: mine.cardToken }))).status).toBe(403);
      s.clock.advance(31 * 60);
      // Access tokens expire too: the calls below need a fresh one.
      h = { Authorization: `Bearer ${await s.token(0)}` };
      const expired = await postForm(s, id, 'card', cardFields({ formToken: mine.cardToken }));
      expect(expired.status).toBe(400);
      expect(alertOf(expired.text)).toContain('expired');
      await unchanged(id);
      await unchanged(other);
      // The fresh form of the answer pays.
      const fresh = hiddenOf(expired.text, 'card-form', 'formToken') ?? '';
      expect((await postForm(s, id, 'card', cardFields({ formToken: fresh }))).status).toBe(303);
    });

    it.each([
      ['no Origin or Referer', null],
      ['another Origin', 'https://evil.example'],
      ['an opaque Origin', 'null'],
    ])('refuses a POST with %s (403)', async (_name, origin) => {
      const id = await calls.publish(h);
      const { cardToken, achToken } = await openPage(s, id);
      expect((await postForm(s, id, 'card', cardFields({ formToken: cardToken }), origin)).status).toBe(403);
      expect((await postForm(s, id, 'ach', achFields({ formToken: achToken }), origin)).status).toBe(403);
      await unchanged(id);
    });

    it('accepts the Referer of the page when a browser sends no Origin', async () => {
      const id = await calls.publish(h);
      const { cardToken } = await openPage(s, id);
      const res = await request(s.app).post(`${pagePath(id)}/card`).type('form').set('Referer', `${s.config.baseUrl}${pagePath(id)}`).send(cardFields({ formToken: cardToken }));
      expect(res.status).toBe(303);
    });

    it('a missing ACH authorization: the page says so, the invoice is unchanged', async () => {
      const id = await calls.publish(h);
      const { achToken } = await openPage(s, id);
      const fields = achFields({ formToken: achToken });
      delete fields.authorizeBankWithdrawal;
      const res = await postForm(s, id, 'ach', fields);
      expect(res.status).toBe(400);
      expect(alertOf(res.text)).toContain('tick the box to authorize');
      await unchanged(id);
    });

    it.each([
      ['card', 'a card number failing Luhn', { accountNumber: '4111111111111112' }, 'Card number: fails the Luhn check'],
      ['card', 'a month out of range', { expirationMonth: '13' }, 'Expiry month: must be &lt;= 12'],
      ['card', 'no security code digits', { securityCode: '12a' }, 'Security code'],
      ['card', 'an amount other than the card total', { creditTotal: '99.99' }, 'amount to pay has changed'],
      ['ach', 'a routing number of 8 digits', { routingNumber: '02100002' }, 'Routing number'],
      ['ach', 'a routing number failing the ABA check', { routingNumber: '021000022' }, 'Routing number'],
      ['ach', 'no last name', { lastName: '' }, 'Last name'],
      ['ach', 'a malformed email', { email: 'jane@' }, 'Email'],
    ] as const)('%s form with %s: 400, the page names the problem, nothing paid', async (kind, _name, overrides, said) => {
      const id = await calls.publish(h);
      const page = await openPage(s, id);
      const fields = kind === 'card' ? cardFields({ formToken: page.cardToken, ...overrides }) : achFields({ formToken: page.achToken, ...overrides });
      const res = await postForm(s, id, kind, fields);
      expect(res.status, res.text).toBe(400);
      expect(alertOf(res.text)).toContain(said);
      expect(alertOf(res.text)).toContain('Nothing was charged');
      await unchanged(id);
    });

    it('a paid or cancelled invoice: the page with an error and no forms; a draft: 404', async () => {
      const paid = await calls.publish(h);
      const first = await openPage(s, paid);
      const second = await openPage(s, paid);
      expect((await postForm(s, paid, 'card', cardFields({ formToken: first.cardToken }))).status).toBe(303);
      for (const res of [await postForm(s, paid, 'card', cardFields({ formToken: second.cardToken })), await postForm(s, paid, 'ach', achFields({ formToken: second.achToken }))]) {
        expect(res.status).toBe(400);
        expect(alertOf(res.text)).toContain('not open for payment');
        expect(res.text).not.toContain('<form');
      }
      expect(await transactionsOf(s, paid)).toHaveLength(1);

      const cancelled = await calls.publish(h);
      const tokens = await openPage(s, cancelled);
      await request(s.app).put(`${INVOICES}/${cancelled}/cancel`).set(h).expect(200);
      const res = await postForm(s, cancelled, 'card', cardFields({ formToken: tokens.cardToken }));
      expect([res.status, res.text.includes('<strong id="status">Cancelled</strong>'), res.text.includes('<form')]).toEqual([400, true, false]);
      expect(await transactionsOf(s, cancelled)).toEqual([]);

      const draft = await calls.create(h);
      const notFound = await postForm(s, draft, 'card', cardFields({ formToken: tokens.cardToken }));
      expect([notFound.status, notFound.text.includes('Invoice not found')]).toEqual([404, true]);
      expect((await calls.get(h, draft)).status).toBe(1);
    });
  });
});
