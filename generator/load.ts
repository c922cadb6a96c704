// Loads the document to generate from: a single-file document as it is, one with external references
// bundled by Redocly's bundler first (lib/bundle.ts).
import { readFileSync } from 'node:fs';
import { parse as parseYaml } from 'yaml';
import type { JsonObject } from './model.ts';

/** A `$ref` to another file (anything not starting with `#`). */
const externalRef = /["']?\$ref["']?\s*:\s*["']?(?!#)[^\s"']/;

export async function loadDocument(file: string): Promise<JsonObject> {
  const text = readFileSync(file, 'utf8');
  // Redocly's bundler loads in ~0.4 s: only for a document that needs it (a no-op regeneration reads the model).
  const doc: unknown = externalRef.test(text) ? await (await import('./lib/bundle.ts')).bundleFile(file) : file.endsWith('.json') ? JSON.parse(text) : parseYaml(text);
  if (typeof doc !== 'object' || doc === null || Array.isArray(doc)) throw new Error(`${file} is not an OpenAPI document`);
  return doc as JsonObject;
}
