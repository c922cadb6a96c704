// Negative cases derived from the spec: for an operation, a valid base request (its examples) and, one rule
// at a time, a request that breaks it: a required field missing, a JSON type violated, a length, pattern,
// enumeration, bound or format broken, a path or query parameter out of its schema, a body of another media
// type, malformed JSON. Nothing here is hand-written per operation: a new field or rule is a new case.
import type { CallOptions } from './http.ts';

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
type JsonObject = Record<string, unknown>;
const isObject = (v: unknown): v is JsonObject => typeof v === 'object' && v !== null && !Array.isArray(v);

export interface NegativeCase {
  /** `body.billingAddress.city: maxLength 100`: where and which rule. */
  readonly name: string;
  /** The field the answer must name (dotted, array items as [0]); undefined when no field is concerned. */
  readonly field: string | undefined;
  readonly request: CallOptions;
  readonly status: 400 | 415;
  /** Run on every operation, whatever the sample: the contract's own rules of every body (unknown fields, an empty required body). */
  readonly always?: boolean;
}

/** A property no contract names: a body holding it where the schema is closed must be refused, naming it. */
export const UNKNOWN_FIELD = 'zzNotAFieldOfThisRequest';
/** Text with a NUL: refused in every string field (the contract's "text is text" rule). */
export const CONTROL_TEXT = 'a\u0000b';

/** A fixed id for path parameters: validation answers before any record is looked up. */
export const PLACEHOLDER_ID = '0d6f3c1e-5a7b-4c2d-9e8f-1a2b3c4d5e6f';

export class SpecReader {
  constructor(readonly document: JsonObject) {}

  deref(node: unknown): unknown {
    let current = node;
    for (let i = 0; i < 32 && isObject(current) && typeof current.$ref === 'string' && current.$ref.startsWith('#/'); i++) {
      current = current.$ref.slice(2).split('/').map((p) => p.replaceAll('~1', '/').replaceAll('~0', '~'))
        .reduce<unknown>((acc, key) => (isObject(acc) ? acc[key] : undefined), this.document);
    }
    return current;
  }

  /** The schema with allOf merged and references followed (properties, required, type, constraints). */
  flat(node: unknown): JsonObject {
    const schema = this.deref(node);
    if (!isObject(schema)) return {};
    // A nullable alternative (`oneOf: [X, {type: 'null'}]`) reads as X with null allowed.
    for (const key of ['oneOf', 'anyOf'] as const) {
      const branches = schema[key];
      if (!Array.isArray(branches)) continue;
      const flats = branches.map((b) => this.flat(b));
      const nonNull = flats.filter((b) => !(typesOf(b).length === 1 && typesOf(b)[0] === 'null'));
      if (nonNull.length === 1 && nonNull[0] && flats.length === 2) {
        const only = nonNull[0];
        const rest = Object.fromEntries(Object.entries(schema).filter(([k]) => k !== key));
        return { ...only, ...rest, type: [...new Set([...typesOf(only), 'null'])] };
      }
    }
    if (!Array.isArray(schema.allOf)) return schema;
    const merged: JsonObject = { ...schema, properties: { ...(isObject(schema.properties) ? schema.properties : {}) }, required: Array.isArray(schema.required) ? [...(schema.required as unknown[])] : [] };
    delete merged.allOf;
    for (const part of schema.allOf) {
      const flat = this.flat(part);
      for (const [key, value] of Object.entries(flat)) {
        if (key === 'properties' && isObject(value)) Object.assign(merged.properties as JsonObject, value);
        else if (key === 'required' && Array.isArray(value)) (merged.required as unknown[]).push(...(value as unknown[]));
        else if (!(key in merged)) merged[key] = value;
      }
    }
    return merged;
  }

  operation(operationId: string): { path: string; method: string; op: JsonObject; params: JsonObject[] } | undefined {
    for (const [path, raw] of Object.entries(isObject(this.document.paths) ? this.document.paths : {})) {
      const item = this.deref(raw);
      if (!isObject(item)) continue;
      for (const method of ['get', 'put', 'post', 'delete', 'patch']) {
        const op = item[method];
        if (!isObject(op) || op.operationId !== operationId) continue;
        const list = (v: unknown): unknown[] => (Array.isArray(v) ? (v as unknown[]) : []);
        const params = [...list(item.parameters), ...list(op.parameters)].map((p) => this.deref(p)).filter(isObject);
        return { path, method, op, params };
      }
    }
    return undefined;
  }

  /** The JSON request body's schema and its first example, when the operation takes JSON. */
  jsonBody(op: JsonObject): { schema: JsonObject; example: unknown; required: boolean } | undefined {
    const body = this.deref(op.requestBody);
    if (!isObject(body) || !isObject(body.content)) return undefined;
    const media = body.content['application/json'];
    if (!isObject(media)) return undefined;
    const schema = this.flat(media.schema);
    const fromExamples = isObject(media.examples) ? Object.values(media.examples).map((e) => this.deref(e)).find(isObject)?.value : undefined;
    const example = media.example ?? fromExamples ?? (Array.isArray(schema.examples) ? (schema.examples as unknown[])[0] : undefined);
    return { schema, example, required: body.required === true };
  }
}

/** A scalar as query or path text; arrays and objects as JSON. */
const scalarText = (v: Json): string => (typeof v === 'object' && v !== null ? JSON.stringify(v) : String(v));
const typesOf = (schema: JsonObject): string[] => (Array.isArray(schema.type) ? schema.type.map(String) : typeof schema.type === 'string' ? [schema.type] : []);
const clone = <T>(value: T): T => structuredClone(value);

/** A value of another JSON type than the schema allows, or undefined when every type is allowed. */
function wrongType(schema: JsonObject): Json | undefined {
  const types = typesOf(schema);
  if (types.length === 0) return undefined;
  if (!types.includes('object')) return { unexpected: 'object' };
  if (!types.includes('string')) return 'not-a-number';
  return undefined;
}

/** The rules stated in the spec's words (not JSON Schema keywords): a case breaking one is schema-valid. */
export const RULE_LUHN = 'rule: Luhn check';
export const RULE_ABA = 'rule: ABA check digit';

/** Values that break one constraint of a scalar schema each, with the rule they break. */
export function brokenValues(schema: JsonObject): [string, Json][] {
  const cases: [string, Json][] = [];
  const types = typesOf(schema);
  const nullable = types.includes('null');
  if (Array.isArray(schema.enum)) {
    const values = schema.enum as Json[];
    const numeric = values.every((v) => typeof v === 'number' || v === null);
    const outside: Json = numeric ? Math.max(0, ...values.filter((v): v is number => typeof v === 'number')) + 1000 : 'not-one-of-the-values';
    cases.push([`enum`, outside]);
  }
  if (types.includes('string')) {
    if (typeof schema.maxLength === 'number' && schema.maxLength < 100_000) cases.push([`maxLength ${String(schema.maxLength)}`, 'x'.repeat(schema.maxLength + 1)]);
    if (typeof schema.minLength === 'number' && schema.minLength > 0) cases.push([`minLength ${String(schema.minLength)}`, 'x'.repeat(schema.minLength - 1)]);
    if (typeof schema.pattern === 'string') {
      const pattern = new RegExp(schema.pattern, 'u');
      const candidate = ['!', '~ not valid ~', 'x', '0', ''].find((c) => !pattern.test(c) && (typeof schema.minLength !== 'number' || c.length >= schema.minLength));
      if (candidate !== undefined) cases.push([`pattern ${schema.pattern}`, candidate]);
    }
    const formats: Record<string, string> = { uuid: 'not-a-uuid', 'date-time': '2025-13-45T99:00:00Z', email: 'not-an-email', date: '2025-13-45', uri: 'not a uri' };
    if (typeof schema.format === 'string' && formats[schema.format] !== undefined) cases.push([`format ${schema.format}`, formats[schema.format] ?? '']);
  }
  // Rules the spec states in words rather than keywords: card numbers pass the Luhn check, routing numbers
  // the ABA check digit. A number of the right shape that fails the check must be refused.
  const said = typeof schema.description === 'string' ? schema.description : '';
  if (types.includes('string') && /Luhn/.test(said)) cases.push([RULE_LUHN, '4111111111111112']);
  if (types.includes('string') && /ABA check digit/.test(said)) cases.push([RULE_ABA, '021000022']);
  if (types.includes('integer') || types.includes('number')) {
    const step = types.includes('integer') ? 1 : 0.01;
    if (typeof schema.minimum === 'number') cases.push([`minimum ${String(schema.minimum)}`, schema.minimum - step]);
    if (typeof schema.maximum === 'number') cases.push([`maximum ${String(schema.maximum)}`, schema.maximum + step]);
    if (typeof schema.exclusiveMinimum === 'number') cases.push([`exclusiveMinimum ${String(schema.exclusiveMinimum)}`, schema.exclusiveMinimum]);
    if (typeof schema.exclusiveMaximum === 'number') cases.push([`exclusiveMaximum ${String(schema.exclusiveMaximum)}`, schema.exclusiveMaximum]);
  }
  if (types.includes('array')) {
    if (typeof schema.maxItems === 'number' && schema.maxItems < 1000) cases.push([`maxItems ${String(schema.maxItems)}`, Array.from({ length: schema.maxItems + 1 }, () => null)]);
    if (typeof schema.minItems === 'number' && schema.minItems > 0) cases.push([`minItems ${String(schema.minItems)}`, []]);
  }
  return cases.filter(([, value]) => !(nullable && value === null));
}

/** Sets a dotted path (`a.b`, `a[0].b`) in a copy of the body. */
function setAt(body: Json, path: (string | number)[], value: Json | undefined): Json {
  const copy = clone(body);
  let node: Json = copy;
  for (const key of path.slice(0, -1)) {
    const next: Json | undefined = Array.isArray(node) ? node[key as number] : isObject(node) ? (node as Record<string, Json>)[key] : undefined;
    if (next === undefined || next === null || typeof next !== 'object') return copy;
    node = next;
  }
  const last = path[path.length - 1];
  if (last === undefined || node === null || typeof node !== 'object') return copy;
  if (value === undefined) {
    if (Array.isArray(node)) node.splice(last as number, 1);
    else Reflect.deleteProperty(node, last);
  } else if (Array.isArray(node)) node[last as number] = value;
  else (node as Record<string, Json>)[last] = value;
  return copy;
}

const fieldName = (path: (string | number)[]): string =>
  path.map((p, i) => (typeof p === 'number' ? `[${String(p)}]` : i === 0 ? p : `.${p}`)).join('');

/** Cases of a body: every property the base body holds (and required ones it lacks), two levels deep. */
function bodyCases(reader: SpecReader, schema: JsonObject, base: Json, at: (string | number)[], depth: number): { name: string; path: (string | number)[]; value: Json | undefined }[] {
  const cases: { name: string; path: (string | number)[]; value: Json | undefined }[] = [];
  const properties = isObject(schema.properties) ? schema.properties : {};
  // A closed object (additionalProperties or unevaluatedProperties false) refuses a field it does not name.
  if ((schema.additionalProperties === false || schema.unevaluatedProperties === false) && isObject(base)) {
    cases.push({ name: 'unknown field', path: [...at, UNKNOWN_FIELD], value: 1 });
  }
  const required = Array.isArray(schema.required) ? schema.required.map(String) : [];
  const present = isObject(base) ? (base as Record<string, Json>) : {};
  // A required field with a default may be left out in practice (the server applies the default).
  for (const name of required) {
    if (name in present && reader.flat(properties[name]).default === undefined) cases.push({ name: 'required', path: [...at, name], value: undefined });
  }
  for (const [name, raw] of Object.entries(properties)) {
    if (!(name in present)) continue;
    const property = reader.flat(raw);
    const path = [...at, name];
    const wrong = wrongType(property);
    if (wrong !== undefined) cases.push({ name: 'type', path, value: wrong });
    for (const [rule, value] of brokenValues(property)) cases.push({ name: rule, path, value });
    if (typesOf(property).includes('string') && typeof present[name] === 'string') cases.push({ name: 'control character U+0000', path, value: CONTROL_TEXT });
    const value = present[name];
    if (depth < 2 && isObject(value) && typesOf(property).includes('object')) cases.push(...bodyCases(reader, property, value, path, depth + 1));
    const items = reader.flat(property.items);
    if (depth < 2 && Array.isArray(value) && isObject(value[0]) && Object.keys(items).length > 0) cases.push(...bodyCases(reader, items, value[0], [...path, 0], depth + 1));
  }
  return cases;
}

/** A value for a path or query parameter that its schema accepts. */
function parameterValue(reader: SpecReader, param: JsonObject): string {
  const schema = reader.flat(param.schema);
  const text = (v: unknown): string | undefined => (typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean' ? String(v) : undefined);
  if (text(param.example) !== undefined) return text(param.example) ?? '';
  if (schema.format === 'uuid') return PLACEHOLDER_ID;
  if (text(schema.default) !== undefined) return text(schema.default) ?? '';
  if (Array.isArray(schema.enum) && text(schema.enum[0]) !== undefined) return text(schema.enum[0]) ?? '';
  return typesOf(schema).includes('integer') ? (text(schema.minimum) ?? '1') : 'x';
}

/** The valid base request of an operation and every negative case derived from its schemas. */
export function negativeCases(reader: SpecReader, operationId: string): { base: CallOptions; cases: NegativeCase[] } {
  const found = reader.operation(operationId);
  if (!found) throw new Error(`the spec has no operation ${operationId}`);
  const path: Record<string, string> = {};
  const query: Record<string, string> = {};
  const pathParams = found.params.filter((p) => p.in === 'path' && typeof p.name === 'string');
  const queryParams = found.params.filter((p) => p.in === 'query' && typeof p.name === 'string');
  for (const p of pathParams) path[String(p.name)] = parameterValue(reader, p);
  for (const p of queryParams) if (p.required === true) query[String(p.name)] = parameterValue(reader, p);
  const json = reader.jsonBody(found.op);
  const body = json?.example as Json | undefined;
  const base: CallOptions = { path, query, ...(body === undefined ? {} : { body }) };
  const cases: NegativeCase[] = [];

  for (const p of pathParams) {
    const schema = reader.flat(p.schema);
    // An empty segment is another URL (another route), not a bad value of this parameter.
    const control: [string, Json][] = typesOf(schema).includes('string') ? [['control character U+0000', CONTROL_TEXT]] : [];
    for (const [rule, value] of [...brokenValues(schema), ...control].filter(([, v]) => scalarText(v) !== '')) {
      cases.push({ name: `path.${String(p.name)}: ${rule}`, field: String(p.name), request: { ...base, path: { ...path, [String(p.name)]: scalarText(value) } }, status: 400 });
    }
  }
  for (const p of queryParams) {
    const schema = reader.flat(p.schema);
    const broken = [...brokenValues(schema), ...(typesOf(schema).some((t) => t === 'integer' || t === 'number') ? [['type', 'not-a-number'] as [string, Json]] : []),
      ...(typesOf(schema).includes('string') ? [['control character U+0000', CONTROL_TEXT] as [string, Json]] : [])];
    for (const [rule, value] of broken) {
      if (Array.isArray(value) || isObject(value)) continue;
      cases.push({ name: `query.${String(p.name)}: ${rule}`, field: String(p.name), request: { ...base, query: { ...query, [String(p.name)]: String(value) } }, status: 400 });
    }
  }
  if (json && body !== undefined) {
    for (const c of bodyCases(reader, json.schema, body, [], 0)) {
      // The top-level unknown field is checked on every operation; deeper ones with the sample.
      const always = c.name === 'unknown field' && c.path.length === 1;
      cases.push({ name: `body.${fieldName(c.path)}: ${c.name}`, field: fieldName(c.path), request: { ...base, body: setAt(body, c.path, c.value) }, status: 400, ...(always ? { always } : {}) });
    }
    // One control character in the body on every operation (the first string field the base holds); the others with the sample.
    const control = cases.findIndex((c) => c.name.startsWith('body.') && c.name.endsWith('control character U+0000'));
    const first = cases[control];
    if (first) cases[control] = { ...first, always: true };
    if (json.required) cases.push({ name: 'body: required, sent empty', field: undefined, request: { ...base, body: undefined, rawBody: '', contentType: 'application/json' }, status: 400 });
    cases.push({ name: 'body: not JSON (text/plain)', field: undefined, request: { ...base, body: undefined, rawBody: 'amount=1', contentType: 'text/plain' }, status: 415 });
    cases.push({ name: 'body: malformed JSON', field: undefined, request: { ...base, body: undefined, rawBody: '{"amount": ', contentType: 'application/json' }, status: 400 });
  }
  return { base, cases };
}

/** A seeded, bounded choice: the structural cases always, then up to `max` others in a seeded order. */
export function chooseCases(cases: readonly NegativeCase[], max: number, random: () => number): NegativeCase[] {
  const structural = cases.filter((c) => c.field === undefined || c.always === true);
  const others = cases.filter((c) => c.field !== undefined && c.always !== true).map((c) => ({ c, key: random() })).sort((a, b) => a.key - b.key).map((x) => x.c);
  return [...structural, ...others.slice(0, max)];
}
