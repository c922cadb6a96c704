// Paging, ordering, search and date range of every list: one implementation over a Knex query.
import type { Knex } from 'knex';
import { likePattern, MAX_PAGE_SIZE, type ListQuery } from '../platform/paging.ts';
import { normalizeDateTime } from '../platform/time.ts';

export type { ListQuery } from '../platform/paging.ts';
export { likePattern, unfiltered } from '../platform/paging.ts';

export interface ListSpec {
  /** API field name -> column or SQL expression (internal constants only), for orderBy. Text columns
   * are best given as `lower(column)`, so that both engines order them alike. */
  orderable: Record<string, string>;
  /** The API field to order by when none is given. */
  defaultOrder: string;
  /** Columns matched (case-insensitively, anywhere) by `search`. */
  searchable: string[];
  /** The column that dateFrom / dateTo bound. */
  dateColumn: string;
  /** A unique column, the tie-breaker that keeps pages stable. */
  idColumn: string;
  /** API fields of `orderable` never null: ordered without a NULLS clause, so an index can give the order. */
  notNull?: readonly string[];
  /**
   * A condition that every row the search matches also meets and that an index serves (a trigram index
   * over the searchable text), added before the exact match for searches of at least `minLength` characters.
   */
  searchIndex?: { minLength: number; where: (query: Knex.QueryBuilder, search: string) => void | Promise<void> };
}

/**
 * Applies search and date range to a query, in place (before counting; the search index may look its
 * candidates up once). Resolves to nothing: a Knex builder is a thenable, so a promise of one would run it.
 */
export async function applyFilters(query: Knex.QueryBuilder, list: ListQuery, spec: ListSpec): Promise<void> {
  const search = list.search?.trim();
  if (search) {
    if (spec.searchIndex && search.length >= spec.searchIndex.minLength) await spec.searchIndex.where(query, search);
    const pattern = likePattern(search);
    void query.where((q) => {
      for (const column of spec.searchable) void q.orWhereRaw(`lower(${column}) like ? escape '\\'`, [pattern]);
    });
  }
  if (list.dateFrom) void query.where(spec.dateColumn, '>=', normalizeDateTime(list.dateFrom, 'dateFrom'));
  if (list.dateTo) void query.where(spec.dateColumn, '<=', normalizeDateTime(list.dateTo, 'dateTo'));
}

/**
 * Runs a filtered query as one page: `items` (rows of the page) and `total` (rows of all pages). `total`,
 * when given, answers the count instead of counting (a counter kept for the unfiltered list).
 */
export async function pageOf(query: Knex.QueryBuilder, list: ListQuery, spec: ListSpec, total?: () => Promise<number>): Promise<{ rows: Record<string, unknown>[]; total: number }> {
  await applyFilters(query, list, spec);
  const filtered = query;
  const counted = total ? { total: await total() } : (await filtered.clone().clearSelect().clearOrder().count({ total: '*' }).first()) as { total: number | string } | undefined;
  const page = list.page ?? 0;
  const pageSize = Math.min(list.pageSize ?? 15, MAX_PAGE_SIZE);
  const field = list.orderBy !== undefined && list.orderBy in spec.orderable ? list.orderBy : spec.defaultOrder;
  const expression = spec.orderable[field] ?? spec.idColumn;
  const direction = list.asc === false ? 'desc' : 'asc';
  // Nulls first when ascending on both engines (PostgreSQL's default is the opposite of SQLite's).
  const nulls = spec.notNull?.includes(field) ? '' : direction === 'asc' ? ' nulls first' : ' nulls last';
  const rows = (await filtered
    .orderByRaw(`${expression} ${direction}${nulls}, ${spec.idColumn} ${direction}`)
    .limit(pageSize)
    .offset(page * pageSize)) as Record<string, unknown>[];
  return { rows, total: Number(counted?.total ?? 0) };
}
