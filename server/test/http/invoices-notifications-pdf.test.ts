// Invoice notifications (consent, the reversed bodies, history, the notifier's outbox), the calculations
// operation under each zero cost processing option, the PDF, and the invoice's page and short address.
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { engines, fieldsOf, startServer, type ErrorBody, type TestServer } from '../harness.ts';
import { INVOICES, UNKNOWN, customer, invoiceBody, invoiceCalls, manualLine, pdfText, errorOf } from './invoice-helpers.ts';

interface NotificationRow {
  id: string; merchant_id: string; invoice_id: string; channel_id: number; template_type_id: number; target: string;
  subject: string | null; body: string; created_on: string;
}

describe.each(engines())('invoice notifications, calculations, PDF and page (%s)', (engine) => {
  let s: TestServer;
  beforeAll(async () => { s = await startServer(engine); });
  afterAll(async () => { await s.close(); });

  const as = (who: 0 | 1 | 'partner', acting?: 0 | 1): Promise<Record<string, string>> => s.as(who, acting);
  const calls = invoiceCalls(() => s);
  const notificationsOf = async (invoiceId: string): Promise<NotificationRow[]> =>
    (await s.db('notifications').where({ invoice_id: invoiceId }).orderBy('created_on')) as NotificationRow[];
  const toPhone = (id: string, h: Record<string, string>, body: object) => request(s.app).post(`${INVOICES}/${id}/send-email-notification`).set(h).send(body);
  const toEmail = (id: string, h: Record<string, string>, body: object) => request(s.app).post(`${INVOICES}/${id}/send-published-sms-notification`).set(h).send(body);

  describe('notifications', () => {
    it('send-email-notification sends a text message to the phone number of its body, and records it', async () => {
      const h = await as(0);
      const id = await calls.publish(h);
      const invoice = await calls.get(h, id);
      const res = await toPhone(id, h, { phoneNumber: '+15125550199', customerConsent: true });
      expect([res.status, res.text]).toEqual([200, '']);
      const [row, ...more] = await notificationsOf(id);
      expect(more).toEqual([]);
      expect(row).toMatchObject({ merchant_id: s.merchantId(0), channel_id: 2, template_type_id: 1, target: '+15125550199', subject: null });
      expect(row?.body).toContain(invoice.shortUrl);
      expect(row?.body).toContain(invoice.number ?? 'no number');
      expect(row?.body).toContain('$100.00');
      const history = (await calls.get(h, id)).history;
      expect(history.map((e) => e.typeName)).toEqual(['Created', 'Published', 'SmsNotificationSent']);
      expect(history[2]).toMatchObject({
        typeId: 5, notificationId: row?.id, notificationType: 'Sms', notificationTypeId: 2, notificationTemplateType: 'InvoicePublished',
        notificationTemplateTypeId: 1, notificationTarget: '+15125550199', errorCode: null, transactionId: null, createdOn: row?.created_on,
      });
      // null: the invoice customer's mobile number.
      expect((await toPhone(id, h, { phoneNumber: null, customerConsent: true })).status).toBe(200);
      expect((await notificationsOf(id)).map((n) => n.target)).toEqual(['+15125550199', '+15555550123']);
    });

    it('send-published-sms-notification sends an e-mail to the address of its body, and records it', async () => {
      const h = await as(0);
      const id = await calls.publish(h, invoiceBody({ additionalNotes: 'Thank you for your business.' }));
      const invoice = await calls.get(h, id);
      const res = await toEmail(id, h, { receiverEmail: 'accounts@doe.example', customerConsent: true });
      expect([res.status, res.text]).toEqual([200, '']);
      const [row] = await notificationsOf(id);
      expect(row).toMatchObject({ channel_id: 1, template_type_id: 1, target: 'accounts@doe.example', subject: `Invoice ${invoice.number ?? ''} from Acme Outdoor Supply` });
      expect(row?.body).toContain(invoice.fullUrl);
      expect(row?.body).toContain('Thank you for your business.');
      const entry = (await calls.get(h, id)).history[2];
      expect(entry).toMatchObject({ typeId: 4, typeName: 'EmailNotificationSent', notificationType: 'Email', notificationTypeId: 1, notificationTarget: 'accounts@doe.example', notificationId: row?.id });
      // Left out or null: the invoice customer's e-mail.
      expect((await toEmail(id, h, { customerConsent: true })).status).toBe(200);
      expect((await toEmail(id, h, { receiverEmail: null, customerConsent: true })).status).toBe(200);
      expect((await notificationsOf(id)).map((n) => n.target)).toEqual(['accounts@doe.example', 'jane.doe@example.com', 'jane.doe@example.com']);
    });

    it('records concurrent notifications of one invoice, each once, in order', async () => {
      const h = await s.as(0);
      const id = await calls.publish(h);
      const results = await Promise.all(Array.from({ length: 6 }, () =>
        request(s.app).post(`${INVOICES}/${id}/send-email-notification`).set(h).send({ phoneNumber: '+15555550123', customerConsent: true })));
      expect(results.map((r) => r.status)).toEqual([200, 200, 200, 200, 200, 200]);
      const invoice = (await request(s.app).get(`${INVOICES}/${id}`).set(h)).body as { history: { notificationTarget: string | null }[] };
      expect(invoice.history.filter((e) => e.notificationTarget === '+15555550123')).toHaveLength(6);
    });

    it('needs consent, a target, a valid body and an open invoice; a refusal records nothing', async () => {
      const h = await as(0);
      const id = await calls.publish(h, invoiceBody({ customer: customer({ email: null, mobilePhoneNumber: null, isMobileNumberSmsNotificationsEnabled: false }) }));
      const consent = await toPhone(id, h, { phoneNumber: '+15125550199', customerConsent: false });
      expect([...errorOf(consent), fieldsOf(consent.body)]).toEqual([400, 'consent_required', ['customerConsent']]);
      expect(errorOf(await toEmail(id, h, { receiverEmail: 'a@b.example', customerConsent: false }))).toEqual([400, 'consent_required']);
      const noPhone = await toPhone(id, h, { phoneNumber: null, customerConsent: true });
      expect([...errorOf(noPhone), fieldsOf(noPhone.body)]).toEqual([400, 'notification_target_missing', ['phoneNumber']]);
      expect(errorOf(await toPhone(id, h, { phoneNumber: 'null', customerConsent: true }))).toEqual([400, 'notification_target_missing']);
      const noEmail = await toEmail(id, h, { customerConsent: true });
      expect([...errorOf(noEmail), fieldsOf(noEmail.body)]).toEqual([400, 'notification_target_missing', ['receiverEmail']]);
      // The router's checks: the phone pattern, the e-mail format, the required consent.
      expect(fieldsOf((await toPhone(id, h, { phoneNumber: '555-0199', customerConsent: true })).body)).toEqual(['phoneNumber']);
      expect(fieldsOf((await toEmail(id, h, { receiverEmail: 'not an address', customerConsent: true })).body)).toEqual(['receiverEmail']);
      expect(fieldsOf((await toEmail(id, h, { receiverEmail: 'a@b.example' })).body)).toEqual(['customerConsent']);
      expect(fieldsOf((await toPhone(id, h, { customerConsent: true })).body)).toEqual(['phoneNumber']);
      const typed = await toPhone(id, h, { phoneNumber: null, customerConsent: 'yes' });
      expect([typed.status, Object.keys((typed.body as { errors: Record<string, string> }).errors)]).toEqual([400, ['$.customerConsent']]);
      const draft = await calls.create(h);
      expect(errorOf(await toPhone(draft, h, { phoneNumber: '+15125550199', customerConsent: true }))).toEqual([400, 'invoice_not_open']);
      expect(errorOf(await toEmail(UNKNOWN, h, { customerConsent: true }))).toEqual([404, 'not_found']);
      expect(await notificationsOf(id)).toEqual([]);
      expect(await notificationsOf(draft)).toEqual([]);
      expect((await calls.get(h, id)).history.map((e) => e.typeName)).toEqual(['Created', 'Published']);
    });
  });

  describe('calculations', () => {
    const setOption = async (merchant: 0 | 1, option: number, rates: { surcharge?: number; cash?: number; dual?: number } = {}): Promise<void> => {
      await s.db('merchants').where({ id: s.merchantId(merchant) }).update({
        zero_cost_processing_option_id: option, default_surcharge_rate: rates.surcharge ?? null,
        default_cash_discount_rate: rates.cash ?? null, default_dual_pricing_rate: rates.dual ?? null,
      });
    };
    const example = () => invoiceBody({ taxPercentage: 8.25, discountPercentage: 5, lineItems: [
      manualLine({ unitPrice: 85, quantity: 10 }), manualLine({ unitPrice: 240, quantity: 1, discountPercentage: 10 }),
    ] });

    it('gives the credit card figures: the spec example under a 3% surcharge (1129.14)', async () => {
      const h = await as(1);
      await setOption(1, 1, { surcharge: 3 });
      try {
        const id = await calls.create(h, example());
        const res = await request(s.app).get(`${INVOICES}/${id}/calculations`).set(h);
        expect([res.status, res.body]).toEqual([200, {
          id, subTotalAmount: 1066, shippingAmount: 0, taxPercentage: 8.25, taxAmount: 83.55, feesPercentage: 0, feesAmount: 0,
          discountPercentage: 5, discountAmount: 53.3, surchargeAmount: 32.89, surchargePercentage: 3, totalAmount: 1129.14,
        }]);
        const invoice = await calls.get(h, id);
        // Unpaid: the record's total is the base amount; the calculations give each payment type's.
        expect([invoice.totalAmount, invoice.surchargeAmount, invoice.zeroCostProcessingOptionId]).toEqual([1096.25, 0, null]);
        expect([invoice.invoiceCalculations.debitCard.totalAmount, invoice.invoiceCalculations.creditCard.totalAmount, invoice.invoiceCalculations.ach.totalAmount])
          .toEqual([1096.25, 1129.14, 1096.25]);
        // Publication freezes the option and its rate: a later change of the merchant's rate does not apply.
        await calls.publish(h, { ...example(), id });
        await setOption(1, 1, { surcharge: 4 });
        const frozen = (await request(s.app).get(`${INVOICES}/${id}/calculations`).set(h)).body as { surchargePercentage: number; totalAmount: number };
        expect([frozen.surchargePercentage, frozen.totalAmount]).toEqual([3, 1129.14]);
        expect(await calls.get(h, id)).toMatchObject({ zeroCostProcessingOptionId: 1, zeroCostProcessingOption: 'Surcharge', useCardPrice: null });
        // A draft follows the merchant's current rate.
        const draft = (await request(s.app).get(`${INVOICES}/${await calls.create(h, example())}/calculations`).set(h)).body as { surchargeAmount: number };
        expect(draft.surchargeAmount).toBe(43.85);
      } finally {
        await setOption(1, 0);
      }
    });

    it('has no surcharge percentage without a surcharge or dual pricing option', async () => {
      const h = await as(1);
      await setOption(1, 2, { cash: 4 });
      try {
        const id = await calls.publish(h, example());
        const res = (await request(s.app).get(`${INVOICES}/${id}/calculations`).set(h)).body as { surchargePercentage: number | null; totalAmount: number };
        expect([res.surchargePercentage, res.totalAmount]).toEqual([null, 1096.25]);
        // The cash discount is the ACH price's: 1096.25 less 4% (43.85).
        const invoice = await calls.get(h, id);
        expect(invoice.invoiceCalculations.ach).toMatchObject({ cashDiscountPercentage: 4, cashDiscountAmount: 43.85, totalAmount: 1052.4 });
        expect(invoice.zeroCostProcessingOption).toBe('CashDiscount');
        await setOption(1, 3, { dual: 3.5 });
        const dual = await calls.publish(h, example());
        const dualRes = (await request(s.app).get(`${INVOICES}/${dual}/calculations`).set(h)).body as { surchargePercentage: number | null };
        expect(dualRes.surchargePercentage).toBe(3.5);
        expect(errorOf(await request(s.app).get(`${INVOICES}/${UNKNOWN}/calculations`).set(h))).toEqual([404, 'not_found']);
      } finally {
        await setOption(1, 0);
      }
    });
  });

  describe('PDF', () => {
    it('is the base64 of a PDF with the merchant, customer, lines and total, for published invoices only', async () => {
      const h = await as(0);
      const body = invoiceBody({ taxPercentage: 8.25, discountPercentage: 5, lineItems: [
        manualLine({ productName: 'Website maintenance', unitPrice: 85, quantity: 10 }),
        manualLine({ productName: 'Hosting plan (annual)', unitPrice: 240, quantity: 1, discountPercentage: 10 }),
      ] });
      const draft = await calls.create(h, body);
      const refused = await request(s.app).get(`${INVOICES}/${draft}/download-pdf`).set(h);
      expect([...errorOf(refused), (refused.body as ErrorBody).entityId]).toEqual([400, 'invoice_not_published', draft]);
      const id = await calls.publish(h, body);
      const invoice = await calls.get(h, id);
      const res = await request(s.app).get(`${INVOICES}/${id}/download-pdf`).set(h);
      expect(res.status).toBe(200);
      expect(res.headers['content-type']).toMatch(/^application\/json/);
      expect(typeof res.body).toBe('string');
      const pdf = Buffer.from(res.body as string, 'base64');
      expect(pdf.subarray(0, 5).toString('latin1')).toBe('%PDF-');
      expect(pdf.subarray(-6).toString('latin1')).toContain('%%EOF');
      const text = pdfText(pdf);
      expect(text).toContain(`Invoice ${invoice.number ?? 'none'}`);
      expect(text).toContain('$1,096.25');
      expect(text).toContain('Acme Outdoor Supply');
      expect(text).toContain('Jane Doe');
      expect(text).toContain('Website maintenance');
      expect(text).toContain('Hosting plan (annual)');
      expect(text).toContain('$850.00');
      expect(text).toContain('$216.00');
      expect(text).toContain('Subtotal');
      expect(text).toContain('$1,066.00');
      expect(text).toContain('-$53.30');
      expect(text).toContain('$83.55');
      // Paid and cancelled invoices were published: their PDF exists.
      await request(s.app).put(`${INVOICES}/${id}/mark-as-paid`).set(h).expect(200);
      const paid = pdfText(Buffer.from((await request(s.app).get(`${INVOICES}/${id}/download-pdf`).set(h).expect(200)).body as string, 'base64'));
      expect(paid).toContain('Status: Paid');
      expect(errorOf(await request(s.app).get(`${INVOICES}/${UNKNOWN}/download-pdf`).set(h))).toEqual([404, 'not_found']);
    });

    it('is the same document while the invoice is the same, and a new one as soon as anything shown changes', async () => {
      const h = await as(0);
      const pdfOf = async (id: string): Promise<string> => (await request(s.app).get(`${INVOICES}/${id}/download-pdf`).set(h).expect(200)).body as string;
      const id = await calls.publish(h, invoiceBody());
      const first = await pdfOf(id);
      s.clock.advance(60);
      expect(await pdfOf(id)).toBe(first);
      // Another invoice of the same content but its own number and id is its own document.
      const other = await calls.publish(h, invoiceBody());
      expect(pdfText(Buffer.from(await pdfOf(other), 'base64'))).toContain(`Invoice ${(await calls.get(h, other)).number ?? 'none'}`);
      // The status shown changes: a new document with it.
      await request(s.app).put(`${INVOICES}/${id}/mark-as-paid`).set(h).expect(200);
      const paid = await pdfOf(id);
      expect(paid).not.toBe(first);
      expect(pdfText(Buffer.from(paid, 'base64'))).toContain('Status: Paid');
      // Another merchant with the same invoice content gets its own name on it.
      const h1 = await as(1);
      const theirs = await calls.publish(h1, invoiceBody());
      const text = pdfText(Buffer.from((await request(s.app).get(`${INVOICES}/${theirs}/download-pdf`).set(h1).expect(200)).body as string, 'base64'));
      expect(text).not.toContain('Acme Outdoor Supply');
    });
  });

  describe('page and short address', () => {
    it('serves a read-only page of a published invoice; its short address redirects to it', async () => {
      const h = await as(0);
      const id = await calls.publish(h, invoiceBody({ customer: customer({ lastName: 'Doe <script>alert(1)</script>' }), additionalNotes: 'Pay by the 30th & thanks' }));
      const invoice = await calls.get(h, id);
      const pagePath = new URL(invoice.fullUrl).pathname;
      expect(pagePath).toBe(`/pay/invoices/${id}`);
      const page = await request(s.app).get(pagePath);
      expect(page.status).toBe(200);
      expect(page.headers['content-type']).toMatch(/^text\/html/);
      expect(page.text).toContain(`Invoice ${invoice.number ?? 'none'}`);
      expect(page.text).toContain('Acme Outdoor Supply');
      expect(page.text).toContain('<td class="n" id="total">$100.00</td>');
      expect(page.text).toContain('<strong id="status">Due</strong>');
      expect(page.text).toContain('Doe &lt;script&gt;alert(1)&lt;/script&gt;');
      expect(page.text).not.toContain('<script>');
      expect(page.text).toContain('Pay by the 30th &amp; thanks');
      const short = await request(s.app).get(new URL(invoice.shortUrl).pathname);
      expect([short.status, short.headers.location]).toEqual([302, invoice.fullUrl]);
    });

    it("answers 404 for a draft's page, an unknown invoice and an unknown code", async () => {
      const h = await as(0);
      const draft = await calls.get(h, await calls.create(h));
      for (const path of [new URL(draft.fullUrl).pathname, new URL(draft.shortUrl).pathname, `/pay/invoices/${UNKNOWN}`, '/pay/invoices/not-an-id', '/i/ABCDEFGH', '/i/x']) {
        const res = await request(s.app).get(path);
        expect([res.status, res.text.includes('Invoice not found')], path).toEqual([404, true]);
      }
    });
  });
});
