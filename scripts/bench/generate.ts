// Benchmark of `npm run generate` on this project's spec: a full generation into an empty folder, and a
// no-op regeneration of the up-to-date generated/ folder. Wall-clock time of the whole command
// (`node --import tsx generator/cli.ts`), median of several runs. Prints the figures; asserts nothing.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { root } from '../lib/run.ts';

const RUNS = Number(process.env.BENCH_RUNS ?? 5);

function timeCommand(args: string[]): number {
  const started = performance.now();
  const result = spawnSync(process.execPath, ['--import', 'tsx', 'generator/cli.ts', ...args], { cwd: root, encoding: 'utf8' });
  const elapsed = performance.now() - started;
  if (result.status !== 0) throw new Error(`generate ${args.join(' ')} failed:\n${result.stderr}`);
  return elapsed;
}

const median = (values: number[]): number => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? Number.NaN;
};

function bench(label: string, target: number, run: () => number): void {
  run(); // warm the file-system cache
  const times = Array.from({ length: RUNS }, run);
  const m = median(times) / 1000;
  const spread = `min ${(Math.min(...times) / 1000).toFixed(2)} s, max ${(Math.max(...times) / 1000).toFixed(2)} s`;
  console.log(`${label.padEnd(28)} median ${m.toFixed(2)} s (${spread}; ${String(RUNS)} runs)  target < ${target.toFixed(1)} s: ${m < target ? 'met' : 'NOT met'}`);
}

console.log(`generate benchmark: spec/openapi.yaml, node ${process.version}`);
// The no-op run first: generated/ must be current for it to measure a no-op.
timeCommand([]);
bench('no-op regeneration', 1, () => timeCommand([]));
bench('full generation', 3, () => {
  const out = mkdtempSync(path.join(tmpdir(), 'pgw-bench-'));
  try {
    return timeCommand(['--output', out]);
  } finally {
    rmSync(out, { recursive: true, force: true });
  }
});
