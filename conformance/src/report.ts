// Reports: progress lines, a summary table, failure details with a curl line, JUnit XML and JSON.
import { curlOf, redactBody, setupOf } from './http.ts';
import type { CheckResult } from './runner.ts';

const MARK = { passed: 'PASS', failed: 'FAIL', skipped: 'SKIP' } as const;
const seconds = (ms: number): string => `${(ms / 1000).toFixed(2)}s`;

/** A count with its noun, singular or plural: "1 check", "2 checks" (`plural` when it is not noun + s). */
export const count = (n: number, noun: string, plural = `${noun}s`): string => `${String(n)} ${n === 1 ? noun : plural}`;

/**
 * The group a report shows a check under: its id's prefix (`amounts/limits` -> `amounts`), which is what the
 * reader sees in every line above the summary and what --only takes, rather than the declared group.
 */
export const familyOf = (r: { id: string }): string => r.id.split('/')[0] ?? r.id;

export const progressLine = (r: CheckResult): string =>
  `${MARK[r.status]} ${r.id} (${seconds(r.durationMs)}, ${count(r.requests, 'request')})${r.status === 'skipped' && r.message ? `: ${r.message}` : ''}`;

export function summaryTable(results: readonly CheckResult[]): string {
  const groups = [...new Set(results.map(familyOf))];
  const rows = groups.map((g) => {
    const of = results.filter((r) => familyOf(r) === g);
    const count = (s: CheckResult['status']): number => of.filter((r) => r.status === s).length;
    return [g, String(of.length), String(count('passed')), String(count('failed')), String(count('skipped')), seconds(of.reduce((t, r) => t + r.durationMs, 0))];
  });
  const total = ['total', String(results.length), ...(['passed', 'failed', 'skipped'] as const).map((s) => String(results.filter((r) => r.status === s).length)),
    seconds(results.reduce((t, r) => t + r.durationMs, 0))];
  const header = ['group', 'checks', 'passed', 'failed', 'skipped', 'time'];
  const all = [header, ...rows, total];
  const widths = header.map((_, i) => Math.max(...all.map((row) => (row[i] ?? '').length)));
  const line = (row: string[]): string => `| ${row.map((c, i) => (i === 0 ? c.padEnd(widths[i] ?? 0) : c.padStart(widths[i] ?? 0))).join(' | ')} |`;
  return [line(header), `|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|`, ...rows.map(line), line(total)].join('\n');
}

export function failureDetails(r: CheckResult): string {
  const lines = [`FAIL ${r.id}: ${r.title}`, `  expected: ${r.message ?? ''}`];
  const e = r.exchange;
  if (e) {
    lines.push(`  request:  ${e.request.method} ${redactBody(e.request.url)}`);
    if (e.request.body !== undefined) lines.push(`  body:     ${redactBody(e.request.body).slice(0, 500)}`);
    lines.push(e.response ? `  response: ${String(e.response.status)} ${redactBody(e.response.text).slice(0, 800)}` : `  response: none (${e.error ?? ''})`);
    for (const p of r.problems.slice(0, 5)) lines.push(`  problem:  ${p}`);
    if (e.request.url !== '') {
      // Pasted into bash, the lines send what the check sent: first the variables (the run's real secrets).
      const setup = setupOf(e.request);
      if (setup.length === 0) lines.push(`  reproduce: ${curlOf(e.request)}`);
      else lines.push(`  reproduce (bash; set the variables first):`, ...setup.map((l) => `    ${l}`), `    ${curlOf(e.request)}`);
    }
  }
  return lines.join('\n');
}

const xml = (s: string): string => s.replace(/[<>&"']/g, (c) => ({ '<': '&lt;', '>': '&gt;', '&': '&amp;', '"': '&quot;', "'": '&apos;' })[c] ?? c)
  // eslint-disable-next-line no-control-regex -- XML 1.0 forbids these characters
  .replace(/[\u0000-\u0008\u000b\u000c\u000e-\u001f]/g, '');

/**
 * JUnit XML. A run that stopped on an error (unreachable target, usage error) adds a `run` suite with one
 * errored testcase saying why, so a CI step that publishes the report shows it.
 */
export function junit(results: readonly CheckResult[], name: string, error?: string): string {
  const groups = [...new Set(results.map(familyOf))];
  const suites = groups.map((g) => {
    const of = results.filter((r) => familyOf(r) === g);
    const cases = of.map((r) => {
      const open = `    <testcase classname="${xml(`conformance.${g}`)}" name="${xml(r.id)}" time="${(r.durationMs / 1000).toFixed(3)}"`;
      if (r.status === 'passed') return `${open}/>`;
      if (r.status === 'skipped') return `${open}>\n      <skipped message="${xml(r.message ?? '')}"/>\n    </testcase>`;
      return `${open}>\n      <failure message="${xml(r.message ?? '')}" type="CheckFailure">${xml(failureDetails(r))}</failure>\n    </testcase>`;
    });
    const count = (s: CheckResult['status']): number => of.filter((r) => r.status === s).length;
    return `  <testsuite name="${xml(g)}" tests="${String(of.length)}" failures="${String(count('failed'))}" errors="0" skipped="${String(count('skipped'))}" time="${(of.reduce((t, r) => t + r.durationMs, 0) / 1000).toFixed(3)}">\n${cases.join('\n')}\n  </testsuite>`;
  });
  if (error !== undefined) {
    suites.push(`  <testsuite name="run" tests="1" failures="0" errors="1" skipped="0" time="0">\n    <testcase classname="conformance.run" name="run" time="0">\n      <error message="${xml(error)}" type="RunError">${xml(error)}</error>\n    </testcase>\n  </testsuite>`);
  }
  const failures = results.filter((r) => r.status === 'failed').length;
  const skipped = results.filter((r) => r.status === 'skipped').length;
  const errors = error === undefined ? 0 : 1;
  return `<?xml version="1.0" encoding="UTF-8"?>\n<testsuites name="${xml(name)}" tests="${String(results.length + errors)}" failures="${String(failures)}" errors="${String(errors)}" skipped="${String(skipped)}">\n${suites.join('\n')}\n</testsuites>\n`;
}

export function json(results: readonly CheckResult[], meta: Record<string, unknown>): string {
  return `${JSON.stringify({
    ...meta,
    summary: {
      total: results.length,
      passed: results.filter((r) => r.status === 'passed').length,
      failed: results.filter((r) => r.status === 'failed').length,
      skipped: results.filter((r) => r.status === 'skipped').length,
    },
    checks: results.map((r) => ({
      id: r.id, group: r.group, title: r.title, status: r.status, durationMs: Math.round(r.durationMs), requests: r.requests,
      ...(r.message === undefined ? {} : { message: r.message }),
      ...(r.status === 'failed' && r.exchange ? {
        request: { method: r.exchange.request.method, url: redactBody(r.exchange.request.url), ...(r.exchange.request.body === undefined ? {} : { body: redactBody(r.exchange.request.body) }) },
        response: r.exchange.response ? { status: r.exchange.response.status, body: redactBody(r.exchange.response.text).slice(0, 2000) } : null,
        problems: r.problems,
        ...(r.exchange.request.url === '' ? {} : { curl: curlOf(r.exchange.request), curlSetup: setupOf(r.exchange.request) }),
      } : {}),
    })),
  }, null, 2)}\n`;
}
