// The house rules as package dependencies: each package declares exactly what its run-time sources import, and the
// packages depend on one another only as data flows (spec -> generator -> generated -> server, suite, cli).
import { readFileSync, readdirSync } from 'node:fs';
import { isBuiltin } from 'node:module';
import path from 'node:path';
import ts from 'typescript';

export interface Manifest {
  name: string;
  dependencies?: Record<string, string>;
  peerDependencies?: Record<string, string>;
}

/** A package whose sources (path -> text) are checked. */
export interface PackageSources {
  manifest: Manifest;
  files: Record<string, string>;
}

/** Dependencies no source imports by name, each with the reason it is there. */
export const LOADED_BY_NAME: Record<string, Record<string, string>> = {
  '@pgw/generator': { typescript: 'openapi-typescript needs it: a peer dependency, which the generator supplies' },
  '@pgw/client': { 'openapi-fetch': '@pgw/runtime/client imports it: an optional peer of the runtime, which the client supplies' },
  '@pgw/sandbox': {
    pg: 'knex loads it for DATABASE_URL=postgres://',
    ajv: '@pgw/runtime/router validates with it: an optional peer of the runtime, which the server supplies',
    'ajv-formats': 'the same, for string formats',
    'lossless-json': '@pgw/runtime/router reads request numbers exactly with it (an optional peer, as above)',
  },
};

/** Which @pgw packages each may depend on: the one-way flow, and the server and the suite never on each other. */
export const ALLOWED_EDGES: Record<string, readonly string[]> = {
  '@pgw/runtime': [],
  '@pgw/client': ['@pgw/runtime'],
  '@pgw/generator': [],
  '@pgw/sandbox': ['@pgw/client', '@pgw/runtime'],
  '@pgw/conformance': ['@pgw/client', '@pgw/runtime'],
  '@pgw/cli': ['@pgw/client', '@pgw/runtime'],
};

/** The package a bare specifier names (`@scope/name/sub` -> `@scope/name`); undefined for relative and built-in ones. */
export function packageOf(specifier: string): string | undefined {
  if (specifier.startsWith('.') || specifier.startsWith('/') || specifier.startsWith('data:') || isBuiltin(specifier)) return undefined;
  const parts = specifier.split('/');
  return specifier.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0];
}

/** The packages a module's text imports: static, dynamic, re-exports, require() and createRequire(...)() calls. */
export function importsOf(text: string): string[] {
  const { importedFiles } = ts.preProcessFile(text, true, true);
  const required = [...text.matchAll(/createRequire\([^)]*\)\(\s*['"]([^'"]+)['"]/g)].map((m) => m[1] ?? '');
  return [...new Set([...importedFiles.map((f) => f.fileName), ...required].map(packageOf).filter((p): p is string => p !== undefined))];
}

/** Folders of a package that hold no run-time module. */
const NOT_RUN = new Set(['test', 'dist', 'node_modules', 'docs', 'fixtures']);

/** The run-time sources of a package folder: its modules, not its tests, build output or data. */
export function readSources(dir: string, manifest: Manifest): PackageSources {
  const files: Record<string, string> = {};
  const walk = (folder: string): void => {
    let entries;
    try {
      entries = readdirSync(folder, { withFileTypes: true });
    } catch {
      return;
    }
    for (const entry of entries) {
      const full = path.join(folder, entry.name);
      if (entry.isDirectory()) {
        if (!NOT_RUN.has(entry.name) && !entry.name.startsWith('.')) walk(full);
      }
      else if (/\.(ts|mjs|js)$/.test(entry.name) && !/\.test\.ts$/.test(entry.name) && !entry.name.endsWith('.d.ts')) files[path.relative(dir, full)] = readFileSync(full, 'utf8');
    }
  };
  walk(dir);
  return { manifest, files };
}

/** What is wrong with a package's declared dependencies against its imports; empty when nothing is. */
export function dependencyProblems({ manifest, files }: PackageSources): string[] {
  const declared = new Set([...Object.keys(manifest.dependencies ?? {}), ...Object.keys(manifest.peerDependencies ?? {})]);
  const loaded = LOADED_BY_NAME[manifest.name] ?? {};
  const problems: string[] = [];
  const imported = new Map<string, string>();
  for (const [file, text] of Object.entries(files)) for (const name of importsOf(text)) if (!imported.has(name)) imported.set(name, file);
  for (const [name, file] of imported) {
    // A bin in a checkout runs the sources through tsx, which only the repository has; the tarball's bin never reaches it.
    if (name === 'tsx' && file.startsWith('bin')) continue;
    if (name === manifest.name) continue;
    if (!declared.has(name)) problems.push(`${manifest.name}: ${file} imports ${name}, which is not among its dependencies`);
  }
  for (const name of declared) {
    if (!imported.has(name) && loaded[name] === undefined) problems.push(`${manifest.name}: depends on ${name}, which nothing of it imports`);
  }
  const allowed = ALLOWED_EDGES[manifest.name];
  for (const name of declared) {
    if (!name.startsWith('@pgw/')) continue;
    if (allowed === undefined || !allowed.includes(name)) problems.push(`${manifest.name}: may not depend on ${name} (data flows spec -> generator -> generated -> server, suite, cli; the server and the suite never depend on each other)`);
  }
  return problems;
}
