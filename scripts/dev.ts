// `npm run dev`: the sandbox server, kept in step with its sources. Watches spec/ and server/src/; a spec change
// bundles and regenerates (printing the handler stubs a new operation still needs), rebuilds the docs and
// restarts the server; a server change restarts it. A failing step, or handlers still to write, keep the
// running server. Ctrl-C stops the server and the watch.
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readFileSync, statSync, watch, type FSWatcher } from 'node:fs';
import path from 'node:path';
import { freePort } from './free-port.ts';
import { root } from './lib/run.ts';

/** How long a burst of saves (an editor writes a file in several steps) is let settle before acting. */
const DEBOUNCE_MS = 300;
/** How long a stopped server may drain (main.ts waits 1 s, then closes) before it is killed. */
const STOP_GRACE_MS = 10_000;
/** How long a started server may take to answer /healthz (migrations, demo data on a first start). */
const READY_MS = 60_000;

const say = (line: string): void => { process.stdout.write(`[dev] ${line}\n`); };
const relative = (file: string): string => path.relative(root, file) || '.';

/** The generated folder's fingerprint (generator/fingerprint.ts writes it): what the server was started from. */
const generatedStamp = (): string => {
  const file = path.join(root, 'generated', 'src', '.fingerprint.json');
  return existsSync(file) ? readFileSync(file, 'utf8') : '';
};

/** Lines of the generator's scaffold step that say the spec has operations no handler implements yet. */
export const SCAFFOLD_GAP = /^scaffolded \S+|Handlers lacks /m;

/** Files the scaffold step wrote (`scaffolded <file> (…)`), as paths from the repository's root. */
export function scaffoldedFiles(output: string): string[] {
  return [...output.matchAll(/^scaffolded (\S+)/gm)].map((m) => path.resolve(root, m[1] ?? ''));
}

/** Whether a changed file is one the watch acts on: not the bundle's output, an editor's backup or swap file. */
export function watched(file: string): boolean {
  const rel = relative(file);
  if (rel.startsWith(`spec${path.sep}dist${path.sep}`) || rel === path.join('spec', 'dist')) return false;
  const base = path.basename(file);
  return !(base.endsWith('~') || base.startsWith('.#') || /\.(swp|swx|tmp)$/.test(base) || /^4913$/.test(base));
}


interface StepResult { ok: boolean; stdout: string }

class DevLoop {
  private server: ChildProcess | undefined;
  /** The generated/ the running server was started from. */
  private serverStamp = '';
  private step: ChildProcess | undefined;
  private readonly watchers: FSWatcher[] = [];
  private readonly changed = new Set<string>();
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;
  private stopping = false;
  /** Files the scaffold step wrote, with their modification time then: their own events are not changes. */
  private readonly written = new Map<string, number>();
  /** The last generation left operations without a handler: a server change checks again before restarting. */
  private gaps = false;

  constructor(private readonly port: number, private readonly host: string) {}

  /** Whether Ctrl-C came (read after each await: a step may end because of it). */
  private halted(): boolean {
    return this.stopping;
  }

  private get baseUrl(): string {
    const host = this.host === '0.0.0.0' || this.host === '::' ? '127.0.0.1' : this.host;
    return `http://${host.includes(':') ? `[${host}]` : host}:${String(this.port)}`;
  }

  /** Runs a script of the toolkit (tsx), its output shown as it comes; resolves with its stdout. */
  private run(script: string, args: readonly string[]): Promise<StepResult> {
    return new Promise((resolve) => {
      // A TypeScript script runs through tsx; the generator's launcher is plain JavaScript.
      const loader = script.endsWith('.ts') ? ['--import', 'tsx'] : [];
      const child = spawn(process.execPath, [...loader, script, ...args], { cwd: root, stdio: ['ignore', 'pipe', 'inherit'] });
      this.step = child;
      let stdout = '';
      child.stdout.on('data', (chunk: Buffer) => { stdout += chunk.toString('utf8'); process.stdout.write(chunk); });
      child.once('error', (error) => { say(`${script}: ${error.message}`); });
      child.once('close', (code) => { this.step = undefined; resolve({ ok: code === 0, stdout }); });
    });
  }

  start(): void {
    for (const dir of [path.join(root, 'spec'), path.join(root, 'server', 'src')]) {
      // Recursive watching works on Linux from Node.js 20 (one inotify watch a folder, new folders included).
      const watcher = watch(dir, { recursive: true }, (_event, name) => {
        if (name !== null) this.changedFile(path.join(dir, name));
      });
      this.watchers.push(watcher);
    }
    say(`watching spec/ and server/src/; the server will listen on ${this.baseUrl} (Ctrl-C stops both)`);
    this.schedule(Promise.resolve().then(() => this.cycle(true, 'start')));
  }

  private changedFile(file: string): void {
    if (this.stopping || !watched(file)) return;
    const ours = this.written.get(file);
    if (ours !== undefined && existsSync(file) && statSync(file).mtimeMs === ours) return;
    this.changed.add(file);
    clearTimeout(this.timer);
    this.timer = setTimeout(() => { this.flush(); }, DEBOUNCE_MS);
  }

  /** Acts on the changes gathered so far, once the cycle in progress (if any) ends. */
  private flush(): void {
    if (this.running !== undefined) return; // picked up when the cycle ends
    if (this.changed.size === 0 || this.stopping) return;
    const files = [...this.changed];
    this.changed.clear();
    const spec = files.some((f) => relative(f).startsWith(`spec${path.sep}`));
    const names = files.map(relative);
    const shown = names.length > 3 ? `${names.slice(0, 3).join(', ')} and ${String(names.length - 3)} more` : names.join(', ');
    this.schedule(this.cycle(spec, `${shown} changed`));
  }

  private schedule(cycle: Promise<void>): void {
    this.running = cycle.catch((error: unknown) => { say(`unexpected: ${error instanceof Error ? error.stack ?? error.message : String(error)}`); })
      .finally(() => { this.running = undefined; this.flush(); });
  }

  /**
   * Bundles and regenerates with the scaffold step; false when the server is not to be restarted on the result
   * (the generation failed, or operations have no handler yet), having said why.
   */
  private async generate(): Promise<boolean> {
    const bundled = await this.run('scripts/bundle.ts', []);
    const generated = bundled.ok ? await this.run('generator/bin/pgw-generate.mjs', ['--scaffold', path.join('server', 'src', 'handlers')]) : bundled;
    if (this.halted()) return false;
    const keeps = this.server ? 'the server keeps running the previous contract' : 'no server is running';
    if (!generated.ok) {
      say(`the spec did not generate (the error is above); ${keeps}: fix the spec and save`);
      return false;
    }
    // Modules the scaffold step wrote for new groups: changes of ours, not a reason to restart.
    for (const file of scaffoldedFiles(generated.stdout)) {
      this.changed.delete(file);
      if (existsSync(file)) this.written.set(file, statSync(file).mtimeMs);
    }
    this.gaps = SCAFFOLD_GAP.test(generated.stdout);
    if (this.gaps) say(`the spec has operations without a handler (stubs above, for server/src/handlers); ${keeps} until they are written and saved`);
    return !this.gaps;
  }

  /** One round: the spec's steps when the spec changed (or at start), then the server restarted if it should be. */
  private async cycle(spec: boolean, why: string): Promise<void> {
    if (spec) {
      say(`${why}: bundling and regenerating`);
      if (!(await this.generate())) return;
      if (this.server !== undefined && generatedStamp() === this.serverStamp) {
        say('generated/ is unchanged: the server keeps running');
        return;
      }
    } else if (this.gaps) {
      // The server would refuse to start while an operation has no handler: it restarts once none is missing.
      say(`${why}: checking the handlers the spec needs`);
      if (!(await this.generate())) return;
    }
    if (generatedStamp() !== this.serverStamp || this.server === undefined) {
      const docs = await this.run('scripts/docs.ts', ['--if-stale']);
      if (this.halted()) return;
      if (!docs.ok) say('the docs page was not rebuilt (the error is above); /docs serves the page there is');
    }
    const restart = this.server === undefined ? 'starting the server' : 'restarting the server';
    say(spec ? restart : `${why}: ${restart}`);
    await this.stopServer();
    if (!this.halted()) await this.startServer();
  }

  private async startServer(): Promise<void> {
    this.serverStamp = generatedStamp();
    const child = spawn(process.execPath, ['--import', 'tsx', path.join('server', 'src', 'main.ts')], {
      cwd: root, stdio: 'inherit', env: { ...process.env, PORT: String(this.port) },
    });
    this.server = child;
    child.once('exit', (code, signal) => {
      if (this.server === child) this.server = undefined;
      if (!this.stopping && !child.killed) say(`the server stopped (${signal ?? `exit code ${String(code)}`}); save a change to start it again`);
    });
    // Ready when it answers /healthz; a server that exits first said why itself.
    const deadline = Date.now() + READY_MS;
    while (this.server === child && !this.stopping && Date.now() < deadline) {
      const healthy = await fetch(`${this.baseUrl}/healthz`).then((res) => res.ok, () => false);
      if (healthy && this.server === child) {
        say(`server ready at ${this.baseUrl} (pid ${String(child.pid)})`);
        return;
      }
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    if (this.server === child) say(`the server did not answer ${this.baseUrl}/healthz within ${String(READY_MS / 1000)} s`);
  }

  private async stopServer(): Promise<void> {
    const child = this.server;
    if (child === undefined) return;
    this.server = undefined;
    if (child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGTERM');
    const timer = setTimeout(() => { child.kill('SIGKILL'); }, STOP_GRACE_MS);
    await exited;
    clearTimeout(timer);
  }

  /** Ctrl-C: no more changes, the step in progress ended, the server drained and stopped. */
  async stop(): Promise<void> {
    if (this.stopping) return;
    this.stopping = true;
    clearTimeout(this.timer);
    for (const watcher of this.watchers) watcher.close();
    this.step?.kill('SIGTERM');
    // The server first: a cycle waiting for it to answer ends when it is gone, and starts no other.
    await this.stopServer();
    await this.running;
    await this.stopServer();
    say('stopped');
  }
}

async function main(): Promise<void> {
  const host = process.env.HOST ?? '127.0.0.1';
  const wanted = Number(process.env.PORT ?? 4000);
  if (!Number.isInteger(wanted) || wanted < 0 || wanted > 65535) throw new Error(`PORT must be a port number, not ${String(process.env.PORT)}`);
  // PORT=0: one free port for the whole session, so that a restarted server is where the last one was.
  const port = wanted === 0 ? await freePort(host === '0.0.0.0' || host === '::' ? '127.0.0.1' : host) : wanted;
  const loop = new DevLoop(port, host);
  const stop = (): void => { void loop.stop().then(() => process.exit(0)); };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
  loop.start();
}

// Run as a script (not when a test imports the helpers above).
if (process.argv[1] !== undefined && path.resolve(process.argv[1]) === path.join(root, 'scripts', 'dev.ts')) {
  main().catch((error: unknown) => {
    console.error(error instanceof Error ? error.message : error);
    process.exit(2);
  });
}
