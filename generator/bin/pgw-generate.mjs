#!/usr/bin/env node
// pgw-generate: runs the generator compiled to plain JavaScript (dist/), building it first when its sources
// differ from those dist/ was built from, so that a generation starts in Node's time rather than a TypeScript
// loader's.
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { closeSync, existsSync, mkdirSync, openSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const dist = path.join(root, 'dist');
const stamp = path.join(dist, '.built');
const config = path.join(root, 'tsconfig.build.json');

/**
 * The SHA-256 of the compiled sources: by content, not
 * modification time, which a checkout, a stash or a copy can leave older than the last build.
 */
function sourcesDigest() {
  const hash = createHash('sha256');
  const walk = (dir) => {
    for (const entry of readdirSync(dir, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name))) {
      if (['dist', 'test', 'bin', 'node_modules'].includes(entry.name)) continue;
      const full = path.join(dir, entry.name);
      if (entry.isDirectory()) walk(full);
      else if ((entry.name.endsWith('.ts') && !entry.name.endsWith('.test.ts')) || entry.name.endsWith('.json')) {
        hash.update(path.relative(root, full)).update('\0').update(readFileSync(full)).update('\0');
      }
    }
  };
  walk(root);
  // The base configuration the build extends.
  const base = path.join(root, '..', 'tsconfig.json');
  if (existsSync(base)) hash.update(readFileSync(base));
  return hash.digest('hex');
}

const built = () => (existsSync(stamp) ? readFileSync(stamp, 'utf8').trim() : '');

const mtime = (file) => (existsSync(file) ? statSync(file).mtimeMs : -1);

/** Compiles the sources with tsc, one process at a time (tests start several generations at once). */
function build(digest) {
  mkdirSync(dist, { recursive: true });
  const lock = path.join(dist, '.building');
  const deadline = Date.now() + 300_000;
  for (;;) {
    try {
      closeSync(openSync(lock, 'wx'));
      break;
    } catch {
      // Another process builds: wait for it, then use what it built if that is current. A lock older than the
      // deadline is a build that died.
      if (Date.now() > deadline || Date.now() - mtime(lock) > 300_000) rmSync(lock, { force: true });
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 100);
      if (!existsSync(lock) && built() === digest) return;
    }
  }
  try {
    if (built() === digest) return;
    const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
    const result = spawnSync(process.execPath, [tsc, '-p', config], { stdio: ['ignore', 'inherit', 'inherit'] });
    if (result.status !== 0) {
      console.error('pgw-generate: the generator did not compile (tsc above)');
      process.exit(2);
    }
    writeFileSync(stamp, `${digest}\n`);
  } finally {
    rmSync(lock, { force: true });
  }
}

// A package holds dist/ only; a checkout holds the sources too, and builds dist/ when they changed.
if (existsSync(config)) {
  const digest = sourcesDigest();
  if (built() !== digest) build(digest);
}
if (process.argv[2] !== '--build-only') await import(pathToFileURL(path.join(dist, 'cli.js')).href);
