// Loads the bundled spec (written by scripts/bundle.ts) for the tests.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { JsonObject } from './faithfulness.ts';

export const bundlePath = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', 'dist', 'openapi.json');

/** A fresh copy of the bundled document, safe to mutate. */
export function loadBundle(): JsonObject {
  return JSON.parse(readFileSync(bundlePath, 'utf8')) as JsonObject;
}
