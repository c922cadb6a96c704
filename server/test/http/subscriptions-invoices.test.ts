// An invoice per period over HTTP on both engines (invoicePerPeriod, true by default): each scheduled payment is
// published as an invoice when it falls due (invoice.created) and pays it (invoice.paid, its transactionId);
// seen in the invoice list, its PDF and its hosted page; a declined attempt leaves it open with PaymentFailed and
// the retry pays the same invoice; a payment the credit covers marks it paid; invoicePerPeriod false makes none.
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { engines, startServer, type TestServer } from '../harness.ts';
import { DECLINING_CARD, monthsAfter, subscriptionCalls, subscriptionPayments } from './subscription-helpers.ts';

const INVOICES = '/pay-int-api/invoices';
interface Invoice { id: string; status: number; totalAmount: number; transactionId: string | null; customerId: string | null; markedAsPaid: boolean; fullUrl: string; number: string; dueDate: string; history: { typeName: string; transactionId?: string | null }[] }

describe.each(engines())('subscription invoices per period (%s)', (engine) => {
  let s: TestServer;
  beforeAll(async () => { s = await startServer(engine); });
  afterAll(async () => { await s.close(); });
  const sub = subscriptionCalls(() => s);
  const invoice = async (id: string | null): Promise<Invoice> => {
    const res = await request(s.app).get(`${INVOICES}/${id ?? ''}`).set(await s.as(0));
    expect(res.status, res.text).toBe(200);
    return res.body as Invoice;
  };
  /** The invoice events of one invoice, in order. */
  const invoiceEvents = async (id: string): Promise<string[]> => (await s.db('outbox_events').where('type', 'like', 'invoice.%').where('payload', 'like', `%${id}%`)
    .orderBy([{ column: 'occurred_on' }, { column: 'id' }]).select<{ type: string }[]>('type')).map((r) => r.type).sort((a, b) => (a === 'invoice.created' ? -1 : b === 'invoice.created' ? 1 : 0));
  // PostgreSQL answers an integer column as a number, SQLite too; the status is compared as a number either way.
  const invoicesOf = async (customerId: string): Promise<{ id: string; status: number | string }[]> =>
    s.db('invoices').where({ customer_id: customerId }).orderBy('issue_date').select<{ id: string; status: number | string }[]>('id', { status: 'status_id' });

  it('each period: an invoice published and paid by its payment, listed, with its PDF and hosted page', async () => {
    const customerId = await sub.customer();
    const card = await sub.card(customerId);
    const made = await sub.created({ customerId, paymentMethodId: card, amount: 42.5, frequency: 'Monthly', description: 'Gold plan' });
    expect(made).toMatchObject({ invoicePerPeriod: true, latestInvoiceId: null });
    await sub.advance(1);
    const first = await sub.read(made.subscriptionId);
    const paid = await invoice(first.latestInvoiceId);
    expect(paid).toMatchObject({ status: 4, totalAmount: 42.5, transactionId: first.transactionId, customerId, markedAsPaid: false, dueDate: made.startDate });
    expect(await invoiceEvents(paid.id)).toEqual(['invoice.created', 'invoice.paid']);
    // Listed, PDF, hosted page.
    const h = await s.as(0);
    const listed = await request(s.app).get(INVOICES).query({ pageSize: 100 }).set(h);
    expect((listed.body as { items: { id: string }[] }).items.map((i) => i.id)).toContain(paid.id);
    const pdf = await request(s.app).get(`${INVOICES}/${paid.id}/download-pdf`).set(h);
    expect(pdf.status, pdf.text).toBe(200);
    expect(Buffer.from(pdf.body as string, 'base64').subarray(0, 5).toString()).toBe('%PDF-');
    const page = await request(s.app).get(new URL(paid.fullUrl).pathname);
    expect(page.status).toBe(200);
    expect(page.text).toContain(paid.number);
    // The next period: another invoice, paid by the renewal.
    await sub.advanceTo(monthsAfter(made.startDate, 1));
    const second = await sub.read(made.subscriptionId);
    expect(second.latestInvoiceId).not.toBe(paid.id);
    expect(await invoice(second.latestInvoiceId)).toMatchObject({ status: 4, totalAmount: 42.5, transactionId: second.transactionId, dueDate: monthsAfter(made.startDate, 1) });
    expect((await invoicesOf(customerId)).map((i) => Number(i.status))).toEqual([4, 4]);
  });

  it('a declined payment leaves its invoice open with PaymentFailed; the retry pays the same invoice', async () => {
    const customerId = await sub.customer();
    const declining = await sub.card(customerId, DECLINING_CARD);
    const made = await sub.created({ customerId, paymentMethodId: declining, amount: 10, frequency: 'Monthly' });
    await sub.advance(1);
    const failed = await sub.read(made.subscriptionId);
    const open = await invoice(failed.latestInvoiceId);
    expect(open.status).not.toBe(4);
    expect(open.history.filter((e) => e.typeName === 'PaymentFailed').map((e) => e.transactionId)).toEqual([failed.transactionId]);
    expect(await invoiceEvents(open.id)).toEqual(['invoice.created']);
    const good = await sub.card(customerId);
    expect((await sub.update(made.subscriptionId, { paymentMethodId: good })).status).toBe(200);
    await sub.advanceTo(failed.nextPaymentDate ?? '');
    const recovered = await sub.read(made.subscriptionId);
    expect(recovered).toMatchObject({ status: 'Active', latestInvoiceId: open.id });
    expect(await invoice(open.id)).toMatchObject({ status: 4, transactionId: recovered.transactionId });
    expect(await invoiceEvents(open.id)).toEqual(['invoice.created', 'invoice.paid']);
    expect(await invoicesOf(customerId)).toHaveLength(1);
  });

  it('an open period invoice paid on its own (the invoice API) pays the period: the retry charges nothing', async () => {
    const customerId = await sub.customer();
    const declining = await sub.card(customerId, DECLINING_CARD);
    const made = await sub.created({ customerId, paymentMethodId: declining, amount: 25, frequency: 'Monthly' });
    await sub.advance(1);
    const failed = await sub.read(made.subscriptionId);
    const paid = await request(s.app).post(`${INVOICES}/${failed.latestInvoiceId ?? ''}/submit`).set(await s.as(0))
      .send({ totalAmount: 25, accountNumber: '4111111111111111', expirationYear: 2030, expirationMonth: 12, securityCode: '123', billingCountryId: 1, billingPostalCode: '78701' });
    expect(paid.body).toMatchObject({ success: true });
    const before = (await subscriptionPayments(s, customerId)).length;
    await sub.advanceTo(failed.nextPaymentDate ?? '');
    expect(await sub.read(made.subscriptionId)).toMatchObject({ status: 'Active', paymentsCount: 1, failedPaymentCount: 0, latestInvoiceId: failed.latestInvoiceId, nextPaymentDate: monthsAfter(made.startDate, 1) });
    // No second charge, no second invoice for the period.
    expect(await subscriptionPayments(s, customerId)).toHaveLength(before);
    expect(await invoicesOf(customerId)).toHaveLength(1);
  });

  it('a payment the credit covers whole marks its invoice paid without a transaction', async () => {
    const customerId = await sub.customer();
    const card = await sub.card(customerId);
    const made = await sub.created({ customerId, paymentMethodId: card, amount: 500, frequency: 'Monthly' });
    await sub.advance(1);
    expect((await sub.update(made.subscriptionId, { amount: 1, proration: 'ProrateNow' })).status).toBe(200);
    await sub.advanceTo(monthsAfter(made.startDate, 1));
    const covered = await sub.read(made.subscriptionId);
    expect(await invoice(covered.latestInvoiceId)).toMatchObject({ status: 4, markedAsPaid: true, transactionId: null, totalAmount: 1 });
    expect(await subscriptionPayments(s, customerId)).toHaveLength(1);
  });

  it('invoicePerPeriod false: bare payments, no invoice', async () => {
    const customerId = await sub.customer();
    const card = await sub.card(customerId);
    const made = await sub.created({ customerId, paymentMethodId: card, amount: 7, frequency: 'Weekly', invoicePerPeriod: false });
    await sub.advance(8 * 86_400);
    expect(await sub.read(made.subscriptionId)).toMatchObject({ invoicePerPeriod: false, latestInvoiceId: null, paymentsCount: 2 });
    expect(await invoicesOf(customerId)).toEqual([]);
    expect((await sub.create({ customerId, paymentMethodId: card, amount: 7, frequency: 'Weekly', invoicePerPeriod: 'yes' })).status).toBe(400);
  });
});
