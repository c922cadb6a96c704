// `npm start` outside a terminal (CI, `npm start | tee log`): the banner is still printed, as plain lines whose
// token command pastes into a shell as printed, naming the port the server really listens on; stdout stays one
// JSON object a line.
import { execFile, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { root } from '../../../scripts/lib/run.ts';

const run = promisify(execFile);

describe('npm start with its output not a terminal', () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'pgw-start-output-'));
  afterAll(() => { rmSync(dir, { recursive: true, force: true }); });

  it('prints the banner in plain text with a token command that works, at the real port', async () => {
    // Pipes, as `| tee` and CI give it; PORT=0: the server takes any free port (never the spec's 4000).
    const child = spawn(process.execPath, ['--import', 'tsx', 'server/src/main.ts'], {
      cwd: root,
      env: { ...process.env, PORT: '0', HOST: '127.0.0.1', PGW_LOG_FORMAT: 'auto', DATABASE_URL: `sqlite:${path.join(dir, 'db.sqlite')}`, PGW_CREDENTIALS_FILE: path.join(dir, 'credentials.json'), PGW_WORKER_INTERVAL_MS: '0' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
    let stdout = '';
    let stderr = '';
    try {
      // Both: the JSON line saying where the server listens, and the banner's command.
      await new Promise<void>((resolve, reject) => {
        const both = (): void => { if (stdout.includes('tokenCommand') && /^\s+curl .*\n/m.test(stderr)) resolve(); };
        child.stdout.on('data', (c: Buffer) => { stdout += c.toString('utf8'); both(); });
        child.stderr.on('data', (c: Buffer) => { stderr += c.toString('utf8'); both(); });
        // Before the test's own time limit (the suite's 120 s), so that the server is stopped below whatever happens.
        // A server starts in ~3.5 s idle, 4.5-8 s beside `stress --cpu 2` alone.
        setTimeout(() => { reject(new Error(`no banner on stderr within 80 s:\n${stdout}${stderr}`)); }, 80_000).unref();
        void exited.then((code) => { reject(new Error(`exited ${String(code)}: ${stdout}${stderr}`)); });
      });
      const listening = /"baseUrl":"(http:\/\/127\.0\.0\.1:(\d+))"/.exec(stdout);
      const baseUrl = listening?.[1] ?? 'none';
      expect(listening?.[2]).toMatch(/^\d+$/);
      expect(listening?.[2]).not.toBe('4000');
      expect(stderr).toContain(`Payment gateway sandbox at ${baseUrl}`);
      expect(stderr).toContain(`Docs:         ${baseUrl}/docs`);
      const command = /^\s+(curl .*)$/m.exec(stderr)?.[1] ?? 'false';
      // Plain text: no JSON escapes, the URL it names is the server's own.
      expect(command).not.toContain('\\"');
      expect(command).toContain(`'${baseUrl}/oauth2/token'`);
      const { stdout: answer } = await run('bash', ['-c', command], { timeout: 30_000 });
      const token = JSON.parse(answer) as { access_token?: unknown; token_type?: unknown };
      expect([typeof token.access_token, token.token_type]).toEqual(['string', 'Bearer']);
      // stdout is still for collectors: one JSON object a line, the command among its fields.
      const lines = stdout.trim().split('\n');
      for (const line of lines) expect(() => JSON.parse(line) as unknown, line).not.toThrow();
      expect(lines.some((line) => (JSON.parse(line) as { tokenCommand?: string }).tokenCommand === command)).toBe(true);
    } finally {
      child.kill('SIGTERM');
      expect(await exited).toBe(0);
    }
  });
});
