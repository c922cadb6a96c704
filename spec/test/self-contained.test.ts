// The repository is self-contained: no code, script or config reads outside it (the workplace's ../shared
// folder in particular); what it needs from there is copied in with its source named.
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const skipped = new Set(['node_modules', '.git', 'data', 'docs', 'dist']);
const checked = /\.(ts|mts|js|mjs|cjs|json|ya?ml|sh)$|^run$/;

function* files(dir: string): Generator<string> {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (entry.isDirectory()) {
      if (!skipped.has(entry.name) && !entry.name.startsWith('.typecheck-') && !entry.name.startsWith('.client-')) yield* files(path.join(dir, entry.name));
    } else if (checked.test(entry.name)) {
      yield path.join(dir, entry.name);
    }
  }
}

/** A line of code (not a comment) that names a path above the repository: `../shared`, `'..', 'shared'`. */
const outside = /(\.\.\/)+shared\b|['"]\.\.['"]\s*,\s*['"]shared['"]/;
const comment = /^\s*(\/\/|\*|\/\*|#)/;

describe('self-contained repository', () => {
  it('reads nothing outside the repository', () => {
    const found: string[] = [];
    for (const file of files(root)) {
      if (file === fileURLToPath(import.meta.url)) continue;
      readFileSync(file, 'utf8').split('\n').forEach((line, i) => {
        if (outside.test(line) && !comment.test(line)) found.push(`${path.relative(root, file)}:${String(i + 1)}: ${line.trim()}`);
      });
    }
    expect(found).toEqual([]);
  });

  it('catches such a line', () => {
    expect(outside.test("const vectors = path.resolve(root, '..', 'shared', 'data', 'vectors.json');")).toBe(true);
    expect(outside.test("readFileSync('../shared/data/x.json')")).toBe(true);
  });
});
