// Unit tests of the catalogue rules that need no database: the unit types read from the spec, name keys.
import { describe, expect, it } from 'vitest';
import { categoryNameKey, unitTypeById, unitTypes, unitTypesOf } from './catalogue.ts';

const PATH = '/pay-int-api/line-items/unit-types';
const documentWith = (media: object, examples: object = {}): Record<string, unknown> => ({
  paths: { [PATH]: { get: { responses: { '200': { content: { 'application/json': media } } } } } },
  components: { examples },
});

describe('unit types', () => {
  it.each([
    ['an inline example', documentWith({ examples: { all: { value: [{ id: 2, name: 'Hour', abbreviation: 'hr', category: 'Time' }, { id: 1, name: 'Each', abbreviation: 'ea', category: null }] } } })],
    ['a referenced example', documentWith({ examples: { all: { $ref: '#/components/examples/units' } } }, {
      units: { value: [{ id: 2, name: 'Hour', abbreviation: 'hr', category: 'Time' }, { id: 1, name: 'Each', abbreviation: 'ea', category: null }] },
    })],
  ])('reads %s, in id order', (_name, document) => {
    expect(unitTypesOf(document).map((u) => u.id)).toEqual([1, 2]);
  });

  it.each([
    ['no operation', {}],
    ['an empty list', documentWith({ examples: { all: { value: [] } } })],
    ['a malformed entry', documentWith({ examples: { all: { value: [{ id: 'one', name: 'Each' }] } } })],
    ['a reference elsewhere', documentWith({ examples: { all: { $ref: 'other.yaml#/units' } } })],
  ])('refuses a document with %s', (_name, document) => {
    expect(() => unitTypesOf(document)).toThrow();
  });

  it('takes the bundled spec\'s list', () => {
    expect(unitTypes().length).toBeGreaterThan(0);
    expect(unitTypeById(1)).toMatchObject({ id: 1, name: 'Each' });
    expect(unitTypeById(0)).toBeUndefined();
  });
});

describe('category name key', () => {
  it.each([
    ['Services', 'services'],
    ['  Garden Tools ', 'garden tools'],
    ['ÉTÉ', 'été'],
  ])('%j compares as %j', (name, key) => {
    expect(categoryNameKey(name)).toBe(key);
  });
});
