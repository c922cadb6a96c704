// Golden outputs of the fixture documents, determinism, and `--check` against the project's own spec.
import { spawnSync } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { emit } from '../emit.ts';
import { generate } from '../generate.ts';
import { loadDocument } from '../load.ts';

const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.resolve(here, '..', '..');
const fixtures = ['small', 'library'];
const update = process.env.UPDATE_GOLDEN === '1';
const temporary: string[] = [];
const tempDir = (): string => {
  const dir = mkdtempSync(path.join(tmpdir(), 'pgw-gen-test-'));
  temporary.push(dir);
  return dir;
};

afterAll(() => {
  for (const dir of temporary) rmSync(dir, { recursive: true, force: true });
});

describe.each(fixtures)('the %s fixture', (name) => {
  const golden = path.join(here, 'golden', name);

  it('generates exactly its golden output', async () => {
    const { files } = await generate(await loadDocument(path.join(here, 'fixtures', `${name}.yaml`)));
    const report = emit(golden, files, !update);
    // UPDATE_GOLDEN=1 rewrites the golden files instead of comparing (review the diff before committing).
    if (!update) expect({ changed: report.changed, missing: report.missing, extra: report.extra }).toEqual({ changed: [], missing: [], extra: [] });
  });

  it('generates the same bytes twice, with no timestamps or absolute paths', async () => {
    const document = await loadDocument(path.join(here, 'fixtures', `${name}.yaml`));
    const first = await generate(structuredClone(document));
    const second = await generate(structuredClone(document));
    expect(second.files).toEqual(first.files);
    for (const file of first.files) {
      expect(file.content).not.toContain(root);
      expect(file.content).not.toContain(tmpdir());
      expect(file.content).not.toMatch(/20\d\d-\d\d-\d\dT\d\d:\d\d/);
    }
  });
});

/** Runs the generator as `npm run generate` does (compiled, built first if stale); its exit code and output. */
function cli(args: string[]): { status: number | null; out: string } {
  const result = spawnSync(process.execPath, ['generator/bin/pgw-generate.mjs', ...args], { cwd: root, encoding: 'utf8' });
  return { status: result.status, out: `${result.stdout}${result.stderr}` };
}

describe('the project\'s generated/ folder', () => {
  it('matches the spec (--check exits 0)', () => {
    const { status, out } = cli(['--check']);
    expect(out).toContain('generated/src/ matches spec/openapi.yaml');
    expect(status).toBe(0);
  });

  it('is stale after a field is added to the spec, until regenerated', async () => {
    // The spec with one more property on the customer record, as an API owner would add it.
    const document = await loadDocument(path.join(root, 'spec', 'openapi.yaml'));
    const customer = ((document.components as Record<string, Record<string, Record<string, unknown>>>).schemas ?? {}).Customer;
    (customer?.properties as Record<string, unknown>).loyaltyTier = { type: ['string', 'null'] };
    const edited = path.join(tempDir(), 'openapi.json');
    writeFileSync(edited, JSON.stringify(document));

    const stale = cli(['--check', '--input', edited]);
    expect(stale.status).toBe(1);
    expect(stale.out).toContain('generated/src/ is stale');
    expect(stale.out).toMatch(/changed\s+generated\/src\/types\.ts/);
    expect(stale.out).toMatch(/changed\s+generated\/src\/openapi\.json/);
    // What changed, not only where: the line counts and the new line itself.
    expect(stale.out).toMatch(/changed\s+generated\/src\/types\.ts\s+\+1 -0 lines\s+\+ loyaltyTier\?: string \| null;/);

    // Regenerated (into a copy, to leave the project's folder alone), --check passes again.
    const copy = tempDir();
    cpSync(path.join(root, 'generated', 'src'), copy, { recursive: true });
    expect(cli(['--input', edited, '--output', copy]).status).toBe(0);
    expect(readFileSync(path.join(copy, 'types.ts'), 'utf8')).toContain('loyaltyTier?: string | null;');
    const fresh = cli(['--check', '--input', edited, '--output', copy]);
    expect(fresh.out).toContain('matches');
    expect(fresh.status).toBe(0);
  });

  it('skips an unchanged regeneration, but not one whose output was edited by hand', () => {
    const copy = tempDir();
    cpSync(path.join(root, 'generated', 'src'), copy, { recursive: true });
    expect(cli(['--output', copy]).out).toContain('is up to date');
    const types = path.join(copy, 'types.ts');
    const original = readFileSync(types, 'utf8');
    writeFileSync(types, `${original}export type Tampered = true;\n`);
    const again = cli(['--output', copy]);
    expect(again.out).toMatch(/1 written/);
    expect(readFileSync(types, 'utf8')).toBe(original);
  });

  it('names a file that is not generated as extra', () => {
    const copy = tempDir();
    cpSync(path.join(root, 'generated', 'src'), copy, { recursive: true });
    writeFileSync(path.join(copy, 'stray.ts'), 'export {};\n');
    const { status, out } = cli(['--check', '--output', copy]);
    expect(status).toBe(1);
    expect(out).toMatch(/extra\s+.*stray\.ts/);
  });
});
