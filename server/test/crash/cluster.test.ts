// Several processes on one port (PGW_INSTANCES, PostgreSQL): `npm start` with two instances prepares the
// database once, both instances serve requests on the one port (the log names which), writes from both keep the
// merchant's records whole, an instance that dies is replaced on the same
// port, and SIGTERM to the primary stops every instance. SQLite refuses more than one.
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import knex from 'knex';
import { afterAll, describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config.ts';

const root = path.resolve(import.meta.dirname, '../../..');
const admin = process.env.PGW_TEST_DATABASE_URL;
if (!admin) console.warn('\n*** SKIPPING the cluster test: PGW_TEST_DATABASE_URL is not set (.ci/run sets it) ***\n');

/** The instances of the primary `pid`: its children that run main.ts, from /proc. */
function childPids(pid: number): number[] {
  return readdirSync('/proc').filter((entry) => /^\d+$/.test(entry)).flatMap((entry) => {
    try {
      // The fourth field of stat, after the command in parentheses (which may hold spaces), is the parent's pid.
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      if (Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]) !== pid) return [];
      // An instance runs main.ts as its primary does (tsx's esbuild service is a child too).
      return readFileSync(`/proc/${entry}/cmdline`, 'utf8').includes('server/src/main.ts') ? [Number(entry)] : [];
    } catch {
      return []; // ended while listed
    }
  });
}

describe('PGW_INSTANCES', () => {
  it('is refused beyond 1 on SQLite, and beyond 64, with the reason', () => {
    expect(() => loadConfig({ PGW_INSTANCES: '2' }, '/tmp', false)).toThrow(ConfigError);
    expect(() => loadConfig({ PGW_INSTANCES: '2' }, '/tmp', false)).toThrow(/needs DATABASE_URL=postgres/);
    expect(() => loadConfig({ PGW_INSTANCES: '65', DATABASE_URL: 'postgres://x/y' }, '/tmp', false)).toThrow(/at most 64/);
    expect(() => loadConfig({ PGW_INSTANCES: 'two', DATABASE_URL: 'postgres://x/y' }, '/tmp', false)).toThrow(/whole number/);
    expect(loadConfig({}, '/tmp', false).instances).toBe(1);
    expect(loadConfig({ PGW_INSTANCES: '4', DATABASE_URL: 'postgres://x/y' }, '/tmp', false).instances).toBe(4);
  });
});

describe.runIf(admin !== undefined)('two instances on one port (PostgreSQL)', () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'pgw-cluster-'));
  const name = `cluster_${randomBytes(6).toString('hex')}`;
  let child: ChildProcess | undefined;
  let output = '';
  afterAll(async () => {
    if (child && child.exitCode === null && child.signalCode === null) {
      const exited = new Promise((resolve) => child?.once('exit', resolve));
      // The group: the primary and its instances.
      if (child.pid !== undefined) process.kill(-child.pid, 'SIGKILL');
      await exited;
    }
    const db = knex({ client: 'pg', connection: admin });
    await db.raw(`drop database if exists ${name} with (force)`);
    await db.destroy();
    rmSync(dir, { recursive: true, force: true });
  });

  // 30 s in CI's config unloaded, 29 s beside `stress --cpu 2` (three server processes start in it).
  it('serves from both, keeps the records whole, replaces an instance that dies, and stops both on SIGTERM', { timeout: 300_000 }, async () => {
    const db = knex({ client: 'pg', connection: admin });
    await db.raw(`create database ${name}`);
    await db.destroy();
    const url = new URL(admin ?? '');
    url.pathname = `/${name}`;
    const credentialsFile = path.join(dir, 'credentials.json');
    const started = spawn(process.execPath, ['--import', 'tsx', 'server/src/main.ts'], {
      cwd: root, detached: true, stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, DATABASE_URL: url.toString(), PGW_INSTANCES: '2', PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'info', PGW_LOG_FORMAT: 'json', PGW_CREDENTIALS_FILE: credentialsFile },
    });
    child = started;
    // Who waits for the output to say something: told at each chunk.
    const waiting = new Set<() => void>();
    const collect = (chunk: Buffer): void => { output += chunk.toString('utf8'); for (const check of [...waiting]) check(); };
    started.stdout.on('data', collect);
    started.stderr.on('data', collect);
    /** The first match of `pattern` in the output, once it is there; fails if the primary exits first or after `ms`. */
    const printed = (pattern: RegExp, ms: number): Promise<RegExpExecArray> => new Promise((resolve, reject) => {
      const settle = (): void => { clearTimeout(timer); waiting.delete(check); started.off('exit', onExit); };
      const check = (): void => { const match = pattern.exec(output); if (match) { settle(); resolve(match); } };
      const onExit = (code: number | null): void => { settle(); reject(new Error(`the server exited with ${String(code)} before printing ${String(pattern)}: ${output.slice(-2000)}`)); };
      const timer = setTimeout(() => { settle(); reject(new Error(`no ${String(pattern)} within ${String(ms)} ms: ${output.slice(-3000)}`)); }, ms);
      waiting.add(check);
      started.once('exit', onExit);
      check();
    });
    const baseUrl = (await printed(/"baseUrl":"(http:\/\/127\.0\.0\.1:\d+)".*"instances":2/, 120_000))[1] ?? '';
    // The demo data was made once (two merchants, not four), by the primary.
    expect(output.match(/demo data created/g)).toHaveLength(1);
    const merchant = (JSON.parse(readFileSync(credentialsFile, 'utf8')) as { merchants: { clientId: string; clientSecret: string }[] }).merchants[0];
    const tokenRes = await fetch(`${baseUrl}/oauth2/token`, {
      method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ grant_type: 'client_credentials', scope: 'offline_access', client_id: merchant?.clientId ?? '', client_secret: merchant?.clientSecret ?? '' }),
    });
    expect(tokenRes.status).toBe(200);
    const headers = { authorization: `Bearer ${((await tokenRes.json()) as { access_token: string }).access_token}`, 'content-type': 'application/json' };
    const list = async (): Promise<number> => ((await (await fetch(`${baseUrl}/pay-api/v1/customers?pageSize=1`, { headers })).json()) as { total: number }).total;
    const before = await list();
    const servedBy = (): Set<string | undefined> => new Set([...output.matchAll(/"instance":(\d+)[^\n]*"path":"\/pay-api\/v1\/customers"/g)].map((m) => m[1]));
    // Bursts of 60 creates, each on a connection of its own (fetch without keep-alive reuse across the burst),
    // until both instances have served one: the primary hands a connection to an instance that has taken the
    // last one, and on a busy machine (the whole suite beside it) one instance slow to take them got a whole
    // burst. At most 10 bursts; every burst's customers must all be there.
    let sent = 0;
    for (let burst = 0; burst < 10 && (burst === 0 || servedBy().size < 2); burst++) {
      const created = await Promise.all(Array.from({ length: 60 }, (_, i) => fetch(`${baseUrl}/pay-api/v1/customers`, {
        method: 'POST', headers: { ...headers, connection: 'close' }, body: JSON.stringify({ firstName: `Both${String(sent + i)}`, lastName: 'Instances' }),
      }).then((res) => res.status)));
      sent += 60;
      expect(created.every((status) => status === 200)).toBe(true);
      expect(await list()).toBe(before + sent);
    }
    expect(servedBy().size, output.slice(-3000)).toBe(2);
    // Every link names the port the instances listen on (PORT=0: the port the first instance's bind got).
    expect((JSON.parse(readFileSync(credentialsFile, 'utf8')) as { baseUrl: string }).baseUrl).toBe(baseUrl);
    // An instance that dies is replaced by one that listens on the same port and serves.
    const instancePids = childPids(started.pid ?? 0);
    expect(instancePids).toHaveLength(2);
    process.kill(instancePids[0] ?? 0, 'SIGKILL');
    await printed(/the replacement instance is listening/, 120_000);
    const again = await Promise.all(Array.from({ length: 30 }, (_, i) => fetch(`${baseUrl}/pay-api/v1/customers`, {
      method: 'POST', headers: { ...headers, connection: 'close' }, body: JSON.stringify({ firstName: `Again${String(i)}`, lastName: 'Instances' }),
    }).then((res) => res.status)));
    expect(again.every((status) => status === 200)).toBe(true);
    // Its request lines reach this output through a pipe, maybe after the answers: waited for, not read at once.
    await printed(/"instance":3[^\n]*"path":"\/pay-api\/v1\/customers"/, 60_000)
      .catch(() => { throw new Error(`the replacement (instance 3) served none of 30 requests: ${output.slice(-3000)}`); });
    // SIGTERM to the primary alone: it passes it on, each instance drains, and the primary exits 0.
    const exited = new Promise<number | null>((resolve) => started.once('exit', resolve));
    started.kill('SIGTERM');
    expect(await exited).toBe(0);
    expect(output).toMatch(/stopping: every instance drains/);
    expect(output.match(/stopping: draining requests and the worker/g)).toHaveLength(2);
  });
});
