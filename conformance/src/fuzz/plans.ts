// Fuzz requests of one operation, as fast-check values that shrink: a valid plan is the operation's valid base
// request with some body fields and query parameters set to other values their schemas accept; an invalid plan
// is a valid one with one rule broken (a value its schema refuses, a number spelled as the grammar refuses, an
// impossible date, a required field left out, a body that is not JSON, not UTF-8 or of another media type).
import fc from 'fast-check';
import type { CallOptions } from '../http.ts';
import { bodyFields, datesFor, refusedSpellings, NOT_UTF8, withBytes, type FieldAt } from '../hostile-cases.ts';
import { brokenValues, negativeCases, type SpecReader } from '../negative-cases.ts';
import { RawNumber, fieldName, setPath, stringifyRaw, type RawJson } from '../raw-json.ts';
import { validValue } from './arbitraries.ts';

type JsonObject = Record<string, unknown>;
const typesOf = (schema: JsonObject): string[] => (Array.isArray(schema.type) ? schema.type.map(String) : typeof schema.type === 'string' ? [schema.type] : []);

/** One rule broken: a body field or query parameter given a refused value (undefined: left out), or the whole body. */
export type Breakage =
  | { rule: string; where: 'body'; path: (string | number)[]; value: RawJson | undefined }
  | { rule: string; where: 'query'; name: string; value: string }
  | { rule: string; where: 'whole'; rawBody?: string; rawBytes?: Uint8Array; contentType: string };

export interface Plan {
  overrides: { path: (string | number)[]; value: RawJson }[];
  query: Record<string, string>;
  breakage: Breakage | undefined;
}

export interface OperationPlans {
  base: CallOptions;
  plans: fc.Arbitrary<Plan>;
  /** The request of a plan (path parameters as the base has them: the caller puts real ids in). */
  request(plan: Plan): CallOptions;
}

const text = (value: RawJson): string => (value instanceof RawNumber ? value.text : typeof value === 'object' && value !== null ? JSON.stringify(value) : String(value));

/** The values of a field that break one rule each. */
function fieldBreakages(field: FieldAt): { rule: string; value: RawJson | undefined }[] {
  const found: { rule: string; value: RawJson | undefined }[] = brokenValues(field.schema).map(([rule, value]) => ({ rule, value }));
  const types = typesOf(field.schema);
  if (types.length > 0 && !types.includes('string')) found.push({ rule: 'type', value: 'not-a-number' });
  else if (types.length > 0 && !types.includes('object')) found.push({ rule: 'type', value: { unexpected: 'object' } });
  for (const [rule, spelling] of refusedSpellings(field.schema)) found.push({ rule, value: new RawNumber(spelling) });
  for (const date of datesFor(field.schema)) found.push({ rule: `impossible date ${date}`, value: date });
  if (field.required) found.push({ rule: 'required', value: undefined });
  return found;
}

/** The value at a path of the base body, if any. */
function exampleAt(body: unknown, path: readonly (string | number)[]): unknown {
  let node: unknown = body;
  for (const key of path) node = typeof node === 'object' && node !== null ? (node as Record<string | number, unknown>)[key] : undefined;
  return node;
}

/**
 * An integer whose bounds are far wider than its example (seconds to move the sandbox clock: 86,400 of up to
 * 31,536,000) is drawn up to ten times the example: a hundred accepted requests at the bounds would move a
 * shared sandbox a century ahead, past every card's expiry. The bounds themselves are the negative checks'.
 */
function nearExample(schema: Record<string, unknown>, example: unknown): Record<string, unknown> {
  if (!typesOf(schema).includes('integer') || typeof example !== 'number' || example <= 0 || typeof schema.maximum !== 'number' || schema.maximum <= 100 * example) return schema;
  return { ...schema, maximum: 10 * example };
}

/** The fuzz plans of an operation, derived from its schemas and its valid base request. */
export function operationPlans(reader: SpecReader, operationId: string): OperationPlans {
  const { base } = negativeCases(reader, operationId);
  const found = reader.operation(operationId);
  const json = found ? reader.jsonBody(found.op) : undefined;
  const body = base.body as RawJson | undefined;
  const fields = json && body !== undefined ? bodyFields(reader, json.schema, body) : [];
  const queryParams = (found?.params ?? []).filter((p) => p.in === 'query' && typeof p.name === 'string');

  // Each field is left as the base has it four times in five: a valid plan changes a few fields at a time.
  const maybe = <T>(arbitrary: fc.Arbitrary<T>): fc.Arbitrary<T | undefined> =>
    fc.oneof({ withCrossShrink: true }, { weight: 4, arbitrary: fc.constant(undefined) }, { weight: 1, arbitrary });
  const overrides = fc.tuple(...fields.map((f) => maybe(validValue(reader, nearExample(f.schema, exampleAt(body, f.path)))).map((value) => (value === undefined ? undefined : { path: f.path, value }))))
    .map((list) => list.filter((o): o is Plan['overrides'][number] => o !== undefined));
  const query = fc.tuple(...queryParams.map((p) => maybe(validValue(reader, p.schema)).map((value) => [String(p.name), value === undefined ? undefined : text(value)] as const)))
    .map((pairs) => Object.fromEntries(pairs.filter((pair): pair is readonly [string, string] => pair[1] !== undefined)));

  const breakages: Breakage[] = [];
  for (const field of fields) {
    for (const { rule, value } of fieldBreakages(field)) {
      if (stringifyRaw(setPath(body ?? null, field.path, value)) !== stringifyRaw(body ?? null)) breakages.push({ rule: `body.${fieldName(field.path)}: ${rule}`, where: 'body', path: field.path, value });
    }
  }
  for (const p of queryParams) {
    const schema = reader.flat(p.schema);
    const values: [string, RawJson][] = [...brokenValues(schema), ...datesFor(schema).map((d): [string, RawJson] => [`impossible date ${d}`, d])];
    if (typesOf(schema).some((t) => t === 'integer' || t === 'number')) values.push(['type', 'not-a-number']);
    for (const [rule, value] of values) if (value === null || typeof value !== 'object') breakages.push({ rule: `query.${String(p.name)}: ${rule}`, where: 'query', name: String(p.name), value: text(value) });
  }
  if (json) {
    const valid = stringifyRaw(body ?? {});
    breakages.push({ rule: 'body: malformed JSON', where: 'whole', rawBody: valid.slice(0, Math.max(1, valid.length - 1)), contentType: 'application/json' });
    breakages.push({ rule: 'body: not JSON (text/plain)', where: 'whole', rawBody: 'amount=1', contentType: 'text/plain' });
    for (const [what, bytes] of NOT_UTF8) breakages.push({ rule: `body not UTF-8: ${what}`, where: 'whole', rawBytes: withBytes(valid, bytes), contentType: 'application/json' });
  }

  const valid = fc.record({ overrides, query, breakage: fc.constant(undefined) });
  const plans = breakages.length === 0 ? valid
    : fc.oneof(valid, fc.record({ overrides, query, breakage: fc.constantFrom(...breakages) }));

  const request = (plan: Plan): CallOptions => {
    let changed: RawJson | undefined = body;
    for (const o of plan.overrides) changed = setPath(changed ?? null, o.path, o.value);
    const b = plan.breakage;
    if (b?.where === 'body') {
      const broken = setPath(changed ?? null, b.path, b.value);
      // An override that took the field's parent away would hide the breakage: then it is broken in the base.
      changed = stringifyRaw(broken) !== stringifyRaw(changed ?? null) ? broken : setPath(body ?? null, b.path, b.value);
    }
    const q = { ...base.query, ...plan.query, ...(b?.where === 'query' ? { [b.name]: b.value } : {}) };
    if (b?.where === 'whole') return { ...base, query: q, body: undefined, ...(b.rawBytes ? { rawBytes: b.rawBytes } : { rawBody: b.rawBody ?? '' }), contentType: b.contentType };
    return { ...base, query: q, ...(changed === undefined ? {} : { body: undefined, rawBody: stringifyRaw(changed), contentType: 'application/json' }) };
  };
  return { base, plans, request };
}
