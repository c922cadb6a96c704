// Bundles a multi-file OpenAPI document in this process with Redocly's bundler (@redocly/openapi-core).
// In process, not by running the Redocly CLI: starting the CLI cost ~1 s of the 3.2 s a full generation took
// (measured with --cpu-prof); the bundle it gives is the CLI's (a test compares the two, key by key), but for
// the order of the top-level keys, which is put back here.
import path from 'node:path';
import { bundle, loadConfig } from '@redocly/openapi-core';
import type { JsonObject } from '../model.ts';

/** The top-level keys in the order the Redocly CLI writes them; others follow in their own order. */
const TOP_LEVEL = ['openapi', 'info', 'jsonSchemaDialect', 'servers', 'security', 'tags', 'externalDocs', 'paths', 'webhooks', 'components'];

/** The document `file` with every external `$ref` brought in (`configFile`: the Redocly configuration). */
export async function bundleFile(file: string, configFile?: string): Promise<JsonObject> {
  const config = await loadConfig(configFile === undefined ? {} : { configPath: path.resolve(configFile) });
  const { bundle: document, problems } = await bundle({ ref: path.resolve(file), config });
  const errors = problems.filter((p) => p.severity === 'error');
  if (errors.length > 0) throw new Error(`bundling ${file} failed:\n${errors.map((p) => `  ${p.message} (${p.location.map((l) => l.pointer).join(', ')})`).join('\n')}`);
  const parsed = document.parsed as unknown;
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) throw new Error(`${file} is not an OpenAPI document`);
  const record = parsed as JsonObject;
  const keys = [...TOP_LEVEL.filter((k) => k in record), ...Object.keys(record).filter((k) => !TOP_LEVEL.includes(k))];
  const ordered: JsonObject = {};
  for (const key of keys) ordered[key] = record[key];
  return ordered;
}
