// The client package's README examples (generated/README.md: a payment, a webhook receiver), saved in the
// repository folder, pass what `npm test` runs over the repository: the project's ESLint configuration (type-aware,
// so the file must be in tsconfig.json) and the project's strict type check, importing @pgw/client by its name.
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { ESLint } from 'eslint';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');

/** Every TypeScript block of the README, named by the file its first line names (`// pay.ts: ...`). */
function readmeExamples(): { name: string; code: string }[] {
  const readme = readFileSync(path.join(root, 'generated', 'README.md'), 'utf8');
  const blocks = [...readme.matchAll(/```ts\n([\s\S]*?)```/g)].map((m) => m[1] ?? '');
  if (blocks.length < 2) throw new Error('generated/README.md: expected the payment and the receiver examples');
  return blocks.map((code) => {
    const name = /^\/\/ ([\w-]+\.ts):/.exec(code)?.[1];
    if (name === undefined) throw new Error(`generated/README.md: an example does not name its file on its first line:\n${code}`);
    return { name: `readme-${name}`, code };
  });
}

describe('the client README\'s examples saved in the repository', () => {
  it.each(readmeExamples())('$name is linted and type-checked as the project\'s own code, without a problem', async ({ name, code }) => {
    const file = path.join(root, name);
    // A reader's saved copy stays; otherwise the example is saved for the checks and removed after them.
    const saved = !existsSync(file);
    if (saved) writeFileSync(file, code);
    try {
      const [result] = await new ESLint({ cwd: root }).lintText(code, { filePath: file });
      expect(result?.messages.map((m) => `${String(m.line)}:${String(m.column)} ${m.ruleId ?? 'parse'} ${m.message}`)).toEqual([]);

      const config = ts.getParsedCommandLineOfConfigFile(path.join(root, 'tsconfig.json'), {}, { ...ts.sys, onUnRecoverableConfigFileDiagnostic: (d) => { throw new Error(ts.flattenDiagnosticMessageText(d.messageText, '\n')); } });
      if (!config) throw new Error('tsconfig.json unreadable');
      // `npm run typecheck` (tsc -p tsconfig.json) checks it: it is among the project's files.
      expect(config.fileNames.map((f) => path.resolve(f))).toContain(file);
      const host = ts.createCompilerHost(config.options);
      const read = host.readFile.bind(host);
      host.readFile = (f) => (path.resolve(f) === file ? code : read(f));
      const program = ts.createProgram([file], config.options, host);
      const problems = ts.getPreEmitDiagnostics(program).map((d) => `${d.file?.fileName ?? ''}: ${ts.flattenDiagnosticMessageText(d.messageText, '\n')}`);
      expect(problems).toEqual([]);
    } finally {
      if (saved) rmSync(file, { force: true });
    }
  }, 120_000);
});
