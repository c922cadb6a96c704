// Hostile cases derived from the spec: for every number field with decimal places (`x-decimal-places` or `multipleOf`), its value spelled as the
// grammar of "Amounts" refuses (exponents, more decimals than the step allows, past the bounds, negative zero,
// more than 15 significant digits), written as raw JSON text; for every `date-time`/`date` field (body and
// query), dates no calendar holds; for every JSON body, bytes that are not UTF-8. Nothing is per operation.
import type { CallOptions } from './http.ts';
import { SpecReader, negativeCases } from './negative-cases.ts';
import { RawNumber, fieldName, setPath, stringifyRaw, type RawJson } from './raw-json.ts';

type JsonObject = Record<string, unknown>;
const isObject = (v: unknown): v is JsonObject => typeof v === 'object' && v !== null && !Array.isArray(v);
const typesOf = (schema: JsonObject): string[] => (Array.isArray(schema.type) ? schema.type.map(String) : typeof schema.type === 'string' ? [schema.type] : []);

export type HostileKind = 'money' | 'dates' | 'utf8';

export interface HostileCase {
  /** `body.amount: exponent 4.99e25`: where, and which spelling. */
  readonly name: string;
  /** The field the answer must name; undefined when the refusal concerns the whole body (its encoding). */
  readonly field: string | undefined;
  readonly request: CallOptions;
}

/** A field of a body, with its flattened schema; `required` when its object requires it and gives no default. */
export interface FieldAt { path: (string | number)[]; schema: JsonObject; required: boolean }

/**
 * The fields of a body schema, two levels into objects and the first item of arrays, that the base body can
 * hold: present in it, or absent under a parent object it has (an optional field the example left out).
 */
export function bodyFields(reader: SpecReader, schema: JsonObject, base: unknown, at: (string | number)[] = [], depth = 0): FieldAt[] {
  const found: FieldAt[] = [];
  if (!isObject(base)) return found;
  const required = Array.isArray(schema.required) ? schema.required.map(String) : [];
  for (const [name, raw] of Object.entries(isObject(schema.properties) ? schema.properties : {})) {
    const property = reader.flat(raw);
    const path = [...at, name];
    found.push({ path, schema: property, required: required.includes(name) && property.default === undefined });
    const value = base[name];
    if (depth >= 2) continue;
    if (isObject(value) && typesOf(property).includes('object')) found.push(...bodyFields(reader, property, value, path, depth + 1));
    const items = reader.flat(property.items);
    if (Array.isArray(value) && isObject(value[0]) && Object.keys(items).length > 0) found.push(...bodyFields(reader, items, value[0], [...path, 0], depth + 1));
  }
  return found;
}

/**
 * The decimal places a number schema allows: its `x-decimal-places` (how this spec states a decimal field's
 * precision), else the n of a `multipleOf` of 10^-n (how another spec may); undefined for neither.
 */
export function decimalsOf(schema: JsonObject): number | undefined {
  const declared = schema['x-decimal-places'];
  if (typeof declared === 'number' && Number.isInteger(declared) && declared >= 0) return declared;
  const multipleOf = schema.multipleOf;
  if (typeof multipleOf !== 'number' || !(multipleOf > 0)) return undefined;
  const n = Math.round(-Math.log10(multipleOf));
  return Math.abs(10 ** -n - multipleOf) < 1e-12 ? Math.max(0, n) : undefined;
}

/** A scaled integer (cents for n = 2) as a plain decimal text with n places: 100000000, 2 -> `1000000.00`. */
export function decimalText(scaled: bigint, n: number): string {
  const sign = scaled < 0n ? '-' : '';
  const digits = (scaled < 0n ? -scaled : scaled).toString().padStart(n + 1, '0');
  return n === 0 ? `${sign}${digits}` : `${sign}${digits.slice(0, -n)}.${digits.slice(-n)}`;
}

const scale = (value: number, n: number): bigint => BigInt(Math.round(value * 10 ** n));

/**
 * The spellings of a number the grammar refuses, for a schema of n decimal places: each with what it breaks.
 * Values inside the bounds are chosen where the rule broken is the spelling alone (`1e0` is a valid 1).
 */
export function refusedSpellings(schema: JsonObject): [string, string][] {
  const n = decimalsOf(schema);
  if (n === undefined) return [];
  const spellings: [string, string][] = [
    ['exponent (huge)', '4.99e25'],
    ['exponent (a valid value)', '1e0'],
    ['exponent (capital E)', '1.5E1'],
    ['exponent (negative)', `1e-${String(n)}`],
    [`more than ${String(n)} decimal places`, `1.${'0'.repeat(n)}5`],
    [`more than ${String(n)} decimal places (small)`, `0.${'0'.repeat(n)}1`],
    ['negative zero', '-0'],
    ['negative zero with decimals', `-0.${'0'.repeat(Math.max(1, n))}`],
    // As a double these are exactly 0.1 and 1: a gateway that reads the double accepts them.
    ['17 significant digits', '0.10000000000000001'],
    ['17 significant digits (reads as 1)', '1.0000000000000001'],
    ['not a finite number', '1e400'],
  ];
  if (typeof schema.maximum === 'number') {
    spellings.push([`above maximum ${String(schema.maximum)}`, decimalText(scale(schema.maximum, n) + 1n, n)]);
    spellings.push(['far above maximum (17 digits)', '12345678901234567']);
  }
  if (typeof schema.minimum === 'number') spellings.push([`below minimum ${String(schema.minimum)}`, decimalText(scale(schema.minimum, n) - 1n, n)]);
  if (typeof schema.exclusiveMinimum === 'number') {
    spellings.push([`at exclusiveMinimum ${String(schema.exclusiveMinimum)}`, decimalText(scale(schema.exclusiveMinimum, n), n)]);
    spellings.push([`below exclusiveMinimum ${String(schema.exclusiveMinimum)}`, decimalText(scale(schema.exclusiveMinimum, n) - 1n, n)]);
  }
  return spellings;
}

/** Dates a calendar does not hold (and a date-time without a zone), for `date-time` and `date`. */
export const IMPOSSIBLE_DATE_TIMES = [
  '2030-02-30T00:00:00Z', '2030-13-01T00:00:00Z', '2030-04-31T00:00:00Z', '2029-02-29T00:00:00Z', '2030-01-00T00:00:00Z',
  '2030-01-01T24:00:00Z', '2030-01-01T00:60:00Z', '2030-01-01T00:00:00', '2030-01-01T00:00:00+25:00',
];
export const IMPOSSIBLE_DATES = ['2030-02-30', '2030-13-01', '2030-04-31', '2029-02-29', '2030-00-10', '2030-01-32'];

/** Bytes that are not UTF-8: an invalid continuation, a lone 0xFF, an overlong `/`, a UTF-16 surrogate. */
export const NOT_UTF8: readonly [string, Uint8Array][] = [
  ['\\xC3\\x28 (invalid continuation)', Uint8Array.of(0xc3, 0x28)],
  ['\\xFF', Uint8Array.of(0xff)],
  ['\\xC0\\xAF (overlong /)', Uint8Array.of(0xc0, 0xaf)],
  ['\\xED\\xA0\\x80 (lone surrogate)', Uint8Array.of(0xed, 0xa0, 0x80)],
];

export const datesFor = (schema: JsonObject): string[] =>
  (typesOf(schema).includes('string') ? (schema.format === 'date-time' ? IMPOSSIBLE_DATE_TIMES : schema.format === 'date' ? IMPOSSIBLE_DATES : []) : []);

/** The JSON text of a body with the bytes put inside its first string value (or a body that is only them). */
export function withBytes(text: string, bytes: Uint8Array): Uint8Array {
  const at = /:"/.exec(text);
  const [head, tail] = at ? [text.slice(0, at.index + 2), text.slice(at.index + 2)] : ['{"note":"', '"}'];
  return Buffer.concat([Buffer.from(head, 'utf8'), bytes, Buffer.from(at ? tail : '"}', 'utf8')]);
}

/** The valid base request of an operation and its hostile cases of one kind. */
export function hostileCases(reader: SpecReader, operationId: string, kind: HostileKind): { base: CallOptions; cases: HostileCase[] } {
  const { base } = negativeCases(reader, operationId);
  const found = reader.operation(operationId);
  const json = found ? reader.jsonBody(found.op) : undefined;
  const body = base.body as RawJson | undefined;
  const cases: HostileCase[] = [];
  const queryParams = (found?.params ?? []).filter((p) => p.in === 'query' && typeof p.name === 'string');
  const bodyText = (value: RawJson): CallOptions => ({ ...base, body: undefined, rawBody: stringifyRaw(value), contentType: 'application/json' });
  const fields = json && body !== undefined ? bodyFields(reader, json.schema, body) : [];
  const same = stringifyRaw(body ?? null);

  if (kind === 'money') {
    for (const { path, schema } of fields) {
      for (const [rule, text] of refusedSpellings(schema)) {
        const changed = setPath(body ?? null, path, new RawNumber(text));
        if (stringifyRaw(changed) === same) continue;
        cases.push({ name: `body.${fieldName(path)}: ${rule} ${text}`, field: fieldName(path), request: bodyText(changed) });
      }
    }
    for (const p of queryParams) {
      for (const [rule, text] of refusedSpellings(reader.flat(p.schema))) {
        cases.push({ name: `query.${String(p.name)}: ${rule} ${text}`, field: String(p.name), request: { ...base, query: { ...base.query, [String(p.name)]: text } } });
      }
    }
  } else if (kind === 'dates') {
    for (const { path, schema } of fields) {
      for (const date of datesFor(schema)) {
        const changed = setPath(body ?? null, path, date);
        if (stringifyRaw(changed) === same) continue;
        cases.push({ name: `body.${fieldName(path)}: ${date}`, field: fieldName(path), request: bodyText(changed) });
      }
    }
    for (const p of queryParams) {
      for (const date of datesFor(reader.flat(p.schema))) {
        cases.push({ name: `query.${String(p.name)}: ${date}`, field: String(p.name), request: { ...base, query: { ...base.query, [String(p.name)]: date } } });
      }
    }
  } else if (json) {
    for (const [what, bytes] of NOT_UTF8) {
      cases.push({ name: `body not UTF-8: ${what}`, field: undefined, request: { ...base, body: undefined, rawBytes: withBytes(same, bytes), contentType: 'application/json' } });
    }
  }
  return { base, cases };
}
