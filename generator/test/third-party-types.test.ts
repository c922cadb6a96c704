// Types of the contract made by openapi-typescript's own command line, as a third party would make them: with the
// flag docs/guides/third-party-tools.md gives, minimal request bodies (a customer, a card sale, an ACH debit)
// compile; in the tool's default mode the fields with a `default` are required and they do not (why the guide
// names the flag).
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import ts from 'typescript';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const run = promisify(execFile);

/** The guide's command: `npx openapi-typescript <spec> -o <file> <flags>` (the spec path and the flags). */
function guideCommand(): { spec: string; flags: string[] } {
  const guide = readFileSync(path.join(root, 'docs', 'guides', 'third-party-tools.md'), 'utf8');
  const found = /^npx openapi-typescript (\S+) -o \S+((?: \S+)*)$/m.exec(guide);
  if (!found) throw new Error('docs/guides/third-party-tools.md: no `npx openapi-typescript <spec> -o <file> …` command');
  return { spec: found[1] ?? '', flags: (found[2] ?? '').trim().split(' ').filter((f) => f !== '') };
}

const MINIMAL = `import type { paths } from './types.js';
type Body<P extends keyof paths> = paths[P] extends { post: { requestBody?: { content: { 'application/json': infer B } } } } ? B : never;
export const customer: Body<'/pay-api/v1/customers'> = { firstName: 'Jane', lastName: 'Doe', email: 'jane.doe@example.com' };
export const sale: Body<'/pay-api/v1/transactions/card/sale'> = { amount: 54.25, card: { pan: '4111111111111111', expirationMonth: 12, expirationYear: 2030, securityCode: '123' } };
export const debit: Body<'/pay-api/v1/transactions/ach/payment'> = {
  amount: 125.5, paymentProcessorId: '00000000-0000-4000-8000-000000000000', secCode: 1, requesterIPaddress: '203.0.113.24',
  routingNumber: '021000021', accountNumber: '000123456789', accountType: 1, accountHolderType: 2, contactInfo: { firstName: 'Jane', lastName: 'Doe' },
};
`;

let dir: string;
beforeAll(() => { dir = mkdtempSync(path.join(tmpdir(), 'pgw-third-party-types-')); });
afterAll(() => { rmSync(dir, { recursive: true, force: true }); });

/** The type errors of the minimal bodies against types openapi-typescript's command line makes with `flags`. */
async function problemsWith(spec: string, flags: string[], name: string): Promise<string[]> {
  const folder = path.join(dir, name);
  const types = path.join(folder, 'types.ts');
  await run(process.execPath, [path.join(root, 'node_modules', 'openapi-typescript', 'bin', 'cli.js'), path.join(root, spec), '-o', types, ...flags], { cwd: root, timeout: 90_000 });
  writeFileSync(path.join(folder, 'check.ts'), MINIMAL);
  const program = ts.createProgram([path.join(folder, 'check.ts')], {
    strict: true, noEmit: true, skipLibCheck: true, target: ts.ScriptTarget.ES2022, module: ts.ModuleKind.NodeNext, moduleResolution: ts.ModuleResolutionKind.NodeNext, types: [],
  });
  return ts.getPreEmitDiagnostics(program).map((d) => ts.flattenDiagnosticMessageText(d.messageText, '\n'));
}

describe('types made by openapi-typescript\'s command line', () => {
  it('take minimal request bodies with the flags of docs/guides/third-party-tools.md', async () => {
    const { spec, flags } = guideCommand();
    expect(await problemsWith(spec, flags, 'guide')).toEqual([]);
  }, 120_000);

  it('refuse them in the tool\'s default mode, naming the fields that have a default', async () => {
    const problems = (await problemsWith(guideCommand().spec, [], 'default')).join('\n');
    for (const field of ['isMobileNumberSmsNotificationsEnabled', 'tipAmount', 'savePaymentMethod', 'isFasterProcessing']) expect(problems).toContain(field);
  }, 120_000);
});
