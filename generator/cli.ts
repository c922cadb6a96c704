// `npm run generate [-- --check] [--input FILE] [--output DIR] [--scaffold DIR]`: writes generated/ from the spec.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { emit } from './emit.ts';
import { FINGERPRINT_FILE, fingerprintText, inputsFingerprint, upToDate } from './fingerprint.ts';
import { loadDocument } from './load.ts';
import { readModel, type ApiModel } from './model.ts';
import { diffSummary } from './diff-summary.ts';
import type { ScaffoldOptions, ScaffoldReport } from './scaffold.ts';

interface Config {
  input: string;
  output: string;
  scaffold?: { dir: string; context?: { name: string; from: string } };
}

const usage = `usage: npm run generate -- [--check] [--input FILE] [--output DIR] [--scaffold DIR] [--config FILE]
  --check        compare only: exit 1 and name the stale files when the output does not match the spec
  --force        regenerate even when nothing the output depends on has changed
  --input FILE   the OpenAPI document (YAML or JSON, bundled first when it has external references)
  --output DIR   the generated folder
  --scaffold DIR for the handler modules in DIR: write a module for each group implemented nowhere in DIR,
                 and print the stubs of the operations an existing module lacks (never edits a file)
  --config FILE  defaults for the above (default generator.config.json)`;

async function main(): Promise<number> {
  const { values } = parseArgs({
    options: {
      check: { type: 'boolean', default: false },
      force: { type: 'boolean', default: false },
      input: { type: 'string' },
      output: { type: 'string' },
      scaffold: { type: 'string' },
      config: { type: 'string', default: 'generator.config.json' },
      help: { type: 'boolean', default: false },
    },
  });
  if (values.help) {
    console.log(usage);
    return 0;
  }
  const config = JSON.parse(readFileSync(values.config, 'utf8')) as Config;
  const input = values.input ?? config.input;
  const output = values.output ?? config.output;
  const started = performance.now();
  const inputs = inputsFingerprint(input);
  const elapsed = (): string => ((performance.now() - started) / 1000).toFixed(2);
  // Only on request: scaffolding parses the handler modules, which a no-op regeneration must not wait for.
  const scaffoldDir = values.scaffold;
  // The configured context type applies to the configured folder, however the folder is named on the command line.
  const sameDir = config.scaffold !== undefined && scaffoldDir !== undefined && path.resolve(scaffoldDir) === path.resolve(config.scaffold.dir);
  const scaffoldContext = sameDir ? config.scaffold?.context : undefined;

  // Nothing changed since the last generation: stop before loading the TypeScript toolchain.
  if (!values.check && !values.force && upToDate(output, inputs)) {
    console.log(`${output}/ is up to date with ${input} (nothing changed, ${elapsed()}s)`);
    if (scaffoldDir !== undefined) {
      await runScaffold(readModel(await loadDocument(input)), { dir: scaffoldDir, generatedDir: output, context: scaffoldContext });
    }
    return 0;
  }

  const { generate } = await import('./generate.ts');
  const { model, files: generated } = await generate(await loadDocument(input));
  const files = [...generated, { path: FINGERPRINT_FILE, content: fingerprintText(inputs, generated) }];
  const report = emit(output, files, values.check);
  const seconds = elapsed();
  const stale = [...report.changed, ...report.missing, ...report.extra].map((f) => path.join(output, f));
  if (values.check) {
    if (stale.length === 0) {
      console.log(`${output}/ matches ${input} (${String(files.length)} files, ${seconds}s)`);
      return 0;
    }
    console.error(`${output}/ is stale: run \`npm run generate\`. Files that differ from ${input}:`);
    for (const file of report.changed) {
      console.error(`  changed  ${path.join(output, file)}`);
      const after = files.find((f) => f.path === file)?.content ?? '';
      for (const line of diffSummary(readFileSync(path.join(output, file), 'utf8'), after)) console.error(`           ${line}`);
    }
    for (const file of report.missing) console.error(`  missing  ${path.join(output, file)}`);
    for (const file of report.extra) console.error(`  extra    ${path.join(output, file)}`);
    return 1;
  }
  console.log(
    `${output}/: ${String(files.length)} files from ${input} (${String(model.operations.length)} operations, ` +
      `${String(model.tags.length)} tags, ${String(model.webhooks.length)} webhooks): ` +
      `${String(report.changed.length + report.missing.length)} written, ${String(report.unchanged)} unchanged, ` +
      `${String(report.extra.length)} removed, ${seconds}s`,
  );
  if (scaffoldDir !== undefined) {
    await runScaffold(model, { dir: scaffoldDir, generatedDir: output, context: scaffoldContext });
  }
  return 0;
}

async function runScaffold(model: ApiModel, options: ScaffoldOptions): Promise<void> {
  const { scaffold } = await import('./scaffold.ts');
  printScaffold(scaffold(model, options));
}

function printScaffold(report: ScaffoldReport): void {
  for (const file of report.written) console.log(`scaffolded ${file} (register its handlers where the others are passed to createApiRouter)`);
  for (const gap of report.missing) {
    console.log(`${gap.file}: ${gap.group}Handlers lacks ${gap.operations.join(', ')}; add to it:\n${gap.stubs}`);
  }
}

main().then(
  (code) => { process.exitCode = code; },
  (error: unknown) => {
    console.error(error instanceof Error ? error.message : error);
    process.exitCode = 2;
  },
);
