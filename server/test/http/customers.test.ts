// Customers: create (atomic, with cards and bank accounts), read, update, delete, search and paging, and
// tenancy (another merchant's customer is a 404; a partner names the merchant or searches them all).
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { engines, startServer, type ErrorBody, type TestServer } from '../harness.ts';

const BASE = '/pay-api/v1/customers';

type Who = 0 | 1 | 'partner';
interface Customer {
  id: string;
  merchantId: string;
  firstName: string | null;
  lastName: string;
  createdOn: string;
  modifiedOn: string;
  defaultPaymentMethodId: string | null;
  defaultAchPaymentMethodId: string | null;
  cards: { id: string; isDefault: boolean; panMask: string }[];
  achAccounts: { id: string; isDefault: boolean; accountNumber: string }[];
  [field: string]: unknown;
}
interface ListItem { id: string; contactName: string; paymentMethodsCount: number; [field: string]: unknown }
interface Page { items: ListItem[]; total: number }

const address = {
  addressLine1: '100 Congress Ave', addressLine2: 'Suite 200', city: 'Austin', zip: '78701', stateName: 'Texas', stateId: 44, countryId: 1,
};
const fullBody = {
  firstName: 'Jane',
  lastName: 'Doe',
  companyName: 'Doe Hardware LLC',
  email: 'jane.doe@example.com',
  mobilePhoneNumber: '+15125550142',
  isMobileNumberSmsNotificationsEnabled: true,
  useBillingAsShippingAddress: true,
  billingAddress: address,
  shippingAddress: null,
  paymentMethodsCards: [
    { name: 'Business Visa', pan: '4111111111111111', expirationMonth: 12, expirationYear: 2030, securityCode: '123' },
    { name: 'Amex', pan: '378282246310005', expirationMonth: 1, expirationYear: 2031, securityCode: '1234' },
  ],
  paymentMethodsAchAccounts: [
    { accountNumber: '000123456789', routingNumber: '021000021', accountType: 1, accountHolderType: 1, name: 'Operating account', taxId: '12-3456789' },
    { accountNumber: '990000000001', routingNumber: '011000015', accountType: 2, accountHolderType: 2 },
  ],
};

describe.each(engines())('customers (%s)', (engine) => {
  let s: TestServer;
  beforeAll(async () => { s = await startServer(engine); });
  afterAll(async () => { await s.close(); });

  const merchantOf = (who: 0 | 1): string => {
    const merchant = s.secrets.merchants[who];
    if (!merchant) throw new Error('no demo merchant');
    return merchant.merchantId;
  };
  const headers = async (who: Who, merchant?: 0 | 1): Promise<Record<string, string>> => ({
    ...(await s.auth(who)),
    ...(merchant === undefined ? {} : { 'x-merchant-id': merchantOf(merchant) }),
  });
  const create = async (body: object, who: Who = 0, merchant?: 0 | 1): Promise<request.Response> =>
    request(s.app).post(BASE).set(await headers(who, merchant)).send(body);
  const createId = async (body: object, who: Who = 0): Promise<string> => {
    const res = await create(body, who);
    expect(res.status, res.text).toBe(200);
    return (res.body as { id: string }).id;
  };
  const read = async (id: string, who: Who = 0, merchant?: 0 | 1): Promise<request.Response> =>
    request(s.app).get(`${BASE}/${id}`).set(await headers(who, merchant));
  const readBody = async (id: string): Promise<Customer> => {
    const res = await read(id);
    expect(res.status, res.text).toBe(200);
    return res.body as Customer;
  };
  const countRows = async (table: string, where: Record<string, string>): Promise<number> => {
    const row = (await s.db(table).where(where).count({ n: '*' }).first()) as { n: number | string };
    return Number(row.n);
  };

  describe('create and read', () => {
    it('creates a customer from the required fields; the read shows nulls, false and zeros for the rest', async () => {
      const id = await createId({ firstName: 'Sam', lastName: 'Rivera' });
      const customer = await readBody(id);
      expect(customer).toEqual({
        id,
        merchantId: merchantOf(0),
        firstName: 'Sam',
        lastName: 'Rivera',
        companyName: null,
        email: null,
        mobilePhoneNumber: null,
        isMobileNumberSmsNotificationsEnabled: false,
        useBillingAsShippingAddress: false,
        defaultPaymentMethodId: null,
        defaultAchPaymentMethodId: null,
        createdOn: customer.createdOn,
        modifiedOn: customer.createdOn,
        billingAddress: null,
        shippingAddress: null,
        lastTransactionDate: null,
        transactionsCount: 0,
        transactionsVolume: 0,
        lastTransactionAmount: null,
        numberOfSubscriptions: 0,
        cards: [],
        achAccounts: [],
      });
      expect(Math.abs(Date.parse(customer.createdOn) - s.clock.now().getTime())).toBeLessThan(5000);
    });

    it('creates a customer with cards and bank accounts: the first of each kind is the default', async () => {
      const id = await createId(fullBody);
      const customer = await readBody(id);
      const texas = { id: 44, code: 'TX', name: 'Texas' };
      const us = { id: 1, isoCode: 'US', name: 'United States' };
      const shown = { ...address, state: texas, country: us } as Record<string, unknown>;
      delete shown.stateId;
      delete shown.countryId;
      expect(customer).toMatchObject({
        firstName: 'Jane', lastName: 'Doe', companyName: 'Doe Hardware LLC', email: 'jane.doe@example.com', mobilePhoneNumber: '+15125550142',
        isMobileNumberSmsNotificationsEnabled: true, useBillingAsShippingAddress: true,
        billingAddress: shown,
        shippingAddress: shown,
      });
      const [visa, amex] = customer.cards;
      const [operating, magic] = customer.achAccounts;
      expect(customer.cards).toEqual([
        { id: visa?.id, name: 'Business Visa', isDefault: true, panMask: '411111******1111', expirationMonth: 12, expirationYear: 2030, cardTokenType: 1, cardType: 1, creditDebitType: 1 },
        { id: amex?.id, name: 'Amex', isDefault: false, panMask: '378282*****0005', expirationMonth: 1, expirationYear: 2031, cardTokenType: 1, cardType: 3, creditDebitType: 1 },
      ]);
      expect(customer.achAccounts).toEqual([
        { id: operating?.id, name: 'Operating account', isDefault: true, accountNumber: '****6789', routingNumber: '021000021', accountTypeId: 1, accountType: 'Checking', accountHolderTypeId: 1, accountHolderType: 'Business', taxId: '12-3456789' },
        { id: magic?.id, name: null, isDefault: false, accountNumber: '****0001', routingNumber: '011000015', accountTypeId: 2, accountType: 'Savings', accountHolderTypeId: 2, accountHolderType: 'Personal', taxId: null },
      ]);
      expect(customer.defaultPaymentMethodId).toBe(visa?.id);
      expect(customer.defaultAchPaymentMethodId).toBe(operating?.id);
      // Never a whole number in a response.
      const text = JSON.stringify(customer);
      expect(text).not.toContain('4111111111111111');
      expect(text).not.toContain('000123456789');
    });

    it('shows the shipping address as given when it is not the billing address', async () => {
      const shipping = { addressLine1: '1 Main St', city: 'Toronto', countryId: 2 };
      const id = await createId({ firstName: 'Ann', lastName: 'Lee', billingAddress: address, shippingAddress: shipping });
      const customer = await readBody(id);
      expect(customer.shippingAddress).toEqual({
        addressLine1: '1 Main St', addressLine2: null, city: 'Toronto', zip: null, stateName: null, state: null,
        country: { id: 2, isoCode: 'CA', name: 'Canada' },
      });
    });

    it('records an empty firstName as none (null)', async () => {
      const id = await createId({ firstName: '', lastName: 'Solo' });
      expect((await readBody(id)).firstName).toBeNull();
    });

    it('records the phone text `null` (which the interface pattern admits) as no number', async () => {
      const id = await createId({ firstName: 'No', lastName: 'Phone', mobilePhoneNumber: 'null' });
      expect((await readBody(id)).mobilePhoneNumber).toBeNull();
    });

    it('lets a partner create and read for the merchant it names', async () => {
      const res = await create({ firstName: 'Pat', lastName: 'Partner' }, 'partner', 1);
      expect(res.status).toBe(200);
      const id = (res.body as { id: string }).id;
      const readBack = await read(id, 'partner', 1);
      expect(readBack.status).toBe(200);
      expect((readBack.body as Customer).merchantId).toBe(merchantOf(1));
      expect((await read(id, 1)).status).toBe(200);
      expect((await read(id, 0)).status).toBe(404);
    });
  });

  describe('create: validation (nothing is created)', () => {
    const customersNow = async (): Promise<number> => countRows('customers', { merchant_id: merchantOf(0) });
    const paymentMethodsNow = async (): Promise<number> => countRows('payment_methods', { merchant_id: merchantOf(0) });

    it.each<[string, object, Record<string, string[]>]>([
      ['a missing lastName', { firstName: 'A' }, { lastName: [expect.stringContaining('required') as string] }],
      ['an empty lastName', { firstName: 'A', lastName: '' }, { lastName: [expect.any(String) as string] }],
      ['a missing firstName', { lastName: 'A' }, { firstName: [expect.stringContaining('required') as string] }],
      ['SMS without a phone number', { firstName: 'A', lastName: 'B', isMobileNumberSmsNotificationsEnabled: true }, { isMobileNumberSmsNotificationsEnabled: ['requires mobilePhoneNumber'] }],
      ['a phone number not in E.164', { firstName: 'A', lastName: 'B', mobilePhoneNumber: '512-555-0142' }, { mobilePhoneNumber: [expect.any(String) as string] }],
      ['a bad e-mail address', { firstName: 'A', lastName: 'B', email: 'not-an-address' }, { email: [expect.any(String) as string] }],
      ['a state of no country', { firstName: 'A', lastName: 'B', billingAddress: { city: 'Austin', stateId: 44 } },
        { 'billingAddress.stateId': ['must be a state of countryId (the state is of country 1)'] }],
      ['a US state in Canada', { firstName: 'A', lastName: 'B', shippingAddress: { city: 'Austin', stateId: 44, countryId: 2 } },
        { 'shippingAddress.stateId': ['must be a state of countryId (the state is of country 1)'] }],
      ['a country id out of range', { firstName: 'A', lastName: 'B', billingAddress: { countryId: 251 } }, { 'billingAddress.countryId': [expect.any(String) as string] }],
    ])('refuses %s', async (_name, body, errors) => {
      const before = await customersNow();
      const res = await create(body);
      expect(res.status).toBe(400);
      expect(res.body as ErrorBody).toMatchObject({ statusCode: 400, errorCode: 'validation_failed', errors });
      expect(await customersNow()).toBe(before);
    });

    it('refuses the whole customer when one card is invalid, each problem under its field', async () => {
      const before = [await customersNow(), await paymentMethodsNow()];
      const res = await create({
        ...fullBody,
        lastName: 'Atomic',
        paymentMethodsCards: [
          fullBody.paymentMethodsCards[0],
          { pan: '4111111111111112', expirationMonth: 12, expirationYear: 2030 },
          { pan: '378282246310005', expirationMonth: 1, expirationYear: 2020, securityCode: '123' },
        ],
        paymentMethodsAchAccounts: [{ accountNumber: '000123456789', routingNumber: '021000022', accountType: 1, accountHolderType: 1 }],
      });
      expect(res.status).toBe(400);
      expect((res.body as ErrorBody).errors).toEqual({
        'paymentMethodsCards[1].pan': ['fails the Luhn check'],
        'paymentMethodsCards[2].expirationMonth': ['the card has expired: the expiry must not be in the past'],
        'paymentMethodsCards[2].securityCode': ['must have 4 digits for this card'],
        'paymentMethodsAchAccounts[0].routingNumber': ['fails the ABA check digit'],
      });
      expect([await customersNow(), await paymentMethodsNow()]).toEqual(before);
      // The refusal does not repeat the card number.
      expect(res.text).not.toContain('4111111111111112');
    });

    it('keys a card that breaks the schema by its index', async () => {
      const res = await create({ firstName: 'A', lastName: 'B', paymentMethodsCards: [{ pan: '4111111111111111', expirationMonth: 12, expirationYear: 2030 }, { pan: 'abc', expirationMonth: 1, expirationYear: 2030 }] });
      expect(res.status).toBe(400);
      expect(Object.keys((res.body as ErrorBody).errors ?? {})).toEqual(['paymentMethodsCards[1].pan']);
    });

    it.each<[string, object, string]>([
      ['a top-level field', { firstName: 7, lastName: 'B' }, '$.firstName'],
      ['a field of a card', { firstName: 'A', lastName: 'B', paymentMethodsCards: [{ pan: '4111111111111111', expirationMonth: '12', expirationYear: 2030 }] },
        '$.paymentMethodsCards[0].expirationMonth'],
      ['a field of an address', { firstName: 'A', lastName: 'B', billingAddress: { stateId: 'TX', countryId: 1 } }, '$.billingAddress.stateId'],
    ])('answers a JSON value of the wrong type in %s with the alternative body, keyed by JSON path', async (_name, body, path) => {
      const res = await create(body);
      expect(res.status).toBe(400);
      const problem = res.body as { status: number; title: string; errors: Record<string, string> };
      expect(problem.status).toBe(400);
      expect(Object.keys(problem.errors)).toEqual([path]);
    });

    it('answers 400 to a partner that names no merchant', async () => {
      const res = await create({ firstName: 'A', lastName: 'B' }, 'partner');
      expect(res.status).toBe(400);
      expect((res.body as ErrorBody).errors).toHaveProperty('x-merchant-id');
    });
  });

  describe('update', () => {
    it('replaces the fields (absent ones are cleared) and keeps the payment methods and defaults', async () => {
      const id = await createId(fullBody);
      const before = await readBody(id);
      s.clock.advance(60);
      const res = await request(s.app).put(`${BASE}/${id}`).set(await s.auth(0)).send({
        firstName: 'Janet', lastName: 'Doe-Smith', email: 'JANET@example.com', useBillingAsShippingAddress: false,
        billingAddress: { ...address, addressLine2: 'Suite 300' },
      });
      expect(res.status, res.text).toBe(200);
      expect(res.text).toBe('');
      const after = await readBody(id);
      expect(after).toMatchObject({
        firstName: 'Janet', lastName: 'Doe-Smith', email: 'JANET@example.com', companyName: null, mobilePhoneNumber: null,
        isMobileNumberSmsNotificationsEnabled: false, useBillingAsShippingAddress: false, shippingAddress: null,
        billingAddress: { addressLine2: 'Suite 300' },
        defaultPaymentMethodId: before.defaultPaymentMethodId,
        defaultAchPaymentMethodId: before.defaultAchPaymentMethodId,
        cards: before.cards,
        achAccounts: before.achAccounts,
        createdOn: before.createdOn,
      });
      expect(Date.parse(after.modifiedOn) - Date.parse(before.modifiedOn)).toBeGreaterThanOrEqual(60_000);
    });

    it('refuses a field that breaks its rule, and changes nothing', async () => {
      const id = await createId({ firstName: 'U', lastName: 'V' });
      const res = await request(s.app).put(`${BASE}/${id}`).set(await s.auth(0))
        .send({ firstName: 'U', lastName: 'W', isMobileNumberSmsNotificationsEnabled: true });
      expect(res.status).toBe(400);
      expect((res.body as ErrorBody).errors).toEqual({ isMobileNumberSmsNotificationsEnabled: ['requires mobilePhoneNumber'] });
      expect((await readBody(id)).lastName).toBe('V');
    });

    it('answers 404 for an unknown customer', async () => {
      const unknown = '00000000-0000-4000-8000-000000000000';
      const res = await request(s.app).put(`${BASE}/${unknown}`).set(await s.auth(0)).send({ firstName: 'A', lastName: 'B' });
      expect(res.status).toBe(404);
      expect(res.body as ErrorBody).toMatchObject({ errorCode: 'not_found', entityId: unknown });
    });
  });

  describe('delete', () => {
    it('deletes the customer and its payment methods; later requests answer 404', async () => {
      const id = await createId(fullBody);
      expect(await countRows('payment_methods', { customer_id: id })).toBe(4);
      const res = await request(s.app).delete(`${BASE}/${id}`).set(await s.auth(0));
      expect(res.status).toBe(200);
      expect(res.text).toBe('');
      expect((await read(id)).status).toBe(404);
      expect(await countRows('payment_methods', { customer_id: id })).toBe(0);
      expect((await request(s.app).delete(`${BASE}/${id}`).set(await s.auth(0))).status).toBe(404);
      expect((await request(s.app).get(`${BASE}/${id}/payment-methods`).set(await s.auth(0))).status).toBe(404);
    });
  });

  describe('tenancy', () => {
    it("answers 404 to another merchant on read, update and delete, and leaves the customer as it was", async () => {
      const id = await createId({ firstName: 'Mine', lastName: 'Zero' });
      const other = await s.auth(1);
      const got = await request(s.app).get(`${BASE}/${id}`).set(other);
      expect(got.status).toBe(404);
      expect(got.body as ErrorBody).toMatchObject({ errorCode: 'not_found' });
      expect((await request(s.app).put(`${BASE}/${id}`).set(other).send({ firstName: 'X', lastName: 'Y' })).status).toBe(404);
      expect((await request(s.app).delete(`${BASE}/${id}`).set(other)).status).toBe(404);
      expect((await readBody(id)).lastName).toBe('Zero');
      // The partner acting on the other merchant does not see it either.
      expect((await read(id, 'partner', 1)).status).toBe(404);
      expect((await read(id, 'partner', 0)).status).toBe(200);
    });

    it('answers 400 to a partner that names no merchant on a one-merchant operation', async () => {
      const id = await createId({ firstName: 'P', lastName: 'Q' });
      const partner = await s.auth('partner');
      for (const res of [
        await request(s.app).get(`${BASE}/${id}`).set(partner),
        await request(s.app).put(`${BASE}/${id}`).set(partner).send({ firstName: 'P', lastName: 'Q' }),
        await request(s.app).delete(`${BASE}/${id}`).set(partner),
      ]) {
        expect(res.status).toBe(400);
        expect((res.body as ErrorBody).errors).toHaveProperty('x-merchant-id');
      }
    });

    it('answers 400 for an id that is not a uuid', async () => {
      const res = await read('not-a-uuid');
      expect(res.status).toBe(400);
      expect((res.body as ErrorBody).errors).toHaveProperty('customerId');
    });
  });
});

describe.each(engines())('customer search (%s)', (engine) => {
  let s: TestServer;
  const ids: string[] = [];
  let otherMerchantsId = '';
  beforeAll(async () => {
    s = await startServer(engine);
    const auth = await s.auth(0);
    // 17 customers a second apart: c00 (oldest) to c16, with names that sort otherwise.
    for (let i = 0; i < 17; i++) {
      const n = String(i).padStart(2, '0');
      const res = await request(s.app).post(BASE).set(auth).send({
        firstName: i % 2 === 0 ? `First${n}` : '',
        lastName: `Last${String(16 - i).padStart(2, '0')}`,
        companyName: i === 3 ? 'Acme Widgets' : null,
        email: `c${n}@Example.com`,
        mobilePhoneNumber: `+1512555${String(1000 + i)}`,
        billingAddress: i === 5 ? address : null,
        ...(i === 4 ? { paymentMethodsCards: [fullBody.paymentMethodsCards[0]], paymentMethodsAchAccounts: [fullBody.paymentMethodsAchAccounts[0]] } : {}),
      });
      expect(res.status, res.text).toBe(200);
      ids.push((res.body as { id: string }).id);
      s.clock.advance(1);
    }
    const other = await request(s.app).post(BASE).set(await s.auth(1)).send({ firstName: 'Other', lastName: 'Merchant', email: 'c99@example.com' });
    otherMerchantsId = (other.body as { id: string }).id;
  });
  afterAll(async () => { await s.close(); });

  const search = async (query: Record<string, string | number | boolean>, who: Who = 0, merchant?: 0 | 1): Promise<Page> => {
    const headers: Record<string, string> = { ...(await s.auth(who)) };
    if (merchant !== undefined) headers['x-merchant-id'] = s.secrets.merchants[merchant]?.merchantId ?? '';
    const res = await request(s.app).get(BASE).set(headers).query(query);
    expect(res.status, res.text).toBe(200);
    return res.body as Page;
  };

  it('pages by 15, oldest first, with the total of all pages', async () => {
    const first = await search({});
    expect(first.total).toBe(17);
    expect(first.items.map((c) => c.id)).toEqual(ids.slice(0, 15));
    const second = await search({ page: 1 });
    expect(second.items.map((c) => c.id)).toEqual(ids.slice(15));
    expect(await search({ page: 5 })).toEqual({ items: [], total: 17, totalIsExact: true });
    expect((await search({ pageSize: 4, page: 1 })).items.map((c) => c.id)).toEqual(ids.slice(4, 8));
  });

  it('lists each customer with contactName, paymentMethodsCount and the transaction figures', async () => {
    const { items } = await search({ pageSize: 6 });
    expect(items[4]).toMatchObject({ contactName: 'First04 Last12', paymentMethodsCount: 2, lastTransactionDate: null, lastTransactionAmount: null, activeSubscriptionsAmount: 0 });
    expect(items[1]).toMatchObject({ contactName: 'Last15', firstName: null, paymentMethodsCount: 0 });
    expect(items[5]?.billingAddress).toMatchObject({ city: 'Austin', state: { code: 'TX' } });
  });

  it('orders by the field named, either way', async () => {
    expect((await search({ orderBy: 'createdOn', asc: false, pageSize: 3 })).items.map((c) => c.id)).toEqual([ids[16], ids[15], ids[14]]);
    expect((await search({ orderBy: 'lastName', pageSize: 3 })).items.map((c) => c.lastName)).toEqual(['Last00', 'Last01', 'Last02']);
    expect((await search({ orderBy: 'lastName', asc: false, pageSize: 2 })).items.map((c) => c.lastName)).toEqual(['Last16', 'Last15']);
    // contactName: a customer without a first name sorts by its last name.
    const byContact = (await search({ orderBy: 'contactName', pageSize: 3 })).items.map((c) => c.contactName);
    expect(byContact).toEqual(['First00 Last16', 'First02 Last14', 'First04 Last12']);
    const lastByContact = (await search({ orderBy: 'contactName', asc: false, pageSize: 2 })).items.map((c) => c.contactName);
    expect(lastByContact).toEqual(['Last15', 'Last13']);
    // No first name: nulls first ascending.
    expect((await search({ orderBy: 'firstName', pageSize: 1 })).items[0]?.firstName).toBeNull();
  });

  it('searches names, company, e-mail and phone, case-insensitively', async () => {
    expect((await search({ search: 'first06' })).items.map((c) => c.id)).toEqual([ids[6]]);
    expect((await search({ search: 'LAST16' })).items.map((c) => c.id)).toEqual([ids[0]]);
    expect((await search({ search: 'acme' })).items.map((c) => c.id)).toEqual([ids[3]]);
    expect((await search({ search: 'C07@EXAMPLE' })).items.map((c) => c.id)).toEqual([ids[7]]);
    expect((await search({ search: '5551008' })).items.map((c) => c.id)).toEqual([ids[8]]);
    expect((await search({ search: 'example.com' })).total).toBe(17);
    expect((await search({ search: 'nobody' }))).toEqual({ items: [], total: 0, totalIsExact: true });
    // LIKE wildcards are text.
    expect((await search({ search: '%' })).total).toBe(0);
  });

  it('finds a changed customer by its new text only, forgets a deleted one, and matches within one field (the search index follows the rows)', async () => {
    const h = await s.auth(0);
    const created = await request(s.app).post(BASE).set(h).send({ firstName: 'Zyxwv', lastName: 'Quote"Name', email: 'qq@zz.example' });
    expect(created.status, created.text).toBe(200);
    const id = (created.body as { id: string }).id;
    // The unfiltered total (a kept count, not a count of rows) follows the create and, below, the delete.
    expect((await search({})).total).toBe(18);
    const found = async (text: string): Promise<string[]> => (await search({ search: text, pageSize: 100 })).items.map((c) => c.id);
    expect(await found('ZYXWV')).toEqual([id]);
    expect(await found('quote"na')).toEqual([id]);
    // Two characters (below a trigram) and one still match, without the index.
    expect(await found('yx')).toEqual([id]);
    // Text spanning two fields (first and last name) is not a match.
    expect(await found('zyxwv quote')).toEqual([]);
    expect((await request(s.app).put(`${BASE}/${id}`).set(h).send({ firstName: 'Vutsr', lastName: 'Plain' })).status).toBe(200);
    expect(await found('zyxwv')).toEqual([]);
    expect(await found('vutsr')).toEqual([id]);
    expect((await request(s.app).delete(`${BASE}/${id}`).set(h)).status).toBe(200);
    expect(await found('vutsr')).toEqual([]);
    expect((await search({})).total).toBe(17);
  });

  it('selects one customer by customerIds', async () => {
    expect((await search({ customerIds: ids[9] ?? '' })).items.map((c) => c.id)).toEqual([ids[9]]);
    expect((await search({ customerIds: otherMerchantsId })).total).toBe(0);
  });

  it('bounds createdOn with dateFrom and dateTo', async () => {
    const { items } = await search({ pageSize: 17 });
    const from = String(items[3]?.createdOn);
    const to = String(items[5]?.createdOn);
    expect((await search({ dateFrom: from, dateTo: to })).items.map((c) => c.id)).toEqual(ids.slice(3, 6));
  });

  it("a partner's search spans its merchants without x-merchant-id, and one merchant with it", async () => {
    const all = await search({ pageSize: 100 }, 'partner');
    expect(all.total).toBe(18);
    expect(all.items.map((c) => c.id)).toContain(otherMerchantsId);
    expect(new Set(all.items.map((c) => c.merchantId)).size).toBe(2);
    const one = await search({ pageSize: 100 }, 'partner', 1);
    expect(one.items.map((c) => c.id)).toEqual([otherMerchantsId]);
    const merchantOne = await search({}, 1);
    expect(merchantOne.items.map((c) => c.id)).toEqual([otherMerchantsId]);
  });

  it('refuses an unknown orderBy and a pageSize over 100', async () => {
    const auth = await s.auth(0);
    expect((await request(s.app).get(BASE).set(auth).query({ orderBy: 'pan' })).status).toBe(400);
    expect((await request(s.app).get(BASE).set(auth).query({ pageSize: 101 })).status).toBe(400);
  });
});
