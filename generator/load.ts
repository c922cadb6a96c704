// Loads the document to generate from: a single-file document as it is, one with external references
// bundled by Redocly first.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse as parseYaml } from 'yaml';
import type { JsonObject } from './model.ts';

const toolkitRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

/** Bundles a multi-file document with the Redocly CLI (the same bundler `npm run bundle` uses). */
function bundle(file: string): string {
  const dir = mkdtempSync(path.join(tmpdir(), 'pgw-generate-'));
  try {
    const output = path.join(dir, 'openapi.json');
    const result = spawnSync(path.join(toolkitRoot, 'node_modules', '.bin', 'redocly'), ['bundle', file, '--ext', 'json', '--output', output], {
      encoding: 'utf8',
      env: { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true' },
    });
    if (result.status !== 0) {
      throw new Error(`bundling ${file} failed:\n${result.stderr || result.stdout}`);
    }
    return readFileSync(output, 'utf8');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** A `$ref` to another file (anything not starting with `#`). */
const externalRef = /["']?\$ref["']?\s*:\s*["']?(?!#)[^\s"']/;

export function loadDocument(file: string): JsonObject {
  const text = readFileSync(file, 'utf8');
  const doc: unknown = externalRef.test(text) ? JSON.parse(bundle(file)) : file.endsWith('.json') ? JSON.parse(text) : parseYaml(text);
  if (typeof doc !== 'object' || doc === null || Array.isArray(doc)) throw new Error(`${file} is not an OpenAPI document`);
  return doc as JsonObject;
}
