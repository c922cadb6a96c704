// Runs a command of the toolkit's own node_modules and fails loudly when it fails.
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import path from 'node:path';

export const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');

/** Runs a binary from node_modules/.bin with the project root as working directory. */
export function runBin(bin: string, args: readonly string[]): void {
  const result = spawnSync(path.join(root, 'node_modules', '.bin', bin), args, {
    cwd: root,
    stdio: ['ignore', 'inherit', 'inherit'],
    env: { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true' },
  });
  if (result.error) throw result.error;
  if (result.status !== 0) {
    throw new Error(`${bin} ${args.join(' ')} exited with ${String(result.status)}`);
  }
}

/** Whether a process is still there (signal 0 only asks). */
export const alive = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};
