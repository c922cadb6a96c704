// The product catalogue over HTTP: categories and unit types, on both engines (line items: catalogue-line-items.test.ts).
import { readFileSync } from 'node:fs';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { CATEGORIES, UNKNOWN, catalogueCalls, type AlternativeBody } from './catalogue-helpers.ts';
import { engines, fieldsOf, startServer, type ErrorBody, type TestServer } from '../harness.ts';

const UNIT_TYPES = '/pay-int-api/line-items/unit-types';



describe.each(engines())('catalogue (%s)', (engine) => {
  let s: TestServer;
  beforeAll(async () => { s = await startServer(engine); });
  afterAll(async () => { await s.close(); });

  const as = (who: 0 | 1 | 'partner', acting?: 0 | 1): Promise<Record<string, string>> => s.as(who, acting);

  const { createCategory, createItem, categories, items } = catalogueCalls(() => s);

  describe('unit types', () => {
    it('lists the spec\'s unit types, in id order, for any caller', async () => {
      const data = parse(readFileSync('spec/data/unit-types.yaml', 'utf8')) as { value: { id: number }[] };
      const res = await request(s.app).get(UNIT_TYPES).set(await as(0));
      expect(res.status).toBe(200);
      expect(res.body).toEqual([...data.value].sort((a, b) => a.id - b.id));
      // The list is not the merchant's: a partner need not name one.
      const partner = await request(s.app).get(UNIT_TYPES).set(await as('partner'));
      expect(partner.status).toBe(200);
      expect(partner.body).toEqual(res.body);
    });
  });

  describe('categories', () => {
    it('creates a category and lists it with its item count', async () => {
      const h = await as(0);
      const id = await createCategory(h, { name: 'Services', defaultUnitTypeId: 2 });
      expect(id).toMatch(/^[0-9a-f-]{36}$/);
      const plain = await createCategory(h, { name: 'Hosting' });
      await createItem(h, { productName: 'Maintenance', categoryId: id });
      await createItem(h, { productName: 'Consulting', categoryId: id });
      const list = await categories(h, { search: 'services' });
      expect(list).toEqual({ items: [{ name: 'Services', id, defaultUnitTypeId: 2, itemCount: 2 }], total: 1 });
      expect((await categories(h, { search: 'hosting' })).items).toEqual([{ name: 'Hosting', id: plain, defaultUnitTypeId: null, itemCount: 0 }]);
    });

    it('keeps names unique per merchant, compared trimmed and case-insensitively', async () => {
      const h = await as(0);
      const id = await createCategory(h, { name: '  Garden tools ' });
      expect((await categories(h, { search: 'garden' })).items.map((c) => c.name)).toEqual(['Garden tools']);
      for (const name of ['Garden tools', 'GARDEN TOOLS', ' garden tools  ']) {
        const res = await request(s.app).post(CATEGORIES).set(h).send({ name });
        expect(res.status).toBe(400);
        expect(res.body).toMatchObject({ errorCode: 'duplicate_category_name', statusCode: 400, entityId: id });
      }
      // Another merchant may have the same name.
      await createCategory(await as(1), { name: 'Garden tools' });
      expect((await categories(h, { search: 'garden' })).total).toBe(1);
    });

    it('refuses a missing, null or blank name and an unknown unit type', async () => {
      const h = await as(0);
      for (const body of [{}, { name: null }, { name: '   ' }, { name: '' }, { name: 'x'.repeat(101) }]) {
        const res = await request(s.app).post(CATEGORIES).set(h).send(body);
        expect(res.status, JSON.stringify(body)).toBe(400);
        expect((res.body as ErrorBody).errorCode).toBe('validation_failed');
        expect(fieldsOf(res.body)).toEqual(['name']);
      }
      const unit = await request(s.app).post(CATEGORIES).set(h).send({ name: 'Odd units', defaultUnitTypeId: 999 });
      expect([unit.status, fieldsOf(unit.body)]).toEqual([400, ['defaultUnitTypeId']]);
      expect((await categories(h, { search: 'odd units' })).total).toBe(0);
    });

    it('answers a JSON value of the wrong type with the alternative body', async () => {
      const res = await request(s.app).post(CATEGORIES).set(await as(0)).send({ name: 'Typed', defaultUnitTypeId: '2' });
      expect(res.status).toBe(400);
      expect(Object.keys((res.body as AlternativeBody).errors)).toEqual(['$.defaultUnitTypeId']);
      const name = await request(s.app).post(CATEGORIES).set(await as(0)).send({ name: 42 });
      expect(Object.keys((name.body as AlternativeBody).errors)).toEqual(['$.name']);
    });

    it('renames a category, keeps its own name and refuses another\'s', async () => {
      const h = await as(0);
      const id = await createCategory(h, { name: 'Bikes', defaultUnitTypeId: 1 });
      await createCategory(h, { name: 'Boats' });
      const rename = await request(s.app).put(`${CATEGORIES}/${id}`).set(h).send({ name: 'Bicycles', defaultUnitTypeId: null });
      expect([rename.status, rename.text]).toEqual([200, '']);
      expect((await categories(h, { search: 'bicycles' })).items).toEqual([{ name: 'Bicycles', id, defaultUnitTypeId: null, itemCount: 0 }]);
      const own = await request(s.app).put(`${CATEGORIES}/${id}`).set(h).send({ name: ' BICYCLES', defaultUnitTypeId: 15 });
      expect(own.status).toBe(200);
      expect((await categories(h, { search: 'bicycles' })).items).toEqual([{ name: 'BICYCLES', id, defaultUnitTypeId: 15, itemCount: 0 }]);
      const taken = await request(s.app).put(`${CATEGORIES}/${id}`).set(h).send({ name: 'boats' });
      expect([taken.status, (taken.body as ErrorBody).errorCode]).toEqual([400, 'duplicate_category_name']);
      const blank = await request(s.app).put(`${CATEGORIES}/${id}`).set(h).send({ name: ' ' });
      expect([blank.status, fieldsOf(blank.body)]).toEqual([400, ['name']]);
      const unit = await request(s.app).put(`${CATEGORIES}/${id}`).set(h).send({ name: 'Bicycles', defaultUnitTypeId: 0 });
      expect([unit.status, fieldsOf(unit.body)]).toEqual([400, ['defaultUnitTypeId']]);
      const unknown = await request(s.app).put(`${CATEGORIES}/${UNKNOWN}`).set(h).send({ name: 'Nothing' });
      expect(unknown.status).toBe(404);
      expect(unknown.body).toMatchObject({ errorCode: 'not_found', entityId: UNKNOWN });
      const badId = await request(s.app).put(`${CATEGORIES}/not-a-uuid`).set(h).send({ name: 'Nothing' });
      expect(badId.status).toBe(400);
    });

    it('deletes a category and keeps its items, without a category', async () => {
      const h = await as(0);
      const id = await createCategory(h, { name: 'Seasonal', defaultUnitTypeId: 3 });
      const item = await createItem(h, { productName: 'Snow shovel', categoryId: id });
      const before = (await items(h, { search: 'snow shovel' })).items[0];
      expect(before).toMatchObject({ categoryId: id, categoryName: 'Seasonal', categoryDefaultUnitTypeId: 3 });
      const res = await request(s.app).delete(`${CATEGORIES}/${id}`).set(h);
      expect([res.status, res.text]).toEqual([200, '']);
      expect((await categories(h, { search: 'seasonal' })).total).toBe(0);
      const after = (await items(h, { search: 'snow shovel' })).items;
      expect(after).toEqual([{ ...before, id: item, categoryId: null, categoryName: null, categoryDefaultUnitTypeId: null }]);
      const stored = (await s.db('line_items').where({ id: item }).first()) as { category_id: string | null };
      expect(stored.category_id).toBeNull();
      const again = await request(s.app).delete(`${CATEGORIES}/${id}`).set(h);
      expect([again.status, (again.body as ErrorBody).errorCode]).toEqual([404, 'not_found']);
      // The name is free again.
      await createCategory(h, { name: 'seasonal' });
    });

    it('pages, orders and searches', async () => {
      // Merchant 1 through the partner: a catalogue of its own for exact counts.
      const h = await as('partner', 1);
      const before = (await categories(h)).total;
      const names = Array.from({ length: 20 }, (_, i) => `Paged ${String(i).padStart(2, '0')}`);
      const ids: string[] = [];
      for (const name of names) ids.push(await createCategory(h, { name }));
      // Items make the item-count order differ from the name order.
      await createItem(h, { productName: 'a', categoryId: ids[3] });
      await createItem(h, { productName: 'b', categoryId: ids[3] });
      await createItem(h, { productName: 'c', categoryId: ids[7] });

      const first = await categories(h, { search: 'paged' });
      expect(first.total).toBe(20);
      expect(first.items.map((c) => c.name)).toEqual(names.slice(0, 15));
      const second = await categories(h, { search: 'paged', page: 1 });
      expect(second.items.map((c) => c.name)).toEqual(names.slice(15));
      const sized = await categories(h, { search: 'PAGED', pageSize: 4, page: 2 });
      expect(sized).toMatchObject({ total: 20 });
      expect(sized.items.map((c) => c.name)).toEqual(names.slice(8, 12));
      const past = await categories(h, { search: 'paged', page: 9 });
      expect(past).toEqual({ items: [], total: 20 });
      const desc = await categories(h, { search: 'paged', asc: false, pageSize: 3 });
      expect(desc.items.map((c) => c.name)).toEqual([names[19], names[18], names[17]]);
      const byCount = await categories(h, { search: 'paged', orderBy: 'itemCount', asc: false, pageSize: 2 });
      expect(byCount.items.map((c) => [c.name, c.itemCount])).toEqual([[names[3], 2], [names[7], 1]]);
      expect((await categories(h)).total).toBe(before + 20);
      const badOrder = await request(s.app).get(CATEGORIES).set(h).query({ orderBy: 'id' });
      expect([badOrder.status, fieldsOf(badOrder.body)]).toEqual([400, ['orderBy']]);
      const badSize = await request(s.app).get(CATEGORIES).set(h).query({ pageSize: 101 });
      expect(badSize.status).toBe(400);
    });

    it('keeps each merchant to its own categories', async () => {
      const own = await createCategory(await as(0), { name: 'Private shelf' });
      const other = await as(1);
      expect((await categories(other, { search: 'private shelf' })).total).toBe(0);
      const update = await request(s.app).put(`${CATEGORIES}/${own}`).set(other).send({ name: 'Taken over' });
      expect([update.status, (update.body as ErrorBody).errorCode]).toEqual([404, 'not_found']);
      const del = await request(s.app).delete(`${CATEGORIES}/${own}`).set(other);
      expect(del.status).toBe(404);
      expect((await categories(await as(0), { search: 'private shelf' })).total).toBe(1);
      // The partner acts on merchant 0 when it names it, and must name one.
      const partner = await request(s.app).put(`${CATEGORIES}/${own}`).set(await as('partner', 0)).send({ name: 'Private shelf 2' });
      expect(partner.status).toBe(200);
      for (const res of [
        await request(s.app).get(CATEGORIES).set(await as('partner')),
        await request(s.app).post(CATEGORIES).set(await as('partner')).send({ name: 'Nobody\'s' }),
        await request(s.app).delete(`${CATEGORIES}/${own}`).set(await as('partner')),
      ]) {
        expect([res.status, fieldsOf(res.body)]).toEqual([400, ['x-merchant-id']]);
      }
    });

    it('replays a create with the same Idempotency-Key', async () => {
      const h = { ...(await as(0)), 'Idempotency-Key': 'category-once' };
      const first = await request(s.app).post(CATEGORIES).set(h).send({ name: 'Once' });
      const second = await request(s.app).post(CATEGORIES).set(h).send({ name: 'Once' });
      expect([first.status, second.status]).toEqual([200, 200]);
      expect(second.body).toEqual(first.body);
      expect(second.headers['idempotent-replayed']).toBe('true');
      expect((await categories(await as(0), { search: 'once' })).total).toBe(1);
    });
  });

});
