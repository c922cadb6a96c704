// Catalogue rules: unit types from the spec, category names unique per merchant (trimmed, case-insensitive),
// line items that name a known unit type and one of the merchant's own categories, prices in cents.
import { newId } from '../platform/ids.ts';
import type { Knex } from 'knex';
import { apiSpec } from '@pgw/client/server';
import { responseExample } from '../platform/spec-data.ts';
import type { components } from '@pgw/client/types';
import { ApiError, invalid, notFound } from '../platform/errors.ts';
import { toCents } from '../platform/money.ts';
import type { ListQuery } from '../platform/paging.ts';
import { iso } from '../platform/time.ts';
import { withTransaction } from '../platform/transaction.ts';
import * as repo from '../repositories/catalogue.ts';
import type { Scope } from '../platform/scope.ts';

export type UnitType = components['schemas']['CatalogueUnitType'];
type CategoryRequest = components['schemas']['CatalogueCategoryRequest'];
type LineItemRequest = components['schemas']['CatalogueLineItemRequest'];

// ---- unit types: the listUnitTypes response example of the bundled spec is the list

const UNIT_TYPES_PATH = '/pay-int-api/line-items/unit-types';

const isTextOrNull = (value: unknown): value is string | null => value === null || typeof value === 'string';

function isUnitType(value: unknown): value is UnitType {
  if (typeof value !== 'object' || value === null) return false;
  const o = value as Record<string, unknown>;
  return Number.isInteger(o.id) && isTextOrNull(o.name) && isTextOrNull(o.abbreviation) && isTextOrNull(o.category);
}

/** Reads the unit types from a bundled document (exported for tests); throws when the spec lacks them. */
export function unitTypesOf(document: Record<string, unknown>): UnitType[] {
  let value: unknown;
  try {
    value = responseExample(UNIT_TYPES_PATH, 'get', document);
  } catch {
    value = undefined;
  }
  if (!Array.isArray(value) || value.length === 0 || !value.every(isUnitType)) {
    throw new Error(`the spec gives no unit types as the example of GET ${UNIT_TYPES_PATH}`);
  }
  return [...value].sort((a, b) => a.id - b.id);
}

/** Every unit type, in id order: a constant table of the spec, read once when the module loads. */
const UNIT_TYPES: readonly UnitType[] = unitTypesOf(apiSpec);

/** Every unit type, in id order. */
export function unitTypes(): UnitType[] {
  return [...UNIT_TYPES];
}

export const unitTypeById = (id: number): UnitType | undefined => UNIT_TYPES.find((u) => u.id === id);

/** Unit type id -> rank of its name (case-insensitive), for ordering line items by unit type. */
const UNIT_TYPE_RANK: ReadonlyMap<number, number> = new Map(
  [...UNIT_TYPES]
    .sort((a, b) => (a.name ?? '').toLowerCase().localeCompare((b.name ?? '').toLowerCase(), 'en') || a.id - b.id)
    .map((u, index) => [u.id, index]),
);

// ---- categories

/** The comparison form of a category name: trimmed, lower case. */
export const categoryNameKey = (name: string): string => name.trim().toLowerCase();

function checkCategory(body: CategoryRequest): { name: string; nameKey: string; defaultUnitTypeId: number | null } {
  const name = body.name?.trim() ?? '';
  if (name === '') throw invalid('name', 'The name is required and must not be blank.');
  const defaultUnitTypeId = body.defaultUnitTypeId ?? null;
  if (defaultUnitTypeId !== null && !unitTypeById(defaultUnitTypeId)) {
    throw invalid('defaultUnitTypeId', `${String(defaultUnitTypeId)} is not a unit type id (see GET ${UNIT_TYPES_PATH}).`);
  }
  return { name, nameKey: categoryNameKey(name), defaultUnitTypeId };
}

const duplicateName = (name: string, entityId?: string): ApiError =>
  new ApiError('duplicate_category_name', {
    details: `A category of this merchant is already named "${name}".`,
    errors: { name: ['Another category of this merchant has this name.'] },
    ...(entityId ? { entityId } : {}),
  });

async function ensureNameFree(trx: Knex, merchantId: string, nameKey: string, name: string, self?: string): Promise<void> {
  const other = await repo.findCategoryByKey(trx, merchantId, nameKey);
  if (other && other.id !== self) throw duplicateName(name, other.id);
}

/** Writes under the unique index; a concurrent write of the same name is the same duplicate. */
async function guarded(name: string, write: () => Promise<void>): Promise<void> {
  try {
    await write();
  } catch (error) {
    if (error instanceof repo.DuplicateKeyError) throw duplicateName(name);
    throw error;
  }
}

export async function createCategory(scope: Scope, body: CategoryRequest): Promise<string> {
  const { merchantId } = scope;
  const values = checkCategory(body);
  const id = newId();
  await guarded(values.name, () => withTransaction(scope.db, async (tx) => {
    await ensureNameFree(tx, merchantId, values.nameKey, values.name);
    await repo.insertCategory(tx, { id, merchantId, ...values, now: iso(scope.clock.now()) });
  }));
  return id;
}

export async function updateCategory(scope: Scope, id: string, body: CategoryRequest): Promise<void> {
  const { merchantId } = scope;
  const categoryId = id.toLowerCase();
  await guarded(body.name?.trim() ?? '', () => withTransaction(scope.db, async (tx) => {
    if (!(await repo.findCategory(tx, merchantId, categoryId))) throw notFound(id, 'category');
    const values = checkCategory(body);
    await ensureNameFree(tx, merchantId, values.nameKey, values.name, categoryId);
    await repo.updateCategory(tx, merchantId, categoryId, { ...values, now: iso(scope.clock.now()) });
  }));
}

export async function deleteCategory(scope: Scope, id: string): Promise<void> {
  const { merchantId } = scope;
  const categoryId = id.toLowerCase();
  await withTransaction(scope.db, async (tx) => {
    if (!(await repo.findCategory(tx, merchantId, categoryId))) throw notFound(id, 'category');
    await repo.deleteCategory(tx, merchantId, categoryId, iso(scope.clock.now()));
  });
}

export const listCategories = (scope: Scope, list: ListQuery): Promise<{ items: repo.CategoryListItem[]; total: number }> =>
  repo.listCategories(scope.db, scope.merchantId, list);

// ---- line items

async function checkLineItem(db: Knex, merchantId: string, body: LineItemRequest): Promise<repo.LineItemValues> {
  const productName = body.productName;
  if (productName === null || productName.trim() === '') throw invalid('productName', 'The product name is required and must not be blank.');
  if (!unitTypeById(body.unitTypeId)) {
    throw invalid('unitTypeId', `${String(body.unitTypeId)} is not a unit type id (see GET ${UNIT_TYPES_PATH}).`);
  }
  const categoryId = body.categoryId?.toLowerCase() ?? null;
  // A body field that names nothing of the merchant is a validation error, not a 404 (the URL exists).
  if (categoryId !== null && !(await repo.findCategory(db, merchantId, categoryId))) {
    throw invalid('categoryId', 'names no category of this merchant.');
  }
  return {
    productName,
    description: body.description ?? null,
    sku: body.sku ?? null,
    unitPriceCents: toCents(body.unitPrice),
    unitTypeId: body.unitTypeId,
    categoryId,
    taxRate: body.taxRate ?? 0,
  };
}

export async function createLineItem(scope: Scope, body: LineItemRequest): Promise<string> {
  const { merchantId } = scope;
  const id = newId();
  await withTransaction(scope.db, async (tx) => {
    await repo.insertLineItem(tx, id, merchantId, await checkLineItem(tx, merchantId, body), iso(scope.clock.now()));
  });
  return id;
}

export async function updateLineItem(scope: Scope, id: string, body: LineItemRequest): Promise<void> {
  const { merchantId } = scope;
  const lineItemId = id.toLowerCase();
  await withTransaction(scope.db, async (tx) => {
    if (!(await repo.findLineItem(tx, merchantId, lineItemId))) throw notFound(id, 'line item');
    await repo.updateLineItem(tx, merchantId, lineItemId, await checkLineItem(tx, merchantId, body), iso(scope.clock.now()));
  });
}

export async function deleteLineItem(scope: Scope, id: string): Promise<void> {
  const { merchantId } = scope;
  if (!(await repo.deleteLineItem(scope.db, merchantId, id.toLowerCase()))) throw notFound(id, 'line item');
}

/** A catalogue line item of the merchant (invoices copy its values), or undefined. */
export const findLineItem = (scope: Scope, id: string): Promise<repo.LineItemRecord | undefined> =>
  repo.findLineItem(scope.db, scope.merchantId, id.toLowerCase());

export interface LineItemListQuery extends ListQuery {
  categoryId?: string;
  noCategory?: boolean;
}

export async function listLineItems(scope: Scope, query: LineItemListQuery): Promise<{ items: repo.LineItemRecord[]; total: number }> {
  const { merchantId } = scope;
  const { categoryId, noCategory, ...list } = query;
  if (categoryId !== undefined && noCategory !== undefined) {
    const message = 'categoryId and noCategory cannot be given together.';
    throw new ApiError('validation_failed', { errors: { categoryId: [message], noCategory: [message] } });
  }
  const category = categoryId?.toLowerCase();
  if (category !== undefined && !(await repo.findCategory(scope.db, merchantId, category))) {
    throw invalid('categoryId', 'names no category of this merchant.');
  }
  return repo.listLineItems(scope.db, merchantId, list, {
    ...(category !== undefined ? { categoryId: category } : {}),
    ...(noCategory !== undefined ? { noCategory } : {}),
    unitTypeRank: UNIT_TYPE_RANK,
  });
}
