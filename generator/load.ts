// Loads the document to generate from: a single-file document as it is, one with external references
// bundled by Redocly's bundler first (lib/bundle.ts).
import { readFileSync } from 'node:fs';
import { parse as parseYaml } from 'yaml';
import { bundleFile } from './lib/bundle.ts';
import type { JsonObject } from './model.ts';

/** A `$ref` to another file (anything not starting with `#`). */
const externalRef = /["']?\$ref["']?\s*:\s*["']?(?!#)[^\s"']/;

export async function loadDocument(file: string): Promise<JsonObject> {
  const text = readFileSync(file, 'utf8');
  const doc: unknown = externalRef.test(text) ? await bundleFile(file) : file.endsWith('.json') ? JSON.parse(text) : parseYaml(text);
  if (typeof doc !== 'object' || doc === null || Array.isArray(doc)) throw new Error(`${file} is not an OpenAPI document`);
  return doc as JsonObject;
}
