// Benchmark of `pgw`'s start: `pgw --help` from the packed @pgw/cli installed in an empty folder (plain Node, its
// dist/), by npx and by its bin, against a bare `node -e ''` and against the repository's `npx pgw` (its
// TypeScript sources through tsx, as every call ran before the packages), taking turns in the same run. Wall-clock
// time of whole processes, median of BENCH_RUNS (default 9). Prints the figures and ratios; asserts nothing.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { root } from '../lib/run.ts';
import { packAll } from '../pack.ts';

const RUNS = Number(process.env.BENCH_RUNS ?? 9);
const clean = Object.fromEntries(Object.entries(process.env).filter(([key]) => !/^npm_/i.test(key) && key !== 'NODE_OPTIONS'));

function time(command: string, args: readonly string[], cwd: string, env: NodeJS.ProcessEnv): number {
  const started = performance.now();
  const result = spawnSync(command, [...args], { cwd, env, encoding: 'utf8' });
  const elapsed = performance.now() - started;
  if (result.status !== 0) throw new Error(`${command} ${args.join(' ')} failed:\n${result.stdout}${result.stderr}`);
  return elapsed;
}

const median = (values: number[]): number => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? Number.NaN;

const scratch = mkdtempSync(path.join(tmpdir(), 'pgw-bench-cli-'));
try {
  const packed = packAll(path.join(scratch, 'tarballs'), clean, ['@pgw/runtime', '@pgw/client', '@pgw/cli']);
  const app = path.join(scratch, 'app');
  spawnSync('mkdir', ['-p', app]);
  writeFileSync(path.join(app, 'package.json'), JSON.stringify({ name: 'bench', private: true, type: 'module' }));
  const installed = spawnSync('npm', ['install', '--prefer-offline', '--no-audit', '--no-fund', ...packed.map((p) => p.tarball)], { cwd: app, env: clean, encoding: 'utf8' });
  if (installed.status !== 0) throw new Error(installed.stderr);
  const cases: { name: string; run: () => number }[] = [
    { name: "node -e '' (baseline)", run: () => time(process.execPath, ['-e', ''], app, clean) },
    { name: 'pgw --help, the tarball\'s bin', run: () => time(path.join(app, 'node_modules', '.bin', 'pgw'), ['--help'], app, clean) },
    { name: 'npx pgw --help, the tarball', run: () => time('npx', ['--no-install', 'pgw', '--help'], app, clean) },
    { name: 'npx pgw --help, the repository (tsx)', run: () => time('npx', ['--no-install', 'pgw', '--help'], root, process.env) },
  ];
  const times = cases.map(() => [] as number[]);
  for (let i = 0; i < RUNS; i++) cases.forEach((c, j) => times[j]?.push(c.run()));
  const base = median(times[0] ?? []);
  console.log(`pgw start benchmark: node ${process.version}, ${String(RUNS)} runs each, taking turns`);
  console.log('| command | median | beyond node -e \'\' | ratio to the repository\'s npx pgw |');
  console.log('|---|---|---|---|');
  const repo = median(times[3] ?? []);
  cases.forEach((c, j) => {
    const m = median(times[j] ?? []);
    console.log(`| ${c.name} | ${(m / 1000).toFixed(2)} s | ${((m - base) / 1000).toFixed(2)} s | ${(m / repo).toFixed(2)} |`);
  });
} finally {
  rmSync(scratch, { recursive: true, force: true });
}
