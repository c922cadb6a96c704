// Every designed object of the spec gets its visible mark, and nothing else does (derived from the spec itself).
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { DESIGNED_BADGE, markDesigned } from './docs-marks.ts';
import { root } from './lib/run.ts';

type Node = Record<string, unknown>;
const isNode = (v: unknown): v is Node => typeof v === 'object' && v !== null && !Array.isArray(v);
const bundled = (): Node => JSON.parse(readFileSync(path.join(root, 'spec', 'dist', 'openapi.json'), 'utf8')) as Node;

/** The objects of the document that carry a designed extension, by pointer (the test's own walk). */
function designedPointers(doc: Node): string[] {
  const found: string[] = [];
  const walk = (value: unknown, pointer: string): void => {
    if (Array.isArray(value)) { value.forEach((v, i) => { walk(v, `${pointer}/${String(i)}`); }); return; }
    if (!isNode(value)) return;
    if (value['x-provenance'] === 'designed' || ['x-designed-limits', 'x-designed-values', 'x-designed-required'].some((k) => Array.isArray(value[k]) && (value[k] as unknown[]).length > 0)) found.push(pointer);
    for (const [k, v] of Object.entries(value)) {
      if (!['example', 'examples', 'default', 'enum', 'const'].includes(k) && !k.startsWith('x-')) walk(v, `${pointer}/${k.replaceAll('~', '~0').replaceAll('/', '~1')}`);
    }
  };
  for (const [k, v] of Object.entries(doc)) if (k !== 'info' && !k.startsWith('x-')) walk(v, `/${k}`);
  return found.sort();
}

const at = (doc: Node, pointer: string): Node => {
  let node: unknown = doc;
  for (const part of pointer.split('/').slice(1)) node = (node as Node)[part.replaceAll('~1', '/').replaceAll('~0', '~')];
  if (!isNode(node)) throw new Error(`nothing at ${pointer}`);
  return node;
};

describe('markDesigned', () => {
  const doc = bundled();
  const expected = designedPointers(doc);
  const marks = markDesigned(doc);

  it('marks every designed object of the spec once, and only those', () => {
    expect(expected.length).toBeGreaterThan(300);
    expect(marks.map((m) => m.pointer).sort()).toEqual(expected);
  });

  it('puts the sentence, with the spec\'s reason, first in each description', () => {
    const source = bundled();
    for (const mark of marks) {
      const node = at(doc, mark.pointer);
      expect(node.description, mark.pointer).toMatch(/^\*\*Designed/);
      const reason = at(source, mark.pointer)['x-provenance-note'];
      if (typeof reason === 'string') expect(node.description, mark.pointer).toContain(reason.trim());
    }
  });

  it('gives operations, webhooks and fields a badge Redoc shows, tags and parameters none (Redoc shows none there)', () => {
    for (const mark of marks) {
      const badges = at(doc, mark.pointer)['x-badges'];
      if (mark.kind === 'tag' || mark.kind === 'parameter') expect(badges, mark.pointer).toBeUndefined();
      else expect(badges, mark.pointer).toEqual([expect.objectContaining({ name: DESIGNED_BADGE })]);
    }
    expect(marks.filter((m) => m.kind === 'operation').length).toBeGreaterThan(10);
  });

  it('leaves an interface operation unmarked', () => {
    const token = at(doc, '/paths/~1oauth2~1token/post');
    expect(token['x-badges']).toBeUndefined();
    expect(String(token.description)).not.toMatch(/^\*\*Designed/);
  });

  it('names the designed limits with their values', () => {
    const limited = marks.find((m) => m.sentence.includes('limits `maxLength` 100'));
    expect(limited?.sentence).toMatch(/^\*\*Designed:\*\* limits `maxLength` 100/);
  });
});
