// Invoices over HTTP: create (defaults from the settings, catalogue and manual lines, validation), read,
// update, delete and publish, their history and events, on both engines (transitions: invoices-transitions).
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { engines, fieldsOf, startServer, type ErrorBody, type TestServer } from '../harness.ts';
import { INVOICES, UNKNOWN, customer, daysFrom, invoiceBody, invoiceCalls, manualLine, eventsOf, errorOf } from './invoice-helpers.ts';

const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

describe.each(engines())('invoices lifecycle (%s)', (engine) => {
  let s: TestServer;
  beforeAll(async () => { s = await startServer(engine); });
  afterAll(async () => { await s.close(); });

  const as = (who: 0 | 1 | 'partner', acting?: 0 | 1): Promise<Record<string, string>> => s.as(who, acting);
  const calls = invoiceCalls(() => s);
  const events = (type: string, id: string): Promise<unknown[]> => eventsOf(s, type, id);

  describe('create and read', () => {
    it('creates a draft, with the settings defaults, and sends invoice.created with the record', async () => {
      const h = await as(0);
      const before = s.clock.now().toISOString();
      const id = await calls.create(h, {
        customer: customer(),
        lineItems: [manualLine({ description: 'Two hours', sku: 'CONS-1' })],
      });
      const invoice = await calls.get(h, id);
      const merchant = s.secrets.merchants[0];
      const contacts = await request(s.app).get('/pay-api/v1/configurations/contact-infos').set(h);
      const contact = (contacts.body as { contactInfos: { id: string; email: string; city: string }[] }).contactInfos[0];
      expect(invoice).toMatchObject({
        id, number: null, status: 1, issueDate: null, dueDate: null, paymentDate: null,
        cardPaymentProcessorId: merchant?.cardProcessorId, achPaymentProcessorId: merchant?.achProcessorId,
        // The initial settings: no tax, discount, fees or shipping, empty notes.
        additionalNotes: '', subTotalAmount: 100, shippingAmount: 0, totalAmount: 100, taxPercentage: 0, feesPercentage: 0, discountPercentage: 0,
        surchargeAmount: 0, surchargePercentage: 0, cashDiscountAmount: 0, cashDiscountPercentage: 0, paymentMethodTypeId: null,
        merchantId: s.merchantId(0), merchantContactInfoId: contact?.id,
        merchantContactInfo: { email: contact?.email, city: contact?.city },
        customerId: null,
        customer: {
          firstName: 'Jane', lastName: 'Doe', companyName: 'Doe Design LLC', email: 'jane.doe@example.com', mobilePhoneNumber: '+15555550123',
          isMobileNumberSmsNotificationsEnabled: true, useBillingAsShippingAddress: true,
          billingAddress: { line1: '100 Congress Ave', line2: 'Suite 200', city: 'Austin', zip: '78701', countryId: 1, stateId: 44, stateName: 'Texas' },
          // A copy of the billing address.
          shippingAddress: { line1: '100 Congress Ave', line2: 'Suite 200', city: 'Austin', zip: '78701', countryId: 1, stateId: 44, stateName: 'Texas' },
        },
        lineItems: [{
          lineItemId: null, unitTypeId: 1, productName: 'Consulting', description: 'Two hours', sku: 'CONS-1', unitPrice: 50, quantity: 2,
          discountPercentage: 0, totalAmount: 100,
        }],
        isCustomerUpdated: false, isLineItemsUpdated: true,
        fullUrl: `${s.config.baseUrl}/pay/invoices/${id}`,
        markedAsPaid: null, transactionId: null, achAllowFasterProcessing: null,
        zeroCostProcessingOptionId: null, zeroCostProcessingOption: null, useCardPrice: null,
      });
      expect(invoice.shortUrl).toMatch(new RegExp(`^${s.config.baseUrl}/i/[A-Za-z0-9]{8}$`));
      expect(invoice.history.map((e) => [e.typeId, e.typeName, e.invoiceId])).toEqual([[1, 'Created', id]]);
      expect((invoice.history[0]?.createdOn ?? '') >= before).toBe(true);
      expect(invoice.invoiceCalculations.creditCard).toEqual({
        subTotalAmount: 100, totalAmount: 100, shippingAmount: 0, taxAmount: 0, taxPercentage: 0, feesAmount: 0, feesPercentage: 0,
        discountAmount: 0, discountPercentage: 0, surchargeAmount: 0, surchargePercentage: 0, cashDiscountAmount: 0, cashDiscountPercentage: 0,
      });
      expect(await events('invoice.created', id)).toEqual([invoice]);
    });

    it('copies catalogue lines and computes the spec example (1066 less 5%, 8.25% tax: 1096.25)', async () => {
      const h = await as(0);
      const maintenance = await calls.createItem(h, { productName: 'Website maintenance', description: 'Monthly updates', sku: 'SVC-WM-01', unitPrice: 85, unitTypeId: 2 });
      const hosting = await calls.createItem(h, { productName: 'Hosting plan (annual)', sku: 'HST-ANN', unitPrice: 240 });
      const id = await calls.create(h, invoiceBody({
        taxPercentage: 8.25, discountPercentage: 5, shippingAmount: null,
        lineItems: [{ lineItemId: maintenance, quantity: 10 }, { lineItemId: hosting.toUpperCase(), quantity: 1, discountPercentage: 10 }],
      }));
      const invoice = await calls.get(h, id);
      expect(invoice.lineItems).toEqual([
        { id: expect.any(String) as string, lineItemId: maintenance, unitTypeId: 2, productName: 'Website maintenance', description: 'Monthly updates',
          sku: 'SVC-WM-01', unitPrice: 85, quantity: 10, discountPercentage: 0, totalAmount: 850 },
        { id: expect.any(String) as string, lineItemId: hosting, unitTypeId: 1, productName: 'Hosting plan (annual)', description: null,
          sku: 'HST-ANN', unitPrice: 240, quantity: 1, discountPercentage: 10, totalAmount: 216 },
      ]);
      expect(invoice).toMatchObject({ subTotalAmount: 1066, shippingAmount: 0, totalAmount: 1096.25, isLineItemsUpdated: false });
      expect(invoice.invoiceCalculations.ach).toMatchObject({ discountAmount: 53.3, taxAmount: 83.55, totalAmount: 1096.25 });
      const stored = (await s.db('invoices').where({ id }).first()) as { total_cents: number | string; sub_total_cents: number | string };
      expect([Number(stored.sub_total_cents), Number(stored.total_cents)]).toEqual([106600, 109625]);
    });

    it('links a customer of the merchant and tells when the invoice copy differs from it', async () => {
      const h = await as(0);
      const created = await request(s.app).post('/pay-api/v1/customers').set(h).send({
        firstName: 'Jane', lastName: 'Doe', companyName: 'Doe Design LLC', email: 'jane.doe@example.com', mobilePhoneNumber: '+15555550123',
        isMobileNumberSmsNotificationsEnabled: true, useBillingAsShippingAddress: true,
        billingAddress: { addressLine1: '100 Congress Ave', addressLine2: 'Suite 200', city: 'Austin', zip: '78701', stateName: 'Texas', stateId: 44, countryId: 1 },
      });
      expect(created.status, created.text).toBe(200);
      const customerId = (created.body as { id: string }).id;
      const same = await calls.get(h, await calls.create(h, invoiceBody({ customerId })));
      expect([same.customerId, same.isCustomerUpdated]).toEqual([customerId, false]);
      const edited = await calls.get(h, await calls.create(h, invoiceBody({ customerId, customer: customer({ email: 'billing@doe.example' }) })));
      expect([edited.customerId, edited.isCustomerUpdated]).toEqual([customerId, true]);
    });

    it('fills the invoice customer from the linked record: whole when left out, field by field when partial', async () => {
      const h = await as(0);
      const created = await request(s.app).post('/pay-api/v1/customers').set(h).send({
        firstName: 'Ada', lastName: 'Byron', companyName: null, email: 'ada@example.com', mobilePhoneNumber: '+15555550177',
        billingAddress: { addressLine1: '1 Main St', city: 'Dallas', zip: '75201', stateName: 'Texas', stateId: 44, countryId: 1 },
      });
      expect(created.status, created.text).toBe(200);
      const customerId = (created.body as { id: string }).id;
      const whole = await calls.get(h, await calls.create(h, { customerId, lineItems: [manualLine()] }));
      expect(whole.customer).toMatchObject({
        firstName: 'Ada', lastName: 'Byron', companyName: null, email: 'ada@example.com', mobilePhoneNumber: '+15555550177',
        isMobileNumberSmsNotificationsEnabled: false, useBillingAsShippingAddress: false,
        billingAddress: { line1: '1 Main St', city: 'Dallas', zip: '75201', stateName: 'Texas', stateId: 44, countryId: 1 },
      });
      expect(whole.isCustomerUpdated).toBe(false);
      // A field sent wins, null included; the rest comes from the record.
      const partial = await calls.get(h, await calls.create(h, { customerId, customer: { email: 'billing@example.com', mobilePhoneNumber: null }, lineItems: [manualLine()] }));
      expect(partial.customer).toMatchObject({ firstName: 'Ada', lastName: 'Byron', email: 'billing@example.com', mobilePhoneNumber: null });
      expect(partial.isCustomerUpdated).toBe(true);
      // Publishing with customerId alone works the same way.
      const published = await request(s.app).post(`${INVOICES}/publish`).set(h).send({ customerId, lineItems: [manualLine()] });
      expect(published.status, published.text).toBe(200);
    });

    it('takes a line without lineItemId as a manually entered line, as with lineItemId null', async () => {
      const h = await as(0);
      const line = manualLine({ productName: 'Hand-entered' });
      delete line.lineItemId;
      const invoice = await calls.get(h, await calls.create(h, invoiceBody({ lineItems: [line] })));
      expect(invoice.lineItems).toEqual([expect.objectContaining({ lineItemId: null, productName: 'Hand-entered', unitPrice: 50, quantity: 2 })]);
      const missing = await request(s.app).post(INVOICES).set(h).send(invoiceBody({ lineItems: [{ quantity: 1 }] }));
      expect([missing.status, fieldsOf(missing.body)]).toEqual([400, ['lineItems[0].productName', 'lineItems[0].unitPrice', 'lineItems[0].unitTypeId']]);
    });

    it('refuses bad requests, keyed by field, and creates nothing', async () => {
      const h = await as(0);
      const foreignItem = await calls.createItem(await as(1), { productName: 'Foreign item', unitPrice: 5 });
      const foreignCustomer = await request(s.app).post('/pay-api/v1/customers').set(await as(1)).send({ firstName: 'F', lastName: 'Oreign' });
      const merchant = s.secrets.merchants[0];
      const count = async (): Promise<number> => Number(((await s.db('invoices').count({ n: '*' }).first()) as { n: number | string }).n);
      const before = await count();
      const cases: [Record<string, unknown>, string[]][] = [
        [invoiceBody({ customerId: UNKNOWN }), ['customerId']],
        [invoiceBody({ customerId: (foreignCustomer.body as { id: string }).id }), ['customerId']],
        [invoiceBody({ merchantContactInfoId: UNKNOWN }), ['merchantContactInfoId']],
        [invoiceBody({ cardPaymentProcessorId: merchant?.achProcessorId }), ['cardPaymentProcessorId']],
        [invoiceBody({ achPaymentProcessorId: merchant?.cardProcessorId }), ['achPaymentProcessorId']],
        [invoiceBody({ cardPaymentProcessorId: s.secrets.merchants[1]?.cardProcessorId }), ['cardPaymentProcessorId']],
        [invoiceBody({ lineItems: [{ lineItemId: foreignItem, quantity: 1 }] }), ['lineItems[0].lineItemId']],
        [invoiceBody({ lineItems: [manualLine(), { lineItemId: UNKNOWN, quantity: 1 }] }), ['lineItems[1].lineItemId']],
        [invoiceBody({ lineItems: [{ lineItemId: null, quantity: 1 }] }), ['lineItems[0].productName', 'lineItems[0].unitPrice', 'lineItems[0].unitTypeId']],
        [invoiceBody({ lineItems: [manualLine({ unitTypeId: 999 })] }), ['lineItems[0].unitTypeId']],
        // The router's checks of the schema.
        [invoiceBody({ lineItems: [] }), ['lineItems']],
        [invoiceBody({ lineItems: [manualLine({ quantity: 0 })] }), ['lineItems[0].quantity']],
        [invoiceBody({ taxPercentage: 100.5 }), ['taxPercentage']],
        [invoiceBody({ customer: { firstName: 'Jane' } }), ['customer.lastName']],
        [invoiceBody({ customer: {} }), ['customer.firstName', 'customer.lastName']],
        [{ lineItems: [manualLine()] }, ['customer']],
        [{ customerId: UNKNOWN, lineItems: [manualLine()] }, ['customerId']],
      ];
      for (const [body, fields] of cases) {
        const res = await request(s.app).post(INVOICES).set(h).send(body);
        expect([res.status, (res.body as ErrorBody).errorCode, fieldsOf(res.body)], JSON.stringify(body)).toEqual([400, 'validation_failed', fields]);
      }
      const typed = await request(s.app).post(INVOICES).set(h).send(invoiceBody({ shippingAmount: '5' }));
      expect([typed.status, Object.keys((typed.body as { errors: Record<string, string> }).errors)]).toEqual([400, ['$.shippingAmount']]);
      expect(await count()).toBe(before);
    });

    it('answers 404 for an unknown invoice', async () => {
      const res = await request(s.app).get(`${INVOICES}/${UNKNOWN}`).set(await as(0));
      expect([res.status, (res.body as ErrorBody).errorCode, (res.body as ErrorBody).entityId]).toEqual([404, 'not_found', UNKNOWN]);
    });
  });

  describe('settings rules', () => {
    it('takes tax, discount, shipping, fees and notes from the settings when the request leaves them null', async () => {
      const h = await as(1);
      await calls.settings(h, 1, {
        taxPercentage: 8.25, isDiscountEnabled: true, discountPercentage: 5, isShippingFeeEnabled: true, shippingFeeAmount: 12.5,
        isFeesEnabled: true, feesPercentage: 2, notes: 'Net 14. Thank you!', dueDateAfterDays: 14,
      });
      try {
        const id = await calls.create(h, { customer: customer(), lineItems: [manualLine({ unitPrice: 533, quantity: 2 })],
          shippingAmount: null, taxPercentage: null, feesPercentage: null, discountPercentage: null });
        // 1066 - 53.30 = 1012.70; tax 83.55; fees 20.25; shipping 12.50: 1129.00.
        expect(await calls.get(h, id)).toMatchObject({
          taxPercentage: 8.25, discountPercentage: 5, feesPercentage: 2, shippingAmount: 12.5, additionalNotes: 'Net 14. Thank you!',
          subTotalAmount: 1066, totalAmount: 1129,
        });
        // Values given win over the settings.
        const given = await calls.get(h, await calls.create(h, invoiceBody({ taxPercentage: 0, additionalNotes: 'Mine' })));
        expect(given).toMatchObject({ taxPercentage: 0, discountPercentage: 0, shippingAmount: 0, feesPercentage: 0, additionalNotes: 'Mine', totalAmount: 100 });
        // Publication without a due date: the issue date plus dueDateAfterDays.
        await request(s.app).post(`${INVOICES}/publish`).set(h).send({ ...invoiceBody(), id }).expect(200);
        const published = await calls.get(h, id);
        expect(Date.parse(published.dueDate ?? '') - Date.parse(published.issueDate ?? '')).toBe(14 * 86_400_000);
      } finally {
        await calls.settings(h, 1, { taxPercentage: null, isDiscountEnabled: false, isShippingFeeEnabled: false, isFeesEnabled: false, notes: '', dueDateAfterDays: 30 });
      }
    });

    it('refuses manual lines when the settings do not allow them, and price overrides unless both allow them', async () => {
      const h = await as(1);
      const item = await calls.createItem(h, { productName: 'Fixed price item', unitPrice: 20 });
      const overridden = invoiceBody({ lineItems: [{ lineItemId: item, quantity: 1, unitPrice: 25 }] });
      const refused = await request(s.app).post(INVOICES).set(h).send(overridden);
      expect([...errorOf(refused), fieldsOf(refused.body)]).toEqual([400, 'line_item_price_override_not_allowed', ['lineItems[0].unitPrice']]);
      const allowed = await calls.get(h, await calls.create(h, { ...overridden, canPriceBeForceOverrided: true }));
      expect(allowed.lineItems[0]).toMatchObject({ lineItemId: item, unitPrice: 25, totalAmount: 25 });
      expect(allowed.isLineItemsUpdated).toBe(true);
      // The catalogue price itself is no override.
      expect((await calls.get(h, await calls.create(h, invoiceBody({ lineItems: [{ lineItemId: item, quantity: 1, unitPrice: 20 }] })))).isLineItemsUpdated).toBe(false);
      await calls.settings(h, 1, { canOverWriteInvoiceLineItemPrice: false, allowManuallyEnterLineItems: false });
      try {
        expect(errorOf(await request(s.app).post(INVOICES).set(h).send({ ...overridden, canPriceBeForceOverrided: true })))
          .toEqual([400, 'line_item_price_override_not_allowed']);
        const manual = await request(s.app).post(INVOICES).set(h).send(invoiceBody());
        expect([...errorOf(manual), fieldsOf(manual.body)]).toEqual([400, 'line_item_manual_entry_not_allowed', ['lineItems[0].lineItemId']]);
        expect(errorOf(await request(s.app).post(`${INVOICES}/publish`).set(h).send(invoiceBody()))).toEqual([400, 'line_item_manual_entry_not_allowed']);
        await calls.create(h, invoiceBody({ lineItems: [{ lineItemId: item, quantity: 3 }] }));
      } finally {
        await calls.settings(h, 1, { canOverWriteInvoiceLineItemPrice: true, allowManuallyEnterLineItems: true });
      }
    });
  });

  describe('update and delete', () => {
    it('replaces a draft and records Updated', async () => {
      const h = await as(0);
      const id = await calls.create(h);
      const res = await request(s.app).put(`${INVOICES}/${id}`).set(h).send(invoiceBody({
        customer: customer({ firstName: 'Maria', lastName: 'Garcia', useBillingAsShippingAddress: false,
          shippingAddress: { line1: '42 Elm St', city: 'Denver', zip: '80202', countryId: 1, stateId: 6, stateName: 'Colorado' } }),
        lineItems: [manualLine({ productName: 'Setup', unitPrice: 150, quantity: 1 }), manualLine({ unitPrice: 0.33, quantity: 3 })],
        dueDate: '2099-01-01T00:00:00+01:00', additionalNotes: 'Updated', achAllowFasterProcessing: true,
      }));
      expect([res.status, res.text]).toEqual([200, '']);
      const invoice = await calls.get(h, id);
      expect(invoice).toMatchObject({
        status: 1, dueDate: '2098-12-31T23:00:00.000Z', additionalNotes: 'Updated', achAllowFasterProcessing: true, subTotalAmount: 150.99, totalAmount: 150.99,
        customer: { firstName: 'Maria', lastName: 'Garcia', useBillingAsShippingAddress: false, shippingAddress: { city: 'Denver' } },
      });
      expect(invoice.lineItems.map((l) => [l.productName, l.unitPrice, l.totalAmount])).toEqual([['Setup', 150, 150], ['Consulting', 0.33, 0.99]]);
      expect(invoice.history.map((e) => e.typeName)).toEqual(['Created', 'Updated']);
      expect(ISO.test(invoice.history[1]?.createdOn ?? '')).toBe(true);
    });

    it('deletes a draft with its lines and history', async () => {
      const h = await as(0);
      const id = await calls.create(h);
      const res = await request(s.app).delete(`${INVOICES}/${id}`).set(h);
      expect([res.status, res.text]).toEqual([200, '']);
      expect((await request(s.app).get(`${INVOICES}/${id}`).set(h)).status).toBe(404);
      expect(await s.db('invoice_line_items').where({ invoice_id: id })).toEqual([]);
      expect(await s.db('invoice_history').where({ invoice_id: id })).toEqual([]);
      expect((await request(s.app).delete(`${INVOICES}/${id}`).set(h)).status).toBe(404);
      expect((await request(s.app).put(`${INVOICES}/${UNKNOWN}`).set(h).send(invoiceBody())).status).toBe(404);
    });
  });

  describe('publish', () => {
    it('publishes a draft: Due, the next number, issue date now, the frozen option, a Published entry', async () => {
      const h = await as(0);
      const first = await calls.publish(h, invoiceBody());
      const id = await calls.create(h);
      const published = await calls.publish(h, { ...invoiceBody({ additionalNotes: 'Published now', dueDate: daysFrom(s, 10) }), id: id.toUpperCase() });
      expect(published).toBe(id);
      const invoice = await calls.get(h, id);
      const previous = await calls.get(h, first);
      expect(previous.number).toMatch(/^INV-\d{6}$/);
      expect(invoice.number).toBe(`INV-${String(Number(previous.number?.slice(4)) + 1).padStart(6, '0')}`);
      expect(invoice).toMatchObject({ status: 2, additionalNotes: 'Published now', zeroCostProcessingOptionId: 0, zeroCostProcessingOption: null });
      expect(Math.abs(Date.parse(invoice.issueDate ?? '') - s.clock.now().getTime())).toBeLessThan(5000);
      expect(invoice.history.map((e) => e.typeName)).toEqual(['Created', 'Published']);
      // invoice.created was sent when the draft was created, not again.
      expect(await events('invoice.created', id)).toHaveLength(1);
      // Numbers are per merchant.
      const other = await calls.get(await as(1), await calls.publish(await as(1), invoiceBody()));
      expect(other.number).toMatch(/^INV-\d{6}$/);
      const numbers = await s.db('invoices').where({ merchant_id: s.merchantId(1) }).whereNotNull('number').select<{ number: string }[]>('number');
      expect(numbers.map((n) => n.number).sort()[0]).toBe('INV-000001');
    });

    it('creates and publishes in one call: Created then Published, and invoice.created', async () => {
      const h = await as(0);
      const id = await calls.publish(h, { ...invoiceBody(), id: null });
      const invoice = await calls.get(h, id);
      expect(invoice.status).toBe(2);
      expect(invoice.history.map((e) => e.typeName)).toEqual(['Created', 'Published']);
      expect(await events('invoice.created', id)).toEqual([invoice]);
      // Without id at all, too.
      expect((await calls.get(h, await calls.publish(h, invoiceBody()))).status).toBe(2);
    });

    it('refuses a due date before now, an unknown id, and a non-draft; the draft stays a draft', async () => {
      const h = await as(0);
      const id = await calls.create(h);
      const past = await request(s.app).post(`${INVOICES}/publish`).set(h).send({ ...invoiceBody({ dueDate: '2020-01-01T00:00:00Z' }), id });
      expect([...errorOf(past), fieldsOf(past.body)]).toEqual([400, 'validation_failed', ['dueDate']]);
      expect(await calls.get(h, id)).toMatchObject({ status: 1, number: null, dueDate: null });
      expect(errorOf(await request(s.app).post(`${INVOICES}/publish`).set(h).send({ ...invoiceBody(), id: UNKNOWN }))).toEqual([404, 'not_found']);
      await calls.publish(h, { ...invoiceBody(), id });
      const again = await request(s.app).post(`${INVOICES}/publish`).set(h).send({ ...invoiceBody(), id });
      expect([...errorOf(again), (again.body as ErrorBody).entityId]).toEqual([400, 'invoice_not_draft', id]);
    });
  });
});
