// The payment-link checks alone against the bundled server, where they pass: the machine walk (every row of the
// link table, the reusable link's Active -> Active payment among them), the reusable link's count and total held
// to the payments made, and the family check. Their mutants are in spec-driven.test.ts; this file runs in
// seconds where that one runs every check. The negative cases of the link operations too.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { familyChecks } from '../src/checks/families.ts';
import { negativeChecks } from '../src/checks/negative.ts';
import { quickPaymentMachineChecks } from '../src/checks/quick-payment-machine.ts';
import { Spec } from '../src/spec.ts';
import { runChecks, startBundledServer, type BundledServer } from './target.ts';

const spec = Spec.load();
let server: BundledServer;

beforeAll(async () => { server = await startBundledServer(); });
afterAll(async () => { await server.stop(); });

describe('the payment-link checks against the bundled server', () => {
  it('pass, and the walk has a case for each row of a command with several (the reusable payment)', async () => {
    const checks = [...quickPaymentMachineChecks(spec), ...familyChecks.filter((c) => c.id === 'families/quick-payments')];
    expect(checks.map((c) => c.id)).toEqual(['machines/QuickPaymentStatus:QuickPayment', 'machines/QuickPaymentStatus:ReusableQuickPayment', 'families/quick-payments']);
    const results = await runChecks(spec, server.credentialsFile, server.baseUrl, checks);
    expect(results.map((r) => [r.id, r.status, r.message ?? ''])).toEqual(checks.map((c) => [c.id, 'passed', '']));
  }, 120_000);

  it("refuse the schemas' negative cases of the link operations as documented (the new fields' bounds among them)", async () => {
    const ids = ['createQuickPayment', 'paySandboxQuickPayment', 'listQuickPaymentPayments'].map((op) => `negative/${op}`);
    const checks = negativeChecks(spec).filter((c) => ids.includes(c.id));
    expect(checks.map((c) => c.id).sort()).toEqual([...ids].sort());
    const results = await runChecks(spec, server.credentialsFile, server.baseUrl, checks);
    expect(results.map((r) => [r.id, r.status, r.message ?? ''])).toEqual(checks.map((c) => [c.id, 'passed', '']));
  }, 120_000);
});
