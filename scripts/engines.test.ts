// package.json's `engines` stays true: the machines run Node.js 20 (nothing newer can be installed there), so the
// oldest Node.js it allows must be one every installed tool supports (Redocly CLI announces it will need Node.js
// 22; the version installed still supports 20.19), and the Node.js running the tests must satisfy it.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { root } from './lib/run.ts';

type Version = [number, number, number];

const parse = (text: string): Version => {
  const [major = 0, minor = 0, patch = 0] = text.replace(/^[v=\s]+/, '').split('.').map((part) => (/^\d+$/.test(part) ? Number(part) : 0));
  return [major, minor, patch];
};
const compare = (a: Version, b: Version): number => a[0] - b[0] || a[1] - b[1] || a[2] - b[2];

/** Whether `version` satisfies an npm `engines` range of the forms packages use (`>=a`, `<b`, `^a`, `a.x`, `a || b`). */
function satisfies(version: string, range: string): boolean {
  const v = parse(version);
  return range.split('||').some((alternative) => alternative.trim().replace(/([<>=^~]+)\s+/g, '$1').split(/\s+/).filter(Boolean).every((comparator) => {
    const [, op = '', rest = ''] = /^([<>=^~]*)(.*)$/.exec(comparator) ?? [];
    const bound = parse(rest);
    const parts = rest.split('.').filter((p) => /^\d+$/.test(p)).length;
    switch (op) {
      case '>=': return compare(v, bound) >= 0;
      case '>': return compare(v, bound) > 0;
      case '<': return compare(v, bound) < 0;
      case '<=': return compare(v, bound) <= 0;
      case '^': return v[0] === bound[0] && compare(v, bound) >= 0;
      case '~': return v[0] === bound[0] && v[1] === bound[1] && compare(v, bound) >= 0;
      // `20.x`, `20`, `20.19.0`: the parts given must match.
      default: return v.slice(0, parts).every((n, i) => n === bound[i]);
    }
  }));
}

interface Manifest { name: string; engines?: { node?: string }; dependencies?: Record<string, string>; devDependencies?: Record<string, string>; workspaces?: string[] }
const read = (file: string): Manifest => JSON.parse(readFileSync(file, 'utf8')) as Manifest;
const pkg = read(path.join(root, 'package.json'));
/** The packages of the workspaces: each installs on its own, so each must say the same. */
const workspaces = (pkg.workspaces ?? []).map((dir) => read(path.join(root, dir, 'package.json')));

describe('engines', () => {
  it('reads ranges as npm does', () => {
    expect(satisfies('20.19.0', '>=22.12.0 || >=20.19.0 <21.0.0')).toBe(true);
    expect(satisfies('20.18.0', '>=22.12.0 || >=20.19.0 <21.0.0')).toBe(false);
    expect(satisfies('20.19.0', '>=22.12.0')).toBe(false);
    expect(satisfies('20.19.0', '^20.19.0 || ^22.13.0 || >=24')).toBe(true);
    expect(satisfies('21.0.0', '^20.19.0 || ^22.13.0 || >=24')).toBe(false);
    expect(satisfies('20.19.0', '20.x || 22.x')).toBe(true);
    expect(satisfies('20.19.0', '>= 18')).toBe(true);
  });

  it('allows no Node.js older than the running one can be, and one every installed tool supports', () => {
    const range = pkg.engines?.node ?? '';
    const lowest = /^>=\s*(\d+\.\d+\.\d+)$/.exec(range)?.[1];
    expect(lowest, `engines.node is ${range}`).toBeDefined();
    expect(satisfies(process.version, range)).toBe(true);
    expect(workspaces.map((w) => `${w.name} ${w.engines?.node ?? '(none)'}`)).toEqual(workspaces.map((w) => `${w.name} ${range}`));
    const refused: string[] = [];
    const names = new Set([pkg, ...workspaces].flatMap((m) => [...Object.keys(m.dependencies ?? {}), ...Object.keys(m.devDependencies ?? {})]));
    for (const name of [...names].filter((n) => !n.startsWith('@pgw/'))) {
      const engines = (JSON.parse(readFileSync(path.join(root, 'node_modules', name, 'package.json'), 'utf8')) as { engines?: { node?: string } }).engines?.node;
      if (engines !== undefined && !satisfies(lowest ?? '0.0.0', engines)) refused.push(`${name} (${engines})`);
    }
    expect(refused, `installed tools that do not run on Node.js ${lowest ?? ''}`).toEqual([]);
  });
});
