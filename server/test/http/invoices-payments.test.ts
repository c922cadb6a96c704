// Paying an invoice through the gateway, on both engines: by card (approved: Paid with the sale, history,
// invoice.paid; declined: unchanged with a PaymentFailed entry; the amount must be the card total; the card
// saved to a customer record created from the invoice) and by ACH (the authorization, the debit, and the
// invoice Due again with the return code when the bank returns it), the receipt and failure SMS, tenancy.
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { engines, fieldsOf, startServer, type ErrorBody, type TestServer } from '../harness.ts';
import { INVOICES, daysFrom, errorOf, eventsOf, invoiceBody, invoiceCalls } from './invoice-helpers.ts';
import { paymentCalls } from './payment-helpers.ts';

const card = (overrides: Record<string, unknown> = {}): Record<string, unknown> => ({
  totalAmount: 100, accountNumber: '4111111111111111', expirationYear: 2030, expirationMonth: 12, securityCode: '123', billingCountryId: 1, billingPostalCode: '78701', ...overrides,
});
const ach = (overrides: Record<string, unknown> = {}): Record<string, unknown> => ({
  routingNumber: '021000021', accountNumber: '1234567890', accountType: 1, accountHolderType: 2, firstName: 'Jane', lastName: 'Doe',
  authorizeBankWithdrawal: true, authorizationConsentTimestamp: '2025-07-03T09:11:58Z', ...overrides,
});

describe.each(engines())('invoice payments (%s)', (engine) => {
  let s: TestServer;
  let h: Record<string, string>;
  const calls = invoiceCalls(() => s);
  const pay = paymentCalls(() => s);
  beforeAll(async () => {
    s = await startServer(engine);
    h = await s.as(0);
  });
  afterAll(async () => { await s.close(); });

  const submit = (id: string, body: Record<string, unknown>, headers = h) => request(s.app).post(`${INVOICES}/${id}/submit`).set(headers).send(body);
  const submitAch = (id: string, body: Record<string, unknown>, headers = h) => request(s.app).post(`${INVOICES}/${id}/ach/submit`).set(headers).send(body);

  describe('by card', () => {
    it('pays a Due invoice: Paid with the sale (creator Invoice), a Paid entry and invoice.paid', async () => {
      const id = await calls.publish(h);
      const res = await submit(id, card());
      expect([res.status, res.body]).toEqual([200, { success: true, paymentMethodCreated: false, customerInfoSaved: false }]);
      const invoice = await calls.get(h, id);
      expect(invoice).toMatchObject({ status: 4, paymentMethodTypeId: 1, markedAsPaid: false, totalAmount: 100 });
      expect(invoice.transactionId).toEqual(expect.any(String));
      expect(invoice.history.map((e) => [e.typeName, e.paymentMethodTypeId])).toEqual([['Created', null], ['Published', null], ['Paid', 1]]);
      const sale = await pay.status(h, invoice.transactionId ?? '');
      expect(sale).toMatchObject({ typeId: 2, statusId: 3, creatorTypeId: 4, amount: 100, processedAmount: 100, panMask: '411111******1111' });
      expect(await eventsOf(s, 'invoice.paid', id)).toEqual([invoice]);
    });

    it('pays a PastDue invoice', async () => {
      const id = await calls.publish(h, invoiceBody({ dueDate: new Date(s.clock.now().getTime() + 1000).toISOString() }));
      s.clock.advance(3);
      expect((await calls.get(h, id)).status).toBe(3);
      expect((await submit(id, card())).body).toMatchObject({ success: true });
      expect((await calls.get(h, id)).status).toBe(4);
    });

    it('refuses another amount than the card total (400 invoice_amount_mismatch) and changes nothing', async () => {
      const id = await calls.publish(h);
      const before = await calls.get(h, id);
      const res = await submit(id, card({ totalAmount: 99.99 }));
      expect([...errorOf(res), fieldsOf(res.body)]).toEqual([400, 'invoice_amount_mismatch', ['totalAmount']]);
      expect(await calls.get(h, id)).toEqual(before);
      expect(await s.db('transactions').where({ invoice_id: id })).toEqual([]);
    });

    it.each([
      ['a card number failing Luhn', { accountNumber: '4111111111111112' }, ['accountNumber']],
      ['no card number', { accountNumber: null }, ['accountNumber']],
      ['a 3-digit code on American Express', { accountNumber: '378282246310005', securityCode: '123' }, ['securityCode']],
    ])('refuses %s (400) and changes nothing', async (_name, overrides, fields) => {
      const id = await calls.publish(h);
      const res = await submit(id, card(overrides));
      expect([res.status, fieldsOf(res.body)]).toEqual([400, fields]);
      expect((await calls.get(h, id)).status).toBe(2);
    });

    it('leaves a declined invoice unpaid with a PaymentFailed entry holding the code (200, success false)', async () => {
      const id = await calls.publish(h);
      const res = await submit(id, card({ accountNumber: '4000000000009995' }));
      expect([res.status, res.body]).toEqual([200, { success: false, paymentMethodCreated: false, customerInfoSaved: false }]);
      const invoice = await calls.get(h, id);
      expect(invoice).toMatchObject({ status: 2, paymentDate: null, transactionId: null });
      expect(invoice.history.map((e) => [e.typeName, e.errorCode])).toEqual([['Created', null], ['Published', null], ['PaymentFailed', '051']]);
      expect(await eventsOf(s, 'invoice.paid', id)).toEqual([]);
      // The declined sale is on record, and a second try with another card pays.
      expect((await submit(id, card())).body).toMatchObject({ success: true });
    });

    it('saves the card to a customer record created from the invoice customer, and links it to the invoice', async () => {
      const id = await calls.publish(h);
      const res = await submit(id, card({ savePaymentMethod: true }));
      expect(res.body).toEqual({ success: true, paymentMethodCreated: true, customerInfoSaved: true });
      const invoice = await calls.get(h, id) as unknown as { customerId: string | null };
      expect(invoice.customerId).toEqual(expect.any(String));
      const customer = await request(s.app).get(`/pay-api/v1/customers/${invoice.customerId ?? ''}`).set(h);
      expect(customer.body).toMatchObject({ firstName: 'Jane', lastName: 'Doe', email: 'jane.doe@example.com' });
      const methods = await request(s.app).get(`/pay-api/v1/customers/${invoice.customerId ?? ''}/payment-methods`).set(h);
      expect((methods.body as { items: { panMask?: string }[] }).items).toMatchObject([{ panMask: '411111******1111' }]);
    });

    it('refuses a Draft, a Paid and a Cancelled invoice (400 invoice_not_open)', async () => {
      const draft = await calls.create(h);
      expect(errorOf(await submit(draft, card()))).toEqual([400, 'invoice_not_open']);
      const paid = await calls.publish(h);
      await submit(paid, card());
      expect(errorOf(await submit(paid, card()))).toEqual([400, 'invoice_not_open']);
    });

    it("answers 404 for another merchant's invoice", async () => {
      const id = await calls.publish(h);
      expect(errorOf(await submit(id, card(), await s.as(1)))).toEqual([404, 'not_found']);
      expect(errorOf(await submitAch(id, ach(), await s.as(1)))).toEqual([404, 'not_found']);
      expect((await calls.get(h, id)).status).toBe(2);
    });
  });

  describe('by ACH', () => {
    it('needs the payer\'s authorization (400 ach_authorization_required), changing nothing', async () => {
      const id = await calls.publish(h);
      const res = await submitAch(id, ach({ authorizeBankWithdrawal: false }));
      expect([...errorOf(res), fieldsOf(res.body)]).toEqual([400, 'ach_authorization_required', ['authorizeBankWithdrawal']]);
      expect((await calls.get(h, id)).status).toBe(2);
    });

    it('pays with a WEB debit of the ACH total, keeping the consent time, and is Due again when the debit is returned', async () => {
      const id = await calls.publish(h, invoiceBody({ dueDate: daysFrom(s, 10) }));
      const res = await submitAch(id, ach());
      expect(res.body).toEqual({ success: true, paymentMethodCreated: false, customerInfoSaved: false });
      const paid = await calls.get(h, id);
      expect(paid).toMatchObject({ status: 4, paymentMethodTypeId: 2, markedAsPaid: false });
      const debit = await pay.status(h, paid.transactionId ?? '');
      expect(debit).toMatchObject({ typeId: 11, statusId: 21, creatorTypeId: 4, amount: 100, accountNumber: '********7890' });
      const row = (await s.db('transactions').where({ id: debit.transactionId }).first()) as { sec_code: number; authorization_consent_on: string };
      expect([row.sec_code, row.authorization_consent_on]).toEqual([3, '2025-07-03T09:11:58.000Z']);
      await pay.simulate(h, debit.transactionId, { outcome: 'return', returnCode: 'R01' });
      const reopened = await calls.get(h, id);
      expect(reopened).toMatchObject({ status: 2, paymentDate: null, transactionId: null, paymentMethodTypeId: null });
      expect(reopened.history.map((e) => [e.typeName, e.errorCode])).toEqual([['Created', null], ['Published', null], ['Paid', null], ['PaymentFailed', 'R01']]);
      // It can be paid again.
      expect((await submit(id, card())).body).toMatchObject({ success: true });
    });

    it('is PastDue again when the magic account is returned after the due date passed', async () => {
      const id = await calls.publish(h, invoiceBody({ dueDate: daysFrom(s, 1) }));
      expect((await submitAch(id, ach({ accountNumber: '990000000002' }))).body).toMatchObject({ success: true });
      await pay.advance(h, 4 * 86_400);
      const invoice = await calls.get(h, id);
      expect(invoice.status).toBe(3);
      expect(invoice.history.at(-1)).toMatchObject({ typeName: 'PaymentFailed', errorCode: 'R02' });
    });

    it('saves the bank account to the invoice\'s customer record', async () => {
      const id = await calls.publish(h);
      expect((await submitAch(id, ach({ savePaymentMethod: true }))).body).toEqual({ success: true, paymentMethodCreated: true, customerInfoSaved: true });
    });
  });

  it('sends the receipt and the failure SMS the settings ask for', async () => {
    const h1 = await s.as(1);
    await calls.settings(h1, 1, { isSmsNotificationAfterPaymentEnabled: true, isSmsNotificationAfterPaymentFailedEnabled: true });
    const id = await calls.publish(h1);
    await submit(id, card({ accountNumber: '4000000000000002' }), h1);
    await submit(id, card(), h1);
    const invoice = await calls.get(h1, id);
    expect(invoice.history.map((e) => [e.typeName, e.notificationTemplateTypeId ?? null])).toEqual([
      ['Created', null], ['Published', null], ['PaymentFailed', null], ['SmsNotificationSent', 3], ['Paid', null], ['SmsNotificationSent', 2],
    ]);
    const sent = (await s.db('notifications').where({ invoice_id: id }).orderBy('created_on')) as { template_type_id: number; target: string; body: string }[];
    expect(sent.map((n) => [n.template_type_id, n.target])).toEqual([[3, '+15555550123'], [2, '+15555550123']]);
    expect(sent[1]?.body).toContain('$100.00');
  });

  it('answers a declined payment without touching the invoice error body shape', async () => {
    const id = await calls.publish(h);
    const res = await submit(id, card({ accountNumber: '4000000000000119' }));
    expect(res.status).toBe(200);
    expect((res.body as ErrorBody).errorCode).toBeUndefined();
  });
});
