// Bundles the authored spec (spec/openapi.yaml and the files it references) into spec/dist/openapi.json.
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { bundleFile } from '../generator/lib/bundle.ts';
import { root } from './lib/run.ts';

export const bundlePath = path.join(root, 'spec', 'dist', 'openapi.json');

async function main(): Promise<void> {
  const started = performance.now();
  // The generator's bundler (Redocly's, in process), so that spec/dist and generated/ come from one bundler.
  const doc = await bundleFile(path.join(root, 'spec', 'openapi.yaml'), path.join(root, 'redocly.yaml')) as {
    components?: Record<string, Record<string, unknown>>;
  };
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
  mkdirSync(path.dirname(bundlePath), { recursive: true });
  writeFileSync(bundlePath, `${JSON.stringify(doc, null, 2)}\n`);
  console.log(`bundled spec/openapi.yaml into ${path.relative(root, bundlePath)} (${((performance.now() - started) / 1000).toFixed(2)}s)`);
}

await main();
