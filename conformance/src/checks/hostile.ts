// Hostile input, one check per operation and kind (hostile-cases.ts): numbers spelled as the grammar refuses,
// impossible dates, bodies that are not UTF-8. Each is refused with 400 in a documented body whose statusCode
// is 400 and whose errors name the field (the standard body, or the JSON-type body's `$.field`), and nothing
// changes: after each refused request the witnesses (witness.ts) read as before.
import { bodyOf, failWithAll, type Check } from '../check.ts';
import { fixtureIds, withFixtureIds } from '../fixtures.ts';
import type { Exchange } from '../http.ts';
import { hostileCases, type HostileCase, type HostileKind } from '../hostile-cases.ts';
import { PLACEHOLDER_ID, SpecReader } from '../negative-cases.ts';
import type { Spec } from '../spec.ts';
import { witnessFor } from '../witness.ts';
import { namesField } from './negative.ts';

const TITLES: Record<HostileKind, string> = {
  money: 'every number with decimal places (x-decimal-places or multipleOf), spelled as the grammar refuses (exponent, too many decimals, out of range, -0, 17 digits), answers 400 naming it and changes nothing',
  dates: 'every date-time or date field, given a date no calendar holds (or no zone), answers 400 naming it and changes nothing',
  utf8: 'a body that is not UTF-8 answers 400 in the documented shape and changes nothing',
};

/** What is wrong with the answer to one hostile case, or undefined. */
export function hostileProblem(c: HostileCase, exchange: Exchange): string | undefined {
  const status = exchange.response?.status;
  if (status !== 400) return `${c.name}: expected 400, got ${status === undefined ? exchange.error ?? 'no response' : String(status)}`;
  const body = bodyOf(exchange);
  const reported = body.statusCode ?? body.status;
  if (reported !== 400) return `${c.name}: the body's statusCode is ${JSON.stringify(reported)}, not 400`;
  if (c.field !== undefined && !namesField(exchange, c.field)) return `${c.name}: the errors do not name ${c.field} (${JSON.stringify(body.errors ?? null)})`;
  return undefined;
}

export function hostileChecks(spec: Spec): Check[] {
  const reader = new SpecReader(spec.document);
  const kinds: HostileKind[] = ['money', 'dates', 'utf8'];
  return kinds.flatMap((kind) => [...spec.operations.values()]
    // The token services answer in OAuth's terms (the auth checks cover them); an event stream never ends.
    // A destructive operation is called only by the walk, on a sandbox it made (never on the given merchant).
    .filter((op) => !op.path.includes('oauth2') && !op.destructive && hostileCases(reader, op.operationId, kind).cases.length > 0)
    .map((op): Check => ({
      id: `hostile/${kind}:${op.operationId}`,
      group: 'errors',
      title: `${op.operationId}: ${TITLES[kind]}`,
      tags: [op.tag, op.operationId],
      // The number grammar and the UTF-8 rule are designed; a date's format is the interface's.
      designed: kind === 'dates' ? op.designed : true,
      run: async (ctx) => {
        const { cases } = hostileCases(reader, op.operationId, kind);
        // Path parameters name real records where the suite has one: a refusal must come before the lookup's effects.
        const ids = await fixtureIds(ctx);
        const real = (request: HostileCase['request']): HostileCase['request'] => ({
          ...request,
          path: Object.fromEntries(Object.entries(request.path ?? {}).map(([name, value]) => [name, value === PLACEHOLDER_ID ? ids[name] ?? value : value])),
          ...(request.rawBody === undefined ? {} : { rawBody: withFixtureIds(request.rawBody, ids) }),
        });
        const readPath = real({ path: Object.fromEntries(Object.keys(ids).map((k) => [k, PLACEHOLDER_ID])) }).path ?? {};
        // A read changes nothing by itself: only changes are watched.
        const witness = op.method === 'get' ? undefined : await witnessFor(ctx, op.operationId, readPath);
        const failures: [string, Exchange | undefined][] = [];
        try {
          let before = await witness?.read();
          for (const c of cases) {
            const exchange = await ctx.call(op, real(c.request));
            const problem = hostileProblem(c, exchange);
            if (problem !== undefined) failures.push([problem, exchange]);
            const after = await witness?.read();
            if (after !== before) {
              failures.push([`${c.name}: the request changed what the gateway shows (${String(before)} became ${String(after)})`.slice(0, 600), exchange]);
              before = after;
            }
          }
        } finally {
          await witness?.close();
        }
        failWithAll(failures);
      },
    })));
}
