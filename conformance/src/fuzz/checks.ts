// The fuzz phase (--fuzz N): per operation, N requests generated from its schemas by fast-check (plans.ts),
// valid and invalid. No answer may be a 5xx, an undocumented status or a body off its schema; a valid request
// is accepted (2xx) or refused as a business rule (a documented 4xx that names its reason: not 401 with the
// suite's token, not 415 or malformed_json for a JSON body, not validation_failed naming no field); an invalid
// one is refused with a 4xx and changes nothing (witness.ts). A failure is shrunk by fast-check to a minimal
// request, which the report shows with its reproduction line.
import { createHash } from 'node:crypto';
import fc from 'fast-check';
import { bodyOf, CheckFailure, type Check } from '../check.ts';
import { fixtureIds, withFixtureIds } from '../fixtures.ts';
import type { Exchange } from '../http.ts';
import { PLACEHOLDER_ID, SpecReader } from '../negative-cases.ts';
import type { OperationInfo, Spec } from '../spec.ts';
import { witnessFor, type Witness } from '../witness.ts';
import { operationPlans, type Plan } from './plans.ts';

export interface FuzzOptions {
  /** Requests per operation (fast-check runs), shrinking not counted. */
  runs: number;
  seed: number;
}

/** The seed of one operation's run: the run's seed and the operationId, so `--only fuzz/op` replays it alone. */
export const operationSeed = (seed: number, operationId: string): number =>
  createHash('sha256').update(`${String(seed)}:${operationId}`).digest().readInt32LE(0);

const describePlan = (plan: Plan): string =>
  (plan.breakage ? `an invalid request (${plan.breakage.rule})` : `a valid request (${plan.overrides.length === 0 ? 'the base' : plan.overrides.map((o) => o.path.join('.')).join(', ')}${Object.keys(plan.query).length > 0 ? `; query ${Object.keys(plan.query).join(', ')}` : ''})`);

/** What is wrong with the answer to a plan's request, or undefined. */
export function fuzzVerdict(plan: Plan, exchange: Exchange): string | undefined {
  const what = describePlan(plan);
  const status = exchange.response?.status;
  if (status === undefined) return `${what}: no answer (${exchange.error ?? ''})`;
  const problem = exchange.problems[0];
  if (problem !== undefined) return `${what}: ${problem}`;
  const body = bodyOf(exchange);
  if (plan.breakage === undefined) {
    if (status >= 200 && status < 300) return undefined;
    if (status < 400 || status >= 500 || status === 401 || status === 415) return `${what}: answered ${String(status)}`;
    if (body.errorCode === 'malformed_json') return `${what}: refused as malformed JSON`;
    const errors = body.errors;
    if (body.errorCode === 'validation_failed' && (typeof errors !== 'object' || errors === null || Object.keys(errors).length === 0)) return `${what}: refused as invalid without naming a field`;
    return undefined;
  }
  if (status < 400 || status >= 500) return `${what}: expected a 4xx refusal, got ${String(status)}`;
  return undefined;
}

/**
 * The delete of what a create makes (DELETE on the create's path and an id), and the path parameter it takes:
 * a fuzz run removes each record it created, so that hundreds of webhook endpoints to made-up hosts (each
 * later delivery a DNS lookup) or API keys do not pile up on the target.
 */
function deleteOf(spec: Spec, operationId: string): { operation: OperationInfo; param: string } | undefined {
  const op = spec.operation(operationId);
  if (op.method !== 'post') return undefined;
  for (const o of spec.operations.values()) {
    const param = new RegExp(`^${op.path.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}/\\{([^}/]+)\\}$`).exec(o.path)?.[1];
    if (o.method === 'delete' && param !== undefined) return { operation: o, param };
  }
  return undefined;
}

export function fuzzChecks(spec: Spec, options: FuzzOptions): Check[] {
  const reader = new SpecReader(spec.document);
  // Deletes last: a fuzzed delete of the suite's fixture record would leave the other operations only 404s.
  const rank = (method: string): number => ['get', 'post', 'put', 'patch', 'delete'].indexOf(method);
  return [...spec.operations.values()].sort((a, b) => rank(a.method) - rank(b.method))
    // The token services are the auth checks' (and fuzzing them would throttle the run's own address); an
    // event stream answers for seconds per request.
    // A destructive operation (the sandbox reset) would wipe the merchant the suite was given.
    .filter((op) => !op.path.includes('oauth2') && !op.destructive && !Object.values(op.responses).some((r) => r.mediaTypes.includes('text/event-stream')))
    .map((op): Check => ({
      id: `fuzz/${op.operationId}`,
      group: 'fuzz',
      title: `${op.operationId}: ${String(options.runs)} generated requests, valid and invalid: no 5xx, documented statuses and bodies, valid accepted, invalid refused and changing nothing`,
      tags: [op.tag, op.operationId],
      designed: op.designed,
      run: async (ctx) => {
        const plans = operationPlans(reader, op.operationId);
        const ids = await fixtureIds(ctx);
        const real = (path: Record<string, string> | undefined): Record<string, string> =>
          Object.fromEntries(Object.entries(path ?? {}).map(([name, value]) => [name, value === PLACEHOLDER_ID ? ids[name] ?? value : value]));
        const readPath = real(Object.fromEntries(Object.keys(ids).map((k) => [k, PLACEHOLDER_ID])));
        const cleanup = deleteOf(spec, op.operationId);
        const witness: Witness | undefined = op.method === 'get' ? undefined : await witnessFor(ctx, op.operationId, readPath);
        let known: string | undefined;
        let last: { message: string; exchange: Exchange } | undefined;
        const seed = operationSeed(options.seed, op.operationId);
        try {
          const details = await fc.check(fc.asyncProperty(plans.plans, async (plan) => {
            const invalid = plan.breakage !== undefined;
            const before = invalid && witness ? known ?? await witness.read() : undefined;
            const request = plans.request(plan);
            const exchange = await ctx.call(op, { ...request, path: real(request.path), ...(request.rawBody === undefined ? {} : { rawBody: withFixtureIds(request.rawBody, ids) }) });
            const status = exchange.response?.status ?? 0;
            if (cleanup && status >= 200 && status < 300) {
              const made = bodyOf(exchange);
              const id = made[cleanup.param] ?? made.id;
              if (typeof id === 'string') await ctx.call(cleanup.operation, { path: { [cleanup.param]: id } });
            }
            let message = fuzzVerdict(plan, exchange);
            known = undefined;
            if (invalid && witness) {
              known = await witness.read();
              if (message === undefined && known !== before) message = `${describePlan(plan)}: refused, but it changed what the gateway shows (${String(before)} became ${known})`.slice(0, 600);
            }
            if (message !== undefined) last = { message, exchange };
            return message === undefined;
          }), { seed, numRuns: options.runs });
          if (details.failed) {
            const shrunk = `fuzz seed ${String(options.seed)}, failed at request ${String(details.numRuns)} and shrunk in ${String(details.numShrinks)} steps; replay: --fuzz ${String(options.runs)} --seed ${String(options.seed)} --only fuzz/${op.operationId}`;
            if (last === undefined) throw new CheckFailure(`the fuzz run failed: ${details.errorInstance instanceof Error ? details.errorInstance.message : String(details.errorInstance)} (${shrunk})`);
            throw new CheckFailure(`${last.message} (${shrunk})`, last.exchange);
          }
        } finally {
          await witness?.close();
        }
      },
    }));
}
