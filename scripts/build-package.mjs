#!/usr/bin/env node
// Builds the workspace package in the current folder into dist/: tsc with its tsconfig.build.json, then the data files its package.json names under "pgw"."copy" ([from, to] pairs relative to the package), so that its tarball runs on plain Node.
import { spawnSync } from 'node:child_process';
import { cpSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';

const require = createRequire(import.meta.url);
const dir = process.cwd();
const pkg = JSON.parse(readFileSync(path.join(dir, 'package.json'), 'utf8'));
// A stale file of an earlier build (a module since removed) must not ride along in the tarball.
rmSync(path.join(dir, 'dist'), { recursive: true, force: true });
const tsc = require.resolve('typescript/bin/tsc');
// --noCheck: the build only emits; the whole tree is type-checked once by `npm run typecheck` (npm test's checks),
// and checking each package's sources again here was half of every pack (measured, tsc of @pgw/sandbox: 12.6 ->
// 5.9 s, @pgw/conformance 8.1 -> 3.5 s; the emitted files the same but for the order of a union's members).
const result = spawnSync(process.execPath, [tsc, '-p', path.join(dir, 'tsconfig.build.json'), '--noCheck'], { stdio: 'inherit' });
if (result.status !== 0) {
  console.error(`build-package: tsc failed for ${pkg.name}`);
  process.exit(result.status ?? 1);
}
for (const [from, to] of pkg.pgw?.copy ?? []) cpSync(path.join(dir, from), path.join(dir, to), { recursive: true });
console.log(`build-package: built ${pkg.name} into dist/`);
