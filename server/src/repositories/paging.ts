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
  searchIndex?: { minLength: number; where: (query: Knex.QueryBuilder, search: string) => Promise<IndexedSearch> };
}

/** What a search index found out while narrowing a query. */
export interface IndexedSearch {
  /** More rows match than this many, which the list answers as its total instead of counting them all. */
  readonly atLeast?: number;
  /** Exactly this many rows match (the index found them all): the total, without a count. */
  readonly exactly?: number;
}

/**
 * Applies date range and search to a query, in place (before counting). The search index comes last, so that
 * its look-up sees every other condition; it may say the total is only known to be above a bound. Resolves to
 * a plain object: a Knex builder is a thenable, so a promise of one would run it.
 */
export async function applyFilters(query: Knex.QueryBuilder, list: ListQuery, spec: ListSpec): Promise<IndexedSearch> {
  if (list.dateFrom) void query.where(spec.dateColumn, '>=', normalizeDateTime(list.dateFrom, 'dateFrom'));
  if (list.dateTo) void query.where(spec.dateColumn, '<=', normalizeDateTime(list.dateTo, 'dateTo'));
  const search = list.search?.trim();
  if (!search) return {};
  const pattern = likePattern(search);
  void query.where((q) => {
    for (const column of spec.searchable) void q.orWhereRaw(`lower(${column}) like ? escape '\\'`, [pattern]);
  });
  if (spec.searchIndex && search.length >= spec.searchIndex.minLength) return spec.searchIndex.where(query, search);
  return {};
}

/** One page of a list: its rows, and the rows of all pages (a lower bound when `totalIsExact` is false). */
export interface Page {
  readonly rows: Record<string, unknown>[];
  readonly total: number;
  readonly totalIsExact: boolean;
}

/**
 * Runs a filtered query as one page: `items` (rows of the page) and `total` (rows of all pages). `total`,
 * when given, answers the count instead of counting (a counter kept for the unfiltered list); a search index
 * that found more matches than it counts answers its bound instead.
 */
export async function pageOf(query: Knex.QueryBuilder, list: ListQuery, spec: ListSpec, total?: () => Promise<number>): Promise<Page> {
  const indexed = await applyFilters(query, list, spec);
  const filtered = query;
  const counted = indexed.atLeast !== undefined ? { total: indexed.atLeast }
    : indexed.exactly !== undefined ? { total: indexed.exactly }
    : total ? { total: await total() } : (await filtered.clone().clearSelect().clearOrder().count({ total: '*' }).first()) as { total: number | string } | undefined;
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
  return { rows, total: Number(counted?.total ?? 0), totalIsExact: indexed.atLeast === undefined };
}
