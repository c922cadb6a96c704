// A customer's stored payment methods: add a card or a bank account (rules, defaults), list (paging,
// order, search, dates), update, delete, make default, and tenancy.
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { engines, startServer, type ErrorBody, type TestServer } from '../harness.ts';

const BASE = '/pay-api/v1/customers';
const UNKNOWN = '00000000-0000-4000-8000-000000000000';

type Who = 0 | 1 | 'partner';
interface Item { id: string; name: string | null; isDefault: boolean; paymentMethodTypeId: number; createdOn: string; [field: string]: unknown }
interface Page { items: Item[]; total: number }
interface Customer {
  modifiedOn: string;
  defaultPaymentMethodId: string | null;
  defaultAchPaymentMethodId: string | null;
  cards: { id: string; isDefault: boolean; name: string | null; expirationMonth: number; expirationYear: number }[];
  achAccounts: { id: string; isDefault: boolean; name: string | null; accountTypeId: number; accountHolderTypeId: number }[];
}

const visa = { name: 'Business Visa', pan: '4111111111111111', expirationMonth: 12, expirationYear: 2030, securityCode: '123' };
const mastercard = { name: 'Team Mastercard', pan: '5555555555554444', expirationMonth: 6, expirationYear: 2031 };
const account = { accountNumber: '000123456789', routingNumber: '021000021', accountType: 1, accountHolderType: 1, name: 'Operating account', taxId: '12-3456789' };

describe.each(engines())('payment methods (%s)', (engine) => {
  let s: TestServer;
  beforeAll(async () => { s = await startServer(engine); });
  afterAll(async () => { await s.close(); });

  const headers = async (who: Who = 0, merchant?: 0 | 1): Promise<Record<string, string>> => ({
    ...(await s.auth(who)),
    ...(merchant === undefined ? {} : { 'x-merchant-id': s.secrets.merchants[merchant]?.merchantId ?? '' }),
  });
  const newCustomer = async (who: Who = 0, merchant?: 0 | 1): Promise<string> => {
    const res = await request(s.app).post(BASE).set(await headers(who, merchant)).send({ firstName: 'Pay', lastName: 'Methods' });
    expect(res.status, res.text).toBe(200);
    return (res.body as { id: string }).id;
  };
  const addCard = async (customerId: string, body: object = visa, who: Who = 0, merchant?: 0 | 1): Promise<request.Response> =>
    request(s.app).post(`${BASE}/${customerId}/payment-methods/cards`).set(await headers(who, merchant)).send(body);
  const addAch = async (customerId: string, body: object = account, who: Who = 0): Promise<request.Response> =>
    request(s.app).post(`${BASE}/${customerId}/payment-methods/ach`).set(await headers(who)).send(body);
  const idOf = (res: request.Response): string => {
    expect(res.status, res.text).toBe(200);
    return (res.body as { id: string }).id;
  };
  const customer = async (customerId: string): Promise<Customer> => {
    const res = await request(s.app).get(`${BASE}/${customerId}`).set(await headers());
    expect(res.status, res.text).toBe(200);
    return res.body as Customer;
  };
  const list = async (customerId: string, query: Record<string, string | number | boolean> = {}, who: Who = 0): Promise<Page> => {
    const res = await request(s.app).get(`${BASE}/${customerId}/payment-methods`).set(await headers(who)).query(query);
    expect(res.status, res.text).toBe(200);
    return res.body as Page;
  };
  const put = async (customerId: string, id: string, body: object, who: Who = 0): Promise<request.Response> =>
    request(s.app).put(`${BASE}/${customerId}/payment-methods/${id}`).set(await headers(who)).send(body);
  const remove = async (customerId: string, id: string, who: Who = 0): Promise<request.Response> =>
    request(s.app).delete(`${BASE}/${customerId}/payment-methods/${id}`).set(await headers(who));
  const makeDefault = async (customerId: string, id: string, who: Who = 0): Promise<request.Response> =>
    request(s.app).put(`${BASE}/${customerId}/payment-methods/${id}/make-default`).set(await headers(who));

  describe('add a card', () => {
    it('stores the card; the first card becomes the default, a second one does not', async () => {
      const customerId = await newCustomer();
      const first = idOf(await addCard(customerId));
      const second = idOf(await addCard(customerId, mastercard));
      const record = await customer(customerId);
      expect(record.defaultPaymentMethodId).toBe(first);
      expect(record.defaultAchPaymentMethodId).toBeNull();
      expect(record.cards).toEqual([
        { id: first, name: 'Business Visa', isDefault: true, panMask: '411111******1111', expirationMonth: 12, expirationYear: 2030, cardTokenType: 1, cardType: 1, creditDebitType: 1 },
        { id: second, name: 'Team Mastercard', isDefault: false, panMask: '555555******4444', expirationMonth: 6, expirationYear: 2031, cardTokenType: 1, cardType: 2, creditDebitType: 1 },
      ]);
      const page = await list(customerId);
      expect(page.total).toBe(2);
      expect(page.items[0]).toEqual({
        id: first, name: 'Business Visa', panMask: '411111******1111', paymentMethodTypeId: 1, isDefault: true, cardType: 1,
        expirationMonth: 12, expirationYear: 2030, accountNumber: null, routingNumber: null, accountTypeId: null, accountHolderTypeId: null,
        createdOn: page.items[0]?.createdOn,
      });
    });

    it.each<[string, object, Record<string, string[]>]>([
      ['a number failing Luhn', { ...visa, pan: '4111111111111112' }, { pan: ['fails the Luhn check'] }],
      ['a Visa number of 15 digits', { ...visa, pan: '411111111111116' }, { pan: ['has 15 digits; Visa card numbers have 13 or 16'] }],
      ['a number of no network', { ...visa, pan: '9111111111111111' }, { pan: ['does not match the prefix of a supported card network'] }],
      ['an expired card', { ...visa, expirationMonth: 1, expirationYear: 2020 }, { expirationMonth: ['the card has expired: the expiry must not be in the past'] }],
      ['a 3-digit code on American Express', { pan: '378282246310005', expirationMonth: 1, expirationYear: 2031, securityCode: '123' }, { securityCode: ['must have 4 digits for this card'] }],
      ['a 4-digit code on Visa', { ...visa, securityCode: '1234' }, { securityCode: ['must have 3 digits for this card'] }],
    ])('refuses %s under its field', async (_name, body, errors) => {
      const customerId = await newCustomer();
      const res = await addCard(customerId, body);
      expect(res.status).toBe(400);
      expect(res.body as ErrorBody).toMatchObject({ errorCode: 'validation_failed', errors });
      expect((await list(customerId)).total).toBe(0);
    });

    it.each<[string, object, string]>([
      ['a missing pan', { expirationMonth: 12, expirationYear: 2030 }, 'pan'],
      ['an empty pan', { ...visa, pan: '' }, 'pan'],
      ['a pan with other characters', { ...visa, pan: '4111 1111 1111 1111' }, 'pan'],
      ['a month 13', { ...visa, expirationMonth: 13 }, 'expirationMonth'],
      ['a missing expirationYear', { pan: visa.pan, expirationMonth: 12 }, 'expirationYear'],
      ['a security code of 5 digits', { ...visa, securityCode: '12345' }, 'securityCode'],
    ])('refuses %s (schema)', async (_name, body, field) => {
      const customerId = await newCustomer();
      const res = await addCard(customerId, body);
      expect(res.status).toBe(400);
      expect(Object.keys((res.body as ErrorBody).errors ?? {})).toEqual([field]);
    });

    it('answers a wrong JSON type with the alternative body', async () => {
      const customerId = await newCustomer();
      const res = await addCard(customerId, { ...visa, pan: 4111111111111111 });
      expect(res.status).toBe(400);
      expect(Object.keys((res.body as { errors: Record<string, string> }).errors)).toEqual(['$.pan']);
    });

    it('answers 404 for an unknown customer, even with a bad body', async () => {
      expect((await addCard(UNKNOWN)).status).toBe(404);
      expect((await addCard(UNKNOWN, { ...visa, pan: '4111111111111112' })).status).toBe(404);
    });

    it('accepts a card expiring this month (the clock decides)', async () => {
      const customerId = await newCustomer();
      const now = s.clock.now();
      idOf(await addCard(customerId, { ...visa, expirationMonth: now.getUTCMonth() + 1, expirationYear: now.getUTCFullYear() }));
    });
  });

  describe('add a bank account', () => {
    it('stores the account masked; the first becomes the default bank account', async () => {
      const customerId = await newCustomer();
      const cardId = idOf(await addCard(customerId));
      const first = idOf(await addAch(customerId));
      const second = idOf(await addAch(customerId, { accountNumber: '990000000003', routingNumber: '011000015', accountType: 2, accountHolderType: 2 }));
      const record = await customer(customerId);
      expect(record.defaultPaymentMethodId).toBe(cardId);
      expect(record.defaultAchPaymentMethodId).toBe(first);
      expect(record.achAccounts).toEqual([
        { id: first, name: 'Operating account', isDefault: true, accountNumber: '****6789', routingNumber: '021000021', accountTypeId: 1, accountType: 'Checking', accountHolderTypeId: 1, accountHolderType: 'Business', taxId: '12-3456789' },
        { id: second, name: null, isDefault: false, accountNumber: '****0003', routingNumber: '011000015', accountTypeId: 2, accountType: 'Savings', accountHolderTypeId: 2, accountHolderType: 'Personal', taxId: null },
      ]);
      const item = (await list(customerId)).items.find((i) => i.id === first);
      expect(item).toMatchObject({ paymentMethodTypeId: 2, panMask: null, cardType: null, expirationMonth: null, accountNumber: '****6789', routingNumber: '021000021', accountTypeId: 1, accountHolderTypeId: 1, isDefault: true });
      // What a later ACH payment needs of a magic test number is kept; the number itself is not.
      const row = (await s.db('payment_methods').where({ id: second }).first()) as Record<string, unknown>;
      expect(row).toMatchObject({ last4: '0003', sandbox_magic_code: '03' });
      expect(JSON.stringify(row)).not.toContain('990000000003');
    });

    it.each<[string, object, Record<string, string[]>]>([
      ['a routing number failing the ABA check', { ...account, routingNumber: '021000022' }, { routingNumber: ['fails the ABA check digit'] }],
    ])('refuses %s under its field', async (_name, body, errors) => {
      const customerId = await newCustomer();
      const res = await addAch(customerId, body);
      expect(res.status).toBe(400);
      expect(res.body as ErrorBody).toMatchObject({ errorCode: 'validation_failed', errors });
    });

    it.each<[string, object, string]>([
      ['an account number of 3 digits', { ...account, accountNumber: '123' }, 'accountNumber'],
      ['an account number of 18 digits', { ...account, accountNumber: '123456789012345678' }, 'accountNumber'],
      ['a routing number of 8 digits', { ...account, routingNumber: '02100002' }, 'routingNumber'],
      ['an empty routing number', { ...account, routingNumber: '' }, 'routingNumber'],
      ['an unknown account type', { ...account, accountType: 3 }, 'accountType'],
      ['a missing account holder type', { accountNumber: '1234', routingNumber: '021000021', accountType: 1 }, 'accountHolderType'],
    ])('refuses %s (schema)', async (_name, body, field) => {
      const customerId = await newCustomer();
      const res = await addAch(customerId, body);
      expect(res.status).toBe(400);
      expect(Object.keys((res.body as ErrorBody).errors ?? {})).toEqual([field]);
    });

    it('answers 404 for an unknown customer', async () => {
      expect((await addAch(UNKNOWN)).status).toBe(404);
    });
  });

  describe('update', () => {
    it("changes a card's name and expiry, and nothing else", async () => {
      const customerId = await newCustomer();
      const id = idOf(await addCard(customerId));
      const before = await customer(customerId);
      s.clock.advance(5);
      const res = await put(customerId, id, { name: 'Renewed', expirationMonth: 11, expirationYear: 2032 });
      expect(res.status, res.text).toBe(200);
      expect(res.text).toBe('');
      const after = await customer(customerId);
      expect(after.cards).toEqual([{ ...before.cards[0], name: 'Renewed', expirationMonth: 11, expirationYear: 2032 }]);
      expect(after.modifiedOn > before.modifiedOn).toBe(true);
      // Absent fields keep their values; null clears the name.
      expect((await put(customerId, id, { name: null })).status).toBe(200);
      expect((await customer(customerId)).cards[0]).toMatchObject({ name: null, expirationMonth: 11, expirationYear: 2032 });
    });

    it("changes a bank account's types", async () => {
      const customerId = await newCustomer();
      const id = idOf(await addAch(customerId));
      expect((await put(customerId, id, { accountType: 2, accountHolderType: 2 })).status).toBe(200);
      expect((await customer(customerId)).achAccounts[0]).toMatchObject({ name: 'Operating account', accountTypeId: 2, accountType: 'Savings', accountHolderTypeId: 2, accountHolderType: 'Personal' });
    });

    it.each<[string, 'card' | 'bankAccount', object, string[]]>([
      ['a bank field on a card', 'card', { name: 'x', accountType: 2 }, ['accountType']],
      ['card fields on a bank account', 'bankAccount', { expirationMonth: 1, expirationYear: 2031 }, ['expirationMonth', 'expirationYear']],
      ['an expiry in the past', 'card', { expirationMonth: 1, expirationYear: 2021 }, ['expirationMonth']],
      ['a month without a year', 'card', { expirationMonth: 1 }, ['expirationYear']],
      ['an empty body', 'card', {}, ['body']],
    ])('refuses %s, and changes nothing', async (_name, kind, body, fields) => {
      const customerId = await newCustomer();
      const id = idOf(kind === 'card' ? await addCard(customerId) : await addAch(customerId));
      const before = await customer(customerId);
      const res = await put(customerId, id, body);
      expect(res.status).toBe(400);
      const errors = (res.body as ErrorBody).errors ?? {};
      expect(res.body as ErrorBody).toMatchObject({ errorCode: 'validation_failed' });
      expect(Object.keys(errors)).toEqual(fields);
      expect(await customer(customerId)).toEqual(before);
    });

    it('answers 404 for an unknown payment method, or one of another customer', async () => {
      const customerId = await newCustomer();
      const otherCustomer = await newCustomer();
      const othersCard = idOf(await addCard(otherCustomer));
      expect((await put(customerId, UNKNOWN, { name: 'x' })).status).toBe(404);
      expect((await put(customerId, othersCard, { name: 'x' })).status).toBe(404);
      expect((await put(UNKNOWN, othersCard, { name: 'x' })).status).toBe(404);
    });
  });

  describe('delete and make default', () => {
    it('deleting the default card leaves no default card; no other card takes its place', async () => {
      const customerId = await newCustomer();
      const first = idOf(await addCard(customerId));
      const second = idOf(await addCard(customerId, mastercard));
      const bank = idOf(await addAch(customerId));
      const res = await remove(customerId, first);
      expect(res.status).toBe(200);
      expect(res.text).toBe('');
      const after = await customer(customerId);
      expect(after.defaultPaymentMethodId).toBeNull();
      expect(after.defaultAchPaymentMethodId).toBe(bank);
      expect(after.cards.map((c) => [c.id, c.isDefault])).toEqual([[second, false]]);
      expect((await remove(customerId, first)).status).toBe(404);
      expect((await remove(customerId, bank)).status).toBe(200);
      expect((await customer(customerId)).defaultAchPaymentMethodId).toBeNull();
    });

    it('makes a card or a bank account the default of its kind; again changes nothing', async () => {
      const customerId = await newCustomer();
      const first = idOf(await addCard(customerId));
      const second = idOf(await addCard(customerId, mastercard));
      const bankA = idOf(await addAch(customerId));
      const bankB = idOf(await addAch(customerId, { ...account, accountNumber: '55554444' }));
      const res = await makeDefault(customerId, second);
      expect(res.status).toBe(200);
      expect(res.text).toBe('');
      let record = await customer(customerId);
      expect(record.defaultPaymentMethodId).toBe(second);
      expect(record.defaultAchPaymentMethodId).toBe(bankA);
      expect(record.cards.map((c) => c.isDefault)).toEqual([false, true]);
      expect((await makeDefault(customerId, bankB)).status).toBe(200);
      record = await customer(customerId);
      expect(record.defaultPaymentMethodId).toBe(second);
      expect(record.defaultAchPaymentMethodId).toBe(bankB);
      expect((await list(customerId, { orderBy: 'isDefault', asc: false, pageSize: 2 })).items.map((i) => i.id).sort()).toEqual([second, bankB].sort());
      s.clock.advance(5);
      expect((await makeDefault(customerId, bankB)).status).toBe(200);
      expect(await customer(customerId)).toEqual(record);
      expect((await makeDefault(customerId, UNKNOWN)).status).toBe(404);
      expect((await makeDefault(UNKNOWN, first)).status).toBe(404);
    });
  });

  describe('list', () => {
    let customerId = '';
    const ids: string[] = [];
    beforeAll(async () => {
      customerId = await newCustomer();
      // 15 cards and 2 bank accounts (5 and 11), a second apart; names run backwards so name order differs.
      for (let i = 0; i < 17; i++) {
        const name = `Method ${String.fromCharCode(90 - i)}`;
        const res = i % 6 === 5
          ? await addAch(customerId, { ...account, accountNumber: `7000${String(i).padStart(4, '0')}`, name })
          : await addCard(customerId, { ...visa, name });
        ids.push(idOf(res));
        s.clock.advance(1);
      }
    });

    it('pages by 15, oldest first, with the total of all pages', async () => {
      const first = await list(customerId);
      expect(first.total).toBe(17);
      expect(first.items.map((i) => i.id)).toEqual(ids.slice(0, 15));
      expect((await list(customerId, { page: 1 })).items.map((i) => i.id)).toEqual(ids.slice(15));
      expect(await list(customerId, { page: 3 })).toEqual({ items: [], total: 17 });
      expect((await list(customerId, { pageSize: 5, page: 2 })).items.map((i) => i.id)).toEqual(ids.slice(10, 15));
    });

    it('orders by name, type and default, either way', async () => {
      expect((await list(customerId, { orderBy: 'name', pageSize: 2 })).items.map((i) => i.name)).toEqual(['Method J', 'Method K']);
      expect((await list(customerId, { orderBy: 'name', asc: false, pageSize: 2 })).items.map((i) => i.name)).toEqual(['Method Z', 'Method Y']);
      expect((await list(customerId, { orderBy: 'paymentMethodTypeId', asc: false, pageSize: 3 })).items.map((i) => i.id)).toEqual([ids[11], ids[5], ids[16]]);
      expect((await list(customerId, { orderBy: 'createdOn', asc: false, pageSize: 1 })).items.map((i) => i.id)).toEqual([ids[16]]);
      const defaults = (await list(customerId, { orderBy: 'isDefault', asc: false, pageSize: 2 })).items;
      expect(defaults.map((i) => i.id).sort()).toEqual([ids[0], ids[5]].sort());
      expect(defaults.every((i) => i.isDefault)).toBe(true);
    });

    it('searches the name and the last four digits', async () => {
      expect((await list(customerId, { search: 'method y' })).items.map((i) => i.id)).toEqual([ids[1]]);
      expect((await list(customerId, { search: '0011' })).items.map((i) => i.id)).toEqual([ids[11]]);
      expect((await list(customerId, { search: '1111' })).total).toBe(15);
      // The first six digits of a card are not searched.
      expect((await list(customerId, { search: '411111' })).total).toBe(0);
    });

    it('bounds createdOn with dateFrom and dateTo', async () => {
      const { items } = await list(customerId, { pageSize: 17 });
      const page = await list(customerId, { dateFrom: items[2]?.createdOn ?? '', dateTo: items[4]?.createdOn ?? '' });
      expect(page.items.map((i) => i.id)).toEqual(ids.slice(2, 5));
    });

    it('answers 404 for an unknown customer', async () => {
      const res = await request(s.app).get(`${BASE}/${UNKNOWN}/payment-methods`).set(await headers());
      expect(res.status).toBe(404);
    });
  });

  describe('tenancy', () => {
    it("answers 404 to another merchant on every operation, and changes nothing", async () => {
      const customerId = await newCustomer();
      const cardId = idOf(await addCard(customerId));
      const before = await customer(customerId);
      const other = await headers(1);
      const path = `${BASE}/${customerId}/payment-methods`;
      for (const res of [
        await request(s.app).get(path).set(other),
        await request(s.app).post(`${path}/cards`).set(other).send(visa),
        await request(s.app).post(`${path}/ach`).set(other).send(account),
        await request(s.app).put(`${path}/${cardId}`).set(other).send({ name: 'x' }),
        await request(s.app).put(`${path}/${cardId}/make-default`).set(other),
        await request(s.app).delete(`${path}/${cardId}`).set(other),
        await request(s.app).get(path).set(await headers('partner', 1)),
      ]) {
        expect(res.status).toBe(404);
        expect((res.body as ErrorBody).errorCode).toBe('not_found');
      }
      expect(await customer(customerId)).toEqual(before);
    });

    it('works for a partner naming the merchant, and answers 400 without it', async () => {
      const customerId = await newCustomer('partner', 1);
      const res = await addCard(customerId, visa, 'partner', 1);
      expect(res.status, res.text).toBe(200);
      const page = await request(s.app).get(`${BASE}/${customerId}/payment-methods`).set(await headers('partner', 1));
      expect((page.body as Page).total).toBe(1);
      const without = await request(s.app).get(`${BASE}/${customerId}/payment-methods`).set(await headers('partner'));
      expect(without.status).toBe(400);
      expect((without.body as ErrorBody).errors).toHaveProperty('x-merchant-id');
      expect((await addCard(customerId, visa, 'partner')).status).toBe(400);
    });
  });
});
