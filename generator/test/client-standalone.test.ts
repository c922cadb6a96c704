// The typed client outside this repository: its three files, copied alone, compile under a plain NodeNext
// project (no allowImportingTsExtensions, no server code reached), and the README's example runs against a
// live server; the refresh margin is honoured.
import { execFile } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import ts from 'typescript';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiClient } from '../../generated/client.ts';
import { startServer, type TestServer } from '../../server/test/harness.ts';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const run = promisify(execFile);

/** The README's example: the TypeScript block of the "The typed client" section. */
function readmeExample(): string {
  const readme = readFileSync(path.join(root, 'README.md'), 'utf8');
  const section = readme.split('\n### The typed client\n')[1];
  const block = section === undefined ? undefined : /```ts\n([\s\S]*?)```/.exec(section)?.[1];
  if (block === undefined) throw new Error('README has no TypeScript example under "### The typed client"');
  return block;
}

let dir: string;
let s: TestServer;
let server: ReturnType<TestServer['app']['listen']>;
let baseUrl: string;

beforeAll(async () => {
  // Inside the repository, so that `openapi-fetch` resolves from its node_modules as it would from a project's.
  dir = mkdtempSync(path.join(root, 'generator', 'test', '.client-standalone-'));
  mkdirSync(path.join(dir, 'generated', 'runtime'), { recursive: true });
  for (const file of ['client.ts', 'types.ts', path.join('runtime', 'client-runtime.ts')]) {
    copyFileSync(path.join(root, 'generated', file), path.join(dir, 'generated', file));
  }
  writeFileSync(path.join(dir, 'client-example.ts'), readmeExample());
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
  it('compiles alone under NodeNext without allowImportingTsExtensions, reaching no server code', () => {
    const options: ts.CompilerOptions = {
      target: ts.ScriptTarget.ES2022, module: ts.ModuleKind.NodeNext, moduleResolution: ts.ModuleResolutionKind.NodeNext,
      strict: true, noUncheckedIndexedAccess: true, noEmit: true, skipLibCheck: true, types: ['node'], lib: ['lib.es2023.d.ts', 'lib.dom.d.ts'],
      typeRoots: [path.join(root, 'node_modules', '@types')],
    };
    const program = ts.createProgram([path.join(dir, 'client-example.ts')], options);
    const problems = ts.getPreEmitDiagnostics(program).map((d) => `${d.file?.fileName ?? ''}: ${ts.flattenDiagnosticMessageText(d.messageText, '\n')}`);
    expect(problems).toEqual([]);
    // Relative to the project, so the folder it is checked out in (a worktree named after the router) does not count.
    const reached = program.getSourceFiles().map((f) => path.relative(root, f.fileName));
    expect(reached.filter((f) => /node_modules\/(@types\/)?express|router|server\//.test(f))).toEqual([]);
    expect(reached.some((f) => f.endsWith('generated/client.ts'))).toBe(true);
  });

  it('runs the README example against a live sandbox', async () => {
    const credentials = { baseUrl, authUrl: baseUrl, merchants: s.secrets.merchants };
    const file = path.join(dir, 'credentials.json');
    writeFileSync(file, JSON.stringify(credentials));
    const { stdout } = await run(path.join(root, 'node_modules', '.bin', 'tsx'), ['client-example.ts'], {
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
