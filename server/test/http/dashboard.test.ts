// The sandbox dashboard over HTTP, on both engines: sign-in (bad credentials show an error and set no cookie),
// the session cookie's attributes and what it stores, every page behind the session, CSRF (a POST without or
// with a wrong token, or from another origin, is a 403 that changes nothing), a revoked key or an idle or old
// session ends it, one merchant's session never sees or retries another's records, a production server has no
// dashboard, and every value shown is escaped under a Content-Security-Policy that allows no script.
import { createHash } from 'node:crypto';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { engines, startServer, type TestServer } from '../harness.ts';
import {
  cookiePair, failedDelivery, get, originOf, post, postSignIn, setCookie, signIn, signInForm, type Dash,
} from './dashboard-helpers.ts';
import { invoiceBody, customer, INVOICES } from './invoice-helpers.ts';
import { achDebitBody, paymentCalls } from './payment-helpers.ts';
import { startReceiver, type Receiver } from './webhook-receiver.ts';

const PAGES = ['/dashboard', '/dashboard/transactions', '/dashboard/events', '/dashboard/clock', '/dashboard/invoices', '/dashboard/links', '/dashboard/terminals', '/dashboard/subscriptions'];
const HOSTILE = '<script>alert(1)</script>';

describe.each(engines())('the dashboard (%s)', (engine) => {
  let s: TestServer;
  let receiver: Receiver;
  const pay = paymentCalls(() => s);
  beforeAll(async () => {
    s = await startServer(engine);
    receiver = await startReceiver();
  });
  afterAll(async () => {
    await receiver.close();
    await s.close();
  });

  // Fresh tokens each time: the session tests move the wall clock past a cached token's life.
  const fresh = async (who: 0 | 1): Promise<Record<string, string>> => ({ Authorization: `Bearer ${await s.token(who)}` });
  const offsetOf = async (who: 0 | 1): Promise<number> => (await pay.clock(await fresh(who))).offsetSeconds;
  const sessionCount = async (): Promise<number> => Number(((await s.db('dashboard_sessions').count({ n: '*' }).first()) as { n: number | string }).n);

  describe('sign-in', () => {
    it.each([
      ['a wrong secret', (): [string, string] => [s.secrets.merchants[0]?.clientId ?? '', 'pgw_cs_wrong']],
      ['an unknown client id', (): [string, string] => ['pgw_ck_0000000000000000', s.secrets.merchants[0]?.clientSecret ?? '']],
      ['empty fields', (): [string, string] => ['', '']],
      ["the partner's key", (): [string, string] => [s.secrets.partner.clientId, s.secrets.partner.clientSecret]],
    ])('refuses %s: the form again with an error, no session cookie, no session stored', async (_name, credentials) => {
      const before = await sessionCount();
      const [clientId, clientSecret] = credentials();
      const res = await postSignIn(s, clientId, clientSecret);
      expect(res.status).toBe(401);
      expect(res.text).toMatch(/class="error" role="alert">[^<]+/);
      expect(setCookie(res, 'pgw_dashboard')).toBeUndefined();
      // The secret typed is never sent back.
      if (clientSecret !== '') expect(res.text).not.toContain(clientSecret);
      expect(await sessionCount()).toBe(before);
    });

    it('opens a session: an HttpOnly, SameSite=Strict cookie of /dashboard holding neither the secret nor a token, stored hashed', async () => {
      const m = s.secrets.merchants[0];
      if (!m) throw new Error('no merchant');
      const res = await postSignIn(s, m.clientId, m.clientSecret);
      expect(res.status).toBe(303);
      expect(res.headers.location).toBe('/dashboard');
      const header = setCookie(res, 'pgw_dashboard') ?? '';
      const attributes = header.split(';').map((a) => a.trim().toLowerCase());
      expect(attributes).toEqual(expect.arrayContaining(['httponly', 'samesite=strict', 'path=/dashboard']));
      expect(attributes.some((a) => a.startsWith('max-age='))).toBe(true);
      // Plain http here: not Secure (a browser would drop it); https adds it (req.secure).
      expect(attributes).not.toContain('secure');
      const value = cookiePair(header).slice('pgw_dashboard='.length);
      expect(value).toMatch(/^[A-Za-z0-9_-]{43}$/);
      expect(header).not.toContain(m.clientSecret);
      expect(header).not.toContain(m.clientId);
      // Only the hash is stored: the cookie's value is in no row.
      const rows = (await s.db('dashboard_sessions').select('*')) as Record<string, unknown>[];
      expect(JSON.stringify(rows)).not.toContain(value);
      expect(rows.map((r) => r.id_hash)).toContain(createHash('sha256').update(value).digest('hex'));
      // The sign-in nonce cookie is removed.
      expect(setCookie(res, 'pgw_dashboard_signin')).toMatch(/Max-Age=0/);
    });

    it('navigates by keyboard order: labelled fields, then the button', async () => {
      const res = await request(s.app).get('/dashboard/sign-in');
      expect(res.text).toContain('<label for="clientId">');
      expect(res.text).toContain('id="clientId"');
      expect(res.text).toContain('<label for="clientSecret">');
      expect(res.text).toMatch(/<main id="main"/);
      expect(res.text).toContain('href="#main"');
    });
  });

  describe('pages behind the session', () => {
    it.each(PAGES)('%s sends a browser without a session (or with a made-up one) to the sign-in page', async (path) => {
      for (const cookie of [undefined, 'pgw_dashboard=AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA', 'pgw_dashboard=<x>']) {
        const res = await (cookie === undefined ? request(s.app).get(path) : request(s.app).get(path).set('Cookie', cookie));
        expect(res.status).toBe(303);
        expect(res.headers.location).toBe('/dashboard/sign-in');
      }
    });

    it.each(PAGES)('%s: landmarks, a skip link, one h1, a CSP without scripts, and no script or inline handler', async (path) => {
      const d = await signIn(s, 0);
      const res = await get(s, d, path);
      expect(res.status).toBe(200);
      expect(res.headers['content-security-policy']).toMatch(/default-src 'none'/);
      expect(res.headers['content-security-policy']).not.toMatch(/script-src|unsafe-inline/);
      expect(res.headers['cache-control']).toBe('no-store');
      expect(res.text).toMatch(/<nav aria-label="Dashboard">/);
      expect(res.text).toMatch(/<main id="main"/);
      expect(res.text).toContain('<a class="skip" href="#main">');
      expect(res.text.match(/<h1>/g)).toHaveLength(1);
      expect(res.text).not.toMatch(/<script|\son[a-z]+=|javascript:/i);
      // Every table header cell names its scope.
      expect(res.text).not.toMatch(/<th(?![^>]*scope=)/);
      // Every POST form carries the session's token.
      const forms = res.text.match(/<form method="post"[^]*?<\/form>/g) ?? [];
      expect(forms.length).toBeGreaterThan(0);
      for (const form of forms) expect(form).toContain(`name="csrf" value="${d.csrf}"`);
    });

    it('an unknown dashboard address is an HTML 404', async () => {
      const d = await signIn(s, 0);
      const res = await get(s, d, '/dashboard/nothing-here');
      expect(res.status).toBe(404);
      expect(res.type).toBe('text/html');
    });
  });

  describe('CSRF', () => {
    let d: Dash;
    beforeAll(async () => { d = await signIn(s, 1); });

    const attacks: [string, (path: string, fields: Record<string, string>) => request.Test][] = [
      ['without a token', (path, fields) => request(s.app).post(path).set({ Cookie: d.cookie, Origin: originOf(s) }).type('form').send(fields)],
      ['with a wrong token', (path, fields) => post(s, { ...d, csrf: 'x'.repeat(43) }, path, fields)],
      ['with the sign-in form token', (path, fields) => post(s, { ...d, csrf: 'A'.repeat(43) }, path, fields)],
      ['from another origin', (path, fields) => post(s, d, path, fields, { Origin: 'https://evil.example' })],
      ['with a foreign Referer and no Origin', (path, fields) => post(s, d, path, fields, { Referer: 'https://evil.example/page' })],
      ['with neither Origin nor Referer', (path, fields) => post(s, d, path, fields, {})],
      ['from an opaque origin (null), even with our Referer', (path, fields) => post(s, d, path, fields, { Origin: 'null', Referer: `${originOf(s)}/dashboard/clock` })],
    ];

    it.each(attacks)('a clock advance %s is a 403 and the clock stays', async (_name, send) => {
      const before = await offsetOf(1);
      const res = await send('/dashboard/clock/advance', { seconds: '86400' });
      expect(res.status).toBe(403);
      expect(res.text).toContain('Nothing was changed');
      expect(await offsetOf(1)).toBe(before);
    });

    it.each(attacks)('a sign-out %s is a 403 and the session goes on', async (_name, send) => {
      expect((await send('/dashboard/sign-out', {})).status).toBe(403);
      expect((await get(s, d, '/dashboard')).status).toBe(200);
    });

    it.each(attacks)('a delivery retry %s is a 403 and no attempt is made', async (_name, send) => {
      const { deliveryId } = await failedDelivery(s, 1, receiver);
      receiver.answer(200);
      const deliveries = await s.db('webhook_deliveries').count({ n: '*' }).first();
      const res = await send(`/dashboard/deliveries/${deliveryId}/retry`, {});
      expect(res.status).toBe(403);
      expect(await s.db('webhook_deliveries').count({ n: '*' }).first()).toEqual(deliveries);
    });

    it("another session's token is refused", async () => {
      const other = await signIn(s, 1);
      const before = await offsetOf(1);
      expect((await post(s, { ...d, csrf: other.csrf }, '/dashboard/clock/advance', { seconds: '60' })).status).toBe(403);
      expect(await offsetOf(1)).toBe(before);
    });

    it('a sign-in without its nonce cookie, with a wrong token, or from another origin is a 403 and opens no session', async () => {
      const m = s.secrets.merchants[0];
      if (!m) throw new Error('no merchant');
      const form = await signInForm(s);
      const before = await sessionCount();
      const fields = { clientId: m.clientId, clientSecret: m.clientSecret };
      const tries = [
        request(s.app).post('/dashboard/sign-in').set({ Origin: originOf(s) }).type('form').send({ ...fields, csrf: form.csrf }),
        request(s.app).post('/dashboard/sign-in').set({ Cookie: form.cookie, Origin: originOf(s) }).type('form').send({ ...fields, csrf: 'wrong' }),
        request(s.app).post('/dashboard/sign-in').set({ Cookie: form.cookie, Origin: 'https://evil.example' }).type('form').send({ ...fields, csrf: form.csrf }),
      ];
      for (const res of await Promise.all(tries)) {
        expect(res.status).toBe(403);
        expect(setCookie(res, 'pgw_dashboard')).toBeUndefined();
      }
      expect(await sessionCount()).toBe(before);
    });

    it('with its token and Origin the same POST works (the checks are not refusing everything)', async () => {
      const before = await offsetOf(1);
      const res = await post(s, d, '/dashboard/clock/advance', { seconds: '60' });
      expect(res.status).toBe(200);
      expect(await offsetOf(1)).toBe(before + 60);
    });
  });

  describe('the clock', () => {
    it.each(['0', '-5', 'abc', '1.5', '31536001', ''])('refuses %j seconds with a message, and the clock stays', async (seconds) => {
      const d = await signIn(s, 0);
      const before = await offsetOf(0);
      const res = await post(s, d, '/dashboard/clock/advance', { seconds });
      expect(res.status).toBe(400);
      expect(res.text).toContain('The clock did not move.');
      expect(await offsetOf(0)).toBe(before);
    });

    it('advances by a preset and shows what ran: an ACH debit settles and shows Settled in its history', async () => {
      const d = await signIn(s, 0);
      const debit = await pay.achDebit(await fresh(0), achDebitBody(s, 0, { amount: 1234.56 }));
      const list = await get(s, d, '/dashboard/transactions');
      expect(list.text).toContain(`/dashboard/transactions/${debit.transactionId}`);
      expect(list.text).toContain('$1,234.56');
      const res = await post(s, d, '/dashboard/clock/advance', { seconds: '604800' });
      expect(res.status).toBe(200);
      expect(res.text).toMatch(/ACH entries settled<\/th><td class="n">[1-9]/);
      const detail = await get(s, d, `/dashboard/transactions/${debit.transactionId}`);
      expect(detail.text).toMatch(/<td id="status">Settled<\/td>/);
      expect(detail.text).toMatch(/<td>InProgress<\/td><td>Settled<\/td>/);
    });

    it('shows a partially refunded payment: its status, the refunded sum and each refund in its history', async () => {
      const d = await signIn(s, 0);
      const h = await fresh(0);
      const { transactionId } = await pay.achDebit(h, achDebitBody(s, 0, { amount: 100 }));
      await pay.simulate(h, transactionId, { outcome: 'settle' });
      await pay.achCommand(h, transactionId, 'refund', { amount: 10 });
      await pay.achCommand(h, transactionId, 'refund', { amount: 15.5 });
      const detail = await get(s, d, `/dashboard/transactions/${transactionId}`);
      expect(detail.text).toMatch(/<td id="status">PartiallyRefunded<\/td>/);
      expect(detail.text).toContain('$25.50');
      expect(detail.text).toMatch(/<td>Settled<\/td><td>PartiallyRefunded<\/td>/);
      expect(detail.text).toMatch(/<td>PartiallyRefunded<\/td><td>PartiallyRefunded<\/td>/);
      expect((await get(s, d, '/dashboard/transactions')).text).toMatch(/<td>PartiallyRefunded<\/td>/);
    });
  });

  describe('sessions end', () => {
    it('when the API key is revoked: the next request goes to sign-in and the session row is gone', async () => {
      const h = await fresh(0);
      const created = await request(s.app).post('/pay-api/v1/merchants/tokens').set(h).send({ name: 'Dashboard key' });
      expect(created.status, created.text).toBe(200);
      const key = created.body as { clientId: string; clientSecret: string };
      const d = await signIn(s, key);
      expect((await get(s, d, '/dashboard')).status).toBe(200);
      expect((await request(s.app).delete(`/pay-api/v1/merchants/tokens/${key.clientId}`).set(h)).status).toBe(200);
      const res = await get(s, d, '/dashboard');
      expect(res.status).toBe(303);
      expect(res.headers.location).toBe('/dashboard/sign-in');
      expect(setCookie(res, 'pgw_dashboard')).toMatch(/Max-Age=0/);
      expect(await s.db('dashboard_sessions').where({ client_id: key.clientId }).first()).toBeUndefined();
    });

    it('when idle for over 2 hours, and 8 hours after sign-in however used', async () => {
      const idle = await signIn(s, 0);
      s.clock.advance(2 * 3600 + 1);
      expect((await get(s, idle, '/dashboard')).status).toBe(303);
      const busy = await signIn(s, 0);
      for (let hour = 1; hour < 8; hour++) {
        s.clock.advance(3600);
        expect((await get(s, busy, '/dashboard')).status, `hour ${String(hour)}`).toBe(200);
      }
      s.clock.advance(3600);
      expect((await get(s, busy, '/dashboard')).status).toBe(303);
    });

    it('on sign-out', async () => {
      const d = await signIn(s, 0);
      const res = await post(s, d, '/dashboard/sign-out');
      expect(res.status).toBe(303);
      expect(setCookie(res, 'pgw_dashboard')).toMatch(/Max-Age=0/);
      expect((await get(s, d, '/dashboard')).status).toBe(303);
    });
  });

  describe("one merchant's session and another's records", () => {
    it("never shows or retries merchant 0's transaction or delivery to merchant 1 (404, nothing attempted)", async () => {
      const { deliveryId, transactionId } = await failedDelivery(s, 0, receiver);
      receiver.answer(200);
      const d1 = await signIn(s, 1);
      expect((await get(s, d1, `/dashboard/transactions/${transactionId}`)).status).toBe(404);
      expect((await get(s, d1, '/dashboard/transactions')).text).not.toContain(transactionId);
      expect((await get(s, d1, '/dashboard/events')).text).not.toContain(deliveryId);
      const received = receiver.received.length;
      const res = await post(s, d1, `/dashboard/deliveries/${deliveryId}/retry`);
      expect(res.status).toBe(404);
      expect(receiver.received.length).toBe(received);
      expect(await s.db('webhook_deliveries').where({ trigger_type: 'Manual', event_id: (await s.db('webhook_deliveries').where({ id: deliveryId }).first<{ event_id: string }>()).event_id }).first()).toBeUndefined();
      // Its own merchant retries it: one new attempt, answered 200.
      const d0 = await signIn(s, 0);
      const own = await post(s, d0, `/dashboard/deliveries/${deliveryId}/retry`);
      expect(own.status).toBe(200);
      expect(own.text).toContain('Retried: the new attempt succeeded (status code 200).');
      expect(receiver.received.length).toBe(received + 1);
      // A Succeeded delivery is not retried from the dashboard (the API resends one with force=true): a message, no attempt.
      const manual = await s.db('webhook_deliveries').where({ trigger_type: 'Manual', status: 'Succeeded' }).first<{ id: string }>();
      const again = await post(s, d0, `/dashboard/deliveries/${manual.id}/retry`);
      expect(again.status).toBe(400);
      expect(again.text).toContain('The delivery has Succeeded: it is resent only with force=true.');
      expect(receiver.received.length).toBe(received + 1);
    });
  });

  describe('payment links', () => {
    const create = async (who: 0 | 1, description: string): Promise<{ id: string; url: string }> => {
      const res = await request(s.app).post('/pay-api/v1/quick-payments').set(await fresh(who)).send({ amount: 19.99, description });
      expect(res.status, res.text).toBe(200);
      return res.body as { id: string; url: string };
    };
    const statusOf = async (id: string): Promise<string> =>
      ((await s.db('quick_payments').where({ id }).first<{ status: string } | undefined>('status')) ?? { status: 'gone' }).status;

    it("lists the merchant's links only, with status, amount and page address, and cancels an Active one; a Paid one is refused", async () => {
      const mine = await create(0, `dash-${crypto.randomUUID().slice(0, 8)}`);
      const theirs = await create(1, `dash-${crypto.randomUUID().slice(0, 8)}`);
      const d0 = await signIn(s, 0);
      const page = await get(s, d0, '/dashboard/links');
      expect(page.status).toBe(200);
      expect(page.text).toMatch(new RegExp(`<tr id="link-${mine.id}">[\\s\\S]*?\\$19\\.99</td><td>Active</td>`));
      expect(page.text).toContain(`<a href="${mine.url}">${mine.url}</a>`);
      expect(page.text).not.toContain(theirs.id);
      const cancelled = await post(s, d0, `/dashboard/links/${mine.id}/cancel`);
      expect(cancelled.status).toBe(200);
      expect(cancelled.text).toContain('is cancelled.');
      expect(await statusOf(mine.id)).toBe('Cancelled');
      const again = await post(s, d0, `/dashboard/links/${mine.id}/cancel`);
      expect(again.status).toBe(400);
      expect(again.text).toMatch(/class="error" role="alert">[^<]*Cancelled/);
    });

    it("shows a reusable link's payments of its limit and what they collected, as the sandbox's payments made them", async () => {
      const h = await fresh(0);
      const made = await request(s.app).post('/pay-api/v1/quick-payments').set(h).send({ amount: 4.1, description: 'dash reusable', maxPayments: 3, adjustableQuantity: { minimum: 1, maximum: 5 } });
      const id = (made.body as { id: string }).id;
      const open = await request(s.app).post('/pay-api/v1/quick-payments').set(h).send({ amount: 8, description: 'dash open', maxPayments: null });
      for (const quantity of ['2', '3']) expect((await request(s.app).post(`/sandbox/v1/quick-payments/${id}/pay`).query({ quantity }).set(h)).status).toBe(200);
      const d0 = await signIn(s, 0);
      const page = await get(s, d0, '/dashboard/links');
      expect(page.text).toContain(`<td class="n" id="link-${id}-payments">2 of 3</td>`);
      // 4.10 x 2 + 4.10 x 3 = 20.50
      expect(page.text).toContain(`<td class="n" id="link-${id}-collected">$20.50</td>`);
      expect(page.text).toMatch(new RegExp(`<tr id="link-${id}">[\\s\\S]*?\\$4\\.10 × 1 to 5</td><td>Active</td>`));
      expect(page.text).toContain(`<td class="n" id="link-${(open.body as { id: string }).id}-payments">0 (no limit)</td>`);
    });

    it("refuses another merchant's link (404) and a POST without the CSRF token (403): nothing changes", async () => {
      const theirs = await create(1, 'theirs');
      const d0 = await signIn(s, 0);
      expect((await post(s, d0, `/dashboard/links/${theirs.id}/cancel`)).status).toBe(404);
      const d1 = await signIn(s, 1);
      const noToken = await request(s.app).post(`/dashboard/links/${theirs.id}/cancel`).set('Cookie', d1.cookie).set('Origin', originOf(s)).type('form').send({});
      expect(noToken.status).toBe(403);
      expect(await statusOf(theirs.id)).toBe('Active');
    });
  });

  describe('subscriptions', () => {
    it("lists the merchant's subscriptions only, with status, customer, amount, frequency and next payment date", async () => {
      const make = async (who: 0 | 1, description: string, extra: object = {}): Promise<{ subscriptionId: string; customerId: string; nextPaymentDate: string }> => {
        const h = await fresh(who);
        const customer = await request(s.app).post('/pay-api/v1/customers').set(h).send({ firstName: 'Dash', lastName: 'Board' });
        const customerId = (customer.body as { id: string }).id;
        const card = await request(s.app).post(`/pay-api/v1/customers/${customerId}/payment-methods/cards`).set(h)
          .send({ pan: '4111111111111111', expirationMonth: 12, expirationYear: 2040 });
        const res = await request(s.app).post('/pay-api/v1/subscriptions').set(h)
          .send({ customerId, paymentMethodId: (card.body as { id: string }).id, amount: 1234.5, frequency: 'Quarterly', description, ...extra });
        expect(res.status, res.text).toBe(200);
        return res.body as { subscriptionId: string; customerId: string; nextPaymentDate: string };
      };
      const mine = await make(0, `Mine ${crypto.randomUUID()}`);
      const theirs = await make(1, `Theirs ${crypto.randomUUID()}`);
      const trial = await make(0, `Trial ${crypto.randomUUID()}`, { trialPeriodDays: 10 });
      // Paid, then downgraded at once: the unused time becomes credit.
      const credited = await make(0, `Credited ${crypto.randomUUID()}`);
      expect((await request(s.app).post('/sandbox/v1/clock/advance').set(await fresh(0)).send({ seconds: 1 })).status).toBe(200);
      const down = await request(s.app).put(`/pay-api/v1/subscriptions/${credited.subscriptionId}`).set(await fresh(0)).send({ amount: 1000, proration: 'ProrateNow' });
      expect(down.status, down.text).toBe(200);
      const d0 = await signIn(s, 0);
      const page = await get(s, d0, '/dashboard/subscriptions');
      expect(page.status).toBe(200);
      const rowOf = (id: string): string => /<tr id="subscription-[^"]+">[\s\S]*?<\/tr>/.exec(page.text.slice(page.text.indexOf(`subscription-${id}`) - 8))?.[0] ?? '';
      expect(rowOf(trial.subscriptionId)).toMatch(/Trialing \(trial until [^)]+\)/);
      expect(rowOf(credited.subscriptionId)).toMatch(/\$1,000\.00 <span class="muted">\(credit \$2\d\d\.\d\d\)<\/span>/);
      const row = rowOf(mine.subscriptionId);
      expect(row).toContain('Active');
      expect(row).toContain(mine.customerId);
      expect(row).toContain('$1,234.50');
      expect(row).toContain('Quarterly');
      expect(page.text).not.toContain(theirs.subscriptionId);
    });
  });

  describe('terminals', () => {
    const register = async (who: 0 | 1): Promise<{ terminalId: string; serialNumber: string }> => {
      const res = await request(s.app).post('/pay-api/v1/terminals').set(await fresh(who))
        .send({ serialNumber: `DSH-${crypto.randomUUID().slice(0, 8)}`, model: 'PX7', name: 'Front counter' });
      expect(res.status, res.text).toBe(200);
      return res.body as { terminalId: string; serialNumber: string };
    };
    const paperOf = async (id: string): Promise<string> =>
      ((await s.db('terminals').where({ id }).first<{ paper_status: string } | undefined>('paper_status')) ?? { paper_status: 'gone' }).paper_status;
    const outOfPaper = async (id: string): Promise<number> =>
      (await s.db('outbox_events').where({ type: 'terminal.out_of_paper' }).select<{ payload: string }[]>('payload'))
        .filter((e) => (JSON.parse(e.payload) as { terminalId: string }).terminalId === id).length;

    it("lists the merchant's terminals only, and reports paper through the paper machine: Empty sends terminal.out_of_paper once", async () => {
      const mine = await register(0);
      const theirs = await register(1);
      const d0 = await signIn(s, 0);
      const page = await get(s, d0, '/dashboard/terminals');
      expect(page.status).toBe(200);
      expect(page.text).toContain(mine.serialNumber);
      expect(page.text).not.toContain(theirs.serialNumber);
      const empty = await post(s, d0, `/dashboard/terminals/${mine.terminalId}/paper`, { paperStatus: 'Empty' });
      expect(empty.status).toBe(200);
      expect(empty.text).toContain(`${mine.serialNumber} reported Empty paper.`);
      expect([await paperOf(mine.terminalId), await outOfPaper(mine.terminalId)]).toEqual(['Empty', 1]);
      // Empty -> Low has no row: refused on the page, nothing changes, no event.
      const low = await post(s, d0, `/dashboard/terminals/${mine.terminalId}/paper`, { paperStatus: 'Low' });
      expect(low.status).toBe(400);
      expect(low.text).toMatch(/class="error" role="alert">[^<]*Empty/);
      expect([await paperOf(mine.terminalId), await outOfPaper(mine.terminalId)]).toEqual(['Empty', 1]);
      expect((await post(s, d0, `/dashboard/terminals/${mine.terminalId}/paper`, { paperStatus: 'Ok' })).status).toBe(200);
      expect(await paperOf(mine.terminalId)).toBe('Ok');
    });

    it("refuses another merchant's terminal (404), a status that is none (400), and a POST without the CSRF token (403): nothing changes", async () => {
      const theirs = await register(1);
      const d0 = await signIn(s, 0);
      expect((await post(s, d0, `/dashboard/terminals/${theirs.terminalId}/paper`, { paperStatus: 'Empty' })).status).toBe(404);
      const bad = await post(s, d0, `/dashboard/terminals/${theirs.terminalId}/paper`, { paperStatus: 'Soggy' });
      expect(bad.status).toBe(400);
      expect(bad.text).toContain('Choose a paper status: Ok, Low, Empty.');
      const d1 = await signIn(s, 1);
      const noToken = await request(s.app).post(`/dashboard/terminals/${theirs.terminalId}/paper`).set('Cookie', d1.cookie).set('Origin', originOf(s))
        .type('form').send({ paperStatus: 'Empty' });
      expect(noToken.status).toBe(403);
      expect([await paperOf(theirs.terminalId), await outOfPaper(theirs.terminalId)]).toEqual(['Ok', 0]);
    });
  });

  describe('escaping', () => {
    it('shows a hostile customer name and client id as text, never as markup', async () => {
      const h = await fresh(0);
      const res = await request(s.app).post(`${INVOICES}/publish`).set(h)
        .send(invoiceBody({ customer: customer({ firstName: HOSTILE, lastName: '"onmouseover="alert(2)' }), dueDate: new Date(s.clock.now().getTime() + 86_400_000 * 10).toISOString() }));
      expect(res.status, res.text).toBe(200);
      const d = await signIn(s, 0);
      const page = await get(s, d, '/dashboard/invoices');
      expect(page.text).toContain('&lt;script&gt;alert(1)&lt;/script&gt;');
      expect(page.text).toContain('&quot;onmouseover=&quot;alert(2)');
      expect(page.text).not.toContain(HOSTILE);
      expect(page.text).not.toMatch(/<script|\sonmouseover=/i);
      const signInAgain = await postSignIn(s, `"><script>alert(3)</script>`, 'wrong');
      expect(signInAgain.text).toContain('value="&quot;&gt;&lt;script&gt;alert(3)&lt;/script&gt;"');
      expect(signInAgain.text).not.toMatch(/<script/i);
    });
  });
});

describe('a production server', () => {
  let s: TestServer;
  beforeAll(async () => { s = await startServer('sqlite', { environment: 'production' }); });
  afterAll(async () => { await s.close(); });

  it.each([...PAGES, '/dashboard/sign-in', '/dashboard/assets/dashboard.css'])('has no %s (404)', async (path) => {
    expect((await request(s.app).get(path)).status).toBe(404);
  });

  it('refuses a sign-in (404) and opens no session', async () => {
    const m = s.secrets.merchants[0];
    const res = await request(s.app).post('/dashboard/sign-in').type('form').send({ clientId: m?.clientId, clientSecret: m?.clientSecret });
    expect(res.status).toBe(404);
    expect(setCookie(res, 'pgw_dashboard')).toBeUndefined();
    expect(await s.db('dashboard_sessions').count({ n: '*' }).first()).toEqual({ n: 0 });
  });
});
