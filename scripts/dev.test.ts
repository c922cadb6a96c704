// `npm run dev` on a copy of the toolkit: a server change restarts the server at the same address; a new
// operation prints its handler stub and keeps the running server (a server change too, until the handler is
// there); a broken spec prints the error and keeps it;
// a spec change regenerates, rebuilds the docs and restarts; Ctrl-C stops everything it started.
import { spawn } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, realpathSync, rmSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { SCAFFOLD_GAP, scaffoldedFiles, watched } from './dev.ts';
import { alive, root } from './lib/run.ts';

describe('the watch\'s helpers', () => {
  it('acts on sources, not on the bundle it writes or an editor\'s swap files', () => {
    expect(watched(path.join(root, 'spec', 'paths', 'ach.yaml'))).toBe(true);
    expect(watched(path.join(root, 'server', 'src', 'app.ts'))).toBe(true);
    expect(watched(path.join(root, 'spec', 'dist', 'openapi.json'))).toBe(false);
    for (const name of ['app.ts~', '.#app.ts', 'app.ts.swp', '4913']) expect(watched(path.join(root, 'server', 'src', name)), name).toBe(false);
  });

  it('reads the scaffold step\'s report as the generator prints it', () => {
    expect(SCAFFOLD_GAP.test('generated/: 27 files … 0 removed, 5.5s\n')).toBe(false);
    expect(SCAFFOLD_GAP.test('server/src/handlers/ach.ts: transactionsHandlers lacks getDevProbe; add to it:\n  getDevProbe(): …')).toBe(true);
    const written = 'scaffolded server/src/handlers/probes.ts (register its handlers where the others are passed to createApiRouter)\n';
    expect(SCAFFOLD_GAP.test(written)).toBe(true);
    expect(scaffoldedFiles(written)).toEqual([path.join(root, 'server', 'src', 'handlers', 'probes.ts')]);
  });
});

describe('npm run dev', () => {
  const copy = mkdtempSync(path.join(tmpdir(), 'pgw-dev-'));
  const data = mkdtempSync(path.join(tmpdir(), 'pgw-dev-data-'));
  let pid: number | undefined;
  afterAll(() => {
    // Whatever happened: the session's process group (the script, its steps and its server) ends with the test.
    if (pid !== undefined && alive(pid)) process.kill(-pid, 'SIGKILL');
    rmSync(copy, { recursive: true, force: true });
    rmSync(data, { recursive: true, force: true });
  });

  // 132 s in CI's config unloaded: a generation, a docs build and three server starts.
  it('regenerates, rebuilds and restarts as the spec and the server change, and stops cleanly', { timeout: 720_000 }, async () => {
    // The toolkit's sources, its generated code and its built docs; node_modules shared.
    const skip = new Set([path.join(root, 'spec', 'dist'), path.join(root, 'generator', 'test')]);
    for (const entry of ['package.json', 'tsconfig.json', 'generator.config.json', 'redocly.yaml', 'scripts', 'spec', 'generator', 'generated', path.join('server', 'src'), 'docs']) {
      if (existsSync(path.join(root, entry))) cpSync(path.join(root, entry), path.join(copy, entry), { recursive: true, filter: (from) => !skip.has(from) });
    }
    // node_modules shared, but for @pgw/client: the copy's own generated/ (the workspace link of the repository's
    // would serve the repository's generated code, not the copy's).
    const modules = realpathSync(path.join(root, 'node_modules'));
    mkdirSync(path.join(copy, 'node_modules', '@pgw'), { recursive: true });
    for (const entry of readdirSync(modules)) if (entry !== '@pgw') symlinkSync(path.join(modules, entry), path.join(copy, 'node_modules', entry));
    symlinkSync(path.join(copy, 'generated'), path.join(copy, 'node_modules', '@pgw', 'client'));
    symlinkSync(path.join(root, 'runtime'), path.join(copy, 'node_modules', '@pgw', 'runtime'));

    const child = spawn(process.execPath, ['--import', 'tsx', 'scripts/dev.ts'], {
      cwd: copy, detached: true, stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, PORT: '0', HOST: '127.0.0.1', PGW_LOG_FORMAT: 'json', LOG_LEVEL: 'warn', DATABASE_URL: `sqlite:${path.join(data, 'db.sqlite')}`, PGW_CREDENTIALS_FILE: path.join(data, 'credentials.json'), PGW_WORKER_INTERVAL_MS: '0' },
    });
    pid = child.pid;
    const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
    let output = '';
    // Who waits for the session to print something: told at each chunk, and when it has ended.
    const waiting = new Set<() => void>();
    let ended = false;
    const collect = (c: Buffer): void => { output += c.toString('utf8'); for (const check of [...waiting]) check(); };
    child.stdout.on('data', collect);
    child.stderr.on('data', collect);
    child.once('close', () => { ended = true; for (const check of [...waiting]) check(); });
    let seen = 0;
    /** The next match of `pattern` in what the session printed since the last one; fails with the output. */
    const next = (pattern: RegExp, ms = 240_000): Promise<RegExpExecArray> => new Promise((resolve, reject) => {
      const settle = (): void => { clearTimeout(timer); waiting.delete(check); };
      const check = (): void => {
        const match = pattern.exec(output.slice(seen));
        if (match) {
          settle();
          seen += match.index + match[0].length;
          resolve(match);
        } else if (ended) {
          settle();
          reject(new Error(`the session ended without ${String(pattern)}:\n${output.slice(seen)}`));
        }
      };
      const timer = setTimeout(() => { settle(); reject(new Error(`no ${String(pattern)} within ${String(ms)} ms in:\n${output.slice(seen)}`)); }, ms);
      waiting.add(check);
      check();
    });
    const ready = /\[dev\] server ready at (http:\/\/127\.0\.0\.1:\d+) \(pid (\d+)\)/;
    const healthy = async (url: string): Promise<number> => (await fetch(`${url}/healthz`)).status;

    const first = await next(ready);
    const url = first[1] ?? '';
    const firstPid = Number(first[2]);
    expect(await healthy(url)).toBe(200);

    // A server change: restarted, at the same address.
    const config = path.join(copy, 'server', 'src', 'config.ts');
    utimesSync(config, new Date(), new Date());
    await next(/\[dev\] server\/src\/config\.ts changed: restarting the server/);
    const second = await next(ready);
    expect(second[1]).toBe(url);
    const secondPid = Number(second[2]);
    expect(secondPid).not.toBe(firstPid);
    expect(alive(firstPid)).toBe(false);
    expect(await healthy(url)).toBe(200);

    // A new operation: its stub printed, the running server kept (it would refuse to start without it).
    const specFile = path.join(copy, 'spec', 'openapi.yaml');
    const original = readFileSync(specFile, 'utf8');
    const probe = '  /pay-api/v1/dev-probe:\n    get:\n      operationId: getDevProbe\n      tags: [Transactions]\n      summary: A probe\n'
      + '      description: A probe of the watch.\n      responses:\n        \'204\':\n          description: Nothing.\n';
    writeFileSync(specFile, original.replace(/^paths:\n/m, `paths:\n${probe}`));
    await next(/Handlers lacks getDevProbe/);
    await next(/\[dev\] the spec has operations without a handler .*the server keeps running the previous contract/);
    expect(await healthy(url)).toBe(200);
    // A server change meanwhile: the handlers are checked again, and the server is not restarted without them.
    utimesSync(config, new Date(), new Date());
    await next(/\[dev\] server\/src\/config\.ts changed: checking the handlers the spec needs/);
    await next(/Handlers lacks getDevProbe/);
    await next(/\[dev\] the spec has operations without a handler .*the server keeps running the previous contract/);
    expect(alive(secondPid)).toBe(true);
    expect(await healthy(url)).toBe(200);

    // A broken spec: the error printed, the running server kept.
    writeFileSync(specFile, original.replace(/^paths:\n/m, 'paths:\n  /broken:\n    $ref: ./paths/no-such-file.yaml#/nothing\n'));
    await next(/\[dev\] the spec did not generate .*the server keeps running the previous contract/);
    expect(await healthy(url)).toBe(200);

    // A change the server can run: regenerated, the docs rebuilt for it, the server restarted on it.
    writeFileSync(specFile, original.replace(/^( {2}summary: )(.*)$/m, '$1Watched by npm run dev. $2'));
    const third = await next(ready);
    expect(third[1]).toBe(url);
    expect(alive(secondPid)).toBe(false);
    const served = await (await fetch(`${url}/openapi.json`)).json() as { info: { summary: string } };
    expect(served.info.summary).toMatch(/^Watched by npm run dev\. /);
    const page = readFileSync(path.join(copy, 'docs', 'index.html'), 'utf8');
    expect(page).toContain('Watched by npm run dev.');
    expect((await fetch(`${url}/docs`)).status).toBe(200);

    // Ctrl-C: the server drained and stopped, the script exits 0 and leaves nothing behind.
    child.kill('SIGINT');
    expect(await exited).toBe(0);
    expect(output).toContain('[dev] stopped');
    expect(alive(Number(third[2]))).toBe(false);
    await expect(fetch(`${url}/healthz`)).rejects.toThrow();
  });
});
