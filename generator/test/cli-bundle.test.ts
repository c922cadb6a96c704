// `npm run generate` keeps the bundled document tools read (spec/dist/openapi.json, the config's `bundle`) equal
// to the one generated/ was made from, also when nothing needed generating; other generations leave it alone.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const scratch = mkdtempSync(path.join(tmpdir(), 'pgw-generate-bundle-'));
afterAll(() => { rmSync(scratch, { recursive: true, force: true }); });

function cli(args: string[]): { status: number | null; out: string } {
  const result = spawnSync(path.join(root, 'node_modules', '.bin', 'tsx'), ['generator/cli.ts', ...args], { cwd: root, encoding: 'utf8' });
  return { status: result.status, out: `${result.stdout}${result.stderr}` };
}

describe('npm run generate and the bundled document', () => {
  const output = path.join(scratch, 'generated');
  const bundle = path.join(scratch, 'dist', 'openapi.json');
  const config = path.join(scratch, 'generator.config.json');
  writeFileSync(config, JSON.stringify({ input: 'generator/test/fixtures/small.yaml', output, bundle }));

  it('writes it with generated/, and refreshes a stale one when generated/ is up to date', () => {
    expect(cli(['--config', config]).status).toBe(0);
    const generated = readFileSync(path.join(output, 'openapi.json'), 'utf8');
    expect(readFileSync(bundle, 'utf8')).toBe(generated);

    writeFileSync(bundle, '{"openapi":"3.1.0","info":{"title":"the old contract"}}\n');
    const again = cli(['--config', config]);
    expect(again.out).toContain('is up to date');
    expect(again.out).toContain('refreshed');
    expect(readFileSync(bundle, 'utf8')).toBe(generated);
  });

  it('is left alone by a generation into another folder', () => {
    rmSync(bundle);
    expect(cli(['--config', config, '--output', path.join(scratch, 'elsewhere')]).status).toBe(0);
    expect(existsSync(bundle)).toBe(false);
  });
});
