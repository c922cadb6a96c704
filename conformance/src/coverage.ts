// The operation coverage of a run: for each operation of the spec, whether the run called it, how many calls,
// the statuses seen, and the checks that used it; an operation never called says why (not selected, or the
// checks that would call it were skipped or stopped early).
import type { Check } from './check.ts';
import type { CheckResult } from './runner.ts';
import type { Spec } from './spec.ts';

export interface CoverageRow {
  operationId: string;
  called: number;
  statuses: number[];
  checks: string[];
}

/**
 * One row per operation of the spec, or, given `scope` (the operations a --only selection could call), per
 * operation in it: a selection of three checks is not reported as leaving a hundred operations uncalled.
 */
export function coverage(spec: Spec, results: readonly CheckResult[], scope?: ReadonlySet<string>): CoverageRow[] {
  return [...spec.operations.values()].filter((op) => scope === undefined || scope.has(op.operationId) || results.some((r) => (r.operations[op.operationId]?.calls ?? 0) > 0)).map((op) => {
    const using = results.filter((r) => (r.operations[op.operationId]?.calls ?? 0) > 0);
    const statuses = [...new Set(using.flatMap((r) => r.operations[op.operationId]?.statuses ?? []))].sort((a, b) => a - b);
    return { operationId: op.operationId, called: using.reduce((n, r) => n + (r.operations[op.operationId]?.calls ?? 0), 0), statuses, checks: using.map((r) => r.id) };
  });
}

/** The table a CI log shows: one line an operation, the uncalled ones marked. */
export function coverageTable(rows: readonly CoverageRow[]): string {
  const width = Math.max(9, ...rows.map((r) => r.operationId.length));
  const lines = rows.map((r) => {
    const checks = r.checks.length > 3 ? `${r.checks.slice(0, 3).join(', ')} +${String(r.checks.length - 3)}` : r.checks.join(', ');
    return `${r.operationId.padEnd(width)}  ${r.called > 0 ? String(r.called).padStart(5) : 'NOT CALLED'.padStart(5)}  ${r.statuses.join('/').padEnd(15)}  ${r.called > 0 ? checks : 'no selected check called it'}`;
  });
  const covered = rows.filter((r) => r.called > 0).length;
  return [`${'operation'.padEnd(width)}  calls  statuses         checks`, ...lines, `operations called: ${String(covered)} of ${String(rows.length)}`].join('\n');
}

/**
 * The operations a selection of checks could call: those its checks name among their tags (an operationId, or a
 * spec tag standing for all of its operations). A check that names none (auth/ignored_auth calls every
 * operation) could call any.
 */
export function scopeOf(spec: Spec, checks: readonly Check[]): Set<string> {
  const scope = new Set<string>();
  for (const check of checks) {
    const named = [...spec.operations.values()].filter((op) => check.tags.includes(op.operationId) || check.tags.includes(op.tag));
    for (const op of named.length > 0 ? named : [...spec.operations.values()]) scope.add(op.operationId);
  }
  return scope;
}
