// The catalogue's line items over HTTP (create, list with its filters, update, delete), on both engines.
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LINE_ITEMS, UNKNOWN, catalogueCalls, type AlternativeBody, type LineItem, type Page } from './catalogue-helpers.ts';
import { engines, fieldsOf, startServer, type ErrorBody, type TestServer } from '../harness.ts';




describe.each(engines())('catalogue line items (%s)', (engine) => {
  let s: TestServer;
  beforeAll(async () => { s = await startServer(engine); });
  afterAll(async () => { await s.close(); });

  const as = (who: 0 | 1 | 'partner', acting?: 0 | 1): Promise<Record<string, string>> => s.as(who, acting);

  const { createCategory, createItem, categories, items } = catalogueCalls(() => s);

  describe('line items', () => {
    it('creates an item and lists it with its unit type and category', async () => {
      const h = await as(0);
      const category = await createCategory(h, { name: 'Web services', defaultUnitTypeId: 2 });
      const id = await createItem(h, {
        productName: 'Website maintenance', description: 'Monthly updates, backups and monitoring', sku: 'SVC-WM-01',
        unitPrice: 85, unitTypeId: 2, categoryId: category, taxRate: 8.25,
      });
      expect((await items(h, { search: 'website maintenance' })).items).toEqual([{
        id, unitType: 'Hour', unitTypeId: 2, productName: 'Website maintenance', description: 'Monthly updates, backups and monitoring',
        sku: 'SVC-WM-01', unitPrice: 85, categoryId: category, categoryName: 'Web services', categoryDefaultUnitTypeId: 2, taxRate: 8.25,
      }]);
    });

    it('keeps the price in exact cents, refuses a price of more than two decimal places, and taxRate 0 by default', async () => {
      const h = await as(0);
      const id = await createItem(h, { productName: 'Exact cable', unitPrice: 1.01, unitTypeId: 1 });
      const item = (await items(h, { search: 'exact cable' })).items[0];
      expect(item).toMatchObject({ id, unitPrice: 1.01, taxRate: 0, description: null, sku: null, categoryId: null, categoryName: null, unitType: 'Each' });
      const stored = (await s.db('line_items').where({ id }).first()) as { unit_price_cents: number | string };
      expect(Number(stored.unit_price_cents)).toBe(101);
      for (const unitPrice of [1.005, 12.344]) {
        const res = await request(s.app).post(LINE_ITEMS).set(h).send({ productName: 'Rounded hose', unitPrice, unitTypeId: 1 });
        expect([res.status, fieldsOf(res.body)]).toEqual([400, ['unitPrice']]);
      }
      expect((await items(h, { search: 'rounded hose' })).items).toEqual([]);
    });

    it('refuses bad values, keyed by field', async () => {
      const h = await as(0);
      const foreign = await createCategory(await as(1), { name: 'Foreign shelf' });
      const cases: [object, string][] = [
        [{ unitPrice: 1, unitTypeId: 1 }, 'productName'],
        [{ productName: null, unitPrice: 1, unitTypeId: 1 }, 'productName'],
        [{ productName: '  ', unitPrice: 1, unitTypeId: 1 }, 'productName'],
        [{ productName: 'x', unitTypeId: 1 }, 'unitPrice'],
        [{ productName: 'x', unitPrice: -1, unitTypeId: 1 }, 'unitPrice'],
        [{ productName: 'x', unitPrice: 1_000_001, unitTypeId: 1 }, 'unitPrice'],
        [{ productName: 'x', unitPrice: 1 }, 'unitTypeId'],
        [{ productName: 'x', unitPrice: 1, unitTypeId: 99 }, 'unitTypeId'],
        [{ productName: 'x', unitPrice: 1, unitTypeId: 1, taxRate: 100.5 }, 'taxRate'],
        [{ productName: 'x', unitPrice: 1, unitTypeId: 1, sku: 's'.repeat(65) }, 'sku'],
        [{ productName: 'x', unitPrice: 1, unitTypeId: 1, categoryId: 'shelf' }, 'categoryId'],
        // Another merchant's category, or none: a validation error on the body field, not a 404.
        [{ productName: 'x', unitPrice: 1, unitTypeId: 1, categoryId: foreign }, 'categoryId'],
        [{ productName: 'x', unitPrice: 1, unitTypeId: 1, categoryId: UNKNOWN }, 'categoryId'],
      ];
      for (const [body, field] of cases) {
        const res = await request(s.app).post(LINE_ITEMS).set(h).send(body);
        expect([res.status, (res.body as ErrorBody).errorCode, fieldsOf(res.body)], JSON.stringify(body)).toEqual([400, 'validation_failed', [field]]);
      }
      const typed = await request(s.app).post(LINE_ITEMS).set(h).send({ productName: 'x', unitPrice: '12.50', unitTypeId: 1 });
      expect(typed.status).toBe(400);
      expect(Object.keys((typed.body as AlternativeBody).errors)).toEqual(['$.unitPrice']);
      expect((await items(h, { search: 'x' })).items.filter((i) => i.productName === 'x')).toEqual([]);
    });

    it('replaces an item\'s values on update', async () => {
      const h = await as(0);
      const category = await createCategory(h, { name: 'Updates' });
      const id = await createItem(h, { productName: 'Old lamp', description: 'brass', sku: 'L-1', unitPrice: 20, unitTypeId: 1, categoryId: category, taxRate: 5 });
      const res = await request(s.app).put(`${LINE_ITEMS}/${id}`).set(h).send({ productName: 'New lamp', unitPrice: 25.5, unitTypeId: 15 });
      expect([res.status, res.text]).toEqual([200, '']);
      expect((await items(h, { search: 'lamp' })).items).toEqual([{
        id, unitType: 'Box', unitTypeId: 15, productName: 'New lamp', description: null, sku: null, unitPrice: 25.5,
        categoryId: null, categoryName: null, categoryDefaultUnitTypeId: null, taxRate: 0,
      }]);
      const back = await request(s.app).put(`${LINE_ITEMS}/${id}`).set(h).send({ productName: 'New lamp', unitPrice: 25.5, unitTypeId: 15, categoryId: category.toUpperCase(), taxRate: 7 });
      expect(back.status).toBe(200);
      expect((await items(h, { search: 'lamp' })).items[0]).toMatchObject({ categoryId: category, categoryName: 'Updates', taxRate: 7 });
      const bad = await request(s.app).put(`${LINE_ITEMS}/${id}`).set(h).send({ productName: 'New lamp', unitPrice: 1, unitTypeId: 404 });
      expect([bad.status, fieldsOf(bad.body)]).toEqual([400, ['unitTypeId']]);
      const unknown = await request(s.app).put(`${LINE_ITEMS}/${UNKNOWN}`).set(h).send({ productName: 'x', unitPrice: 1, unitTypeId: 1 });
      expect([unknown.status, (unknown.body as ErrorBody).entityId]).toEqual([404, UNKNOWN]);
    });

    it('deletes an item; an unknown id is a 404', async () => {
      const h = await as(0);
      const id = await createItem(h, { productName: 'Doomed item' });
      const res = await request(s.app).delete(`${LINE_ITEMS}/${id}`).set(h);
      expect([res.status, res.text]).toEqual([200, '']);
      expect((await items(h, { search: 'doomed' })).total).toBe(0);
      const again = await request(s.app).delete(`${LINE_ITEMS}/${id}`).set(h);
      expect(again.status).toBe(404);
      expect(again.body).toMatchObject({ errorCode: 'not_found', entityId: id, statusCode: 404 });
    });

    it('filters by category or by no category, not both', async () => {
      const h = await as('partner', 0);
      const tools = await createCategory(h, { name: 'Filter tools' });
      const paint = await createCategory(h, { name: 'Filter paint' });
      const hammer = await createItem(h, { productName: 'Filter hammer', categoryId: tools });
      const saw = await createItem(h, { productName: 'Filter saw', categoryId: tools });
      const brush = await createItem(h, { productName: 'Filter brush', categoryId: paint });
      const loose = await createItem(h, { productName: 'Filter loose' });
      const ids = (page: Page<LineItem>) => page.items.map((i) => i.id);
      expect(ids(await items(h, { search: 'filter', categoryId: tools }))).toEqual([hammer, saw]);
      expect(ids(await items(h, { search: 'filter', noCategory: true }))).toEqual([loose]);
      expect(ids(await items(h, { search: 'filter', noCategory: false }))).toEqual([brush, hammer, loose, saw]);
      expect((await categories(h, { search: 'filter tools' })).items[0]?.itemCount).toBe(2);
      const both = await request(s.app).get(LINE_ITEMS).set(h).query({ categoryId: tools, noCategory: true });
      expect([both.status, (both.body as ErrorBody).errorCode, fieldsOf(both.body)]).toEqual([400, 'validation_failed', ['categoryId', 'noCategory']]);
      const foreign = await createCategory(await as(1), { name: 'Filter foreign' });
      const other = await request(s.app).get(LINE_ITEMS).set(h).query({ categoryId: foreign });
      expect([other.status, fieldsOf(other.body)]).toEqual([400, ['categoryId']]);
      const notUuid = await request(s.app).get(LINE_ITEMS).set(h).query({ categoryId: 'tools' });
      expect(notUuid.status).toBe(400);
    });

    it('pages, orders and searches', async () => {
      const h = await as(1);
      const shelf = await createCategory(h, { name: 'Aaa shelf' });
      const created: { name: string; price: number; unit: number; sku: string }[] = [];
      for (let i = 0; i < 18; i++) {
        const entry = { name: `Sorted ${String(i).padStart(2, '0')}`, price: (i * 7) % 18 + 0.5, unit: [1, 2, 6, 13][i % 4] ?? 1, sku: `SKU-${String(17 - i).padStart(2, '0')}` };
        created.push(entry);
        await createItem(h, { productName: entry.name, unitPrice: entry.price, unitTypeId: entry.unit, sku: entry.sku, ...(i === 5 ? { categoryId: shelf } : {}) });
      }
      const names = created.map((c) => c.name);
      const first = await items(h, { search: 'sorted' });
      expect([first.total, first.items.length]).toEqual([18, 15]);
      expect(first.items.map((i) => i.productName)).toEqual(names.slice(0, 15));
      expect((await items(h, { search: 'sorted', page: 1 })).items.map((i) => i.productName)).toEqual(names.slice(15));
      expect(await items(h, { search: 'sorted', page: 4, pageSize: 5 })).toEqual({ items: [], total: 18 });
      const byPrice = await items(h, { search: 'sorted', orderBy: 'unitPrice', asc: false, pageSize: 18 });
      expect(byPrice.items.map((i) => i.unitPrice)).toEqual(created.map((c) => c.price).sort((a, b) => b - a));
      const bySku = await items(h, { search: 'sorted', orderBy: 'sku', pageSize: 3 });
      expect(bySku.items.map((i) => i.sku)).toEqual(['SKU-00', 'SKU-01', 'SKU-02']);
      // By unit type name: Each, Hour, Kilogram, Liter.
      const byUnit = await items(h, { search: 'sorted', orderBy: 'unitType', pageSize: 18 });
      const unitNames = byUnit.items.map((i) => i.unitType);
      expect(unitNames).toEqual([...unitNames].sort());
      expect(new Set(unitNames)).toEqual(new Set(['Each', 'Hour', 'Kilogram', 'Liter']));
      const byCategory = await items(h, { search: 'sorted', orderBy: 'categoryName', asc: false, pageSize: 1 });
      expect(byCategory.items[0]?.categoryName).toBe('Aaa shelf');
      // search matches the sku and the description too.
      expect((await items(h, { search: 'sku-07' })).items.map((i) => i.productName)).toEqual(['Sorted 10']);
      await createItem(h, { productName: 'Plain', description: 'Has a HIDDEN word' });
      expect((await items(h, { search: 'hidden' })).items.map((i) => i.productName)).toEqual(['Plain']);
      // LIKE wildcards are literal.
      expect((await items(h, { search: '%' })).total).toBe(0);
    });

    it('keeps each merchant to its own items', async () => {
      const own = await createItem(await as(0), { productName: 'Secret sauce' });
      const other = await as(1);
      expect((await items(other, { search: 'secret sauce' })).total).toBe(0);
      const update = await request(s.app).put(`${LINE_ITEMS}/${own}`).set(other).send({ productName: 'Mine now', unitPrice: 1, unitTypeId: 1 });
      expect([update.status, (update.body as ErrorBody).errorCode]).toEqual([404, 'not_found']);
      const del = await request(s.app).delete(`${LINE_ITEMS}/${own}`).set(other);
      expect(del.status).toBe(404);
      expect((await items(await as(0), { search: 'secret sauce' })).total).toBe(1);
      const partner = await request(s.app).get(LINE_ITEMS).set(await as('partner'));
      expect([partner.status, fieldsOf(partner.body)]).toEqual([400, ['x-merchant-id']]);
      const viaPartner = await items(await as('partner', 0), { search: 'secret sauce' });
      expect(viaPartner.items.map((i) => i.id)).toEqual([own]);
    });
  });
});
