// What a list asks for (page, order, search, date range) and the rules every list shares; the query that
// answers it is repositories/paging.ts.

/** The largest page (designed: the interface says a maximum exists but does not give it). */
export const MAX_PAGE_SIZE = 100;

export interface ListQuery {
  page?: number;
  pageSize?: number;
  orderBy?: string;
  asc?: boolean;
  search?: string;
  dateFrom?: string;
  dateTo?: string;
}

/** Escapes LIKE wildcards so a search for `50%` finds the text `50%`. */
export const likePattern = (text: string): string => `%${text.toLowerCase().replace(/[\\%_]/g, (c) => `\\${c}`)}%`;

/** True when the list asks for no search and no date range (its total is that of all the rows it may read). */
export const unfiltered = (list: ListQuery): boolean => !list.search?.trim() && !list.dateFrom && !list.dateTo;
