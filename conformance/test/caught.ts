// A mutant counted as caught: the checks meant to catch it fail, each for the defect planted.
import { expect } from 'vitest';
import type { CheckResult } from '../src/runner.ts';
import { startProxy, type Mutant } from './target.ts';

/**
 * Plants a mutant in front of `upstream` and runs the checks meant to catch it: each fails (its message shown
 * when it does not), and for the defect planted, not for another reason.
 */
export async function expectCaught(upstream: string, mutant: Mutant & { checks: string[]; why: RegExp }, run: (baseUrl: string) => Promise<CheckResult[]>): Promise<void> {
  const proxy = await startProxy(upstream, mutant);
  try {
    const results = await run(proxy.baseUrl);
    expect(results.map((r) => [r.id, r.status === 'failed' ? 'failed' : `${r.status}: ${r.message ?? ''}`])).toEqual(mutant.checks.map((id) => [id, 'failed']));
    for (const r of results) expect(r.message).toMatch(mutant.why);
  } finally {
    await proxy.stop();
  }
}
