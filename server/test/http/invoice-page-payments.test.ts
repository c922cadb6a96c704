// Paying an invoice on its public page, on both engines: the amounts per payment type, the forms (accessible,
// escaped, under a CSP), paying by card and by bank account (consent time), a double submit paying once, a
// decline shown, and card and account numbers never echoed into a page or a log. Refusals:
// invoice-page-refusals.test.ts.
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { engines, startServer, type TestServer } from '../harness.ts';
import { invoiceBody, invoiceCalls, manualLine } from './invoice-helpers.ts';
import { achFields, alertOf, cardFields, hiddenOf, openPage, pagePath, postForm, transactionsOf } from './page-helpers.ts';

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
      // The consent time is the server's: the page has no field for it.
      expect(html).not.toContain('authorizationConsentTimestamp');
      expect(html).not.toContain('role="alert"');
    });

    it("escapes every text of the page, the merchant's name in the consent text included", async () => {
      const m1 = await s.as(1);
      const hostile = 'Acme <img src=x onerror=alert(1)> & "Sons"';
      await s.db('merchants').where({ id: s.merchantId(1) }).update({ company_name: hostile, zero_cost_processing_option_id: 0 });
      const id = await calls.publish(m1, invoiceBody({ additionalNotes: '</textarea><script>alert(2)</script>', lineItems: [manualLine({ productName: '<b>Bold</b>' })] }));
      const { html } = await openPage(s, id);
      expect(html).not.toContain('<img');
      expect(html).not.toContain('<b>');
      expect(html).not.toContain('<script>');
      expect(html).toContain('I authorize Acme &lt;img src=x onerror=alert(1)&gt; &amp; &quot;Sons&quot; to debit');
      expect(html).toContain('&lt;/textarea&gt;&lt;script&gt;alert(2)&lt;/script&gt;');
    });

    it('takes payment of a PastDue invoice (the business clock decides)', async () => {
      const id = await calls.publish(h, invoiceBody({ dueDate: new Date(s.clock.now().getTime() + 1000).toISOString() }));
      s.clock.advance(2);
      const { html, cardToken } = await openPage(s, id);
      expect(html).toContain('<strong id="status">Past due</strong>');
      expect((await postForm(s, id, 'card', cardFields({ formToken: cardToken }))).status).toBe(303);
      expect((await calls.get(h, id)).status).toBe(4);
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

    it('by bank account: the debit carries the server\'s time of the authorization, never a time the form posts', async () => {
      for (const posted of ['2026-01-02T03:04:05.000Z', '2001-01-01T00:00:00.000Z', '9999-12-31T23:59:59.999Z', '', 'yesterday']) {
        const id = await calls.publish(h);
        const { achToken } = await openPage(s, id);
        const before = s.clock.now().toISOString();
        const res = await postForm(s, id, 'ach', achFields({ formToken: achToken, authorizationConsentTimestamp: posted }));
        expect([posted, res.status, res.headers.location]).toEqual([posted, 303, pagePath(id)]);
        const invoice = await calls.get(h, id);
        expect(invoice).toMatchObject({ status: 4, paymentMethodTypeId: 2 });
        const row = (await s.db('transactions').where({ id: invoice.transactionId }).first()) as { authorization_consent_on: string; sec_code: number };
        expect(row.sec_code).toBe(3);
        expect(row.authorization_consent_on >= before && row.authorization_consent_on <= s.clock.now().toISOString(), `${posted}: ${row.authorization_consent_on}`).toBe(true);
      }
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
        expect(await transactionsOf(s, id)).toHaveLength(1);
        expect((await calls.get(h, id)).status).toBe(4);
      }
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
      expect(await transactionsOf(s, id)).toHaveLength(1);
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
