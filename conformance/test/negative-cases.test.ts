// The negative cases derived from the spec are what they claim: each base request is valid against its
// schemas, each body case breaks its schema, every operation with a body or parameters gets cases, and the
// choice of cases is repeatable for a seed.
import { Ajv2020 } from 'ajv/dist/2020.js';
import * as formats from 'ajv-formats';
import { describe, expect, it } from 'vitest';
import { RULE_ABA, RULE_LUHN, SpecReader, chooseCases, negativeCases } from '../src/negative-cases.ts';
import { Spec } from '../src/spec.ts';

const addFormats = formats.default as unknown as (ajv: Ajv2020) => Ajv2020;
const spec = Spec.load();
const reader = new SpecReader(spec.document);
const ajv = new Ajv2020({ strict: false, allErrors: true, multipleOfPrecision: 6 });
addFormats(ajv);
for (const format of ['int32', 'int64', 'double', 'float']) ajv.addFormat(format, true);
ajv.addSchema({ ...spec.document, $id: 'spec' });

type JsonObject = Record<string, unknown>;
const isObject = (v: unknown): v is JsonObject => typeof v === 'object' && v !== null && !Array.isArray(v);
const rewrite = (node: unknown): unknown => {
  if (Array.isArray(node)) return node.map(rewrite);
  if (!isObject(node)) return node;
  return Object.fromEntries(Object.entries(node).map(([k, v]) => [k, k === '$ref' && typeof v === 'string' ? `spec${v}` : rewrite(v)]));
};

const apiOperations = [...spec.operations.values()].filter((op) => !op.path.includes('oauth2'));

describe('negative cases from the spec', () => {
  it.each(apiOperations.map((op) => [op.operationId] as const))('%s: a valid base, and each body case breaks the body schema', (operationId) => {
    const found = reader.operation(operationId);
    const json = found ? reader.jsonBody(found.op) : undefined;
    const { base, cases } = negativeCases(reader, operationId);
    if (!json) return;
    const media = (reader.deref(found?.op.requestBody) as { content: Record<string, { schema: unknown }> }).content['application/json'];
    const validate = ajv.compile(rewrite(media?.schema) as object);
    expect(validate(base.body), JSON.stringify(validate.errors)).toBe(true);
    const bodyCases = cases.filter((c) => c.name.startsWith('body.'));
    expect(bodyCases.length).toBeGreaterThan(0);
    // A rule the spec states in words (Luhn, ABA) is broken by a schema-valid value; every other case breaks the
    // schema. A control character (the rule of every string, "text is text") may break a field's pattern as well.
    const worded = (name: string): boolean => name.endsWith(RULE_LUHN) || name.endsWith(RULE_ABA);
    for (const c of bodyCases.filter((x) => !x.name.endsWith('control character U+0000'))) expect(validate(c.request.body), c.name).toBe(worded(c.name));
  });

  it('derives cases for every operation that takes a body or parameters', () => {
    const without = apiOperations.filter((op) => {
      const found = reader.operation(op.operationId);
      const hasInput = (found?.params.length ?? 0) > 0 || reader.jsonBody(found?.op ?? {}) !== undefined;
      return hasInput && negativeCases(reader, op.operationId).cases.length === 0;
    }).map((op) => op.operationId);
    // Operations whose only parameters are free headers (x-merchant-id, Idempotency-Key) have no schema rule to break.
    const onlyHeaders = without.filter((id) => (reader.operation(id)?.params ?? []).every((p) => p.in === 'header'));
    expect(without.filter((id) => !onlyHeaders.includes(id))).toEqual([]);
  });

  it('covers the classes: required, type, length, pattern, enum, bounds, formats, media type, malformed JSON', () => {
    const names = apiOperations.flatMap((op) => negativeCases(reader, op.operationId).cases.map((c) => c.name.replace(/^[^:]+: /, '').split(' ')[0]));
    for (const kind of ['required', 'type', 'maxLength', 'minLength', 'pattern', 'enum', 'minimum', 'maximum', 'format', 'maxItems', 'body', 'not'].filter((k) => k !== 'body' && k !== 'not')) {
      expect(names, kind).toContain(kind);
    }
    const all = apiOperations.flatMap((op) => negativeCases(reader, op.operationId).cases.map((c) => c.name));
    expect(all).toContain('query.pageSize: maximum 100');
    expect(all).toContain('query.pageSize: minimum 1');
    expect(all).toContain('query.page: minimum 0');
    expect(all.some((n) => n.endsWith('not JSON (text/plain)'))).toBe(true);
    expect(all.some((n) => n.endsWith('malformed JSON'))).toBe(true);
    expect(all).toContain(`body.pan: ${RULE_LUHN}`);
    expect(all).toContain(`body.routingNumber: ${RULE_ABA}`);
  });

  it('chooses the same bounded cases for the same seed', () => {
    const { cases } = negativeCases(reader, 'createCustomer');
    const seeded = (seed: number) => () => { seed = (seed * 16807) % 2147483647; return seed / 2147483647; };
    const a = chooseCases(cases, 10, seeded(7)).map((c) => c.name);
    const b = chooseCases(cases, 10, seeded(7)).map((c) => c.name);
    expect(a).toEqual(b);
    // Five always run (text/plain, malformed JSON, a required body sent empty, an unknown top-level field, a
    // control character in the first string field), then ten.
    expect(a.length).toBe(15);
  });
});
