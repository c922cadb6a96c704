// SQLite's customer search index written once a commit (migration 025): a customer written in a transaction is
// indexed before it commits, one noted by a plain insert is found all the same, and an update or a delete of
// either kind leaves the search answering what the rows hold.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDatabase, migrate, type Database } from '../db/knex.ts';
import { seedDemoData } from '../db/seed.ts';
import { transaction } from '../platform/transaction.ts';
import { systemClock } from '../platform/time.ts';
import { deleteCustomer, indexPendingCustomers, insertCustomer, searchCustomers, updateCustomerFields, type CustomerFields } from './customers.ts';

const fields = (firstName: string): CustomerFields => ({
  firstName, lastName: 'Pending', companyName: null, email: `${firstName.toLowerCase()}@example.com`, mobilePhoneNumber: null,
  smsNotificationsEnabled: false, useBillingAsShipping: true, billingAddress: null, shippingAddress: null,
});

describe('the SQLite customer search index, written once a commit', () => {
  let db: Database;
  let merchantId: string;
  const now = new Date().toISOString();
  const noted = async (): Promise<number> => ((await db.raw<{ n: number }[]>('select count(*) as n from customers_search_pending'))[0])?.n ?? -1;
  const indexed = async (): Promise<number> => ((await db.raw<{ n: number }[]>("select count(*) as n from customers_search where customers_search match '\"pending\"'"))[0])?.n ?? -1;
  const found = async (search: string): Promise<string[]> => (await searchCustomers(db, [merchantId], { search, pageSize: 50 })).items.map((c) => c.firstName ?? '').sort();

  beforeAll(async () => {
    db = createDatabase('sqlite::memory:');
    await migrate(db, 'sandbox');
    merchantId = (await seedDemoData(db, systemClock, 'sandbox'))?.merchants[0]?.merchantId ?? '';
  });
  afterAll(async () => { await db.destroy(); });

  it('indexes the customers of a group commit before it commits, and leaves nothing noted', async () => {
    const names = Array.from({ length: 12 }, (_, i) => `Grouped${String(i)}`);
    await Promise.all(names.map((name) => transaction(db, (tx) => insertCustomer(tx, { id: randomUUID(), merchantId, fields: fields(name), createdOn: now }))));
    expect(await noted()).toBe(0);
    expect(await indexed()).toBe(12);
    expect(await found('grouped')).toEqual([...names].sort());
    expect((await searchCustomers(db, [merchantId], { search: 'grouped1', pageSize: 50 })).total).toBe(3);
  });

  it('finds a customer the trigger noted and nothing indexed yet, once, before and after it is indexed', async () => {
    const id = randomUUID();
    await db('customers').insert({ id, merchant_id: merchantId, first_name: 'Plain', last_name: 'Pending', email: 'plain@example.com', created_on: now, modified_on: now });
    expect(await noted()).toBe(1);
    expect(await found('plain')).toEqual(['Plain']);
    await indexPendingCustomers(db);
    expect([await noted(), await found('plain')]).toEqual([0, ['Plain']]);
  });

  it('answers what an updated or deleted customer holds, noted or indexed', async () => {
    const noteOnly = randomUUID();
    const indexedId = randomUUID();
    await db('customers').insert({ id: indexedId, merchant_id: merchantId, first_name: 'Before', last_name: 'Pending', created_on: now, modified_on: now });
    await indexPendingCustomers(db);
    await db('customers').insert({ id: noteOnly, merchant_id: merchantId, first_name: 'Earlier', last_name: 'Pending', created_on: now, modified_on: now });
    await updateCustomerFields(db, merchantId, indexedId, fields('After'), now);
    await updateCustomerFields(db, merchantId, noteOnly, fields('Later'), now);
    expect([await found('before'), await found('after'), await found('earlier'), await found('later')]).toEqual([[], ['After'], [], ['Later']]);
    await indexPendingCustomers(db);
    expect([await found('after'), await found('later'), await found('earlier')]).toEqual([['After'], ['Later'], []]);
    const gone = randomUUID();
    await db('customers').insert({ id: gone, merchant_id: merchantId, first_name: 'Gone', last_name: 'Pending', created_on: now, modified_on: now });
    await transaction(db, async (tx) => {
      expect(await deleteCustomer(tx, merchantId, gone)).toBe(true);
      expect(await deleteCustomer(tx, merchantId, indexedId)).toBe(true);
    });
    expect([await noted(), await found('gone'), await found('after'), await found('later')]).toEqual([0, [], [], ['Later']]);
  });
});
