// Payment links over HTTP, on both engines: creation (quick_payment.created through the link machine's creation
// row) and its rules (amount, description, expiry on the business clock), read and list with tenancy, cancel,
// the sandbox's payment, every operation from every status against the spec's table (events exactly where a row
// names one, refusals changing nothing and charging nothing), the expiry by the clock advance, the worker and a
// read, concurrent payers paying once, the reset, and the sandbox control's 404 on a production server. The
// hosted page: quick-payment-pages.test.ts.
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TransactionCreatorType } from '@pgw/client/enums';
import { quickPaymentStateMachine } from '@pgw/client/state-machines';
import { runDue } from '../../src/worker/run-due.ts';
import { engines, fieldsOf, startServer, type ErrorBody, type TestServer } from '../harness.ts';
import { LINKS, businessNow, createLink, type Link } from './quick-payment-helpers.ts';

const payPath = (id: string): string => `/sandbox/v1/quick-payments/${id}/pay`;
const UNKNOWN = '7c9e6679-7425-40de-944b-e07fc1f90ae7';
const STATUSES = ['Active', 'Paid', 'Expired', 'Cancelled'] as const;
type Status = (typeof STATUSES)[number];

interface Page { items: Link[]; total: number }

const errorOf = (res: request.Response): [number, string | null] => [res.status, (res.body as ErrorBody).errorCode];

describe.each(engines())('payment links (%s)', (engine) => {
  let s: TestServer;
  beforeAll(async () => { s = await startServer(engine); });
  afterAll(async () => { await s.close(); });

  /** The merchant's links, its link events and its transactions: what a refused request must leave as it was. */
  async function state(i: 0 | 1): Promise<string> {
    const rows = await s.db('quick_payments').where({ merchant_id: s.merchantId(i) }).orderBy('id').select('*');
    const events = await s.db('outbox_events').where({ merchant_id: s.merchantId(i) }).whereIn('type', ['quick_payment.created', 'quick_payment.paid']).orderBy('id').select('id');
    const payments = await s.db('transactions').where({ merchant_id: s.merchantId(i) }).orderBy('id').select('id', 'status_id');
    return JSON.stringify([rows, events, payments]);
  }

  /** The data of the events of a type about one link. */
  async function eventsOf(type: string, id: string): Promise<Link[]> {
    const rows = await s.db('outbox_events').where({ type }).select<{ payload: string }[]>('payload');
    return rows.map((r) => JSON.parse(r.payload) as Link).filter((l) => l.id === id);
  }

  async function read(i: 0 | 1, id: string): Promise<Link> {
    const res = await request(s.app).get(`${LINKS}/${id}`).set(await s.as(i));
    expect(res.status, res.text).toBe(200);
    return res.body as Link;
  }

  const cancel = async (i: 0 | 1, id: string): Promise<request.Response> => request(s.app).post(`${LINKS}/${id}/cancel`).set(await s.as(i));
  const pay = async (i: 0 | 1, id: string): Promise<request.Response> => request(s.app).post(payPath(id)).set(await s.as(i));
  const advance = async (i: 0 | 1, seconds: number): Promise<{ ran: { quickPaymentsExpired: number } }> => {
    const res = await request(s.app).post('/sandbox/v1/clock/advance').set(await s.as(i)).send({ seconds });
    expect(res.status, res.text).toBe(200);
    return res.body as { ran: { quickPaymentsExpired: number } };
  };

  /** A link of merchant `i` in `status`, by the table's own ways there (expiry through the clock advance). */
  async function linkIn(i: 0 | 1, status: Status): Promise<Link> {
    if (status !== 'Expired') {
      const link = await createLink(s, i);
      if (status === 'Paid') expect((await pay(i, link.id)).status).toBe(200);
      if (status === 'Cancelled') expect((await cancel(i, link.id)).status).toBe(200);
      return read(i, link.id);
    }
    const link = await createLink(s, i, { amount: 12, description: 'Soon expired', expiresOn: new Date((await businessNow(s, i)).getTime() + 60_000).toISOString() });
    await advance(i, 61);
    return read(i, link.id);
  }

  describe('creation', () => {
    it('creates an Active link whose url is its page on this server, and emits quick_payment.created once with the link as read', async () => {
      const now = await businessNow(s, 0);
      const expiresOn = new Date(now.getTime() + 14 * 86_400_000).toISOString();
      const made = await createLink(s, 0, { amount: 49.5, description: '  Deposit for order 10482 ', expiresOn });
      expect(made).toEqual({
        id: expect.stringMatching(/^[0-9a-f-]{36}$/) as string, url: `${s.config.baseUrl}/pay/links/${made.id}`, amount: 49.5,
        description: 'Deposit for order 10482', status: 'Active', transactionId: null, paidOn: null, expiresOn, createdOn: expect.any(String) as string,
        // Without the reusable-link fields, a single-use link for its amount, as before them.
        maxPayments: 1, paymentCount: 0, totalCollected: 0, quantity: 1, adjustableQuantity: null, customAmount: null, redirectUrl: null, latestPayment: null,
      });
      expect(Date.parse(made.createdOn)).toBeGreaterThanOrEqual(now.getTime() - 1000);
      expect(await read(0, made.id)).toEqual(made);
      expect(await eventsOf('quick_payment.created', made.id)).toEqual([made]);
      expect(await eventsOf('quick_payment.paid', made.id)).toEqual([]);
      expect((await createLink(s, 0, { amount: 5, description: 'No expiry', expiresOn: null })).expiresOn).toBeNull();
    });

    it('refuses a bad amount, description or expiry with 400 naming the field, and changes nothing', async () => {
      const before = await state(0);
      const past = new Date((await businessNow(s, 0)).getTime() - 1000).toISOString();
      const cases: [object, string][] = [
        [{ amount: 0, description: 'x' }, 'amount'], [{ amount: -1, description: 'x' }, 'amount'], [{ amount: 1.005, description: 'x' }, 'amount'],
        [{ amount: 1000000, description: 'x' }, 'amount'], [{ amount: '10', description: 'x' }, 'amount'], [{ description: 'x' }, 'amount'],
        [{ amount: 10 }, 'description'], [{ amount: 10, description: '' }, 'description'], [{ amount: 10, description: '   ' }, 'description'],
        [{ amount: 10, description: 'x'.repeat(256) }, 'description'], [{ amount: 10, description: 'x', expiresOn: 'tomorrow' }, 'expiresOn'],
        [{ amount: 10, description: 'x', expiresOn: past }, 'expiresOn'],
      ];
      for (const [body, field] of cases) {
        const res = await request(s.app).post(LINKS).set(await s.as(0)).send(body);
        expect([res.status, fieldsOf(res.body).some((f) => f.replace(/^\$\./, '') === field)], JSON.stringify(body)).toEqual([400, true]);
      }
      expect(await state(0)).toBe(before);
    });

    it("judges expiresOn by the merchant's business clock, not the wall clock", async () => {
      await advance(1, 3600);
      const soon = new Date(s.clock.now().getTime() + 600_000).toISOString();
      const res = await request(s.app).post(LINKS).set(await s.as(1)).send({ amount: 10, description: 'x', expiresOn: soon });
      expect([res.status, fieldsOf(res.body)]).toEqual([400, ['expiresOn']]);
    });
  });

  describe('read, list and tenancy', () => {
    it("lists the merchant's own links by status, search and page; another merchant gets 404 on every operation and changes nothing", async () => {
      const tag = `order-${crypto.randomUUID().slice(0, 8)}`;
      const a = await createLink(s, 0, { amount: 10, description: `${tag} first` });
      const b = await createLink(s, 0, { amount: 20, description: `${tag} second` });
      expect((await cancel(0, b.id)).status).toBe(200);
      const list = async (i: 0 | 1, query: Record<string, string>): Promise<Page> => {
        const res = await request(s.app).get(LINKS).query(query).set(await s.as(i));
        expect(res.status, res.text).toBe(200);
        return res.body as Page;
      };
      expect((await list(0, { search: tag })).items.map((l) => l.id).sort()).toEqual([a.id, b.id].sort());
      expect((await list(0, { search: tag, status: 'Cancelled' })).items.map((l) => l.id)).toEqual([b.id]);
      expect((await list(0, { search: tag, orderBy: 'amount', asc: 'false', pageSize: '1' }))).toMatchObject({ total: 2, items: [{ id: b.id }] });
      expect((await list(1, { search: tag })).total).toBe(0);
      const before = await state(0);
      for (const res of [
        await request(s.app).get(`${LINKS}/${a.id}`).set(await s.as(1)), await cancel(1, a.id), await pay(1, a.id),
        await request(s.app).get(`${LINKS}/${UNKNOWN}`).set(await s.as(0)),
      ]) expect(errorOf(res)).toEqual([404, 'not_found']);
      expect(await state(0)).toBe(before);
      const bad = await request(s.app).get(LINKS).query({ status: 'Open' }).set(await s.as(0));
      expect(bad.status).toBe(400);
    });

    it('a partner acting for the merchant creates and reads its links', async () => {
      const res = await request(s.app).post(LINKS).set(await s.as('partner', 1)).send({ amount: 3, description: 'By partner' });
      expect(res.status, res.text).toBe(200);
      expect((await s.db('quick_payments').where({ id: (res.body as Link).id }).first() as { merchant_id: string }).merchant_id).toBe(s.merchantId(1));
    });
  });

  describe('paying in the sandbox', () => {
    it('pays an Active link by a card sale of its amount with creator type QuickPayment, in one transaction with Paid and quick_payment.paid', async () => {
      const link = await createLink(s, 0, { amount: 49.5, description: 'Deposit' });
      const res = await pay(0, link.id);
      expect(res.status, res.text).toBe(200);
      const paid = res.body as Link;
      expect(paid).toMatchObject({ id: link.id, status: 'Paid', transactionId: expect.any(String) as string, paidOn: expect.any(String) as string });
      expect(await read(0, link.id)).toEqual(paid);
      expect(await eventsOf('quick_payment.paid', link.id)).toEqual([paid]);
      const sale = (await s.db('transactions').where({ id: paid.transactionId }).first()) as { creator_type_id: number; amount_cents: number | string; type_id: number; response_code: string; merchant_id: string };
      expect([sale.creator_type_id, Number(sale.amount_cents), sale.type_id, sale.response_code, sale.merchant_id])
        .toEqual([TransactionCreatorType.QuickPayment, 4950, 2, '000', s.merchantId(0)]);
    });

    it('a declining magic amount leaves the link Active, the declined sale kept, no event', async () => {
      const link = await createLink(s, 0, { amount: 90.05, description: 'Declines' });
      const res = await pay(0, link.id);
      expect(res.status, res.text).toBe(200);
      expect((res.body as Link).status).toBe('Active');
      expect(await eventsOf('quick_payment.paid', link.id)).toEqual([]);
      const declined = await s.db('transactions').where({ merchant_id: s.merchantId(0), creator_type_id: TransactionCreatorType.QuickPayment, response_code: '005' });
      expect(declined.length).toBeGreaterThanOrEqual(1);
    });

    it('two concurrent payers of one link: one charge, one Paid, one event; the other is refused and charges nothing', async () => {
      const link = await createLink(s, 0, { amount: 7.25, description: 'Race' });
      const answers = await Promise.all([pay(0, link.id), pay(0, link.id), pay(0, link.id)]);
      expect(answers.map((r) => r.status).sort()).toEqual([200, 400, 400]);
      for (const r of answers.filter((a) => a.status === 400)) expect((r.body as ErrorBody).errorCode).toBe('quick_payment_not_active');
      const sales = await s.db('transactions').where({ merchant_id: s.merchantId(0), creator_type_id: TransactionCreatorType.QuickPayment, amount_cents: 725 });
      expect(sales).toHaveLength(1);
      expect(await eventsOf('quick_payment.paid', link.id)).toHaveLength(1);
    });
  });

  describe('every operation from every status, as the spec table says', () => {
    const operations = [
      { trigger: 'cancelQuickPayment', send: cancel },
      { trigger: 'paySandboxQuickPayment', send: pay },
    ] as const;
    const cases = STATUSES.flatMap((from) => operations.map((op) => [from, op.trigger, op] as const));
    it.each(cases)('%s, %s', async (from, trigger, op) => {
      const link = await linkIn(0, from);
      expect(link.status).toBe(from);
      const row = quickPaymentStateMachine.transitions.find((r) => r.from === from && r.trigger === trigger);
      const before = await state(0);
      const paidBefore = (await eventsOf('quick_payment.paid', link.id)).length;
      const res = await op.send(0, link.id);
      if (row) {
        expect(res.status, res.text).toBe(200);
        expect((await read(0, link.id)).status).toBe(row.to);
        expect((await eventsOf('quick_payment.paid', link.id)).length - paidBefore).toBe(row.event === 'quick_payment.paid' ? 1 : 0);
      } else {
        expect(errorOf(res)).toEqual([400, quickPaymentStateMachine.refusal.errorCodes[trigger]]);
        expect(await state(0)).toBe(before);
      }
    });

    it('the table has no row out of a final status', () => {
      const finals: readonly string[] = ['Paid', 'Expired', 'Cancelled'];
      expect(quickPaymentStateMachine.transitions.filter((r) => finals.includes(String(r.from)))).toEqual([]);
    });
  });

  describe('expiry on the business clock', () => {
    it('the clock advance moves a due link to Expired and counts it; the link is refused payment and cancellation', async () => {
      const now = await businessNow(s, 1);
      const link = await createLink(s, 1, { amount: 5, description: 'Expires', expiresOn: new Date(now.getTime() + 30_000).toISOString() });
      expect((await advance(1, 10)).ran.quickPaymentsExpired).toBe(0);
      expect((await read(1, link.id)).status).toBe('Active');
      expect((await advance(1, 30)).ran.quickPaymentsExpired).toBe(1);
      expect((await s.db('quick_payments').where({ id: link.id }).first() as { status: string }).status).toBe('Expired');
      const before = await state(1);
      expect(errorOf(await pay(1, link.id))).toEqual([400, 'quick_payment_not_active']);
      expect(errorOf(await cancel(1, link.id))).toEqual([400, 'quick_payment_not_active']);
      expect(await state(1)).toBe(before);
    });

    it('the worker moves due links of every merchant at its own business time; a read past expiry answers (and moves) Expired', async () => {
      const now = await businessNow(s, 0);
      const byWorker = await createLink(s, 0, { amount: 5, description: 'Worker', expiresOn: new Date(now.getTime() + 2000).toISOString() });
      const byRead = await createLink(s, 0, { amount: 5, description: 'Read', expiresOn: new Date(now.getTime() + 2000).toISOString() });
      s.clock.advance(3);
      const stored = async (id: string): Promise<string> => (await s.db('quick_payments').where({ id }).first() as { status: string }).status;
      expect([await stored(byRead.id), (await read(0, byRead.id)).status, await stored(byRead.id)]).toEqual(['Active', 'Expired', 'Expired']);
      const ran = await runDue({ ...s, wall: s.clock }, s.clock.now());
      expect(ran.quickPaymentsExpired).toBeGreaterThanOrEqual(1);
      expect(await stored(byWorker.id)).toBe('Expired');
      // No event: the interface has none for an expiry.
      expect(await eventsOf('quick_payment.paid', byWorker.id)).toEqual([]);
    });
  });

  it('the sandbox reset removes the links (counted) along with the transactions that paid them', async () => {
    const link = await createLink(s, 1, { amount: 2, description: 'To reset' });
    expect((await pay(1, link.id)).status).toBe(200);
    const res = await request(s.app).post('/sandbox/v1/reset').set(await s.as(1));
    expect(res.status, res.text).toBe(200);
    expect((res.body as { removed: { quickPayments: number } }).removed.quickPayments).toBeGreaterThanOrEqual(1);
    expect(await s.db('quick_payments').where({ merchant_id: s.merchantId(1) })).toEqual([]);
  });
});

describe('payment links on a production server', () => {
  it('the sandbox payment control answers 404 route_not_found', async () => {
    const p = await startServer('sqlite', { environment: 'production' });
    try {
      const link = await createLink(p, 0, { amount: 1, description: 'x' });
      const res = await request(p.app).post(payPath(link.id)).set(await p.as(0));
      expect(errorOf(res)).toEqual([404, 'route_not_found']);
    } finally {
      await p.close();
    }
  });
});
