// The generator as its users get it: `npm pack`, installed from the tarball into an empty folder with nothing
// of this repository around, then `npx pgw-generate` on a document nobody here wrote, and its API imported.
// Prints the package's size and how many packages its install brings.
import { execFileSync } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';

const here = path.dirname(fileURLToPath(import.meta.url));
const generatorDir = path.resolve(here, '..');
const scratch = mkdtempSync(path.join(tmpdir(), 'pgw-generator-package-'));
afterAll(() => { rmSync(scratch, { recursive: true, force: true }); });

const run = (command: string, args: string[], cwd: string): string =>
  execFileSync(command, args, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, npm_config_audit: 'false', npm_config_fund: 'false', npm_config_update_notifier: 'false' } });

describe('@pgw/generator from its tarball', () => {
  it('installs into an empty folder, and pgw-generate writes a typed folder from a document', () => {
    const packed = JSON.parse(run('npm', ['pack', '--json', '--pack-destination', scratch], generatorDir)) as { filename: string; size: number; unpackedSize: number; entryCount: number }[];
    const tarball = path.join(scratch, packed[0]?.filename ?? '');
    expect(existsSync(tarball)).toBe(true);
    const app = path.join(scratch, 'app');
    cpSync(path.join(here, 'corpus', 'oai', 'v3.0', 'petstore-expanded.yaml'), path.join(app, 'petstore.yaml'));
    writeFileSync(path.join(app, 'package.json'), JSON.stringify({ name: 'user-app', private: true, type: 'module' }));
    // From npm's cache where it can (npm ci filled it with these versions); the registry otherwise.
    run('npm', ['install', '--prefer-offline', tarball], app);
    const installed = readdirSync(path.join(app, 'node_modules'), { withFileTypes: true })
      .flatMap((e) => (e.name.startsWith('@') ? readdirSync(path.join(app, 'node_modules', e.name)).map((n) => `${e.name}/${n}`) : [e.name]))
      .filter((name) => !name.startsWith('.'));
    console.log(`@pgw/generator: ${String(packed[0]?.entryCount)} files, ${((packed[0]?.size ?? 0) / 1024).toFixed(0)} kB packed, ${((packed[0]?.unpackedSize ?? 0) / 1024).toFixed(0)} kB unpacked; its install: ${String(installed.length)} packages`);
    // What its install must not bring: the other parts' tools.
    for (const absent of ['@stoplight/prism-cli', '@redocly/cli', 'playwright-core', 'eslint', 'vitest', 'pg', 'express', 'knex']) expect(installed).not.toContain(absent);

    const out = run('npx', ['--no-install', 'pgw-generate', '--input', 'petstore.yaml', '--output', 'api'], app);
    expect(out).toMatch(/api\/: \d+ files from petstore\.yaml \(4 operations/);
    expect(out).toContain('GET /pets/{id} -> findPetById');
    for (const file of ['types.ts', 'operations.ts', 'handlers.ts', 'router.ts', 'client.ts', 'webhooks.ts', 'index.ts', 'runtime/router-runtime.ts']) {
      expect(existsSync(path.join(app, 'api', file)), file).toBe(true);
    }
    expect(run('npx', ['--no-install', 'pgw-generate', '--input', 'petstore.yaml', '--output', 'api'], app)).toContain('is up to date');

    // Its API from a plain ESM module.
    writeFileSync(path.join(app, 'use.mjs'), [
      "import { generate } from '@pgw/generator';",
      "const { model, files } = await generate({ openapi: '3.1.0', info: { title: 't', version: '1' }, paths: { '/a': { get: { responses: { 200: { description: 'ok' } } } } } });",
      "console.log(model.operations.map((op) => op.operationId).join(','), files.length);",
    ].join('\n'));
    expect(run(process.execPath, ['use.mjs'], app)).toMatch(/^getA \d+/);
  });
});
