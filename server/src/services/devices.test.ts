// Unit tests of the device status names read from the spec.
import { describe, expect, it } from 'vitest';
import { statusName, statusNamesOf } from './devices.ts';

const documentWith = (schema: object): Record<string, unknown> => ({ components: { schemas: { TapToPayStatus: schema } } });

describe('tap-to-pay status names', () => {
  it('come from the spec\'s TapToPayStatus enumeration', () => {
    expect([1, 2, 3].map(statusName)).toEqual(['Inactive', 'Active', 'Deactivated']);
    expect(() => statusName(4)).toThrow();
  });

  it.each([
    ['no schema', {}],
    ['no names', documentWith({ enum: [1, 2, 3] })],
    ['fewer names than values', documentWith({ enum: [1, 2, 3], 'x-enum-varnames': ['Inactive', 'Active'] })],
    ['a name the Device schema does not allow', documentWith({ enum: [1, 2, 3], 'x-enum-varnames': ['Inactive', 'Active', 'Retired'] })],
  ])('refuse a document with %s', (_name, document) => {
    expect(() => statusNamesOf(document)).toThrow();
  });
});
