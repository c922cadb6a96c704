// The catalogue's categories and line items (Knex only). Prices stay in integer cents (`…Cents`): the
// responses convert them to USD. Counts and bigints read from PostgreSQL as strings become numbers here.
import type { Knex } from 'knex';
import { pageOf, type ListQuery } from './paging.ts';
import { type Cents, centsOfColumn } from '../platform/money.ts';

export interface CategoryRecord {
  id: string;
  merchantId: string;
  name: string;
  defaultUnitTypeId: number | null;
}

export interface CategoryListItem extends CategoryRecord {
  itemCount: number;
}

export interface LineItemRecord {
  id: string;
  merchantId: string;
  productName: string;
  description: string | null;
  sku: string | null;
  unitPriceCents: Cents;
  unitTypeId: number;
  categoryId: string | null;
  categoryName: string | null;
  categoryDefaultUnitTypeId: number | null;
  taxRate: number;
}

/** The values of a line item as written (price in cents). */
export interface LineItemValues {
  productName: string;
  description: string | null;
  sku: string | null;
  unitPriceCents: Cents;
  unitTypeId: number;
  categoryId: string | null;
  taxRate: number;
}

/** A write broke the unique name of a merchant's categories (a concurrent create or rename). */
export class DuplicateKeyError extends Error {}

interface CategoryRow { id: string; merchant_id: string; name: string; default_unit_type_id: number | null; item_count?: number | string }

interface LineItemRow {
  id: string; merchant_id: string; product_name: string; description: string | null; sku: string | null;
  unit_price_cents: number | string; unit_type_id: number; category_id: string | null; tax_rate: number | string;
  category_name: string | null; category_default_unit_type_id: number | null;
}

const toCategory = (row: CategoryRow): CategoryRecord => ({
  id: row.id,
  merchantId: row.merchant_id,
  name: row.name,
  defaultUnitTypeId: row.default_unit_type_id,
});

const toLineItem = (row: LineItemRow): LineItemRecord => ({
  id: row.id,
  merchantId: row.merchant_id,
  productName: row.product_name,
  description: row.description,
  sku: row.sku,
  unitPriceCents: centsOfColumn(row.unit_price_cents),
  unitTypeId: row.unit_type_id,
  categoryId: row.category_id,
  categoryName: row.category_name,
  categoryDefaultUnitTypeId: row.category_default_unit_type_id,
  taxRate: Number(row.tax_rate),
});

/** PostgreSQL says 23505; SQLite SQLITE_CONSTRAINT_UNIQUE (or _PRIMARYKEY), its extended result code. */
function isUniqueViolation(error: unknown): boolean {
  if (typeof error !== 'object' || error === null) return false;
  const { code } = error as { code?: unknown };
  return code === '23505' || code === 'SQLITE_CONSTRAINT_UNIQUE' || code === 'SQLITE_CONSTRAINT_PRIMARYKEY';
}

async function uniquely<T>(write: () => Promise<T>): Promise<T> {
  try {
    return await write();
  } catch (error) {
    if (isUniqueViolation(error)) throw new DuplicateKeyError('duplicate category name');
    throw error;
  }
}

// ---- categories

const ITEM_COUNT = '(select count(*) from line_items where line_items.category_id = categories.id)';

export async function findCategory(db: Knex, merchantId: string, id: string): Promise<CategoryRecord | undefined> {
  const row = (await db('categories').where({ merchant_id: merchantId, id }).first()) as CategoryRow | undefined;
  return row ? toCategory(row) : undefined;
}

/** The merchant's category whose comparison key is `nameKey`, if any. */
export async function findCategoryByKey(db: Knex, merchantId: string, nameKey: string): Promise<CategoryRecord | undefined> {
  const row = (await db('categories').where({ merchant_id: merchantId, name_key: nameKey }).first()) as CategoryRow | undefined;
  return row ? toCategory(row) : undefined;
}

export async function insertCategory(db: Knex, category: { id: string; merchantId: string; name: string; nameKey: string; defaultUnitTypeId: number | null; now: string }): Promise<void> {
  await uniquely(() => db('categories').insert({
    id: category.id, merchant_id: category.merchantId, name: category.name, name_key: category.nameKey,
    default_unit_type_id: category.defaultUnitTypeId, created_on: category.now, modified_on: category.now,
  }));
}

export async function updateCategory(db: Knex, merchantId: string, id: string, values: { name: string; nameKey: string; defaultUnitTypeId: number | null; now: string }): Promise<void> {
  await uniquely(() => db('categories').where({ merchant_id: merchantId, id }).update({
    name: values.name, name_key: values.nameKey, default_unit_type_id: values.defaultUnitTypeId, modified_on: values.now,
  }));
}

/** Deletes a category; its line items stay, with no category. Run it in a transaction. */
export async function deleteCategory(db: Knex, merchantId: string, id: string, now: string): Promise<void> {
  // The foreign key's ON DELETE SET NULL would do this too; doing it here keeps modified_on true.
  await db('line_items').where({ merchant_id: merchantId, category_id: id }).update({ category_id: null, modified_on: now });
  await db('categories').where({ merchant_id: merchantId, id }).delete();
}

export async function listCategories(db: Knex, merchantId: string, list: ListQuery): Promise<{ items: CategoryListItem[]; total: number }> {
  const query = db('categories')
    .where('categories.merchant_id', merchantId)
    .select('categories.id', 'categories.merchant_id', 'categories.name', 'categories.default_unit_type_id', db.raw(`${ITEM_COUNT} as item_count`));
  const { rows, total } = await pageOf(query, list, {
    // name_key is the name in lower case: the same order (and search) on both engines.
    orderable: { name: 'categories.name_key', itemCount: ITEM_COUNT },
    defaultOrder: 'name',
    searchable: ['categories.name_key'],
    dateColumn: 'categories.created_on',
    idColumn: 'categories.id',
  });
  return {
    items: (rows as unknown as CategoryRow[]).map((row) => ({ ...toCategory(row), itemCount: Number(row.item_count ?? 0) })),
    total,
  };
}

// ---- line items

const lineItems = (db: Knex): Knex.QueryBuilder =>
  db('line_items')
    .leftJoin('categories', 'categories.id', 'line_items.category_id')
    .select('line_items.*', 'categories.name as category_name', 'categories.default_unit_type_id as category_default_unit_type_id');

export async function findLineItem(db: Knex, merchantId: string, id: string): Promise<LineItemRecord | undefined> {
  const row = (await lineItems(db).where({ 'line_items.merchant_id': merchantId, 'line_items.id': id }).first()) as LineItemRow | undefined;
  return row ? toLineItem(row) : undefined;
}

const columnsOf = (values: LineItemValues) => ({
  product_name: values.productName,
  description: values.description,
  sku: values.sku,
  unit_price_cents: values.unitPriceCents,
  unit_type_id: values.unitTypeId,
  category_id: values.categoryId,
  tax_rate: values.taxRate,
});

export async function insertLineItem(db: Knex, id: string, merchantId: string, values: LineItemValues, now: string): Promise<void> {
  await db('line_items').insert({ id, merchant_id: merchantId, ...columnsOf(values), created_on: now, modified_on: now });
}

export async function updateLineItem(db: Knex, merchantId: string, id: string, values: LineItemValues, now: string): Promise<void> {
  await db('line_items').where({ merchant_id: merchantId, id }).update({ ...columnsOf(values), modified_on: now });
}

/** Deletes a line item; false when the merchant has no such item. */
export async function deleteLineItem(db: Knex, merchantId: string, id: string): Promise<boolean> {
  return (await db('line_items').where({ merchant_id: merchantId, id }).delete()) > 0;
}

export interface LineItemFilter {
  /** Only the items of this category. */
  categoryId?: string;
  /** Only the items without a category. */
  noCategory?: boolean;
  /** Unit type id -> its position in the order of unit type names (orderBy unitType). */
  unitTypeRank: ReadonlyMap<number, number>;
}

export async function listLineItems(db: Knex, merchantId: string, list: ListQuery, filter: LineItemFilter): Promise<{ items: LineItemRecord[]; total: number }> {
  const query = lineItems(db).where('line_items.merchant_id', merchantId);
  if (filter.categoryId !== undefined) void query.where('line_items.category_id', filter.categoryId);
  if (filter.noCategory === true) void query.whereNull('line_items.category_id');
  // Unit type names are the spec's data, not a table: order by their rank (integers only in the SQL).
  const ranks = [...filter.unitTypeRank].map(([id, rank]) => `when ${String(Math.trunc(id))} then ${String(Math.trunc(rank))}`).join(' ');
  const unitTypeOrder = ranks === '' ? 'line_items.unit_type_id' : `case line_items.unit_type_id ${ranks} else ${String(filter.unitTypeRank.size)} end`;
  const { rows, total } = await pageOf(query, list, {
    orderable: {
      productName: 'lower(line_items.product_name)',
      sku: 'lower(line_items.sku)',
      unitPrice: 'line_items.unit_price_cents',
      categoryName: 'categories.name_key',
      unitType: unitTypeOrder,
    },
    defaultOrder: 'productName',
    searchable: ['line_items.product_name', 'line_items.description', 'line_items.sku'],
    dateColumn: 'line_items.created_on',
    idColumn: 'line_items.id',
  });
  return { items: (rows as unknown as LineItemRow[]).map(toLineItem), total };
}
