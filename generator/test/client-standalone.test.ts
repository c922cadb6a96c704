// The typed client's README example (generated/README.md, "A payment") runs against a live sandbox, importing
// @pgw/client as a project would; the refresh margin is honoured. (Installed from its tarball in an empty folder,
// compiled strictly and run as .mjs and .ts: scripts/packages.test.ts.)
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiClient } from '@pgw/client/client';
import { startServer, type TestServer } from '../../server/test/harness.ts';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const run = promisify(execFile);

/** The README's example: the TypeScript block of the client package's "A payment" section. */
function readmeExample(): string {
  const readme = readFileSync(path.join(root, 'generated', 'README.md'), 'utf8');
  const section = readme.split('\n## A payment\n')[1]?.split('\n## ')[0];
  const block = section === undefined ? undefined : /```ts\n([\s\S]*?)```/.exec(section)?.[1];
  if (block === undefined) throw new Error('generated/README.md has no TypeScript example under "## A payment"');
  return block;
}

let dir: string;
let s: TestServer;
let server: ReturnType<TestServer['app']['listen']>;
let baseUrl: string;

beforeAll(async () => {
  // Inside the repository, so that @pgw/client resolves from its node_modules as it would from a project's.
  dir = mkdtempSync(path.join(root, 'generator', 'test', '.client-standalone-'));
  writeFileSync(path.join(dir, 'pay.ts'), readmeExample());
  writeFileSync(path.join(dir, 'package.json'), JSON.stringify({ type: 'module' }));
  s = await startServer('sqlite');
  server = s.app.listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  baseUrl = `http://127.0.0.1:${String((server.address() as AddressInfo).port)}`;
}, 120_000);

afterAll(async () => {
  await new Promise((resolve) => server.close(resolve));
  await s.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('the typed client on its own', () => {
  it('runs the README example against a live sandbox', async () => {
    const credentials = { baseUrl, authUrl: baseUrl, merchants: s.secrets.merchants };
    const file = path.join(dir, 'credentials.json');
    writeFileSync(file, JSON.stringify(credentials));
    const { stdout } = await run(path.join(root, 'node_modules', '.bin', 'tsx'), ['pay.ts'], {
      cwd: dir, env: { ...process.env, PGW_CREDENTIALS_FILE: file }, timeout: 60_000,
    });
    expect(stdout).toMatch(/^customer [0-9a-f-]{36}\nsale [0-9a-f-]{36} \S+ 000\n$/);
  }, 90_000);

  it('renews the token refreshMarginSeconds before it expires', async () => {
    const merchant = s.secrets.merchants[0];
    if (!merchant) throw new Error('no merchant');
    const make = (refreshMarginSeconds: number) => createApiClient({
      baseUrl, tokenUrl: `${baseUrl}/oauth2/token`, clientId: merchant.clientId, clientSecret: merchant.clientSecret, refreshMarginSeconds,
    });
    const token = await fetch(`${baseUrl}/oauth2/token`, {
      method: 'POST', body: new URLSearchParams({ grant_type: 'client_credentials', scope: 'offline_access', client_id: merchant.clientId, client_secret: merchant.clientSecret }),
    });
    const lifetime = ((await token.json()) as { expires_in: number }).expires_in;
    // A margin longer than the token's lifetime renews before every request; a short one reuses the token.
    const eager = make(lifetime + 60);
    const lazy = make(10);
    for (const client of [eager, lazy]) {
      for (let i = 0; i < 3; i++) expect((await client.api.GET('/pay-api/v1/customers')).response.status).toBe(200);
    }
    expect(eager.tokens?.requests).toBe(3);
    expect(lazy.tokens?.requests).toBe(1);
  }, 60_000);
});
