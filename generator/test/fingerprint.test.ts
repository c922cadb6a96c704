// A regeneration is skipped only when nothing it reads changed: the document's files are the ones its $refs
// reach (transitively), not every file of its folder.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { inputsFingerprint, referencedFiles } from '../fingerprint.ts';

const dir = mkdtempSync(path.join(tmpdir(), 'pgw-fingerprint-'));
afterAll(() => { rmSync(dir, { recursive: true, force: true }); });
const at = (name: string): string => path.join(dir, name);

writeFileSync(at('openapi.yaml'), "openapi: 3.1.0\ninfo: { title: t, version: '1' }\npaths:\n  /a:\n    $ref: './paths/a.yaml'\ncomponents:\n  schemas:\n    B: { $ref: \"schemas.json#/B\" }\n    U: { $ref: 'https://example.com/u.yaml' }\n");
writeFileSync(at('schemas.json'), JSON.stringify({ B: { $ref: './deeper/c.yaml#/C' } }));
writeFileSync(at('unrelated.yaml'), 'not: part of the document\n');
mkdirSync(at('paths'));
mkdirSync(at('deeper'));
writeFileSync(at('paths/a.yaml'), 'get: { responses: {} }\n');
writeFileSync(at('deeper/c.yaml'), 'C: { type: string }\n');

describe('the document files of the fingerprint', () => {
  it('are the document and what its $refs reach, transitively; not the rest of its folder, nor URLs', () => {
    expect(referencedFiles(at('openapi.yaml')).map((f) => path.relative(dir, f))).toEqual(['deeper/c.yaml', 'openapi.yaml', 'paths/a.yaml', 'schemas.json']);

    const before = inputsFingerprint(at('openapi.yaml'));
    writeFileSync(at('unrelated.yaml'), 'changed: true\n');
    expect(inputsFingerprint(at('openapi.yaml'))).toBe(before);
    writeFileSync(at('deeper/c.yaml'), 'C: { type: integer }\n');
    expect(inputsFingerprint(at('openapi.yaml'))).not.toBe(before);
  });
});
