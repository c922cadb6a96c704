// The invoice list over HTTP: every filter (status, issue, due and payment date ranges), search, paging,
// each order, tenancy, and Past Due as the clock passes the due dates, on both engines.
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { engines, fieldsOf, startServer, type TestServer } from '../harness.ts';
import { INVOICES, customer, daysFrom, invoiceBody, invoiceCalls, manualLine, type Invoice, type ListItem } from './invoice-helpers.ts';

type Name = 'A' | 'B' | 'C' | 'D' | 'E' | 'F';

describe.each(engines())('invoice list (%s)', (engine) => {
  let s: TestServer;
  let h: Record<string, string>;
  const ids = {} as Record<Name, string>;
  const records = {} as Record<Name, Invoice>;
  const calls = invoiceCalls(() => s);
  const nameOf = (id: string): string => (Object.entries(ids).find(([, value]) => value === id)?.[0] ?? `other:${id}`);
  const names = (items: ListItem[]): string[] => items.map((i) => nameOf(i.id));
  const list = async (query: Record<string, string | number | boolean>): Promise<string[]> => names((await calls.list(h, query)).items);
  /** A fresh token: moving the clock far makes the cached ones expire. */
  const refresh = async (): Promise<void> => { h = { Authorization: `Bearer ${await s.token(0)}` }; };

  const body = (first: string, last: string, amount: number, extra: Record<string, unknown> = {}): Record<string, unknown> =>
    invoiceBody({ customer: customer({ firstName: first, lastName: last, companyName: `${last} Co`, email: `${first.toLowerCase()}@${last.toLowerCase()}.example` }),
      lineItems: [manualLine({ unitPrice: amount, quantity: 1 })], ...extra });

  beforeAll(async () => {
    s = await startServer(engine);
    h = await s.as(0);
    // Six invoices a minute apart: A draft, B due in 10 days, C due in 40, D paid, E cancelled, F draft.
    ids.A = await calls.create(h, body('Alice', 'Zephyr', 10));
    s.clock.advance(60);
    ids.B = await calls.publish(h, body('Bob', 'Young', 200, { dueDate: daysFrom(s, 10) }));
    s.clock.advance(60);
    ids.C = await calls.publish(h, body('Carol', 'Xavier', 30, { dueDate: daysFrom(s, 40) }));
    s.clock.advance(60);
    ids.D = await calls.publish(h, body('Dan', 'Walker', 4000, { dueDate: daysFrom(s, 20) }));
    await request(s.app).put(`${INVOICES}/${ids.D}/mark-as-paid`).set(h).send({ paymentMethodTypeId: 1 }).expect(200);
    s.clock.advance(60);
    ids.E = await calls.publish(h, body('Eve', 'Vance', 500, { dueDate: daysFrom(s, 5) }));
    await request(s.app).put(`${INVOICES}/${ids.E}/cancel`).set(h).expect(200);
    s.clock.advance(60);
    ids.F = await calls.create(h, body('Frank', 'Underwood', 60));
    for (const [name, id] of Object.entries(ids) as [Name, string][]) records[name] = await calls.get(h, id);
  });
  afterAll(async () => { await s.close(); });

  it('lists in creation order, with the list item of each invoice', async () => {
    const page = await calls.list(h);
    expect([names(page.items), page.total]).toEqual([['A', 'B', 'C', 'D', 'E', 'F'], 6]);
    expect(page.items[0]).toEqual({ id: ids.A, number: null, customerName: 'Alice Zephyr', issueDate: null, dueDate: null, paymentDate: null, totalAmount: 10, status: 1 });
    const d = records.D;
    expect(page.items[3]).toEqual({ id: ids.D, number: d.number, customerName: 'Dan Walker', issueDate: d.issueDate, dueDate: d.dueDate, paymentDate: d.paymentDate, totalAmount: 4000, status: 4 });
    expect(page.items.map((i) => i.status)).toEqual([1, 2, 2, 4, 5, 1]);
  });

  it('pages: pageSize, a page past the end (empty, with the total), 15 by default', async () => {
    expect(await list({ pageSize: 2 })).toEqual(['A', 'B']);
    expect(await list({ pageSize: 2, page: 2 })).toEqual(['E', 'F']);
    expect(await calls.list(h, { pageSize: 2, page: 5 })).toEqual({ items: [], total: 6 });
    const other = await s.as(1);
    for (let i = 0; i < 16; i++) await calls.create(other, body('Page', `Filler${i}`, 1));
    const page = await calls.list(other);
    expect([page.items.length, page.total]).toEqual([15, 16]);
    expect((await request(s.app).get(INVOICES).set(h).query({ pageSize: 101 })).status).toBe(400);
  });

  it('filters by status', async () => {
    expect(await list({ status: 1 })).toEqual(['A', 'F']);
    expect(await list({ status: 2 })).toEqual(['B', 'C']);
    expect(await list({ status: 3 })).toEqual([]);
    expect(await list({ status: 4 })).toEqual(['D']);
    expect(await list({ status: 5 })).toEqual(['E']);
    expect((await request(s.app).get(INVOICES).set(h).query({ status: 6 })).status).toBe(400);
  });

  it('filters by issue date, inclusive; drafts have none', async () => {
    const { B, C, D } = records;
    expect(await list({ issueDateFrom: B.issueDate ?? '', issueDateTo: C.issueDate ?? '' })).toEqual(['B', 'C']);
    expect(await list({ issueDateFrom: D.issueDate ?? '' })).toEqual(['D', 'E']);
    expect(await list({ issueDateTo: B.issueDate ?? '' })).toEqual(['B']);
    // The same instant with an offset.
    const shifted = new Date(Date.parse(C.issueDate ?? '')).toISOString().replace('Z', '+00:00');
    expect(await list({ issueDateFrom: shifted, issueDateTo: shifted })).toEqual(['C']);
  });

  it('filters by due date and by payment date', async () => {
    expect(await list({ dueDateFrom: daysFrom(s, 6), dueDateTo: daysFrom(s, 25) })).toEqual(['B', 'D']);
    expect(await list({ dueDateTo: daysFrom(s, 6) })).toEqual(['E']);
    expect(await list({ dueDateFrom: daysFrom(s, 30) })).toEqual(['C']);
    const paid = records.D.paymentDate ?? '';
    expect(await list({ paymentDateFrom: paid, paymentDateTo: paid })).toEqual(['D']);
    expect(await list({ paymentDateTo: new Date(Date.parse(paid) - 1).toISOString() })).toEqual([]);
    // Filters combine.
    expect(await list({ status: 2, dueDateFrom: daysFrom(s, 30) })).toEqual(['C']);
    expect(await list({ status: 4, dueDateFrom: daysFrom(s, 30) })).toEqual([]);
    const bad = await request(s.app).get(INVOICES).set(h).query({ dueDateFrom: 'next week' });
    expect([bad.status, fieldsOf(bad.body)]).toEqual([400, ['dueDateFrom']]);
  });

  it('searches the number and the customer names, company and e-mail, case-insensitively', async () => {
    expect(await list({ search: 'zephyr' })).toEqual(['A']);
    expect(await list({ search: 'ALICE@' })).toEqual(['A']);
    expect(await list({ search: 'bob' })).toEqual(['B']);
    expect(await list({ search: 'vance co' })).toEqual(['E']);
    expect(await list({ search: (records.D.number ?? '').toLowerCase() })).toEqual(['D']);
    expect(await list({ search: 'inv-' })).toEqual(['B', 'C', 'D', 'E']);
    expect(await list({ search: '%' })).toEqual([]);
    expect(await list({ search: 'nobody' })).toEqual([]);
  });

  it('orders by each field, nulls after every value in ascending order', async () => {
    // Two drafts tie on a null: their order among themselves is the id's.
    const tail = (items: string[]): string[] => [...items.slice(0, -2), ...items.slice(-2).sort()];
    const head = (items: string[]): string[] => [...items.slice(0, 2).sort(), ...items.slice(2)];
    expect(tail(await list({ orderBy: 'number' }))).toEqual(['B', 'C', 'D', 'E', 'A', 'F']);
    expect(head(await list({ orderBy: 'number', asc: false }))).toEqual(['A', 'F', 'E', 'D', 'C', 'B']);
    expect(await list({ orderBy: 'customerName' })).toEqual(['A', 'B', 'C', 'D', 'E', 'F']);
    expect(await list({ orderBy: 'customerName', asc: false })).toEqual(['F', 'E', 'D', 'C', 'B', 'A']);
    expect(await list({ orderBy: 'totalAmount' })).toEqual(['A', 'C', 'F', 'B', 'E', 'D']);
    expect(tail(await list({ orderBy: 'issueDate' }))).toEqual(['B', 'C', 'D', 'E', 'A', 'F']);
    expect(tail(await list({ orderBy: 'dueDate' }))).toEqual(['E', 'B', 'D', 'C', 'A', 'F']);
    expect((await list({ orderBy: 'paymentDate' }))[0]).toBe('D');
    expect((await list({ orderBy: 'paymentDate', asc: false })).at(-1)).toBe('D');
    expect((await calls.list(h, { orderBy: 'status' })).items.map((i) => i.status)).toEqual([1, 1, 2, 2, 4, 5]);
    expect((await calls.list(h, { orderBy: 'status', asc: false })).items.map((i) => i.status)).toEqual([5, 4, 2, 2, 1, 1]);
    expect(await list({ asc: false })).toEqual(['F', 'E', 'D', 'C', 'B', 'A']);
    expect((await request(s.app).get(INVOICES).set(h).query({ orderBy: 'createdOn' })).status).toBe(400);
  });

  it("lists only the merchant's own invoices; a partner names the merchant", async () => {
    const other = await calls.list(await s.as(1), { pageSize: 100 });
    expect(other.items.filter((i) => Object.values(ids).includes(i.id))).toEqual([]);
    expect(names((await calls.list(await s.as('partner', 0))).items)).toEqual(['A', 'B', 'C', 'D', 'E', 'F']);
  });

  it('turns a Due invoice PastDue when the clock passes its due date (listable by status 3)', async () => {
    s.clock.advance(11 * 86_400);
    await refresh();
    expect(await list({ status: 3 })).toEqual(['B']);
    expect(await list({ status: 2 })).toEqual(['C']);
    expect((await calls.list(h)).items.map((i) => i.status)).toEqual([1, 3, 2, 4, 5, 1]);
    expect((await calls.list(h, { orderBy: 'status' })).items.map((i) => [nameOf(i.id), i.status]).slice(2))
      .toEqual([['C', 2], ['B', 3], ['D', 4], ['E', 5]]);
    const b = await calls.get(h, ids.B);
    expect(b.status).toBe(3);
    expect(b.history.map((e) => [e.typeName, e.createdOn])).toEqual([['Created', b.issueDate], ['Published', b.issueDate], ['PastDue', b.dueDate]]);
    // Paid (D) and cancelled (E) before their due dates: no PastDue.
    expect((await calls.get(h, ids.D)).history.map((e) => e.typeName)).toEqual(['Created', 'Published', 'MarkedAsPaid']);
    expect((await calls.get(h, ids.E)).history.map((e) => e.typeName)).toEqual(['Created', 'Published', 'Cancelled']);
    s.clock.advance(30 * 86_400);
    await refresh();
    expect(await list({ status: 3 })).toEqual(['B', 'C']);
    expect(await list({ status: 2 })).toEqual([]);
  });
});
