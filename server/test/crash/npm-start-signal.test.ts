// `npm start` runs the server through `sh -c`: a SIGTERM to npm's own pid (what a process manager or a CI step
// sends) stops the server too, instead of leaving it running with no parent.
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { alive } from '../../../scripts/lib/run.ts';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..', '..');

/** The pids of a process's descendants (from /proc: children lists). */
function descendants(pid: number): number[] {
  const children = readdirSync('/proc').filter((d) => /^\d+$/.test(d)).map(Number).filter((p) => {
    try {
      return Number(readFileSync(`/proc/${String(p)}/stat`, 'utf8').split(') ')[1]?.split(' ')[1]) === pid;
    } catch {
      return false;
    }
  });
  return children.flatMap((child) => [child, ...descendants(child)]);
}

describe('SIGTERM to the pid of npm start', () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'pgw-npm-start-'));
  afterAll(() => { rmSync(dir, { recursive: true, force: true }); });

  it('stops the server it started', async () => {
    // --ignore-scripts: the signal's path, not the docs build of prestart.
    const npm = spawn('npm', ['start', '--silent', '--ignore-scripts'], {
      cwd: root,
      env: { ...process.env, PORT: '0', HOST: '127.0.0.1', DATABASE_URL: `sqlite:${path.join(dir, 'db.sqlite')}`, PGW_CREDENTIALS_FILE: path.join(dir, 'credentials.json'), PGW_LOG_FORMAT: 'json' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    await new Promise<void>((resolve, reject) => {
      const read = (c: Buffer): void => {
        output += c.toString('utf8');
        if (output.includes('payment gateway listening')) resolve();
      };
      npm.stdout.on('data', read);
      npm.stderr.on('data', read);
      npm.once('exit', (code) => { reject(new Error(`npm start exited ${String(code)}: ${output}`)); });
    });
    const tree = descendants(npm.pid ?? 0);
    expect(tree.length).toBeGreaterThan(0);
    npm.kill('SIGTERM');
    // Waits on the processes themselves until they are gone: a server notices its parent's end within a second
    // and drains for a few; a minute is many times that on a busy machine.
    const deadline = Date.now() + 60_000;
    await new Promise<void>((resolve) => {
      const check = setInterval(() => {
        if (tree.every((pid) => !alive(pid)) || Date.now() > deadline) {
          clearInterval(check);
          resolve();
        }
      }, 200);
    });
    const left = tree.filter(alive);
    for (const pid of left) process.kill(pid, 'SIGKILL');
    expect(left).toEqual([]);
  });
});
