// The suite's response checks compile each schema of the spec once, however many operations and statuses name
// it: a run checks thousands of responses, and the compiles were most of a run's own CPU time.
import { describe, expect, it } from 'vitest';
import { functionsMadeBy, schemaBound } from '../../scripts/lib/schema-compiles.ts';
import { Spec } from '../src/spec.ts';

describe('the response checks of the spec', () => {
  it('compile each schema once, and check through it what each operation answers', () => {
    const spec = new Spec(Spec.load().document);
    const checks: [string, number, string][] = [];
    for (const op of spec.operations.values()) {
      for (const [status, response] of Object.entries(op.responses)) {
        for (const media of response.mediaTypes.filter((m) => /json/.test(m))) checks.push([op.operationId, Number(status) || Number(`${status.charAt(0)}00`) || 500, media]);
      }
    }
    expect(checks.length).toBeGreaterThan(500);
    const problems: string[][] = [];
    const made = functionsMadeBy(() => { for (const [id, status, media] of checks) problems.push(spec.responseProblems(id, status, media, true)); });
    expect(made).toBeGreaterThan(0);
    expect(made).toBeLessThanOrEqual(schemaBound(spec.document));
    // Every check still ran its schema: a boolean is no response body of this spec.
    expect(problems.filter((p) => !p.some((line) => line.startsWith('response_schema_conformance')))).toEqual([]);
    expect(functionsMadeBy(() => { for (const [id, status, media] of checks) spec.responseProblems(id, status, media, {}); })).toBe(0);
  });
});
