// wrk as the load generator of the HTTP benchmark: one run, its --latency output parsed into figures.
import { spawn, spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import path from 'node:path';
import { cleaningUp, onCleanup, progress } from './lib-procs.ts';

const here = path.dirname(fileURLToPath(import.meta.url));
/** Sends one request shape: method, body and headers from the arguments after `--`. */
export const requestLua = path.join(here, 'request.lua');
/** Cycles through the mixed workload's requests. */
export const mixedLua = path.join(here, 'mixed.lua');

export interface Figures {
  rps: number;
  /** Milliseconds. */
  p50: number;
  p99: number;
  requests: number;
  /** Answers wrk counts as errors (status 400 and above; wrk labels them "Non-2xx or 3xx"). */
  non2xx: number;
  /** connect + read + write + timeout. */
  socketErrors: number;
}

export const failures = (f: Figures): number => f.non2xx + f.socketErrors;

/**
 * Exits 2 when wrk is not installed: a benchmark that quietly measured with something else would print
 * figures that cannot be compared with the earlier runs.
 */
export function requireWrk(): void {
  const probe = spawnSync('wrk', ['--version'], { encoding: 'utf8' });
  if (probe.error) {
    console.error(`wrk is not installed or not on PATH (${probe.error.message}); install it (apt-get install wrk) and run again. No fallback.`);
    process.exit(2);
  }
}

export function wrkVersion(): string {
  const probe = spawnSync('wrk', ['--version'], { encoding: 'utf8' });
  return /wrk \S+/.exec(`${probe.stdout}${probe.stderr}`)?.[0] ?? 'wrk';
}

const UNITS: Record<string, number> = { us: 0.001, ms: 1, s: 1000, m: 60_000, h: 3_600_000 };

/** "550.00us", "1.20ms", "2.01s" in milliseconds. */
function millis(text: string): number {
  const match = /^([\d.]+)(us|ms|s|m|h)$/.exec(text);
  const unit = match?.[2] === undefined ? undefined : UNITS[match[2]];
  if (!match?.[1] || unit === undefined) throw new Error(`wrk: unreadable latency "${text}"`);
  return Number(match[1]) * unit;
}

export function parseWrk(output: string): Figures {
  const rps = /^Requests\/sec:\s+([\d.]+)/m.exec(output)?.[1];
  const p50 = /^\s+50%\s+(\S+)/m.exec(output)?.[1];
  const p99 = /^\s+99%\s+(\S+)/m.exec(output)?.[1];
  const requests = /^\s+(\d+) requests in /m.exec(output)?.[1];
  if (rps === undefined || p50 === undefined || p99 === undefined || requests === undefined) {
    throw new Error(`wrk: unexpected output (no Requests/sec or latency distribution):\n${output}`);
  }
  const non2xx = Number(/Non-2xx or 3xx responses:\s+(\d+)/.exec(output)?.[1] ?? 0);
  const socket = /Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)/.exec(output);
  const socketErrors = socket ? socket.slice(1).reduce((sum, n) => sum + Number(n), 0) : 0;
  return { rps: Number(rps), p50: millis(p50), p99: millis(p99), requests: Number(requests), non2xx, socketErrors };
}

export interface WrkRun {
  url: string;
  connections: number;
  seconds: number;
  script: string;
  /** Passed to the script's init(args). */
  args: readonly string[];
}

let running: ReturnType<typeof spawn> | undefined;
// A Ctrl-C during a run must not leave wrk loading a server that is about to go away.
onCleanup('wrk', () => {
  if (running?.pid !== undefined && running.exitCode === null) running.kill('SIGKILL');
  return Promise.resolve();
}, true);

/** One wrk run (2 threads, --latency); rejects when wrk fails or prints nothing readable. */
export function runWrk(run: WrkRun): Promise<Figures> {
  const argv = ['-t2', `-c${String(run.connections)}`, `-d${String(run.seconds)}s`, '--timeout', '10s', '--latency', '-s', run.script, run.url, '--', ...run.args];
  // wrk shares this process's group, so a Ctrl-C also ends it early with figures that look valid: once the
  // cleanup has begun, no run starts and none is reported.
  if (cleaningUp()) return Promise.reject(new Error('interrupted'));
  return new Promise((resolve, reject) => {
    const child = spawn('wrk', argv, { stdio: ['ignore', 'pipe', 'pipe'] });
    running = child;
    let out = '';
    child.stdout.on('data', (chunk: Buffer) => { out += chunk.toString('utf8'); });
    child.stderr.on('data', (chunk: Buffer) => { out += chunk.toString('utf8'); });
    child.once('error', reject);
    child.once('close', (code) => {
      running = undefined;
      if (cleaningUp()) {
        reject(new Error('interrupted'));
        return;
      }
      if (code !== 0) {
        reject(new Error(`wrk exited with ${String(code)}:\n${out}`));
        return;
      }
      try {
        resolve(parseWrk(out));
      } catch (error) {
        reject(error instanceof Error ? error : new Error(String(error)));
      }
    });
  });
}

export interface RequestShape {
  method: 'GET' | 'POST';
  path: string;
  headers: Record<string, string>;
  body?: string;
}

/** Arguments of request.lua: method, body ('' for none), then "name: value" headers. */
export const requestArgs = (shape: RequestShape): string[] =>
  [shape.method, shape.body ?? '', ...Object.entries(shape.headers).map(([name, value]) => `${name}: ${value}`)];

/**
 * Loads one request shape against a base URL: a short warm-up (not reported; lets the JIT and the
 * connection pools settle), then the measured run.
 */
export async function measure(label: string, base: string, shape: RequestShape, options: { connections: number; seconds: number; warmup: number }): Promise<Figures> {
  const run = { url: `${base}${shape.path}`, connections: options.connections, script: requestLua, args: requestArgs(shape) };
  if (options.warmup > 0) await runWrk({ ...run, seconds: options.warmup });
  progress(`measuring ${label}: ${shape.method} ${run.url} (${String(options.connections)} connections, ${String(options.seconds)} s)`);
  const figures = await runWrk({ ...run, seconds: options.seconds });
  progress(`  ${figures.rps.toFixed(0)} req/s, p50 ${figures.p50.toFixed(2)} ms, p99 ${figures.p99.toFixed(2)} ms${failures(figures) > 0 ? `, FAILED ${String(failures(figures))}` : ''}`);
  return figures;
}
