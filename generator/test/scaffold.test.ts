// The scaffold step writes a starting module for each tag that has none, once, and never overwrites one.
import { mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { loadDocument } from '../load.ts';
import { readModel } from '../model.ts';
import { scaffold } from '../scaffold.ts';

const here = path.dirname(fileURLToPath(import.meta.url));
const dir = mkdtempSync(path.join(tmpdir(), 'pgw-scaffold-'));
afterAll(() => { rmSync(dir, { recursive: true, force: true }); });
const model = readModel(loadDocument(path.join(here, 'fixtures', 'small.yaml')));
const options = { dir, generatedDir: path.join(here, 'golden', 'small') };

describe('the scaffold step', () => {
  it('writes one module per tag without one, and leaves a hand-written module alone', () => {
    const mine = '// hand-written\nexport const petsHandlers = {};\n';
    writeFileSync(path.join(dir, 'pets.ts'), mine);
    const written = scaffold(model, options).map((f) => path.basename(f));
    expect(written.sort()).toEqual(['default.ts', 'line-items.ts']);
    expect(readFileSync(path.join(dir, 'pets.ts'), 'utf8')).toBe(mine);
    expect(readFileSync(path.join(dir, 'line-items.ts'), 'utf8')).toContain('} satisfies LineItemsHandlers;');
  });

  it('writes nothing the second time, even when a module was edited', () => {
    writeFileSync(path.join(dir, 'default.ts'), '// edited\n');
    expect(scaffold(model, options)).toEqual([]);
    expect(readFileSync(path.join(dir, 'default.ts'), 'utf8')).toBe('// edited\n');
    expect(readdirSync(dir).sort()).toEqual(['default.ts', 'line-items.ts', 'pets.ts']);
  });

  it('imports a custom context type when one is configured', () => {
    const other = mkdtempSync(path.join(tmpdir(), 'pgw-scaffold-ctx-'));
    try {
      scaffold(model, { ...options, dir: other, context: { name: 'AppContext', from: path.join(other, '..', 'context.ts') } });
      const text = readFileSync(path.join(other, 'pets.ts'), 'utf8');
      expect(text).toContain("import type { AppContext } from '../context.ts';");
      expect(text).toContain('} satisfies PetsHandlers<AppContext>;');
    } finally {
      rmSync(other, { recursive: true, force: true });
    }
  });
});
