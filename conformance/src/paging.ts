// Finding a record in a list without assuming where it sits: a target that keeps data (a staging gateway, the
// hundredth run against one server) holds more than a page of anything, so a check pages through to its own.
import type { OperationId } from '@pgw/client/operations';
import { bodyOf, type CheckContext } from './check.ts';
import type { CallOptions, Exchange } from './http.ts';

type JsonObject = Record<string, unknown>;

const itemsOf = (exchange: Exchange): JsonObject[] => {
  const items = bodyOf(exchange).items;
  return Array.isArray(items) ? items.filter((i): i is JsonObject => typeof i === 'object' && i !== null) : [];
};

/** The largest page the spec allows (100); pages of it keep the number of requests small. */
const PAGE = 100;
/** A bound on the pages read, so a list that never ends (a defect) cannot hold the run: 100,000 records. */
const MAX_PAGES = 1000;

/**
 * Pages through a list operation (every page, `pageSize` 100) until an item matches; the item and the exchange
 * of the page that held it, or of the last page read when none did. A page past the end is empty, which ends it.
 */
export async function findListed(ctx: CheckContext, operationId: OperationId, options: CallOptions, matches: (item: JsonObject) => boolean): Promise<{ item: JsonObject | undefined; exchange: Exchange }> {
  let last: Exchange | undefined;
  let seen = 0;
  for (let page = 0; page < MAX_PAGES; page++) {
    const exchange = await ctx.call(operationId, { ...options, query: { ...options.query, pageSize: PAGE, page } });
    last = exchange;
    if (exchange.response?.status !== 200) break;
    const items = itemsOf(exchange);
    const item = items.find(matches);
    if (item) return { item, exchange };
    seen += items.length;
    const { total, totalIsExact } = bodyOf(exchange);
    // A total that is only a lower bound (a search matching more than it counts) does not say where the end is.
    if (items.length === 0 || (typeof total === 'number' && totalIsExact !== false && seen >= total)) break;
  }
  // MAX_PAGES is at least 1, so a page was read.
  return { item: undefined, exchange: last as Exchange };
}

/** Every item of a list operation, over all its pages (bounded as findListed is). */
export async function allListed(ctx: CheckContext, operationId: OperationId, options: CallOptions = {}): Promise<JsonObject[]> {
  const found: JsonObject[] = [];
  await findListed(ctx, operationId, options, (item) => { found.push(item); return false; });
  return found;
}
