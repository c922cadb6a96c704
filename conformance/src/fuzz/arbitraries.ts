// fast-check arbitraries from the spec's JSON Schemas: values a schema accepts (types, enums, bounds, multipleOf
// as plain decimal text, lengths, patterns, formats, required and optional properties). A small generator of
// our own: json-schema-fast-check (0.0.6) targets fast-check 1 and pulls in faker 4, and the others generate
// without fast-check's shrinking.
import fc from 'fast-check';
import { decimalText, decimalsOf } from '../hostile-cases.ts';
import type { SpecReader } from '../negative-cases.ts';
import { RawNumber, type RawJson } from '../raw-json.ts';

type JsonObject = Record<string, unknown>;
const isObject = (v: unknown): v is JsonObject => typeof v === 'object' && v !== null && !Array.isArray(v);
const typesOf = (schema: JsonObject): string[] => (Array.isArray(schema.type) ? schema.type.map(String) : typeof schema.type === 'string' ? [schema.type] : []);
const num = (v: unknown): number | undefined => (typeof v === 'number' && Number.isFinite(v) ? v : undefined);

/** Strings are kept short: length limits are the negative cases' business, and long bodies only slow a run. */
const MAX_STRING = 24;
const MAX_ITEMS = 3;

const DAY = 86_400_000;
const dateTimes = fc.integer({ min: Date.UTC(2001, 0, 1) / DAY, max: Date.UTC(2099, 11, 31) / DAY })
  .chain((day) => fc.integer({ min: 0, max: DAY / 1000 - 1 }).map((s) => new Date(day * DAY + s * 1000).toISOString().replace('.000Z', 'Z')));

const lower = fc.stringMatching(/^[a-z][a-z0-9]{0,9}$/);
const FORMATS: Record<string, fc.Arbitrary<string>> = {
  uuid: fc.uuid({ version: 4 }),
  'date-time': dateTimes,
  date: dateTimes.map((d) => d.slice(0, 10)),
  email: fc.tuple(lower, lower, fc.constantFrom('com', 'org', 'example', 'co.uk')).map(([l, d, t]) => `${l}@${d}.${t}`),
  uri: fc.tuple(lower, lower).map(([host, path]) => `https://${host}.example.com/${path}`),
};

/** A number the schema accepts: a multiple of a decimal step as plain text (trailing zeros or not), else a double or integer. */
function numberOf(schema: JsonObject, integer: boolean): fc.Arbitrary<RawJson> {
  const n = integer ? 0 : decimalsOf(schema);
  const minimum = num(schema.minimum);
  const exclusiveMinimum = num(schema.exclusiveMinimum);
  const maximum = num(schema.maximum);
  const exclusiveMaximum = num(schema.exclusiveMaximum);
  if (n !== undefined) {
    const factor = 10 ** n;
    const lowest = minimum !== undefined ? Math.ceil(minimum * factor - 1e-9) : exclusiveMinimum !== undefined ? Math.floor(exclusiveMinimum * factor + 1e-9) + 1 : -1_000_000 * factor;
    const highest = maximum !== undefined ? Math.floor(maximum * factor + 1e-9) : exclusiveMaximum !== undefined ? Math.ceil(exclusiveMaximum * factor - 1e-9) - 1 : 1_000_000 * factor;
    const scaled = fc.bigInt({ min: BigInt(lowest), max: BigInt(highest) });
    if (integer) return scaled.map((k) => Number(k));
    // `12.50` and `12.5` are the same amount: both spellings are sent.
    return fc.tuple(scaled, fc.boolean()).map(([k, trim]) => {
      const text = decimalText(k, n);
      return new RawNumber(trim && text.includes('.') ? text.replace(/\.?0+$/, '') || '0' : text);
    });
  }
  return fc.double({ min: minimum ?? exclusiveMinimum ?? -1e6, max: maximum ?? exclusiveMaximum ?? 1e6, noNaN: true, noDefaultInfinity: true, minExcluded: minimum === undefined && exclusiveMinimum !== undefined, maxExcluded: maximum === undefined && exclusiveMaximum !== undefined })
    .map((v) => (Object.is(v, -0) ? 0 : v));
}

function stringOf(schema: JsonObject): fc.Arbitrary<string> {
  const minLength = num(schema.minLength) ?? 0;
  const maxLength = Math.max(minLength, Math.min(num(schema.maxLength) ?? MAX_STRING, MAX_STRING));
  const format = typeof schema.format === 'string' ? FORMATS[schema.format] : undefined;
  if (format) return format;
  if (typeof schema.pattern === 'string') {
    const pattern = new RegExp(schema.pattern, 'u');
    return fc.stringMatching(pattern).filter((s) => s.length >= minLength && s.length <= (num(schema.maxLength) ?? Infinity));
  }
  // JSON Schema counts code points; a grapheme may hold several.
  const codePoints = (s: string): number => Array.from(s).length;
  return fc.string({ unit: 'grapheme', minLength, maxLength }).filter((s) => codePoints(s) >= minLength && codePoints(s) <= maxLength);
}

/** An arbitrary of the values a schema accepts (depth-limited: deeper objects take their required fields only). */
export function validValue(reader: SpecReader, raw: unknown, depth = 0): fc.Arbitrary<RawJson> {
  const schema = reader.flat(raw);
  if ('const' in schema) return fc.constant(schema.const as RawJson);
  if (Array.isArray(schema.enum)) return fc.constantFrom(...(schema.enum as RawJson[]));
  for (const key of ['oneOf', 'anyOf'] as const) {
    const branches = schema[key];
    if (Array.isArray(branches) && branches.length > 0) return fc.oneof(...branches.map((b) => validValue(reader, b, depth)));
  }
  const types = typesOf(schema);
  const one = (type: string): fc.Arbitrary<RawJson> => {
    switch (type) {
      case 'null': return fc.constant(null);
      case 'boolean': return fc.boolean();
      case 'integer': return numberOf(schema, true);
      case 'number': return numberOf(schema, false);
      case 'string': return stringOf(schema);
      case 'array': {
        const minItems = num(schema.minItems) ?? 0;
        return fc.array(validValue(reader, schema.items, depth + 1), { minLength: minItems, maxLength: Math.max(minItems, Math.min(num(schema.maxItems) ?? MAX_ITEMS, MAX_ITEMS)) });
      }
      default: return objectOf(reader, schema, depth);
    }
  };
  const nonNull = types.filter((t) => t !== 'null');
  if (nonNull.length === 0) return types.includes('null') ? fc.constant(null) : isObject(schema.properties) ? objectOf(reader, schema, depth) : fc.constant({});
  const arbitraries = nonNull.map(one);
  const value = arbitraries.length === 1 && arbitraries[0] ? arbitraries[0] : fc.oneof(...arbitraries);
  return types.includes('null') ? fc.oneof({ weight: 4, arbitrary: value }, { weight: 1, arbitrary: fc.constant(null) }) : value;
}

function objectOf(reader: SpecReader, schema: JsonObject, depth: number): fc.Arbitrary<RawJson> {
  const properties = isObject(schema.properties) ? schema.properties : {};
  const required = Array.isArray(schema.required) ? schema.required.map(String) : [];
  const keys = Object.keys(properties).filter((k) => depth < 3 || required.includes(k));
  const model = Object.fromEntries(keys.map((k) => [k, validValue(reader, properties[k], depth + 1)]));
  // `dependentRequired`: a property whose companions were left out is left out too.
  const dependent = isObject(schema.dependentRequired) ? Object.entries(schema.dependentRequired).filter((e): e is [string, string[]] => Array.isArray(e[1])) : [];
  return fc.record(model, { requiredKeys: keys.filter((k) => required.includes(k)) }).map((value) => {
    const kept: Record<string, RawJson> = { ...value };
    for (const [key, companions] of dependent) if (key in kept && companions.some((c) => !(c in kept))) Reflect.deleteProperty(kept, key);
    return kept;
  });
}
