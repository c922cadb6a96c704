// The enums emitter: every named integer enumeration as a constant and its type; refuses unpaired names.
import { describe, expect, it } from 'vitest';
import { Printer } from '../lib/ts.ts';
import { readEnums, transformEnums } from '../transform/enums.ts';

const doc = (schemas: Record<string, unknown>): Record<string, unknown> => ({ openapi: '3.1.0', components: { schemas } });

describe('the enums emitter', () => {
  it('emits a constant and a type per named integer enumeration, and skips the others', () => {
    const file = transformEnums(doc({
      Kind: { type: 'integer', description: 'Kind of thing. 1 A, 2 B.', enum: [1, 2], 'x-enum-varnames': ['A', 'B'] },
      Unnamed: { type: 'integer', enum: [1, 2] },
      Word: { type: 'string', enum: ['a'], 'x-enum-varnames': ['A'] },
    }), new Printer());
    expect(file?.path).toBe('enums.ts');
    expect(file?.content).toContain('/** Kind of thing. */\nexport const Kind = {\n  A: 1,\n  B: 2,\n} as const;');
    expect(file?.content).toContain('export type Kind = (typeof Kind)[keyof typeof Kind];');
    expect(file?.content).toContain('export const enumerations = { Kind } as const;');
    expect(file?.content).not.toContain('Unnamed');
    expect(file?.content).not.toContain('Word');
  });

  it('emits nothing for a document without one', () => {
    expect(transformEnums(doc({}), new Printer())).toBeUndefined();
  });

  it('refuses names and ids that do not pair up', () => {
    expect(() => readEnums(doc({ K: { type: 'integer', enum: [1, 2], 'x-enum-varnames': ['A'] } }))).toThrow(/K: x-enum-varnames has 1 names for 2 values/);
    expect(() => readEnums(doc({ K: { type: 'integer', enum: [1, 2], 'x-enum-varnames': ['A', 'A'] } }))).toThrow(/names a value twice/);
    expect(() => readEnums(doc({ K: { type: 'integer', enum: [1], 'x-enum-varnames': ['not one'] } }))).toThrow(/must be an identifier/);
  });
});
