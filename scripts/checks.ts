// `npm test`'s checks before the test suites, in two lanes at once: ESLint (type-aware, the longest: ~55 s
// here) beside the spec lint, the type check, `generate --check` and `spec:diff` one after another (~32 s).
// Sequential they took ~86 s of every CI run; two lanes use the machine's two cores. Each step's output is
// printed whole when it ends (never interleaved), with its time; the exit code is 1 when any step failed.
import { spawn } from 'node:child_process';

interface Step { name: string; args: string[] }
interface Result { step: Step; code: number; output: string; seconds: number }

const lanes: Step[][] = [
  [{ name: 'lint:ts', args: ['run', '-s', 'lint:ts'] }],
  [
    { name: 'lint:spec', args: ['run', '-s', 'lint:spec'] },
    { name: 'typecheck', args: ['run', '-s', 'typecheck'] },
    { name: 'generate --check', args: ['run', '-s', 'generate', '--', '--check'] },
    { name: 'spec:diff --summary', args: ['run', '-s', 'spec:diff', '--', '--summary'] },
  ],
];

function run(step: Step): Promise<Result> {
  const started = performance.now();
  return new Promise((resolve) => {
    const child = spawn('npm', step.args, { stdio: ['ignore', 'pipe', 'pipe'] });
    const chunks: Buffer[] = [];
    child.stdout.on('data', (c: Buffer) => chunks.push(c));
    child.stderr.on('data', (c: Buffer) => chunks.push(c));
    child.on('close', (code) => {
      resolve({ step, code: code ?? 1, output: Buffer.concat(chunks).toString('utf8'), seconds: (performance.now() - started) / 1000 });
    });
  });
}

/** A lane stops at its first failure: a later step would only repeat it (a type error fails generate too). */
async function lane(steps: Step[]): Promise<Result[]> {
  const results: Result[] = [];
  for (const step of steps) {
    const result = await run(step);
    console.log(`== ${step.name}: ${result.code === 0 ? 'ok' : `FAILED (exit ${String(result.code)})`} in ${result.seconds.toFixed(1)} s`);
    if (result.output.trim() !== '') console.log(result.output.trimEnd());
    results.push(result);
    if (result.code !== 0) break;
  }
  return results;
}

const results = (await Promise.all(lanes.map(lane))).flat();
const failed = results.filter((r) => r.code !== 0);
if (failed.length > 0) {
  console.error(`checks failed: ${failed.map((r) => r.step.name).join(', ')}`);
  process.exitCode = 1;
}
