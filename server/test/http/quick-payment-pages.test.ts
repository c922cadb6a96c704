// A payment link's hosted page, on both engines: what it shows (amount, description, merchant, the card and
// bank-account forms with the ACH consent text, under the pages' CSP and frame refusal), paying by card and by
// bank account (consent required, its time kept; creator type QuickPayment; quick_payment.paid once), a decline
// (the link stays Active and can be paid again), a double submit paying once, the receipt of a Paid link, an
// Expired or Cancelled link saying so and refusing payment, the form's protections (Origin, form token), and
// card and account numbers never echoed into a page or a log.
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TransactionCreatorType } from '@pgw/client/enums';
import { engines, startServer, type TestServer } from '../harness.ts';
import { achFields, alertOf, cardFields, linkPagePath, openPage, postForm } from './page-helpers.ts';
import { LINKS, businessNow, createLink, type Link } from './quick-payment-helpers.ts';

describe.each(engines())('the payment link page (%s)', (engine) => {
  let s: TestServer;
  beforeAll(async () => { s = await startServer(engine); });
  afterAll(async () => { await s.close(); });

  const origin = (): string => new URL(s.config.baseUrl).origin;
  const post = (id: string, kind: 'card' | 'ach', fields: Record<string, string>, from: string | null = origin()) => postForm(s, id, kind, fields, from, linkPagePath);
  const open = (id: string) => openPage(s, id, linkPagePath);
  const page = (id: string) => request(s.app).get(linkPagePath(id));
  const read = async (id: string): Promise<Link> => (await request(s.app).get(`${LINKS}/${id}`).set(await s.as(0))).body as Link;
  const paymentsOf = (id: string) => s.db('transactions').where({ merchant_id: s.merchantId(0), creator_type_id: TransactionCreatorType.QuickPayment })
    .whereIn('id', s.db('quick_payments').where({ id }).whereNotNull('transaction_id').select('transaction_id'));
  const quickSales = async (): Promise<number> => (await s.db('transactions').where({ merchant_id: s.merchantId(0), creator_type_id: TransactionCreatorType.QuickPayment })).length;
  const paidEvents = async (id: string): Promise<Link[]> =>
    (await s.db('outbox_events').where({ type: 'quick_payment.paid' }).select<{ payload: string }[]>('payload')).map((r) => JSON.parse(r.payload) as Link).filter((l) => l.id === id);

  it('shows the amount, description and merchant, both forms with the consent text, under the CSP; no framing', async () => {
    const link = await createLink(s, 0, { amount: 49.5, description: 'Deposit <b>for</b> order 10482' });
    const res = await page(link.id);
    expect(res.status).toBe(200);
    expect(res.headers['content-security-policy']).toMatch(/default-src 'none'.*frame-ancestors 'none'/);
    expect(res.headers['x-frame-options']).toBe('DENY');
    expect(res.headers['cache-control']).toBe('no-store');
    const html = res.text;
    expect(html).toContain('<td class="n" id="amount">$49.50</td>');
    expect(html).toContain('Deposit &lt;b&gt;for&lt;/b&gt; order 10482');
    expect(html).toContain('<h1>Payment to Acme Outdoor Supply</h1>');
    expect(html).toContain('<strong id="status">Active</strong>');
    expect(html).toContain('Your card is charged $49.50.');
    expect(html).toContain('I authorize Acme Outdoor Supply to debit $49.50 once from the bank account above, by ACH, on or after today, for this payment.');
    expect(html).toMatch(/type="checkbox" id="ach-authorize" name="authorizeBankWithdrawal" value="true" required/);
    expect(html).toContain(`action="/pay/links/${link.id}/card"`);
    expect(html).toContain(`action="/pay/links/${link.id}/ach"`);
    const nonce = /script-src 'nonce-([^']+)'/.exec(String(res.headers['content-security-policy']))?.[1];
    for (const [, , attrs] of html.matchAll(/<(script|style)\b([^>]*)>/g)) expect(attrs).toBe(` nonce="${nonce ?? ''}"`);
  });

  it('answers 404 for an unknown or malformed id', async () => {
    for (const id of ['7c9e6679-7425-40de-944b-e07fc1f90ae7', 'not-a-uuid']) {
      const res = await page(id);
      expect([res.status, res.text.includes('Payment link not found')]).toEqual([404, true]);
    }
  });

  it('pays by card: 303 to the page, which then shows the receipt and no forms; one sale of creator type QuickPayment, one event', async () => {
    const link = await createLink(s, 0, { amount: 12.34, description: 'Card' });
    const { cardToken } = await open(link.id);
    const res = await post(link.id, 'card', cardFields({ formToken: cardToken, creditTotal: '12.34', debitTotal: '12.34' }));
    expect([res.status, res.headers.location]).toEqual([303, linkPagePath(link.id)]);
    const after = await read(link.id);
    expect(after).toMatchObject({ status: 'Paid', transactionId: expect.any(String) as string });
    const [sale] = await paymentsOf(link.id) as { amount_cents: number | string; payment_method_type_id: number; type_id: number; pan_mask: string }[];
    expect([Number(sale?.amount_cents), sale?.payment_method_type_id, sale?.type_id]).toEqual([1234, 1, 2]);
    expect(await paidEvents(link.id)).toEqual([after]);
    const receipt = (await page(link.id)).text;
    expect(receipt).toContain('<strong id="status">Paid</strong>');
    expect(receipt).toMatch(/id="paid">Paid \$12\.34 by card on \d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2} UTC\. Thank you\./);
    expect(receipt).toContain(`<code id="reference">${after.transactionId ?? ''}</code>`);
    expect(receipt).not.toContain('<form');
    expect(receipt).not.toContain('<script');
  });

  it('by bank account: refused without the ticked authorization (nothing charged); with it, an ACH debit with the server\'s consent time', async () => {
    const link = await createLink(s, 0, { amount: 80, description: 'ACH' });
    const { achToken } = await open(link.id);
    const before = await quickSales();
    const unticked = await post(link.id, 'ach', achFields({ formToken: achToken, authorizeBankWithdrawal: '' }));
    expect(unticked.status).toBe(400);
    expect(alertOf(unticked.text)).toContain('Please tick the box to authorize the debit of your bank account. Nothing was charged.');
    expect([await quickSales(), (await read(link.id)).status]).toEqual([before, 'Active']);
    const from = (await businessNow(s, 0)).toISOString();
    const res = await post(link.id, 'ach', achFields({ formToken: (await open(link.id)).achToken }));
    expect([res.status, res.headers.location]).toEqual([303, linkPagePath(link.id)]);
    const to = (await businessNow(s, 0)).toISOString();
    const [debit] = await paymentsOf(link.id) as { payment_method_type_id: number; type_id: number; sec_code: number; authorization_consent_on: string; amount_cents: number | string }[];
    expect([debit?.payment_method_type_id, debit?.sec_code, Number(debit?.amount_cents)]).toEqual([2, 3, 8000]);
    // The form's 2026-01-02T03:04:05.000Z is not what was recorded: the server's time of the authorization is.
    expect(debit?.authorization_consent_on).not.toBe('2026-01-02T03:04:05.000Z');
    expect(debit && debit.authorization_consent_on >= from && debit.authorization_consent_on <= to, `${String(debit?.authorization_consent_on)} in [${from}, ${to}]`).toBe(true);
    expect((await page(link.id)).text).toContain('by bank account');
    expect((await page(link.id)).text).not.toContain('authorizationConsentTimestamp');
  });

  it('records the ACH consent time on the merchant\'s business clock, whatever time the form posts (or none)', async () => {
    // Merchant 1's clock 30 days ahead of real time: the recorded consent is on its timeline, beside its debit.
    const advanced = await request(s.app).post('/sandbox/v1/clock/advance').set(await s.as(1)).send({ seconds: 30 * 86_400 });
    expect(advanced.status, advanced.text).toBe(200);
    const posted: (string | undefined)[] = ['2001-01-01T00:00:00.000Z', '9999-12-31T23:59:59.999Z', '2001-01-01', '', 'yesterday', '1e400', undefined];
    for (const value of posted) {
      const link = await createLink(s, 1, { amount: 12, description: `consent ${String(value)}` });
      const fields = achFields({ formToken: (await open(link.id)).achToken });
      if (value === undefined) delete fields.authorizationConsentTimestamp;
      else fields.authorizationConsentTimestamp = value;
      const before = (await businessNow(s, 1)).toISOString();
      const res = await post(link.id, 'ach', fields);
      expect([String(value), res.status], res.text).toEqual([String(value), 303]);
      const after = (await businessNow(s, 1)).toISOString();
      const stored = await s.db('transactions').whereIn('id', s.db('quick_payments').where({ id: link.id }).select('transaction_id'))
        .first<{ authorization_consent_on: string; created_on: string }>('authorization_consent_on', 'created_on');
      expect(stored.authorization_consent_on >= before && stored.authorization_consent_on <= after, `${String(value)}: ${stored.authorization_consent_on} in [${before}, ${after}]`).toBe(true);
      expect(stored.authorization_consent_on <= stored.created_on).toBe(true);
      expect(Date.parse(stored.authorization_consent_on) - s.clock.now().getTime()).toBeGreaterThan(29 * 86_400_000);
    }
  });

  it('shows a decline; the link stays Active and is paid by another card; the card number is not echoed', async () => {
    const link = await createLink(s, 0, { amount: 15, description: 'Decline' });
    const declined = await post(link.id, 'card', cardFields({ formToken: (await open(link.id)).cardToken, accountNumber: '4000 0000 0000 9995' }));
    expect(declined.status).toBe(402);
    expect(alertOf(declined.text)).toMatch(/Your payment was declined: .+ \(051\)\. The link is not paid; you can try another card\./);
    expect(declined.text).not.toContain('4000 0000 0000 9995');
    expect(declined.text).not.toContain('4000000000009995');
    expect((await read(link.id)).status).toBe('Active');
    expect(await paidEvents(link.id)).toEqual([]);
    const paid = await post(link.id, 'card', cardFields({ formToken: (await open(link.id)).cardToken }));
    expect(paid.status).toBe(303);
    expect((await read(link.id)).status).toBe('Paid');
    expect(s.logLines.join('')).not.toMatch(/4000000000009995|4111111111111111|1234567890/);
  });

  it('pays once for a double submit of one form, sequential or concurrent', async () => {
    for (const concurrent of [false, true]) {
      const link = await createLink(s, 0, { amount: 3, description: 'Twice' });
      const fields = cardFields({ formToken: (await open(link.id)).cardToken });
      const answers = concurrent
        ? await Promise.all([post(link.id, 'card', fields), post(link.id, 'card', fields)])
        : [await post(link.id, 'card', fields), await post(link.id, 'card', fields)];
      expect(answers.map((a) => a.status), String(concurrent)).toEqual([303, 303]);
      expect(await paymentsOf(link.id)).toHaveLength(1);
      expect(await paidEvents(link.id)).toHaveLength(1);
    }
  });

  it('two payers with two forms at once: one pays, the other is told the link can no longer be paid, and is not charged', async () => {
    const link = await createLink(s, 0, { amount: 4.44, description: 'Two payers' });
    const [a, b] = [await open(link.id), await open(link.id)];
    const before = await quickSales();
    const answers = await Promise.all([
      post(link.id, 'card', cardFields({ formToken: a.cardToken })),
      post(link.id, 'ach', achFields({ formToken: b.achToken })),
    ]);
    const statuses = answers.map((r) => r.status).sort();
    expect(statuses).toEqual([303, 400]);
    const refused = answers.find((r) => r.status === 400);
    expect(alertOf(refused?.text ?? '')).toContain('This payment link can no longer be paid');
    expect(await quickSales()).toBe(before + 1);
    expect(await paidEvents(link.id)).toHaveLength(1);
  });

  it('an Expired link says so, shows no forms, and refuses a form rendered before; a Cancelled one too', async () => {
    const now = await businessNow(s, 0);
    const expiring = await createLink(s, 0, { amount: 9, description: 'Expiring', expiresOn: new Date(now.getTime() + 2000).toISOString() });
    const { cardToken } = await open(expiring.id);
    s.clock.advance(3);
    const shown = await page(expiring.id);
    expect(shown.text).toContain('<strong id="status">Expired</strong>');
    expect(shown.text).toContain('This payment link has expired');
    expect(shown.text).not.toContain('<form');
    expect((await s.db('quick_payments').where({ id: expiring.id }).first() as { status: string }).status).toBe('Expired');
    const before = await quickSales();
    const late = await post(expiring.id, 'card', cardFields({ formToken: cardToken }));
    expect(late.status).toBe(400);
    expect(alertOf(late.text)).toContain('This payment link can no longer be paid (it is paid, expired or cancelled). Nothing was charged.');
    expect(await quickSales()).toBe(before);

    const cancelled = await createLink(s, 0, { amount: 9, description: 'Cancelled' });
    const token = (await open(cancelled.id)).cardToken;
    expect((await request(s.app).post(`${LINKS}/${cancelled.id}/cancel`).set(await s.as(0))).status).toBe(200);
    expect((await page(cancelled.id)).text).toContain('This payment link was cancelled by the merchant');
    expect((await post(cancelled.id, 'card', cardFields({ formToken: token }))).status).toBe(400);
    expect(await quickSales()).toBe(before);
  });

  it("refuses a form from another origin, without a token, or with another link's token; nothing is charged", async () => {
    const link = await createLink(s, 0, { amount: 5, description: 'Protected' });
    const other = await createLink(s, 0, { amount: 5, description: 'Other' });
    const before = await quickSales();
    const { cardToken } = await open(link.id);
    expect((await post(link.id, 'card', cardFields({ formToken: cardToken }), 'https://evil.example')).status).toBe(403);
    expect((await post(link.id, 'card', cardFields({ formToken: cardToken }), null)).status).toBe(403);
    expect((await post(link.id, 'card', cardFields())).status).toBe(403);
    expect((await post(other.id, 'card', cardFields({ formToken: cardToken }))).status).toBe(403);
    // A token of the card form does not pay by the bank-account form.
    expect((await post(link.id, 'ach', achFields({ formToken: cardToken }))).status).toBe(403);
    expect(await quickSales()).toBe(before);
    expect((await read(link.id)).status).toBe('Active');
  });
});

describe('the payment link page throttles declines (card testing)', () => {
  let s: TestServer;
  beforeAll(async () => { s = await startServer('sqlite', { env: { PGW_THROTTLE_IDENTITY_ADDRESS_LIMIT: '3' } }); });
  afterAll(async () => { await s.close(); });

  it('after the limit of declines from one address on one page, a payment is refused unpaid (429, Retry-After) even with a good card; another page is not', async () => {
    const link = await createLink(s, 0, { amount: 15, description: 'Card testing' });
    const post = (id: string, fields: Record<string, string>) => postForm(s, id, 'card', fields, new URL(s.config.baseUrl).origin, linkPagePath);
    const token = async (id: string): Promise<string> => (await openPage(s, id, linkPagePath)).cardToken;
    for (let i = 0; i < 3; i++) expect((await post(link.id, cardFields({ formToken: await token(link.id), accountNumber: '4000000000009995' }))).status).toBe(402);
    const sales = async (): Promise<number> => (await s.db('transactions').where({ merchant_id: s.merchantId(0) })).length;
    const before = await sales();
    const refused = await post(link.id, cardFields({ formToken: await token(link.id) }));
    expect(refused.status).toBe(429);
    expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
    expect(alertOf(refused.text)).toContain('Too many declined payments from your network on this page');
    expect(await sales()).toBe(before);
    expect((await request(s.app).get(`${LINKS}/${link.id}`).set(await s.as(0))).body).toMatchObject({ status: 'Active' });
    const other = await createLink(s, 0, { amount: 15, description: 'Another page' });
    expect((await post(other.id, cardFields({ formToken: await token(other.id) }))).status).toBe(303);
  });
});

