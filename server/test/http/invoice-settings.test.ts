// The merchant's invoice settings over HTTP, on both engines: the initial values, update semantics (absent
// keeps, null clears), validation, processors, and tenancy by the path's merchant id.
import { randomUUID } from 'node:crypto';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { engines, fieldsOf, startServer, type ErrorBody, type TestServer } from '../harness.ts';

const UNKNOWN = '7c9e6679-7425-40de-944b-e07fc1f90ae7';
const settingsPath = (merchantId: string): string => `/pay-int-api/merchants/${merchantId}/invoices/settings`;

interface Settings {
  merchantId: string; dueDateAfterDays: number | null; taxPercentage: number | null; isDiscountEnabled: boolean;
  discountPercentage: number | null; isShippingFeeEnabled: boolean; shippingFeeAmount: number | null; isFeesEnabled: boolean;
  feesPercentage: number | null; notes: string; paymentMethodTypeId: number; cardPaymentProcessorId: string;
  achPaymentProcessorId: string; allowStaffToSetDiscountAndLineItemDiscount: boolean; allowManuallyEnterLineItems: boolean;
  isSmsNotificationAfterPaymentEnabled: boolean; isSmsNotificationAfterPaymentFailedEnabled: boolean;
  canOverWriteInvoiceLineItemPrice: boolean; newZcpFeatureEnabled: boolean;
}
interface AlternativeBody { type: string; title: string; status: number; traceId: string; errors: Record<string, string> }
interface StoredRow { ach_allow_faster_processing: boolean | number; shipping_fee_cents: number | string | null; notes: string }

describe.each(engines())('invoice settings (%s)', (engine) => {
  let s: TestServer;
  beforeAll(async () => { s = await startServer(engine); });
  afterAll(async () => { await s.close(); });

  const merchant = (i: 0 | 1): string => s.merchantId(i);
  const processors = (i: 0 | 1): { card: string; ach: string } => {
    const m = s.secrets.merchants[i];
    if (!m) throw new Error('no demo merchant');
    return { card: m.cardProcessorId, ach: m.achProcessorId };
  };
  const initial = (i: 0 | 1): Settings => ({
    merchantId: merchant(i), dueDateAfterDays: 30, taxPercentage: null, isDiscountEnabled: false, discountPercentage: null,
    isShippingFeeEnabled: false, shippingFeeAmount: null, isFeesEnabled: false, feesPercentage: null, notes: '', paymentMethodTypeId: 1,
    cardPaymentProcessorId: processors(i).card, achPaymentProcessorId: processors(i).ach, allowStaffToSetDiscountAndLineItemDiscount: false,
    allowManuallyEnterLineItems: true, isSmsNotificationAfterPaymentEnabled: false, isSmsNotificationAfterPaymentFailedEnabled: false,
    canOverWriteInvoiceLineItemPrice: true, newZcpFeatureEnabled: false,
  });
  const read = async (i: 0 | 1): Promise<Settings> => {
    const res = await request(s.app).get(settingsPath(merchant(i))).set(await s.as(i));
    expect(res.status, res.text).toBe(200);
    return res.body as Settings;
  };
  const update = async (i: 0 | 1, body: object): Promise<void> => {
    const res = await request(s.app).put(settingsPath(merchant(i))).set(await s.as(i)).send(body);
    expect([res.status, res.text]).toEqual([200, '']);
  };
  const stored = async (i: 0 | 1): Promise<StoredRow | undefined> =>
    (await s.db('invoice_settings').where({ merchant_id: merchant(i) }).first()) as StoredRow | undefined;
  const addProcessor = async (i: 0 | 1, typeId: 1 | 2, name: string): Promise<string> => {
    const id = randomUUID();
    await s.db('payment_processors').insert({ id, merchant_id: merchant(i), type_id: typeId, name, is_default: false, settlement_batch_time_slots: '[]' });
    return id;
  };
  /** Puts merchant 0's settings back to known values between tests. */
  const reset = async (): Promise<void> => {
    const body: Record<string, unknown> = { ...initial(0), achAllowFasterProcessing: false };
    // The update body has no merchantId, and newZcpFeatureEnabled is the gateway's.
    delete body.merchantId;
    delete body.newZcpFeatureEnabled;
    await update(0, body);
  };

  describe('read', () => {
    it('starts every merchant with the spec\'s initial settings, stored on first read', async () => {
      expect(await stored(0)).toBeUndefined();
      expect(await read(0)).toEqual(initial(0));
      expect(await stored(0)).toMatchObject({ notes: '', shipping_fee_cents: null });
      // A second read gives the same record; the other merchant has its own, with its own processors.
      expect(await read(0)).toEqual(initial(0));
      expect(await read(1)).toEqual(initial(1));
      expect(Number((await s.db('invoice_settings').count({ n: '*' }))[0]?.n)).toBe(2);
    });

    it('accepts an upper-case merchant id in the path', async () => {
      const res = await request(s.app).get(settingsPath(merchant(0).toUpperCase())).set(await s.as(0));
      expect(res.status).toBe(200);
      expect((res.body as Settings).merchantId).toBe(merchant(0));
    });
  });

  describe('update', () => {
    it('changes every field given and returns them on the next read', async () => {
      const card = await addProcessor(0, 1, 'Second card processor');
      const ach = await addProcessor(0, 2, 'Second Eft processor');
      const body = {
        dueDateAfterDays: 14, taxPercentage: 8.25, isDiscountEnabled: true, discountPercentage: 5, isShippingFeeEnabled: true,
        shippingFeeAmount: 12.5, isFeesEnabled: true, feesPercentage: 1.5, notes: 'Thank you for your business.', paymentMethodTypeId: 2,
        cardPaymentProcessorId: card, achPaymentProcessorId: ach, allowStaffToSetDiscountAndLineItemDiscount: true,
        allowManuallyEnterLineItems: false, isSmsNotificationAfterPaymentEnabled: true, isSmsNotificationAfterPaymentFailedEnabled: true,
        achAllowFasterProcessing: true, canOverWriteInvoiceLineItemPrice: false,
      };
      await update(0, body);
      const returned: Record<string, unknown> = { ...body, merchantId: merchant(0), newZcpFeatureEnabled: false };
      delete returned.achAllowFasterProcessing;
      expect(await read(0)).toEqual(returned);
      // achAllowFasterProcessing is kept though the read does not return it (as in the interface).
      expect(Boolean((await stored(0))?.ach_allow_faster_processing)).toBe(true);
      // The other merchant's settings are untouched.
      expect(await read(1)).toEqual(initial(1));
      await reset();
      expect(await read(0)).toEqual(initial(0));
    });

    it('keeps what the body leaves out and clears what it sets to null', async () => {
      await update(0, { dueDateAfterDays: 10, taxPercentage: 7, discountPercentage: 3, shippingFeeAmount: 9.99, feesPercentage: 2, notes: 'Net 10' });
      const before = await read(0);
      expect(before).toMatchObject({ dueDateAfterDays: 10, taxPercentage: 7, discountPercentage: 3, shippingFeeAmount: 9.99, feesPercentage: 2, notes: 'Net 10' });
      await update(0, {});
      expect(await read(0)).toEqual(before);
      await update(0, { taxPercentage: null, shippingFeeAmount: null });
      expect(await read(0)).toEqual({ ...before, taxPercentage: null, shippingFeeAmount: null });
      await update(0, { dueDateAfterDays: null, discountPercentage: null, feesPercentage: null });
      expect(await read(0)).toEqual({ ...before, taxPercentage: null, shippingFeeAmount: null, dueDateAfterDays: null, discountPercentage: null, feesPercentage: null });
      // An empty string is a value for notes, not a clearing.
      await update(0, { notes: '' });
      expect((await read(0)).notes).toBe('');
      await reset();
    });

    it('keeps paymentMethodTypeId when it is null', async () => {
      await update(0, { paymentMethodTypeId: 2 });
      await update(0, { paymentMethodTypeId: null, isDiscountEnabled: true });
      expect(await read(0)).toMatchObject({ paymentMethodTypeId: 2, isDiscountEnabled: true });
      await reset();
    });

    it('stores the shipping fee in exact cents and refuses one of more than two decimal places or over the maximum', async () => {
      await update(0, { shippingFeeAmount: 1.01 });
      expect((await read(0)).shippingFeeAmount).toBe(1.01);
      expect(Number((await stored(0))?.shipping_fee_cents)).toBe(101);
      await update(0, { shippingFeeAmount: 999_999.99 });
      expect((await read(0)).shippingFeeAmount).toBe(999_999.99);
      for (const shippingFeeAmount of [1.005, 1_000_000]) {
        const res = await request(s.app).put(settingsPath(merchant(0))).set(await s.as(0)).send({ shippingFeeAmount });
        expect([res.status, Object.keys((res.body as { errors: object }).errors)]).toEqual([400, ['shippingFeeAmount']]);
      }
      expect((await read(0)).shippingFeeAmount).toBe(999_999.99);
      await reset();
    });

    it('refuses newZcpFeatureEnabled, which the gateway sets: not a field of the update (strict requests), nothing changed', async () => {
      const res = await request(s.app).put(settingsPath(merchant(0))).set(await s.as(0)).send({ newZcpFeatureEnabled: true });
      expect([res.status, fieldsOf(res.body)]).toEqual([400, ['newZcpFeatureEnabled']]);
      expect((await read(0)).newZcpFeatureEnabled).toBe(false);
    });

    it('stores the settings on a first update as well, with the initial values for the rest', async () => {
      const fresh = await startServer(engine);
      try {
        const res = await request(fresh.app).put(settingsPath(fresh.merchantId(1))).set(await fresh.as(1)).send({ taxPercentage: 6.5 });
        expect([res.status, res.text]).toEqual([200, '']);
        const got = await request(fresh.app).get(settingsPath(fresh.merchantId(1))).set(await fresh.as(1));
        const m = fresh.secrets.merchants[1];
        expect(got.body).toEqual({
          ...initial(1), merchantId: fresh.merchantId(1), cardPaymentProcessorId: m?.cardProcessorId, achPaymentProcessorId: m?.achProcessorId, taxPercentage: 6.5,
        });
      } finally {
        await fresh.close();
      }
    });
  });

  describe('validation', () => {
    it.each([
      ['dueDateAfterDays', 366], ['dueDateAfterDays', -1], ['taxPercentage', 100.01], ['taxPercentage', -1],
      ['discountPercentage', 101], ['feesPercentage', -0.5], ['shippingFeeAmount', -1], ['shippingFeeAmount', 1_000_000.01],
      ['notes', 'x'.repeat(2001)], ['cardPaymentProcessorId', 'not-a-uuid'], ['achPaymentProcessorId', ''],
    ])('refuses %s = %j with the field in errors, and changes nothing', async (field, value) => {
      const before = await read(0);
      const res = await request(s.app).put(settingsPath(merchant(0))).set(await s.as(0)).send({ notes: 'changed', [field]: value });
      expect(res.status, res.text).toBe(400);
      expect((res.body as ErrorBody).errorCode).toBe('validation_failed');
      expect(fieldsOf(res.body)).toEqual([field]);
      expect(await read(0)).toEqual(before);
    });

    it.each([
      ['taxPercentage', '8.25'], ['isDiscountEnabled', 'yes'], ['isFeesEnabled', null], ['notes', null], ['notes', 42],
      ['cardPaymentProcessorId', null], ['dueDateAfterDays', '30'], ['dueDateAfterDays', 1.5], ['allowManuallyEnterLineItems', 1],
      ['paymentMethodTypeId', '1'],
    ])('answers %s = %j (wrong JSON type) with the alternative body', async (field, value) => {
      const before = await read(0);
      const res = await request(s.app).put(settingsPath(merchant(0))).set(await s.as(0)).send({ [field]: value });
      expect(res.status).toBe(400);
      expect(Object.keys((res.body as AlternativeBody).errors)).toEqual([`$.${field}`]);
      expect(await read(0)).toEqual(before);
    });

    it('refuses a paymentMethodTypeId that is no payment method type, naming the field', async () => {
      const before = await read(0);
      for (const value of [0, 3]) {
        const res = await request(s.app).put(settingsPath(merchant(0))).set(await s.as(0)).send({ paymentMethodTypeId: value });
        expect(res.status).toBe(400);
        // The router reports a value outside `oneOf: [PaymentMethodType, null]` with the alternative body
        // ("must be null"); either body names the field.
        const errors = Object.keys((res.body as { errors?: object }).errors ?? {});
        expect(errors.filter((key) => key === 'paymentMethodTypeId' || key === '$.paymentMethodTypeId')).toHaveLength(1);
      }
      expect(await read(0)).toEqual(before);
    });

    it('refuses a body that is not JSON', async () => {
      const res = await request(s.app).put(settingsPath(merchant(0))).set(await s.as(0)).set('Content-Type', 'text/plain').send('taxPercentage=5');
      expect(res.status).toBe(415);
    });
  });

  describe('processors', () => {
    it('accepts only the merchant\'s processors, each of its kind, naming the field', async () => {
      const before = await read(0);
      const cases: [object, string[]][] = [
        [{ cardPaymentProcessorId: processors(0).ach }, ['cardPaymentProcessorId']],
        [{ achPaymentProcessorId: processors(0).card }, ['achPaymentProcessorId']],
        [{ cardPaymentProcessorId: processors(1).card }, ['cardPaymentProcessorId']],
        [{ achPaymentProcessorId: processors(1).ach }, ['achPaymentProcessorId']],
        [{ cardPaymentProcessorId: UNKNOWN, achPaymentProcessorId: UNKNOWN }, ['achPaymentProcessorId', 'cardPaymentProcessorId']],
        // A valid change does not pass with an invalid one.
        [{ cardPaymentProcessorId: processors(0).card, achPaymentProcessorId: processors(1).ach, taxPercentage: 9 }, ['achPaymentProcessorId']],
      ];
      for (const [body, fields] of cases) {
        const res = await request(s.app).put(settingsPath(merchant(0))).set(await s.as(0)).send(body);
        expect(res.status, JSON.stringify(body)).toBe(400);
        expect((res.body as ErrorBody).errorCode).toBe('validation_failed');
        expect(fieldsOf(res.body)).toEqual(fields);
      }
      expect(await read(0)).toEqual(before);
    });

    it('accepts a processor id in upper case and stores it as the id', async () => {
      const card = await addProcessor(0, 1, 'Upper-case card processor');
      await update(0, { cardPaymentProcessorId: card.toUpperCase() });
      expect((await read(0)).cardPaymentProcessorId).toBe(card);
      await reset();
    });
  });

  describe('tenancy', () => {
    it('answers 404 for another merchant\'s id or an unknown one, and changes nothing', async () => {
      const before = await read(0);
      for (const id of [merchant(0), UNKNOWN]) {
        const get = await request(s.app).get(settingsPath(id)).set(await s.as(1));
        expect([get.status, (get.body as ErrorBody).errorCode, (get.body as ErrorBody).entityId]).toEqual([404, 'not_found', id]);
        const put = await request(s.app).put(settingsPath(id)).set(await s.as(1)).send({ taxPercentage: 50 });
        expect([put.status, (put.body as ErrorBody).errorCode]).toEqual([404, 'not_found']);
      }
      expect(await read(0)).toEqual(before);
      expect(await s.db('invoice_settings').where({ merchant_id: UNKNOWN }).first()).toBeUndefined();
    });

    it('lets a partner address any of its merchants by the path, without x-merchant-id', async () => {
      const partner = await s.as('partner');
      for (const i of [0, 1] as const) {
        const res = await request(s.app).get(settingsPath(merchant(i))).set(partner);
        expect(res.status).toBe(200);
        expect((res.body as Settings).merchantId).toBe(merchant(i));
      }
      const put = await request(s.app).put(settingsPath(merchant(1))).set(partner).send({ notes: 'Set by the partner' });
      expect(put.status).toBe(200);
      expect((await read(1)).notes).toBe('Set by the partner');
      expect((await read(0)).notes).toBe('');
      const unknown = await request(s.app).get(settingsPath(UNKNOWN)).set(partner);
      expect(unknown.status).toBe(404);
    });

    it('with x-merchant-id, lets a partner address that merchant only', async () => {
      const same = await request(s.app).get(settingsPath(merchant(0))).set(await s.as('partner', 0));
      expect(same.status).toBe(200);
      const other = await request(s.app).get(settingsPath(merchant(1))).set(await s.as('partner', 0));
      expect([other.status, (other.body as ErrorBody).errorCode]).toEqual([404, 'not_found']);
      const put = await request(s.app).put(settingsPath(merchant(1))).set(await s.as('partner', 0)).send({ notes: 'no' });
      expect(put.status).toBe(404);
      expect((await read(1)).notes).toBe('Set by the partner');
    });

    it('needs a token and a uuid in the path', async () => {
      const anonymous = await request(s.app).get(settingsPath(merchant(0)));
      expect(anonymous.status).toBe(401);
      const badId = await request(s.app).get(settingsPath('not-a-uuid')).set(await s.as(0));
      expect([badId.status, (badId.body as ErrorBody).errorCode]).toEqual([400, 'validation_failed']);
    });
  });
});
