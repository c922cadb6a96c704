// The operations the spec marks x-destructive (the sandbox reset) are never called by the phases that call
// operations on their own (negative cases, hostile input, fuzz) on the merchant the suite was given: only the
// walk calls them, on a sandbox it made.
import { describe, expect, it } from 'vitest';
import { hostileChecks } from '../src/checks/hostile.ts';
import { negativeChecks } from '../src/checks/negative.ts';
import { fuzzChecks } from '../src/fuzz/checks.ts';
import { Spec } from '../src/spec.ts';

const spec = Spec.load();
const destructive = [...spec.operations.values()].filter((op) => op.destructive).map((op) => op.operationId);

describe('destructive operations', () => {
  it('are marked in the spec (the sandbox reset)', () => {
    expect(destructive).toEqual(['resetSandbox']);
  });

  it('get no negative, hostile or fuzz check', () => {
    const ids = [...negativeChecks(spec), ...hostileChecks(spec), ...fuzzChecks(spec, { runs: 1, seed: 1 })].map((c) => c.id);
    expect(ids.length).toBeGreaterThan(100);
    expect(ids.filter((id) => destructive.some((op) => id.endsWith(`/${op}`) || id.endsWith(`:${op}`)))).toEqual([]);
  });
});
