// Child processes of the HTTP benchmark: spawn, wait until ready, stop, and clean up on exit or Ctrl-C.
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, openSync, closeSync, readFileSync } from 'node:fs';

/** Progress goes to stderr so that stdout holds only the tables. */
export const progress = (message: string): void => { process.stderr.write(`[bench] ${message}\n`); };

export const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

export { freePort } from '../free-port.ts';

// Cleanups run last-registered first (children before the temp dir that holds their files), once, whether
// the run ends normally, by an error or by a signal; `early` ones (the load generator) run before all others.
const cleanups: { label: string; run: () => Promise<void>; early: boolean }[] = [];
let cleaning: Promise<void> | undefined;

export function onCleanup(label: string, run: () => Promise<void>, early = false): void {
  cleanups.push({ label, run, early });
}

/** True once the cleanup has begun: nothing new may start (a signal arrived, or the run is over). */
export const cleaningUp = (): boolean => cleaning !== undefined;

export function runCleanups(): Promise<void> {
  cleaning ??= (async () => {
    const ordered = [...cleanups.filter((c) => c.early), ...cleanups.filter((c) => !c.early).reverse()];
    for (const { label, run } of ordered) {
      try {
        await run();
      } catch (error) {
        progress(`cleanup of ${label} failed: ${String(error)}`);
      }
    }
  })();
  return cleaning;
}

/**
 * On Ctrl-C or SIGTERM: stop the children, drop the database, remove the temp dir, then exit. The handler
 * stays installed: a Ctrl-C reaches this process twice (from the terminal and relayed by tsx), and the
 * default action of the second one would kill it halfway through its cleanup.
 */
export function cleanupOnSignals(): void {
  let signalled = false;
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.on(signal, () => {
      if (signalled) return;
      signalled = true;
      progress(`${signal}: stopping the children and cleaning up`);
      void runCleanups().finally(() => { process.exit(130); });
    });
  }
}

export interface Spawned { child: ChildProcess; log: string; label: string; stopping: boolean }

/** Children that ended without being asked to, with how each ended. */
export const unexpectedExits: { spawned: Spawned; text: string }[] = [];

/**
 * Starts a process in its own process group (detached), its output into a log file, and registers its stop.
 * Its own group means a terminal's Ctrl-C reaches only this script, which then stops the group in order.
 */
export function spawnLogged(label: string, command: string, args: readonly string[], options: { cwd: string; env: NodeJS.ProcessEnv; log: string }): Spawned {
  const out = openSync(options.log, 'w');
  const child = spawn(command, args, { cwd: options.cwd, env: options.env, stdio: ['ignore', out, out], detached: true });
  closeSync(out);
  const spawned: Spawned = { child, log: options.log, label, stopping: false };
  // Said at once, while the log still exists: the temp dir that holds it is gone after the run.
  child.once('exit', (code, signal) => {
    if (spawned.stopping) return;
    const how = signal === null ? `with code ${String(code)}` : `by ${signal} (not sent by this script)`;
    unexpectedExits.push({ spawned, text: `${label} exited ${how}` });
    progress(`${label} exited unexpectedly ${how}; its log ends:\n${logTail(options.log, 25)}`);
  });
  onCleanup(label, () => stop(spawned));
  return spawned;
}

const exited = (child: ChildProcess): boolean => child.exitCode !== null || child.signalCode !== null;

function signalGroup(child: ChildProcess, signal: NodeJS.Signals): void {
  if (child.pid === undefined || exited(child)) return;
  try {
    process.kill(-child.pid, signal);
  } catch {
    child.kill(signal);
  }
}

/** SIGTERM to the child's group, then SIGKILL after 5 s; resolves when the child has exited. */
export async function stop(spawned: Spawned): Promise<void> {
  const { child } = spawned;
  spawned.stopping = true;
  if (child.pid === undefined || exited(child)) return;
  const gone = new Promise<void>((resolve) => { child.once('exit', () => { resolve(); }); });
  signalGroup(child, 'SIGTERM');
  const timer = setTimeout(() => { signalGroup(child, 'SIGKILL'); }, 5000);
  await gone;
  clearTimeout(timer);
}

export const logTail = (file: string, lines = 15): string =>
  existsSync(file) ? readFileSync(file, 'utf8').trimEnd().split('\n').slice(-lines).join('\n') : '(no log)';

/** Polls until the URL answers 2xx; fails when the child exits first or after timeoutMs. */
export async function waitForHttp(url: string, spawned: Spawned, timeoutMs = 120_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (exited(spawned.child)) throw new Error(`${spawned.label} exited (${String(spawned.child.exitCode ?? spawned.child.signalCode)}) before ${url} answered; its log ends:\n${logTail(spawned.log)}`);
    try {
      const res = await fetch(url);
      await res.arrayBuffer();
      if (res.ok) return;
    } catch { /* not listening yet */ }
    await sleep(200);
  }
  throw new Error(`${url} did not answer within ${String(timeoutMs / 1000)} s; ${spawned.label}'s log ends:\n${logTail(spawned.log)}`);
}

/** Polls the child's log until it holds the text (Prism announces itself there). */
export async function waitForLog(text: string, spawned: Spawned, timeoutMs = 180_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (existsSync(spawned.log) && readFileSync(spawned.log, 'utf8').includes(text)) return;
    if (exited(spawned.child)) throw new Error(`${spawned.label} exited before saying "${text}"; its log ends:\n${logTail(spawned.log)}`);
    await sleep(250);
  }
  throw new Error(`${spawned.label} did not say "${text}" within ${String(timeoutMs / 1000)} s; its log ends:\n${logTail(spawned.log)}`);
}
