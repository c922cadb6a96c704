// `npm run generate [-- --check] [--input FILE] [--output DIR] [--scaffold DIR]`: writes generated/ from the spec.
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { emit } from './emit.ts';
import { FINGERPRINT_FILE, fingerprintText, inputsFingerprint, upToDate } from './fingerprint.ts';
import { loadDocument } from './load.ts';
import { readModel, type ApiModel } from './model.ts';
import { diffSummary } from './diff-summary.ts';
import type { ScaffoldOptions, ScaffoldReport } from './scaffold.ts';

interface Config {
  input?: string;
  output?: string;
  scaffold?: { dir: string; context?: { name: string; from: string }; import?: string };
  /** Where the project's own generation also writes the bundled document (spec/dist/openapi.json). */
  bundle?: string;
}

const usage = `usage: pgw-generate [--check] [--force] [--input FILE] [--output DIR] [--scaffold DIR] [--config FILE]
       (in this repository: npm run generate -- <the same options>)
  --check        compare only: exit 1 and name the stale files when the output does not match the spec
  --force        regenerate even when nothing the output depends on has changed
  --input FILE   the OpenAPI document (YAML or JSON, bundled first when it has external references)
  --output DIR   the generated folder
  --scaffold DIR for the handler modules in DIR: write a module for each group implemented nowhere in DIR,
                 and print the stubs of the operations an existing module lacks (never edits a file)
  --config FILE  defaults for the above (default: generator.config.json, when the folder has one)`;

async function main(): Promise<number> {
  const { values } = parseArgs({
    options: {
      check: { type: 'boolean', default: false },
      force: { type: 'boolean', default: false },
      input: { type: 'string' },
      output: { type: 'string' },
      scaffold: { type: 'string' },
      config: { type: 'string' },
      help: { type: 'boolean', default: false },
    },
  });
  if (values.help) {
    console.log(usage);
    return 0;
  }
  // A folder without a configuration (a user's project) names the document and the folder on the command line.
  const configFile = values.config ?? (existsSync('generator.config.json') ? 'generator.config.json' : undefined);
  const config = configFile === undefined ? {} : JSON.parse(readFileSync(configFile, 'utf8')) as Config;
  const input = values.input ?? config.input;
  const output = values.output ?? config.output;
  if (input === undefined || output === undefined) {
    console.error(`${usage}\n\npgw-generate: name the document and the folder (--input, --output) or a --config that does`);
    return 2;
  }
  if (!existsSync(input)) {
    console.error(`pgw-generate: no document at ${input}`);
    return 2;
  }
  const started = performance.now();
  const inputs = inputsFingerprint(input);
  const elapsed = (): string => ((performance.now() - started) / 1000).toFixed(2);
  // Only on request: scaffolding parses the handler modules, which a no-op regeneration must not wait for.
  const scaffoldDir = values.scaffold;
  // The configured context type applies to the configured folder, however the folder is named on the command line.
  const sameDir = config.scaffold !== undefined && scaffoldDir !== undefined && path.resolve(scaffoldDir) === path.resolve(config.scaffold.dir);
  const scaffoldContext = sameDir ? config.scaffold?.context : undefined;
  const generatedPackage = sameDir ? config.scaffold?.import : undefined;
  // The project's own generation (not one into another folder or from another document) keeps the bundled
  // document in step with generated/ and says what the edit changes for clients.
  const ownGeneration = config.input !== undefined && config.output !== undefined &&
    path.resolve(input) === path.resolve(config.input) && path.resolve(output) === path.resolve(config.output);
  const bundleCopy = ownGeneration && config.bundle !== undefined ? config.bundle : undefined;

  // Nothing changed since the last generation: stop before loading the TypeScript toolchain.
  if (!values.check && !values.force && upToDate(output, inputs)) {
    console.log(`${output}/ is up to date with ${input} (nothing changed, ${elapsed()}s)`);
    if (bundleCopy !== undefined) refreshBundle(bundleCopy, readFileSync(path.join(output, 'openapi.json'), 'utf8'));
    if (scaffoldDir !== undefined) {
      await runScaffold(readModel(await loadDocument(input)), { dir: scaffoldDir, generatedDir: output, generatedPackage, context: scaffoldContext });
    }
    return 0;
  }

  // openapi-typescript's worker starts first: it loads while the document is read and bundled.
  const { startTypes } = await import('./transform/types.ts');
  const types = startTypes();
  const { generate } = await import('./generate.ts');
  // Read and bundled here while the worker loads openapi-typescript: on two free cores the two overlap (reading
  // it in the worker, which loads Redocly's bundler anyway, spared ~0.5 s of CPU but put the bundling after
  // that load: 0.86x the wall time on a loaded machine, ~0.6 s more on an idle one by the profiles).
  const document = await loadOrCancel(input, types);
  const { model, files: generated } = await generate(document, types);
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
  // Said once per generation, naming the places: what was derived or cannot be expressed, not a refusal.
  for (const note of model.notes) console.log(`note: ${note}`);
  const bundled = files.find((f) => f.path === 'openapi.json')?.content;
  if (bundleCopy !== undefined && bundled !== undefined) refreshBundle(bundleCopy, bundled);
  // spec:diff reads the base revision's contract from git, at spec/openapi.yaml: it compares only that document.
  const projectSpec = path.resolve(input) === path.resolve('spec', 'openapi.yaml');
  if (ownGeneration && projectSpec && bundled !== undefined) await printContractChanges(JSON.parse(bundled) as Record<string, unknown>);
  if (scaffoldDir !== undefined) {
    await runScaffold(model, { dir: scaffoldDir, generatedDir: output, generatedPackage, context: scaffoldContext });
  }
  return 0;
}

/** The document read here; the worker ended if it cannot be. */
async function loadOrCancel(input: string, types: { cancel(): void }): Promise<Awaited<ReturnType<typeof loadDocument>>> {
  try {
    return await loadDocument(input);
  } catch (error) {
    types.cancel();
    throw error;
  }
}

/** Writes the bundled document where the tools read it (Prism, the docs), when it differs. */
function refreshBundle(file: string, content: string): void {
  let current: string | undefined;
  try {
    current = readFileSync(file, 'utf8');
  } catch {
    current = undefined;
  }
  if (current === content) return;
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, content);
  console.log(`${file}: refreshed with the document generated/ was made from`);
}

/** What the contract now changes for clients and webhook receivers (`npm run spec:diff` lists it all). */
async function printContractChanges(doc: Record<string, unknown>): Promise<void> {
  try {
    const { specDiff } = await import('./spec-diff/run.ts');
    const { report } = await import('./spec-diff/verdict.ts');
    const result = await specDiff(process.cwd(), { current: doc });
    if ('problem' in result) console.log(`contract changes: not compared: ${result.problem}`);
    else for (const line of report(result.verdict, result.baseLabel, { full: false })) console.log(line);
  } catch (error) {
    // The summary informs; generated/ is written either way.
    console.log(`contract changes: not compared: ${error instanceof Error ? error.message : String(error)}`);
  }
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
