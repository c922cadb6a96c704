// Benchmark of the generator (generator/bin/pgw-generate.mjs, the compiled generator `npm run generate` runs):
// against a bare `node -e ''` measured in the same run, a no-op regeneration of the up-to-date generated/ and a
// full generation of this project's spec into an empty folder; then GitHub's REST description (13 MB, 1,223
// operations, npm @octokit/openapi) with this generator and with openapi-typescript's CLI, taking turns, and
// their ratio; and whether two generations of it are byte-identical. Wall-clock time of whole processes, median
// of several runs. Prints the figures; asserts nothing. BENCH_RUNS (default 5), BENCH_GITHUB_RUNS (default 3,
// 0 leaves GitHub out).
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { root } from '../lib/run.ts';

const RUNS = Number(process.env.BENCH_RUNS ?? 5);
const GITHUB_RUNS = Number(process.env.BENCH_GITHUB_RUNS ?? 3);
const launcher = path.join(root, 'generator', 'bin', 'pgw-generate.mjs');
const require = createRequire(import.meta.url);
const githubRest = path.join(path.dirname(require.resolve('@octokit/openapi/package.json')), 'generated', 'api.github.com.json');
const openapiTypescript = path.join(path.dirname(require.resolve('openapi-typescript/package.json')), 'bin', 'cli.js');

/** Runs a command to its end; its wall-clock milliseconds. */
function time(command: string, args: string[], cwd = root): number {
  const started = performance.now();
  const result = spawnSync(command, args, { cwd, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
  const elapsed = performance.now() - started;
  if (result.status !== 0) throw new Error(`${command} ${args.join(' ')} failed:\n${result.stdout}${result.stderr}`);
  return elapsed;
}

const median = (values: number[]): number => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? Number.NaN;
const seconds = (ms: number): string => `${(ms / 1000).toFixed(2)} s`;
const spread = (times: number[]): string => `min ${seconds(Math.min(...times))}, max ${seconds(Math.max(...times))}; ${String(times.length)} runs`;

/** A fresh folder for one run's output, removed after it. */
function inTemp<T>(run: (dir: string) => T): T {
  const dir = mkdtempSync(path.join(tmpdir(), 'pgw-bench-gen-'));
  try {
    return run(dir);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The SHA-256 of every file of a folder, by relative path. */
function digest(dir: string): string {
  const hash = createHash('sha256');
  const walk = (at: string): void => {
    for (const entry of readdirSync(path.join(dir, at), { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name))) {
      const relative = path.join(at, entry.name);
      if (entry.isDirectory()) walk(relative);
      else hash.update(relative).update('\0').update(readFileSync(path.join(dir, relative))).update('\0');
    }
  };
  walk('');
  return hash.digest('hex');
}

console.log(`generate benchmark: node ${process.version}`);
// Builds generator/dist when its sources changed, and makes generated/ current: the no-op runs measure a no-op.
time(process.execPath, [launcher]);

const rows: [string, number[]][] = [];
const measure = (label: string, run: () => number, runs = RUNS): number[] => {
  run(); // warm the file-system cache
  const times = Array.from({ length: runs }, run);
  rows.push([label, times]);
  return times;
};
const baseline = median(measure("start-up: node -e ''", () => time(process.execPath, ['-e', ''])));
const noop = median(measure('no-op regeneration', () => time(process.execPath, [launcher])));
const full = median(measure('full generation', () => inTemp((dir) => time(process.execPath, [launcher, '--output', dir]))));

console.log('\nthis project\'s spec (spec/openapi.yaml)');
for (const [label, times] of rows) console.log(`  ${label.padEnd(24)} median ${seconds(median(times))} (${spread(times)})`);
console.log(`  no-op beyond start-up: ${seconds(noop - baseline)}  target < 0.50 s: ${noop - baseline < 500 ? 'met' : 'NOT met'}`);
console.log(`  full beyond start-up:  ${seconds(full - baseline)}  target < 3.00 s: ${full - baseline < 3000 ? 'met' : 'NOT met'}`);

if (GITHUB_RUNS > 0) {
  // Taking turns, so that a change in the machine's load falls on both. openapi-typescript runs from a folder
  // without this project's redocly.yaml (it would read its lint rules from there).
  const ours: number[] = [];
  const theirs: number[] = [];
  const digests = new Set<string>();
  for (let i = 0; i < GITHUB_RUNS; i++) {
    inTemp((dir) => {
      ours.push(time(process.execPath, [launcher, '--input', githubRest, '--output', path.join(dir, 'out')]));
      digests.add(digest(path.join(dir, 'out')));
    });
    inTemp((dir) => theirs.push(time(process.execPath, [openapiTypescript, githubRest, '-o', path.join(dir, 'types.ts')], dir)));
  }
  console.log('\nGitHub\'s REST description (@octokit/openapi api.github.com.json)');
  console.log(`  this generator      median ${seconds(median(ours))} (${spread(ours)})`);
  console.log(`  openapi-typescript  median ${seconds(median(theirs))} (${spread(theirs)})`);
  const ratio = median(ours) / median(theirs);
  console.log(`  ratio ${ratio.toFixed(2)} (this / openapi-typescript)  target <= 1.00: ${ratio <= 1 ? 'met' : 'NOT met'}`);
  console.log(`  ${String(GITHUB_RUNS)} generations byte-identical: ${digests.size === 1 ? 'yes' : `NO (${String(digests.size)} different outputs)`}`);
}
