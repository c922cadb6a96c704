// The scaffold step, for a handler folder as it is laid out: a module for each group implemented nowhere,
// the stubs an existing module lacks (wherever the group is declared), and never an edited file.
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
const model = readModel(await loadDocument(path.join(here, 'fixtures', 'small.yaml')));
const options = { dir, generatedDir: path.join(here, 'golden', 'small') };

describe('the scaffold step', () => {
  it('finds a group declared in a module of another name, and names the operations it lacks with their stubs', () => {
    const other = mkdtempSync(path.join(tmpdir(), 'pgw-scaffold-layout-'));
    try {
      // Two groups in one module, one of them missing an operation, through `satisfies`.
      writeFileSync(path.join(other, 'animals.ts'), [
        'export const petsHandlers = {',
        '  listPets() { return 1; },',
        '  async createPet() { return 2; },',
        '  getPet: () => 3,',
        '  renamePet: function () { return 4; },',
        '} satisfies object;',
        'export const lineItemsHandlers = { createLineItem() { return 5; } };',
        'export const defaultHandlers = { health() { return 6; } };',
      ].join('\n'));
      const report = scaffold(model, { ...options, dir: other });
      expect(report.written).toEqual([]);
      expect(report.missing.map((m) => [path.basename(m.file), m.group, m.operations])).toEqual([['animals.ts', 'pets', ['listPetNames']]]);
      expect(report.missing[0]?.stubs).toContain('listPetNames(): Promise<op.ListPetNamesResult>');
      expect(readdirSync(other)).toEqual(['animals.ts']);
    } finally {
      rmSync(other, { recursive: true, force: true });
    }
  });


  it('writes one module per group implemented nowhere, and leaves a hand-written module alone', () => {
    const mine = '// hand-written\nexport const petsHandlers = {};\n';
    writeFileSync(path.join(dir, 'pets.ts'), mine);
    const written = scaffold(model, options).written.map((f) => path.basename(f));
    expect(written.sort()).toEqual(['default.ts', 'line-items.ts']);
    expect(readFileSync(path.join(dir, 'pets.ts'), 'utf8')).toBe(mine);
    expect(readFileSync(path.join(dir, 'line-items.ts'), 'utf8')).toContain('} satisfies LineItemsHandlers;');
  });

  it('writes nothing the second time, even when a module was edited', () => {
    writeFileSync(path.join(dir, 'default.ts'), '// edited\n');
    expect(scaffold(model, options).written).toEqual([]);
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

  it('on this server as it is laid out: writes nothing, and names a new operation of an existing group', async () => {
    const root = path.resolve(here, '..', '..');
    const served = readModel(await loadDocument(path.join(root, 'generated', 'src', 'openapi.json')));
    const serverDir = path.join(root, 'server', 'src', 'handlers');
    const serverOptions = { dir: serverDir, generatedDir: path.join(root, 'generated', 'src') };
    expect(scaffold(served, serverOptions)).toEqual({ written: [], missing: [] });
    // The spec gains an operation in a group the server serves from payments.ts (a module of another name).
    const card = served.tags.find((t) => t.group === 'cardPayments');
    const template = card?.operations[0];
    if (!card || !template) throw new Error('no cardPayments group');
    const grown = { ...served, tags: served.tags.map((t) => (t === card ? { ...t, operations: [...t.operations, { ...template, operationId: 'incrementAuthorization', typeName: 'IncrementAuthorization' }] } : t)) };
    const report = scaffold(grown, serverOptions);
    expect(report.written).toEqual([]);
    expect(report.missing.map((m) => [path.basename(m.file), m.group, m.operations])).toEqual([['payments.ts', 'cardPayments', ['incrementAuthorization']]]);
  });
});
