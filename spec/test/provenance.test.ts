// The provenance rule holds on the bundle, and each kind of unmarked invention is caught: a new field at the
// top of a body, a nested field, a query parameter, an operation. Marking the invention designed clears it.
import { describe, expect, it } from 'vitest';
import { loadBundle } from './bundled.ts';
import type { JsonObject } from './faithfulness.ts';
import { unmarkedInventions } from './provenance.ts';

const doc = loadBundle();
const designed = { 'x-provenance': 'designed', 'x-provenance-note': 'a test invention' };
const schemas = (d: JsonObject): Record<string, JsonObject> => (d.components as JsonObject).schemas as Record<string, JsonObject>;
const props = (schema: JsonObject | undefined): Record<string, unknown> => {
  if (!schema) throw new Error('missing schema');
  return schema.properties as Record<string, unknown>;
};
const paths = (d: JsonObject): Record<string, Record<string, JsonObject>> => d.paths as Record<string, Record<string, JsonObject>>;

const mutations: [string, (d: JsonObject, mark: boolean) => void, RegExp][] = [
  ['a new top-level request field', (d, mark) => { props(schemas(d).CustomerCreateRequest).loyaltyTier = { type: 'string', ...(mark ? designed : {}) }; }, /loyaltyTier/],
  ['a new response field', (d, mark) => { props(schemas(d).Customer).riskScore = { type: 'integer', ...(mark ? designed : {}) }; }, /riskScore/],
  ['a new nested field of a shared schema', (d, mark) => {
    const address = Object.entries(schemas(d)).find(([name]) => name === 'CustomerAddressRequest')?.[1];
    props(address).plusFour = { type: 'string', ...(mark ? designed : {}) };
  }, /plusFour/],
  ['a new query parameter on an interface list', (d, mark) => {
    const op = paths(d)['/pay-int-api/categories']?.get;
    if (!op) throw new Error('no categories list');
    op.parameters = [...(op.parameters as unknown[]), { name: 'colour', in: 'query', schema: { type: 'string' }, ...(mark ? designed : {}) }];
  }, /colour/],
  ['a new operation', (d, mark) => {
    paths(d)['/pay-api/v1/refunds'] = { get: { operationId: 'listRefunds', responses: {}, ...(mark ? designed : {}) } };
  }, /\/pay-api\/v1\/refunds/],
];

describe('provenance: what the interface does not show is marked designed', () => {
  it('holds on the bundled spec', () => {
    expect(unmarkedInventions(doc)).toEqual([]);
  });

  it.each(mutations)('catches %s, and accepts it once marked', (_name, mutate, pattern) => {
    const unmarked = structuredClone(doc);
    mutate(unmarked, false);
    const found = unmarkedInventions(unmarked);
    expect(found.some((line) => pattern.test(line)), found.join('\n')).toBe(true);
    const marked = structuredClone(doc);
    mutate(marked, true);
    expect(unmarkedInventions(marked)).toEqual([]);
  });
});
