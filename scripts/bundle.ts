// Bundles the authored spec (spec/openapi.yaml and the files it references) into spec/dist/openapi.json.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { root, runBin } from './lib/run.ts';

export const bundlePath = path.join(root, 'spec', 'dist', 'openapi.json');

function main(): void {
  runBin('redocly', ['bundle', 'spec/openapi.yaml', '--output', bundlePath, '--ext', 'json']);
  const doc = JSON.parse(readFileSync(bundlePath, 'utf8')) as {
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
}

main();
