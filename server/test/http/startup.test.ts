// What a new user meets first: the root points to the docs, the token command pastes into a shell as
// printed, and logs in a terminal are readable lines (secrets still redacted).
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import { promisify } from 'node:util';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config.ts';
import { createLogger, prettyDestination } from '../../src/platform/log.ts';
import { shellQuote, startupBanner, tokenCommand } from '../../src/platform/startup-banner.ts';
import { startServer, type TestServer } from '../harness.ts';

const run = promisify(execFile);

describe('first contact', () => {
  let s: TestServer;
  let dir: string;
  beforeAll(async () => {
    s = await startServer('sqlite');
    // A folder name with a space and a single quote: the command must quote it.
    dir = mkdtempSync(path.join(tmpdir(), "pgw it's here "));
  });
  afterAll(async () => {
    await s.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('answers GET / with the links, and sends a browser to the docs', async () => {
    const json = await request(s.app).get('/').set('Accept', 'application/json');
    expect([json.status, json.body]).toEqual([200, expect.objectContaining({ docs: '/docs', openapi: '/openapi.json', health: '/healthz' })]);
    const browser = await request(s.app).get('/').set('Accept', 'text/html,application/xhtml+xml,*/*;q=0.8');
    expect([browser.status, browser.headers.location]).toEqual([302, '/docs']);
  });

  it('serves the contract naming this server\'s address, the other servers as written', async () => {
    const other = await startServer('sqlite', { env: { PGW_BASE_URL: 'http://127.0.0.1:51234' } });
    try {
      const served = await request(other.app).get('/openapi.json');
      const servers = (served.body as { servers: { url: string; description?: string }[] }).servers;
      expect(servers[0]).toEqual({ url: 'http://127.0.0.1:51234', description: expect.stringContaining('bundled sandbox') as unknown });
      expect(servers.slice(1).map((server) => server.url)).toEqual(['{base_url}']);
    } finally {
      await other.close();
    }
  });

  it('prints a token command that works when pasted into a shell', async () => {
    const server = s.app.listen(0, '127.0.0.1');
    await new Promise((resolve) => server.once('listening', resolve));
    try {
      const baseUrl = `http://127.0.0.1:${String((server.address() as AddressInfo).port)}`;
      const file = path.join(dir, 'credentials.json');
      writeFileSync(file, JSON.stringify({ baseUrl, merchants: s.secrets.merchants }));
      const banner = startupBanner(baseUrl, 'sandbox', file);
      const command = banner.split('\n').find((line) => line.trim().startsWith('curl '))?.trim();
      expect(command).toBe(tokenCommand(baseUrl, file));
      expect(banner).toContain(`${baseUrl}/docs`);
      // The sandbox's tools, which a production server does not serve.
      expect(banner).toContain(`${baseUrl}/dashboard`);
      expect(banner).toContain(`npx pgw listen`);
      expect(startupBanner(baseUrl, 'production', file)).not.toMatch(/dashboard|pgw listen/);
      const { stdout } = await run('bash', ['-c', command ?? 'false'], { timeout: 30_000 });
      const token = JSON.parse(stdout) as { access_token?: unknown; token_type?: unknown };
      expect([typeof token.access_token, token.token_type]).toEqual(['string', 'Bearer']);
      // The command names the file, never a secret.
      expect(command).not.toContain(s.secrets.merchants[0]?.clientSecret ?? 'x');
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });

  it('quotes any word for the shell', async () => {
    for (const word of ["it's", 'a b', '$(rm -rf /)', '"', "''", '\\n']) {
      const { stdout } = await run('bash', ['-c', `printf %s ${shellQuote(word)}`]);
      expect(stdout).toBe(word);
    }
  });
});

describe('log format', () => {
  it('is readable in a terminal and JSON elsewhere, unless PGW_LOG_FORMAT says', () => {
    expect(loadConfig({}, '/tmp', true).logFormat).toBe('pretty');
    expect(loadConfig({}, '/tmp', false).logFormat).toBe('json');
    expect(loadConfig({ PGW_LOG_FORMAT: 'json' }, '/tmp', true).logFormat).toBe('json');
    expect(loadConfig({ PGW_LOG_FORMAT: 'pretty' }, '/tmp', false).logFormat).toBe('pretty');
    expect(() => loadConfig({ PGW_LOG_FORMAT: 'xml' }, '/tmp', false)).toThrow(ConfigError);
  });

  it('writes readable lines, secrets redacted', () => {
    const lines: string[] = [];
    const sink = new Writable({ write(chunk: Buffer, _enc, done) { lines.push(chunk.toString()); done(); } });
    const log = createLogger('info', prettyDestination(sink));
    log.info({ clientSecret: 'super-secret-value', status: 200 }, 'payment gateway listening');
    const text = lines.join('');
    expect(text).toMatch(/INFO.*payment gateway listening/);
    expect(text).not.toMatch(/^\{/);
    expect(text).not.toContain('super-secret-value');
    expect(text).toContain('[redacted]');
  });
});
