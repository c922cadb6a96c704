// Paying an invoice on its public page, on both engines: the amounts per payment type, the forms (accessible,
// escaped, under a CSP), the form token (missing, forged, for another invoice or form, expired: nothing paid),
// the Origin check, a double submit paying once, the API's rules (consent, validation, amount, closed
// invoices) answered on the page with the invoice unchanged, a decline shown, and card and account numbers
// never echoed into a page or a log.
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { engines, startServer, type TestServer } from '../harness.ts';
import { INVOICES, invoiceBody, invoiceCalls, manualLine } from './invoice-helpers.ts';
import { achFields, cardFields, hiddenOf, openPage, pagePath, postForm } from './page-helpers.ts';

const usd = (n: number): string => n.toLocaleString('en-US', { style: 'currency', currency: 'USD' });

describe.each(engines())('the invoice page takes payments (%s)', (engine) => {
  let s: TestServer;
  let h: Record<string, string>;
  const calls = invoiceCalls(() => s);
  beforeAll(async () => {
    s = await startServer(engine);
    h = await s.as(0);
  });
  afterAll(async () => { await s.close(); });

  const transactionsOf = async (id: string): Promise<unknown[]> => s.db('transactions').where({ invoice_id: id });
  /** The invoice is as it was: Due, unpaid, no transaction. */
  const unchanged = async (id: string): Promise<void> => {
    expect(await calls.get(h, id)).toMatchObject({ status: 2, paymentDate: null, transactionId: null, paymentMethodTypeId: null });
    expect(await transactionsOf(id)).toEqual([]);
  };
  const alertOf = (html: string): string => /<div class="alert" role="alert" id="message">([\s\S]*?)<\/div>/.exec(html)?.[1] ?? '';

  describe('the open page', () => {
    it('shows the amount of each payment type from the invoice calculations, under every zero cost option', async () => {
      const options: [number, Record<string, number | null>][] = [
        [0, {}], [1, { default_surcharge_rate: 3 }], [2, { default_cash_discount_rate: 4 }], [3, { default_dual_pricing_rate: 3.5 }],
      ];
      const m1 = await s.as(1);
      for (const [option, rates] of options) {
        await s.db('merchants').where({ id: s.merchantId(1) }).update({
          zero_cost_processing_option_id: option, default_surcharge_rate: null, default_cash_discount_rate: null, default_dual_pricing_rate: null, ...rates,
        });
        const id = await calls.publish(m1, invoiceBody({ taxPercentage: 8.25, lineItems: [manualLine({ unitPrice: 85, quantity: 10 })] }));
        const calc = (await calls.get(m1, id)).invoiceCalculations;
        const { html } = await openPage(s, id);
        for (const [cell, amount] of [['amount-credit', calc.creditCard.totalAmount], ['amount-debit', calc.debitCard.totalAmount], ['amount-ach', calc.ach.totalAmount]] as const) {
          expect(html, `option ${String(option)} ${cell}`).toContain(`id="${cell}">${usd(amount)}</td>`);
        }
        expect(html).toContain(`Pay ${usd(calc.ach.totalAmount)} by bank account`);
        expect([hiddenOf(html, 'card-form', 'creditTotal'), hiddenOf(html, 'card-form', 'debitTotal')])
          .toEqual([calc.creditCard.totalAmount.toFixed(2), calc.debitCard.totalAmount.toFixed(2)]);
      }
      // Where the card price differs from the ACH price, a card pays the card total and the ACH the ACH total.
      const surcharged = await calls.publish(m1);
      const { cardToken } = await openPage(s, surcharged);
      const calc = (await calls.get(m1, surcharged)).invoiceCalculations;
      expect(calc.creditCard.totalAmount).not.toBe(calc.ach.totalAmount);
      const paid = await postForm(s, surcharged, 'card', cardFields({ formToken: cardToken, creditTotal: calc.creditCard.totalAmount.toFixed(2), debitTotal: calc.debitCard.totalAmount.toFixed(2) }));
      expect(paid.status, paid.text).toBe(303);
      expect(await calls.get(m1, surcharged)).toMatchObject({ status: 4, totalAmount: calc.creditCard.totalAmount, paymentMethodTypeId: 1 });
    });

    it('has two accessible forms: every control labelled, card autocomplete and numeric input, the consent text, a CSP with the nonce', async () => {
      const id = await calls.publish(h);
      const res = await request(s.app).get(pagePath(id));
      const html = res.text;
      const csp = res.headers['content-security-policy'];
      expect(csp).toMatch(/default-src 'none'/);
      expect(csp).toMatch(/form-action 'self'/);
      expect(csp).toMatch(/frame-ancestors 'none'/);
      const nonce = /script-src 'nonce-([^']+)'/.exec(csp ?? '')?.[1];
      expect(nonce).toBeDefined();
      // Every script and style carries this response's nonce: nothing inline runs without it.
      const tags = [...html.matchAll(/<(script|style)\b([^>]*)>/g)];
      expect(tags.length).toBeGreaterThanOrEqual(2);
      for (const [, , attrs] of tags) expect(attrs).toBe(` nonce="${nonce ?? ''}"`);
      expect(html).not.toMatch(/\son[a-z]+=/i);
      // Every visible control has a label naming it.
      const controls = [...html.matchAll(/<(input|select)\b[^>]*\bid="([^"]+)"[^>]*>/g)].filter((m) => !m[0].includes('type="hidden"'));
      expect(controls.length).toBeGreaterThanOrEqual(18);
      for (const [, , controlId] of controls) expect(html, controlId).toMatch(new RegExp(`<label for="${controlId ?? ''}"[^>]*>[^<]+</label>`));
      for (const [name, autocomplete] of [['accountNumber', 'cc-number'], ['expirationMonth', 'cc-exp-month'], ['expirationYear', 'cc-exp-year'], ['securityCode', 'cc-csc'], ['billingPostalCode', 'postal-code']]) {
        const form = html.slice(html.indexOf('id="card-form"'), html.indexOf('</form>', html.indexOf('id="card-form"')));
        expect(form, name).toMatch(new RegExp(`name="${name ?? ''}"[^>]*autocomplete="${autocomplete ?? ''}"`));
      }
      expect(html).toMatch(/name="accountNumber" type="text" inputmode="numeric" autocomplete="cc-number"/);
      expect(html).toMatch(/type="checkbox" id="ach-authorize" name="authorizeBankWithdrawal" value="true" required/);
      expect(html).toContain('I authorize Acme Outdoor Supply to debit $100.00 once from the bank account above');
      expect(html).toContain('name="authorizationConsentTimestamp" id="ach-consent-at" value=""');
      expect(html).not.toContain('role="alert"');
    });
  });

  describe('paying', () => {
    it('by card: 303 to the page, which shows Paid and no forms; the API agrees', async () => {
      const id = await calls.publish(h);
      const { cardToken } = await openPage(s, id);
      const res = await postForm(s, id, 'card', cardFields({ formToken: cardToken }));
      expect([res.status, res.headers.location]).toEqual([303, pagePath(id)]);
      const page = await request(s.app).get(pagePath(id));
      expect(page.text).toContain('<strong id="status">Paid</strong>');
      expect(page.text).toMatch(/id="paid">Paid by card on \d{4}-\d{2}-\d{2}/);
      expect(page.text).not.toContain('<form');
      expect(page.text).not.toContain('<script');
      expect(page.text).not.toContain('Amount to pay');
      expect(await calls.get(h, id)).toMatchObject({ status: 4, paymentMethodTypeId: 1, markedAsPaid: false });
    });

    it('by bank account: the debit carries the consent time the page recorded; without script, the submission time', async () => {
      const id = await calls.publish(h);
      const { achToken } = await openPage(s, id);
      const res = await postForm(s, id, 'ach', achFields({ formToken: achToken }));
      expect([res.status, res.headers.location]).toEqual([303, pagePath(id)]);
      const invoice = await calls.get(h, id);
      expect(invoice).toMatchObject({ status: 4, paymentMethodTypeId: 2 });
      const row = (await s.db('transactions').where({ id: invoice.transactionId }).first()) as { authorization_consent_on: string; sec_code: number };
      expect([row.sec_code, row.authorization_consent_on]).toEqual([3, '2026-01-02T03:04:05.000Z']);

      const other = await calls.publish(h);
      const before = s.clock.now().toISOString();
      const second = await postForm(s, other, 'ach', achFields({ formToken: (await openPage(s, other)).achToken, authorizationConsentTimestamp: '' }));
      expect(second.status, second.text).toBe(303);
      const recorded = ((await s.db('transactions').where({ invoice_id: other }).first()) as { authorization_consent_on: string }).authorization_consent_on;
      expect(recorded >= before.slice(0, 19) && recorded <= s.clock.now().toISOString()).toBe(true);
    });

    it('pays once for a double submit, sequential or concurrent, and answers both as the first', async () => {
      for (const concurrent of [false, true]) {
        const id = await calls.publish(h);
        const { cardToken } = await openPage(s, id);
        const send = () => postForm(s, id, 'card', cardFields({ formToken: cardToken }));
        const answers = concurrent ? await Promise.all([send(), send()]) : [await send(), await send()];
        const statuses = answers.map((r) => r.status);
        // The second waits for the first and replays it (or, still running on its engine, says so on the page).
        expect(statuses[0]).toBe(303);
        expect([303, 409]).toContain(statuses[1]);
        expect(await transactionsOf(id)).toHaveLength(1);
        expect((await calls.get(h, id)).status).toBe(4);
      }
    });
  });

  describe('refusals change nothing', () => {
    it.each([
      ['missing', () => '', 403],
      ['forged (another signature)', (t: string) => `${t.slice(0, -4)}AAAA`, 403],
      ['forged (another nonce)', (t: string) => `B${t.slice(1)}`, 403],
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
      ['ach', 'a malformed consent time', { authorizationConsentTimestamp: 'yesterday' }, 'Authorization time'],
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
      expect(await transactionsOf(paid)).toHaveLength(1);

      const cancelled = await calls.publish(h);
      const tokens = await openPage(s, cancelled);
      await request(s.app).put(`${INVOICES}/${cancelled}/cancel`).set(h).expect(200);
      const res = await postForm(s, cancelled, 'card', cardFields({ formToken: tokens.cardToken }));
      expect([res.status, res.text.includes('<strong id="status">Cancelled</strong>'), res.text.includes('<form')]).toEqual([400, true, false]);
      expect(await transactionsOf(cancelled)).toEqual([]);

      const draft = await calls.create(h);
      const notFound = await postForm(s, draft, 'card', cardFields({ formToken: tokens.cardToken }));
      expect([notFound.status, notFound.text.includes('Invoice not found')]).toEqual([404, true]);
      expect((await calls.get(h, draft)).status).toBe(1);
    });
  });

  describe('a decline', () => {
    it.each([
      ['magic card 051', { accountNumber: '4000000000009995' }, '051'],
      ['magic card 005', { accountNumber: '4000000000000002' }, '005'],
      ['an expired card (054)', { expirationYear: '2020' }, '054'],
    ] as const)('%s: the page shows the decline with its code; the invoice stays Due with a PaymentFailed entry; another card then pays', async (_name, overrides, code) => {
      const id = await calls.publish(h);
      const { cardToken } = await openPage(s, id);
      const res = await postForm(s, id, 'card', cardFields({ formToken: cardToken, ...overrides }));
      expect(res.status).toBe(402);
      expect(alertOf(res.text)).toMatch(new RegExp(`Your payment was declined: .+ \\(${code}\\)\\. The invoice is not paid`));
      expect(res.text).toContain('<strong id="status">Due</strong>');
      expect(res.text).toContain('id="card-form"');
      const invoice = await calls.get(h, id);
      expect(invoice).toMatchObject({ status: 2, paymentDate: null, transactionId: null });
      expect(invoice.history.map((e) => [e.typeName, e.errorCode])).toContainEqual(['PaymentFailed', code]);
      // The same form again replays the decline rather than charging the card twice.
      const again = await postForm(s, id, 'card', cardFields({ formToken: cardToken, ...overrides }));
      expect([again.status, alertOf(again.text).includes(`(${code})`)]).toEqual([402, true]);
      expect(await transactionsOf(id)).toHaveLength(1);
      const retry = hiddenOf(res.text, 'card-form', 'formToken') ?? '';
      expect((await postForm(s, id, 'card', cardFields({ formToken: retry }))).status).toBe(303);
    });
  });

  it('never shows or logs a card number, security code or account number, whatever the outcome', async () => {
    const secrets = { pan: '4000000000009995', approvedPan: '5555555555554444', csc: '8317', account: '98765432109876' };
    const answers: string[] = [];
    const post = async (kind: 'card' | 'ach', make: (token: string) => Record<string, string>): Promise<void> => {
      const id = await calls.publish(h);
      const page = await openPage(s, id);
      const res = await postForm(s, id, kind, make(kind === 'card' ? page.cardToken : page.achToken));
      answers.push(`${String(res.status)} ${JSON.stringify(res.headers)} ${res.text}`);
      if (res.status === 303) answers.push((await request(s.app).get(pagePath(id))).text);
    };
    const amex = '378282246310005';
    await post('card', (t) => cardFields({ formToken: t, accountNumber: secrets.pan, securityCode: secrets.csc.slice(0, 3) }));
    await post('card', (t) => cardFields({ formToken: t, accountNumber: amex, securityCode: secrets.csc }));
    await post('card', (t) => cardFields({ formToken: t, accountNumber: amex, securityCode: secrets.csc.slice(0, 3) }));
    await post('card', (t) => cardFields({ formToken: t, accountNumber: secrets.approvedPan, expirationYear: '2020' }));
    await post('card', (t) => cardFields({ formToken: t, accountNumber: secrets.approvedPan, creditTotal: '1.00' }));
    await post('card', (t) => cardFields({ formToken: `${t}x`, accountNumber: secrets.approvedPan }));
    await post('card', (t) => cardFields({ formToken: t, accountNumber: secrets.approvedPan }));
    await post('ach', (t) => achFields({ formToken: t, accountNumber: secrets.account, routingNumber: '123' }));
    await post('ach', (t) => achFields({ formToken: t, accountNumber: secrets.account, authorizeBankWithdrawal: '' }));
    await post('ach', (t) => achFields({ formToken: t, accountNumber: secrets.account }));
    expect(answers.some((a) => a.includes('declined'))).toBe(true);
    expect(answers.some((a) => a.includes('id="paid"'))).toBe(true);
    const logs = s.logLines.join('\n');
    for (const secret of [secrets.pan, secrets.approvedPan, amex, secrets.account, `value="${secrets.csc}"`]) {
      for (const answer of answers) expect(answer.includes(secret), secret).toBe(false);
      expect(logs.includes(secret), `log: ${secret}`).toBe(false);
    }
  });
});
