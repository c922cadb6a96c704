// Invoice transitions over HTTP: cancel and mark as paid, the lifecycle table driven by the spec's invoice
// state machine (each operation in each status: permitted and reaching the table's status, or refused with
// its errorCode and nothing changed), and tenancy, on both engines.
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { InvoiceStatus } from '@pgw/client/enums';
import { invoiceStateMachine } from '@pgw/client/state-machines';
import { engines, fieldsOf, startServer, type ErrorBody, type TestServer } from '../harness.ts';
import { INVOICES, daysFrom, invoiceBody, invoiceCalls, eventsOf, errorOf } from './invoice-helpers.ts';

describe.each(engines())('invoice transitions (%s)', (engine) => {
  let s: TestServer;
  beforeAll(async () => { s = await startServer(engine); });
  afterAll(async () => { await s.close(); });

  const as = (who: 0 | 1 | 'partner', acting?: 0 | 1): Promise<Record<string, string>> => s.as(who, acting);
  const calls = invoiceCalls(() => s);
  const events = (type: string, id: string): Promise<unknown[]> => eventsOf(s, type, id);

  describe('cancel and mark as paid', () => {
    it('cancels a Due invoice', async () => {
      const h = await as(0);
      const id = await calls.publish(h);
      const res = await request(s.app).put(`${INVOICES}/${id}/cancel`).set(h);
      expect([res.status, res.text]).toEqual([200, '']);
      const invoice = await calls.get(h, id);
      expect(invoice).toMatchObject({ status: 5, paymentDate: null, markedAsPaid: null });
      expect(invoice.history.map((e) => e.typeName)).toEqual(['Created', 'Published', 'Cancelled']);
    });

    it('marks a Due invoice as paid, with and without a body, and sends invoice.paid', async () => {
      const h = await as(0);
      const id = await calls.publish(h);
      const res = await request(s.app).put(`${INVOICES}/${id}/mark-as-paid`).set(h).send({ paymentMethodTypeId: 2 });
      expect([res.status, res.text]).toEqual([200, '']);
      const invoice = await calls.get(h, id);
      expect(invoice).toMatchObject({ status: 4, markedAsPaid: true, paymentMethodTypeId: 2, transactionId: null, totalAmount: 100, surchargeAmount: 0 });
      expect(Math.abs(Date.parse(invoice.paymentDate ?? '') - s.clock.now().getTime())).toBeLessThan(5000);
      expect(invoice.history.map((e) => [e.typeName, e.paymentMethodTypeId])).toEqual([['Created', null], ['Published', null], ['MarkedAsPaid', 2]]);
      expect(await events('invoice.paid', id)).toEqual([invoice]);

      const cash = await calls.publish(h);
      expect((await request(s.app).put(`${INVOICES}/${cash}/mark-as-paid`).set(h)).status).toBe(200);
      expect(await calls.get(h, cash)).toMatchObject({ status: 4, markedAsPaid: true, paymentMethodTypeId: null });
      const bad = await request(s.app).put(`${INVOICES}/${cash}/mark-as-paid`).set(h).send({ paymentMethodTypeId: 3 });
      expect(bad.status).toBe(400);
    });
  });

  describe('the lifecycle table (the spec\'s invoice state machine)', () => {
    type Status = 'Draft' | 'Due' | 'PastDue' | 'Paid' | 'Cancelled';
    const STATUSES: Status[] = ['Draft', 'Due', 'PastDue', 'Paid', 'Cancelled'];
    const NUMBERS: Record<Status, number> = InvoiceStatus;
    const card = { totalAmount: 100, accountNumber: '4111111111111111', expirationYear: 2030, expirationMonth: 12, billingCountryId: 1 };
    const ach = {
      routingNumber: '021000021', accountNumber: '1234567890', accountType: 1, accountHolderType: 2, firstName: 'Jane', lastName: 'Doe',
      authorizeBankWithdrawal: true, authorizationConsentTimestamp: '2025-07-03T09:11:58Z',
    };
    /** The HTTP call of each operation trigger of the table. */
    const CALLS: Record<string, (id: string, h: Record<string, string>) => request.Test> = {
      updateInvoice: (id, h) => request(s.app).put(`${INVOICES}/${id}`).set(h).send(invoiceBody()),
      publishInvoice: (id, h) => request(s.app).post(`${INVOICES}/publish`).set(h).send({ ...invoiceBody({ dueDate: daysFrom(s, 5) }), id }),
      deleteInvoice: (id, h) => request(s.app).delete(`${INVOICES}/${id}`).set(h),
      cancelInvoice: (id, h) => request(s.app).put(`${INVOICES}/${id}/cancel`).set(h),
      markInvoiceAsPaid: (id, h) => request(s.app).put(`${INVOICES}/${id}/mark-as-paid`).set(h).send({ paymentMethodTypeId: 1 }),
      submitInvoiceCardPayment: (id, h) => request(s.app).post(`${INVOICES}/${id}/submit`).set(h).send(card),
      submitInvoiceAchPayment: (id, h) => request(s.app).post(`${INVOICES}/${id}/ach/submit`).set(h).send(ach),
      sendInvoiceEmailNotification: (id, h) => request(s.app).post(`${INVOICES}/${id}/send-email-notification`).set(h).send({ phoneNumber: '+15555550100', customerConsent: true }),
      sendInvoiceSmsNotification: (id, h) => request(s.app).post(`${INVOICES}/${id}/send-published-sms-notification`).set(h).send({ customerConsent: true }),
      downloadInvoicePdf: (id, h) => request(s.app).get(`${INVOICES}/${id}/download-pdf`).set(h),
    };
    const refusals = invoiceStateMachine.refusal.errorCodes as Readonly<Record<string, string>>;
    // Every trigger of the table that acts on an existing invoice, with the statuses its rows permit.
    const ops = Object.keys(refusals).map((trigger) => {
      const rows = invoiceStateMachine.transitions.filter((r) => r.trigger === trigger && r.from !== null);
      const allowed = STATUSES.filter((status) => rows.some((r) => r.from === NUMBERS[status]));
      const to = (status: Status): number | 'removed' | undefined => rows.find((r) => r.from === NUMBERS[status])?.to;
      return [trigger, allowed, refusals[trigger] ?? '', to] as const;
    });

    it('has a call for every operation of the table', () => {
      expect(Object.keys(CALLS).sort()).toEqual(ops.map(([trigger]) => trigger).sort());
    });

    /** One invoice in each status; the PastDue one is due in a few seconds, and the clock moves past it. */
    async function invoices(h: Record<string, string>): Promise<Record<Status, string>> {
      const draft = await calls.create(h);
      const due = await calls.publish(h);
      const pastDue = await calls.publish(h, invoiceBody({ dueDate: new Date(s.clock.now().getTime() + 2000).toISOString() }));
      const paid = await calls.publish(h);
      await request(s.app).put(`${INVOICES}/${paid}/mark-as-paid`).set(h).expect(200);
      const cancelled = await calls.publish(h);
      await request(s.app).put(`${INVOICES}/${cancelled}/cancel`).set(h).expect(200);
      s.clock.advance(5);
      return { Draft: draft, Due: due, PastDue: pastDue, Paid: paid, Cancelled: cancelled };
    }

    it.each(ops)('%s: permitted in its statuses (reaching the status of the table), refused with its errorCode in the others, which it leaves unchanged', async (trigger, allowed, refusal, to) => {
      const h = await as(0);
      const ids = await invoices(h);
      const call = CALLS[trigger];
      if (!call) throw new Error(`no call for ${trigger}`);
      for (const status of STATUSES) {
        const id = ids[status];
        const before = await calls.get(h, id);
        expect(before.status, status).toBe(NUMBERS[status]);
        const res = await call(id, h);
        if (allowed.includes(status)) {
          expect(res.status, `${status}: ${res.text}`).toBe(200);
          const after = await request(s.app).get(`${INVOICES}/${id}`).set(h);
          if (to(status) === 'removed') expect(after.status).toBe(404);
          else expect((after.body as { status: number }).status, `${trigger} from ${status}`).toBe(to(status));
        } else {
          expect([res.status, (res.body as ErrorBody).errorCode, (res.body as ErrorBody).entityId], status).toEqual([400, refusal, id]);
          expect(await calls.get(h, id), status).toEqual(before);
        }
      }
    });

    it('a PastDue invoice is cancelled or paid like a Due one', async () => {
      const h = await as(0);
      const ids = await invoices(h);
      expect((await calls.get(h, ids.PastDue)).history.map((e) => e.typeName)).toEqual(['Created', 'Published', 'PastDue']);
      await request(s.app).put(`${INVOICES}/${ids.PastDue}/cancel`).set(h).expect(200);
      const cancelled = await calls.get(h, ids.PastDue);
      expect(cancelled.status).toBe(5);
      // The past-due entry stays in the history, at the due date, before the cancellation.
      expect(cancelled.history.map((e) => [e.typeName, e.typeId])).toEqual([['Created', 1], ['Published', 3], ['PastDue', 10], ['Cancelled', 6]]);
      expect(cancelled.history[2]?.createdOn).toBe(cancelled.dueDate);
    });
  });

  describe('tenancy', () => {
    it("answers 404 to another merchant on every operation that takes an id, and changes nothing", async () => {
      const owner = await as(0);
      const draft = await calls.create(owner);
      const published = await calls.publish(owner);
      const other = await as(1);
      const attempts: [string, request.Test][] = [
        ['get', request(s.app).get(`${INVOICES}/${draft}`).set(other)],
        ['update', request(s.app).put(`${INVOICES}/${draft}`).set(other).send(invoiceBody())],
        ['delete', request(s.app).delete(`${INVOICES}/${draft}`).set(other)],
        ['publish', request(s.app).post(`${INVOICES}/publish`).set(other).send({ ...invoiceBody(), id: draft })],
        ['calculations', request(s.app).get(`${INVOICES}/${draft}/calculations`).set(other)],
        ['cancel', request(s.app).put(`${INVOICES}/${published}/cancel`).set(other)],
        ['mark-as-paid', request(s.app).put(`${INVOICES}/${published}/mark-as-paid`).set(other)],
        ['email', request(s.app).post(`${INVOICES}/${published}/send-email-notification`).set(other).send({ phoneNumber: null, customerConsent: true })],
        ['sms', request(s.app).post(`${INVOICES}/${published}/send-published-sms-notification`).set(other).send({ customerConsent: true })],
        ['pdf', request(s.app).get(`${INVOICES}/${published}/download-pdf`).set(other)],
        // The partner acting on the other merchant.
        ['partner', request(s.app).get(`${INVOICES}/${draft}`).set(await as('partner', 1))],
      ];
      for (const [name, attempt] of attempts) expect(errorOf(await attempt), name).toEqual([404, 'not_found']);
      expect((await calls.get(owner, draft)).status).toBe(1);
      expect((await calls.get(owner, published)).history.map((e) => e.typeName)).toEqual(['Created', 'Published']);
    });

    it('lets a partner act with x-merchant-id, and answers 400 without it', async () => {
      const partner = await as('partner', 0);
      const id = await calls.create(partner);
      expect((await calls.get(await as(0), id)).merchantId).toBe(s.merchantId(0));
      expect((await calls.get(partner, id)).id).toBe(id);
      const bare = await as('partner');
      for (const res of [
        await request(s.app).get(`${INVOICES}/${id}`).set(bare),
        await request(s.app).get(INVOICES).set(bare),
        await request(s.app).post(INVOICES).set(bare).send(invoiceBody()),
      ]) {
        expect([res.status, fieldsOf(res.body)]).toEqual([400, ['x-merchant-id']]);
      }
    });
  });

});
