// Bundles the authored spec (spec/openapi.yaml and the files it references) into spec/dist/openapi.json.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { bundleFile } from '../generator/lib/bundle.ts';
import { dataSections, withDataSections } from './lib/description-data.ts';
import { root } from './lib/run.ts';

export const bundlePath = path.join(root, 'spec', 'dist', 'openapi.json');
const descriptionPath = path.join(root, 'spec', 'description.md');

/**
 * Writes the parts of spec/description.md that come from spec/data (the magic values, the error codes), in the
 * file and in the bundled document; answers whether the file changed.
 */
function refreshDescription(doc: { info?: { description?: unknown } } & Record<string, unknown>): boolean {
  const sections = dataSections(doc);
  if (sections.length === 0 || doc.info === undefined || typeof doc.info.description !== 'string') return false;
  doc.info.description = withDataSections(doc.info.description, sections);
  const text = readFileSync(descriptionPath, 'utf8');
  const written = withDataSections(text, sections);
  if (written === text) return false;
  writeFileSync(descriptionPath, written);
  return true;
}

async function main(): Promise<void> {
  const started = performance.now();
  // The generator's bundler (Redocly's, in process), so that spec/dist and generated/ come from one bundler.
  const doc = await bundleFile(path.join(root, 'spec', 'openapi.yaml'), path.join(root, 'redocly.yaml')) as {
    components?: Record<string, Record<string, unknown>>; info?: { description?: unknown };
  } & Record<string, unknown>;
  // Redocly names a component after the last segment of its $ref and appends "-2" on a collision;
  // a suffixed name means two files define the same name, which would silently rename a type.
  const collisions = Object.entries(doc.components ?? {}).flatMap(([kind, map]) =>
    Object.keys(map)
      .filter((name) => /-\d+$/.test(name))
      .map((name) => `${kind}/${name}`),
  );
  if (collisions.length > 0) {
    throw new Error(`component names collide across spec files: ${collisions.join(', ')}`);
  }
  if (refreshDescription(doc)) console.log(`wrote the parts of ${path.relative(root, descriptionPath)} that come from spec/data`);
  mkdirSync(path.dirname(bundlePath), { recursive: true });
  writeFileSync(bundlePath, `${JSON.stringify(doc, null, 2)}\n`);
  console.log(`bundled spec/openapi.yaml into ${path.relative(root, bundlePath)} (${((performance.now() - started) / 1000).toFixed(2)}s)`);
}

await main();
