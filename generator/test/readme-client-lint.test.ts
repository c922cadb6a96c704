// The README's typed-client example, saved where the README says (the repository folder), passes what `npm test`
// runs over the repository: the project's ESLint configuration (type-aware, so the file must be in tsconfig.json)
// and the project's type check. Before, a saved example broke `npm test`'s lint.
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { ESLint } from 'eslint';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');

/** The section's TypeScript block and the file name the README tells the reader to save it as. */
function readmeExample(): { name: string; code: string } {
  const readme = readFileSync(path.join(root, 'README.md'), 'utf8');
  const section = readme.split('\n### The typed client\n')[1]?.split('\n### ')[0] ?? '';
  const code = /```ts\n([\s\S]*?)```/.exec(section)?.[1];
  const name = /save this as `([^`]+)` in the repository folder/.exec(section.replace(/\s+/g, ' '))?.[1];
  if (code === undefined || name === undefined) throw new Error('README: "### The typed client" has no TypeScript example, or does not say where to save it');
  return { name, code };
}

describe('the README\'s typed-client example saved in the repository', () => {
  it('is linted and type-checked as the project\'s own code, without a problem', async () => {
    const { name, code } = readmeExample();
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
