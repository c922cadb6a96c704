// The in-process bundler gives what the Redocly CLI gives (the CLI lints the spec; the two must not drift).
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { bundleFile } from '../lib/bundle.ts';
import { root } from '../../scripts/lib/run.ts';

const dir = mkdtempSync(path.join(tmpdir(), 'pgw-bundle-'));
afterAll(() => { rmSync(dir, { recursive: true, force: true }); });

describe('bundleFile', () => {
  it('bundles the spec exactly as `redocly bundle` does, key order included', async () => {
    const output = path.join(dir, 'cli.json');
    const cli = spawnSync(path.join(root, 'node_modules', '.bin', 'redocly'), ['bundle', 'spec/openapi.yaml', '--ext', 'json', '--output', output], {
      cwd: root, encoding: 'utf8', env: { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true' },
    });
    expect(cli.status, cli.stderr).toBe(0);
    const inProcess = await bundleFile(path.join(root, 'spec', 'openapi.yaml'), path.join(root, 'redocly.yaml'));
    expect(JSON.stringify(inProcess)).toBe(JSON.stringify(JSON.parse(readFileSync(output, 'utf8'))));
  }, 60_000);

  it('names the file and the reference it cannot resolve', async () => {
    const file = path.join(dir, 'broken.yaml');
    writeFileSync(file, 'openapi: 3.1.0\ninfo: { title: t, version: "1" }\npaths: {}\ncomponents:\n  schemas:\n    A: { $ref: ./missing.yaml#/A }\n');
    await expect(bundleFile(file)).rejects.toThrow(/bundling .*broken\.yaml failed[\s\S]*missing\.yaml/);
  });
});
