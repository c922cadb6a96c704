// The hostile cases and fuzz generators are what they claim: every refused spelling is one an independent
// reading of the "Amounts" grammar refuses, every field with multipleOf gets them, raw bodies and non-UTF-8
// reproduction lines carry the exact bytes, and the fuzz phase's valid values are valid against their schemas.
import { execFileSync } from 'node:child_process';
import { Ajv2020 } from 'ajv/dist/2020.js';
import * as formats from 'ajv-formats';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { bodyFields, decimalText, decimalsOf, hostileCases, refusedSpellings } from '../src/hostile-cases.ts';
import { SpecReader } from '../src/negative-cases.ts';
import { RawNumber, stringifyRaw } from '../src/raw-json.ts';
import { bytesWord, curlOf } from '../src/reproduce.ts';
import { validValue } from '../src/fuzz/arbitraries.ts';
import { operationPlans } from '../src/fuzz/plans.ts';
import { Spec } from '../src/spec.ts';

const spec = Spec.load();
const reader = new SpecReader(spec.document);
type JsonObject = Record<string, unknown>;
const isObject = (v: unknown): v is JsonObject => typeof v === 'object' && v !== null && !Array.isArray(v);

/** The grammar of "Amounts", read independently of the suite: plain decimal, at most n places, <= 15 digits, no -0, in range. */
function accepted(text: string, schema: JsonObject, n: number): boolean {
  const match = /^(-?)(\d+)(?:\.(\d+))?$/.exec(text);
  if (!match) return false;
  const [, sign = '', whole = '', fraction = ''] = match;
  const places = fraction.replace(/0+$/, '');
  if (places.length > n) return false;
  const digits = `${whole}${fraction}`.replace(/^0+/, '');
  if (digits.length > 15) return false;
  const scaled = BigInt(`${sign}${whole}${places.padEnd(n, '0')}`);
  if (sign === '-' && scaled === 0n) return false;
  const bound = (v: unknown): bigint | undefined => (typeof v === 'number' ? BigInt(Math.round(v * 10 ** n)) : undefined);
  const min = bound(schema.minimum); const xmin = bound(schema.exclusiveMinimum); const max = bound(schema.maximum);
  return (min === undefined || scaled >= min) && (xmin === undefined || scaled > xmin) && (max === undefined || scaled <= max);
}

const multipleOfFields = [...spec.operations.values()].flatMap((op) => {
  const found = reader.operation(op.operationId);
  const json = found ? reader.jsonBody(found.op) : undefined;
  return json ? bodyFields(reader, json.schema, json.example).filter((f) => decimalsOf(f.schema) !== undefined).map((f) => [op.operationId, f.path.join('.'), f.schema] as const) : [];
});

describe('money spellings', () => {
  it('the independent reading accepts plain decimals and refuses the rest (a judge that can fail)', () => {
    const schema = { minimum: 0.01, maximum: 999999.99 };
    for (const text of ['12', '12.5', '12.50', '12.500', '0.01', '999999.99', '1.10']) expect(accepted(text, schema, 2), text).toBe(true);
    for (const text of ['1e2', '1.005', '-0', '-0.00', '0', '1000000', '0.10000000000000001', '+1', '.5', '1.']) expect(accepted(text, schema, 2), text).toBe(false);
  });

  it('every decimal field of every request body gets a dozen spellings, each refused by the grammar', () => {
    expect(multipleOfFields.length).toBeGreaterThanOrEqual(25);
    for (const [operationId, field, schema] of multipleOfFields) {
      const n = decimalsOf(schema) ?? 0;
      const spellings = refusedSpellings(schema);
      expect(spellings.length, `${operationId} ${field}`).toBeGreaterThanOrEqual(12);
      for (const [rule, text] of spellings) expect(accepted(text, schema, n), `${operationId} ${field} ${rule} ${text}`).toBe(false);
    }
  });

  it.each([[100000000n, 2, '1000000.00'], [-1n, 2, '-0.01'], [0n, 3, '0.000'], [5n, 0, '5'], [123456n, 3, '123.456']] as const)('decimalText(%s, %s) is %s', (scaled, n, text) => {
    expect(decimalText(scaled, n)).toBe(text);
  });

  it('a raw body carries each spelling verbatim, where JSON.stringify would not', () => {
    const { cases } = hostileCases(reader, 'createCardSale', 'money');
    for (const text of ['4.99e25', '1.005', '-0', '0.10000000000000001', '1e400']) {
      expect(cases.some((c) => c.request.rawBody?.includes(`"amount":${text}`)), text).toBe(true);
    }
    expect(stringifyRaw({ a: new RawNumber('1.50'), b: [new RawNumber('-0'), 'x', null], c: undefined })).toBe('{"a":1.50,"b":[-0,"x",null]}');
  });
});

describe('bodies that are not UTF-8', () => {
  it.each([[[0xc3, 0x28]], [[0xff]], [[0xc0, 0xaf]], [[0xed, 0xa0, 0x80]], [[0x27, 0x5c, 0x0a, 0x41]]])('the reproduction line sends the bytes %j exactly', (bytes) => {
    const body = Uint8Array.from([0x7b, 0x22, 0x61, 0x22, 0x3a, 0x22, ...bytes, 0x22, 0x7d]);
    const sent = execFileSync('bash', ['-c', `printf '%s' ${bytesWord(body)}`]);
    expect([...sent]).toEqual([...body]);
    expect(curlOf({ method: 'POST', url: 'http://127.0.0.1:9/x', headers: { 'content-type': 'application/json' }, body: Buffer.from(body).toString('utf8'), bodyBytes: body })).toContain(`--data-raw ${bytesWord(body)}`);
  });

  it('every operation with a JSON body gets the four encodings', () => {
    const withBody = [...spec.operations.values()].filter((op) => !op.path.includes('oauth2') && hostileCases(reader, op.operationId, 'utf8').cases.length > 0);
    expect(withBody.length).toBeGreaterThanOrEqual(30);
    for (const op of withBody) expect(hostileCases(reader, op.operationId, 'utf8').cases.every((c) => c.request.rawBytes !== undefined && !Buffer.from(c.request.rawBytes).equals(Buffer.from(Buffer.from(c.request.rawBytes).toString('utf8'))))).toBe(true);
  });
});

describe('fuzz generators', () => {
  const addFormats = formats.default as unknown as (ajv: Ajv2020) => Ajv2020;
  const ajv = new Ajv2020({ strict: false, allErrors: true, multipleOfPrecision: 6 });
  addFormats(ajv);
  for (const format of ['int32', 'int64', 'double', 'float']) ajv.addFormat(format, true);
  ajv.addSchema({ ...spec.document, $id: 'spec' });
  const bodies = [...spec.operations.values()].flatMap((op) => {
    const found = reader.operation(op.operationId);
    const body = found ? reader.deref(found.op.requestBody) : undefined;
    const media = isObject(body) && isObject(body.content) ? body.content['application/json'] : undefined;
    const schema = isObject(media) && isObject(media.schema) && typeof media.schema.$ref === 'string' ? media.schema.$ref : undefined;
    return schema ? [[op.operationId, schema] as const] : [];
  });

  it.each(bodies)('%s: generated valid bodies are valid against the schema', (_operationId, ref) => {
    const validate = ajv.compile({ $ref: `spec${ref}` });
    for (const value of fc.sample(validValue(reader, { $ref: ref }), { numRuns: 30, seed: 1 })) {
      const text = stringifyRaw(value);
      validate(JSON.parse(text));
      // ajv judges multipleOf on the double (586344991208.43 / 0.01 is off by more than its precision): the
      // decimal places are judged on the text instead, as the grammar says.
      expect((validate.errors ?? []).filter((e) => e.keyword !== 'multipleOf'), text).toEqual([]);
      expect(text, 'no exponent, no negative zero').not.toMatch(/:(-?\d+(\.\d+)?[eE]|-0(\.0+)?[,}\]])/);
    }
  });

  it('an invalid plan breaks one rule of the base request; a valid one breaks none', () => {
    const plans = operationPlans(reader, 'createLineItem');
    const validate = ajv.compile({ $ref: 'spec#/components/schemas/CatalogueLineItemRequest' });
    let invalid = 0;
    for (const plan of fc.sample(plans.plans, { numRuns: 200, seed: 2 })) {
      const request = plans.request(plan);
      if (plan.breakage === undefined) {
        expect(validate(JSON.parse(request.rawBody ?? '')), request.rawBody).toBe(true);
        continue;
      }
      invalid++;
      let parsed: unknown;
      try { parsed = JSON.parse(request.rawBody ?? ''); } catch { continue; }
      const text = request.rawBody ?? '';
      // A spelling the grammar refuses parses to a valid double: the text, not the value, breaks the rule.
      const refusedSpelling = /:(-?0(\.0+)?|[\d.]+[eE][-+]?\d+|\d+\.\d{3,}|\d{16,}|0\.\d{16,}|1\.\d{16,})[,}]/.test(text);
      expect(validate(parsed) && !refusedSpelling, `${plan.breakage.rule}: ${text}`).toBe(false);
    }
    expect(invalid).toBeGreaterThan(50);
  });
});
