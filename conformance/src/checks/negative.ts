// One check per operation: the negative cases derived from its schemas (negative-cases.ts) each answer 400
// (415 for another media type) in a documented body whose statusCode is the HTTP status and whose errors name
// the field, and change nothing (a create's list keeps its total).
import { failWithAll, bodyOf, type Check, type CheckContext } from '../check.ts';
import type { Exchange } from '../http.ts';
import { fixtureIds } from '../fixtures.ts';
import { PLACEHOLDER_ID, SpecReader, chooseCases, negativeCases, type NegativeCase } from '../negative-cases.ts';
import type { OperationInfo, Spec } from '../spec.ts';

/** Cases a check sends at most (beside the two media-type cases), chosen by the run's seed. The largest
 * operation has about 90 today, so every case runs; the bound keeps a run's length in hand as the spec grows. */
export const MAX_CASES_PER_OPERATION = 100;

/** `$.billingAddress.city` and `billingAddress.city` name the same field. */
const normalize = (key: string): string => key.replace(/^\$\.?/, '');

export function namesField(exchange: Exchange, field: string): boolean {
  const errors = bodyOf(exchange).errors;
  if (typeof errors !== 'object' || errors === null) return false;
  return Object.keys(errors).map(normalize).some((key) => key === field || key.startsWith(`${field}.`) || key.startsWith(`${field}[`));
}

/** What is wrong with the answer to one negative case, or undefined. */
function problemOf(c: NegativeCase, exchange: Exchange): string | undefined {
  const status = exchange.response?.status;
  if (status !== c.status) return `${c.name}: expected ${String(c.status)}, got ${status === undefined ? exchange.error ?? 'no response' : String(status)}`;
  const body = bodyOf(exchange);
  const reported = body.statusCode ?? body.status;
  if (reported !== c.status) return `${c.name}: the body's statusCode is ${JSON.stringify(reported)}, not ${String(c.status)}`;
  if (c.field !== undefined && c.status === 400 && !namesField(exchange, c.field)) {
    return `${c.name}: the errors do not name ${c.field} (${JSON.stringify(body.errors ?? null)})`;
  }
  return undefined;
}

/** The list operation of a create (GET on the same path answering `total`), to see that nothing was created. */
export function listOf(spec: Spec, operationId: string): OperationInfo | undefined {
  const op = spec.operation(operationId);
  if (op.method !== 'post') return undefined;
  return [...spec.operations.values()].find((o) => o.method === 'get' && o.path === op.path);
}

/** The read of a change (GET on the same path as a PUT or POST with path parameters), to see nothing changed. */
export function readOf(spec: Spec, operationId: string): OperationInfo | undefined {
  const op = spec.operation(operationId);
  if (op.method === 'get' || !op.path.includes('{')) return undefined;
  return [...spec.operations.values()].find((o) => o.method === 'get' && o.path === op.path);
}

async function totalOf(ctx: CheckContext, list: OperationInfo): Promise<number | undefined> {
  const exchange = await ctx.call(list, { query: { pageSize: 1 } });
  const total = bodyOf(exchange).total;
  return typeof total === 'number' ? total : undefined;
}

export function negativeChecks(spec: Spec): Check[] {
  const reader = new SpecReader(spec.document);
  return [...spec.operations.values()]
    // The token services answer bad requests in OAuth's terms; the auth checks cover them.
    // A destructive operation (the sandbox reset) would wipe the merchant the suite was given, were a bad
    // request accepted: only the walk calls it, on a sandbox it made.
    .filter((op) => !op.path.includes('oauth2') && !op.destructive && negativeCases(reader, op.operationId).cases.length > 0)
    .map((op): Check => ({
      id: `negative/${op.operationId}`,
      group: 'errors',
      title: `${op.operationId}: each schema rule broken alone answers 400 naming the field, and changes nothing`,
      tags: [op.tag, op.operationId],
      designed: op.designed,
      run: async (ctx) => {
        const chosen = chooseCases(negativeCases(reader, op.operationId).cases, MAX_CASES_PER_OPERATION, () => ctx.random());
        const list = listOf(spec, op.operationId);
        const before = list === undefined ? undefined : await totalOf(ctx, list);
        // Path parameters name real records where the suite has one: rules checked after the lookup apply.
        const ids = op.path.includes('{') ? await fixtureIds(ctx) : {};
        const real = (request: NegativeCase['request']): NegativeCase['request'] => ({
          ...request,
          path: Object.fromEntries(Object.entries(request.path ?? {}).map(([name, value]) => [name, value === PLACEHOLDER_ID ? ids[name] ?? value : value])),
        });
        // A change of a record that can be read back: the record reads the same after every refused request.
        const read = readOf(spec, op.operationId);
        const readPath = read === undefined ? undefined : real({ path: Object.fromEntries(Object.keys(ids).map((k) => [k, PLACEHOLDER_ID])) }).path;
        const snapshot = async (): Promise<string | undefined> => (read === undefined ? undefined : JSON.stringify(bodyOf(await ctx.call(read, { path: readPath ?? {} }))));
        const recordBefore = await snapshot();
        const failures: [string, Exchange][] = [];
        for (const c of chosen) {
          const exchange = await ctx.call(op, real(c.request));
          const problem = problemOf(c, exchange);
          if (problem !== undefined) failures.push([problem, exchange]);
        }
        const recordAfter = await snapshot();
        if (recordAfter !== recordBefore) failures.push([`refused requests changed the record ${read?.operationId ?? ''} reads: ${String(recordBefore).slice(0, 200)} became ${String(recordAfter).slice(0, 200)}`, { operationId: read?.operationId, request: { method: 'GET', url: '', headers: {} }, response: undefined, problems: [], durationMs: 0 }]);
        if (list !== undefined && before !== undefined) {
          const after = await ctx.call(list, { query: { pageSize: 1 } });
          const total = bodyOf(after).total;
          if (total !== before) failures.push([`refused requests changed ${list.operationId}: total ${String(before)} before, ${JSON.stringify(total)} after`, after]);
        }
        failWithAll(failures);
      },
    }));
}
