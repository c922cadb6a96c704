// A fingerprint of what a generation depends on and what it wrote, so that a regeneration with nothing
// changed can stop before loading the TypeScript toolchain. `--check` never trusts it: it compares all.
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { generatorRoot } from './root.ts';

export const FINGERPRINT_FILE = '.fingerprint.json';
const toolkitRoot = path.resolve(generatorRoot, '..');

/** A tool's version, from the nearest node_modules above the generator that holds it. */
function toolVersion(tool: string): string {
  for (let dir = generatorRoot; ; dir = path.dirname(dir)) {
    const manifest = path.join(dir, 'node_modules', tool, 'package.json');
    if (existsSync(manifest)) return (JSON.parse(readFileSync(manifest, 'utf8')) as { version: string }).version;
    if (path.dirname(dir) === dir) return 'unknown';
  }
}

const sha256 = (data: string | Buffer): string => createHash('sha256').update(data).digest('hex');

function walk(dir: string, keep: (file: string) => boolean, skip: (name: string) => boolean): string[] {
  return readdirSync(dir, { withFileTypes: true })
    .filter((e) => !skip(e.name))
    .flatMap((e) => {
      const full = path.join(dir, e.name);
      return e.isDirectory() ? walk(full, keep, skip) : keep(full) ? [full] : [];
    })
    .sort();
}

/** Every file the output depends on: the generator's own sources and tool versions, and the document's files. */
export function inputsFingerprint(input: string): string {
  const hash = createHash('sha256');
  // The sources, the same whether the generator runs from them or from dist/.
  const generatorFiles = walk(generatorRoot, (f) => /\.(ts|mjs)$/.test(f) && !f.endsWith('.test.ts'), (name) => ['test', 'dist', 'node_modules'].includes(name));
  const documentFiles = referencedFiles(input);
  for (const file of [...generatorFiles, ...documentFiles]) {
    hash.update(path.relative(toolkitRoot, file)).update('\0').update(readFileSync(file)).update('\0');
  }
  for (const tool of ['openapi-typescript', 'ts-morph', '@redocly/openapi-core']) hash.update(`${tool}@${toolVersion(tool)}\0`);
  return hash.digest('hex');
}

/** A `$ref` to another file, in YAML or JSON: the file part of its value. */
const FILE_REF = /["']?\$ref["']?\s*:\s*["']?([^#"'\s][^#"'\s]*)/g;

/**
 * The document's file and every file its `$ref`s reach, transitively (read as text: a scan, not a parse), in a
 * stable order. Not the document's whole folder: a user's document may sit at the top of a large project.
 */
export function referencedFiles(input: string): string[] {
  const found = new Set<string>();
  const visit = (file: string): void => {
    if (found.has(file)) return;
    found.add(file);
    for (const match of readFileSync(file, 'utf8').matchAll(FILE_REF)) {
      const target = match[1] ?? '';
      // A URL is not a file here (Redocly fetches it): the generation is not skipped on its account.
      if (/^[a-z][a-z0-9+.-]*:\/\//i.test(target)) continue;
      const next = path.resolve(path.dirname(file), decodeURIComponent(target));
      if (existsSync(next)) visit(next);
    }
  };
  visit(path.resolve(input));
  return [...found].sort();
}

export interface Fingerprint {
  inputs: string;
  files: Record<string, string>;
}

/** The fingerprint file's content for a generation. */
export function fingerprintText(inputs: string, files: readonly { path: string; content: string }[]): string {
  const record: Fingerprint = { inputs, files: Object.fromEntries(files.map((f) => [f.path, sha256(f.content)])) };
  return `${JSON.stringify(record, null, 2)}\n`;
}

/** True when the output folder holds exactly what the fingerprint says, made from these inputs. */
export function upToDate(outDir: string, inputs: string): boolean {
  let recorded: Fingerprint;
  try {
    recorded = JSON.parse(readFileSync(path.join(outDir, FINGERPRINT_FILE), 'utf8')) as Fingerprint;
  } catch {
    return false;
  }
  if (recorded.inputs !== inputs) return false;
  return Object.entries(recorded.files).every(([file, digest]) => {
    try {
      return sha256(readFileSync(path.join(outDir, file))) === digest;
    } catch {
      return false;
    }
  });
}
