// `npm run pack [-- --out DIR]`: every package of the toolkit built and packed (dist/packages/ by default), in the
// order they depend on one another; prints each tarball's size and file count.
import { execFileSync } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { root } from './lib/run.ts';

/** The packages, each after those it depends on: `npm pack` runs its prepack, which builds its dist/. */
export const PACKAGES = [
  { dir: 'runtime', name: '@pgw/runtime' },
  { dir: 'generated', name: '@pgw/client' },
  { dir: 'generator', name: '@pgw/generator' },
  { dir: 'server', name: '@pgw/sandbox' },
  { dir: 'conformance', name: '@pgw/conformance' },
  { dir: 'cli', name: '@pgw/cli' },
] as const;

export type PackageName = (typeof PACKAGES)[number]['name'];

export interface Packed {
  readonly name: PackageName;
  readonly tarball: string;
  readonly packedBytes: number;
  readonly unpackedBytes: number;
  readonly files: number;
}

/** Packs every package (or those named) into out; env is that of the npm processes (the caller's by default). */
export function packAll(out: string, env: NodeJS.ProcessEnv = process.env, only?: readonly PackageName[]): Packed[] {
  mkdirSync(out, { recursive: true });
  return PACKAGES.filter(({ name }) => only === undefined || only.includes(name)).map(({ dir, name }) => {
    let json: string;
    try {
      json = execFileSync('npm', ['pack', '--json', '--pack-destination', out], {
        cwd: path.join(root, dir), encoding: 'utf8', env, stdio: ['ignore', 'pipe', 'inherit'], maxBuffer: 64 * 1024 * 1024,
      });
    } catch (error) {
      // The build's own output (tsc's errors) is on stdout, with npm's JSON.
      const { stdout } = error as { stdout?: string };
      throw new Error(`npm pack of ${name} failed:\n${stdout ?? ''}`, { cause: error });
    }
    // Lifecycle scripts (prepack's build) may print before npm's JSON.
    const report = JSON.parse(json.slice(json.indexOf('\n[') + 1 || json.indexOf('['))) as { filename: string; size: number; unpackedSize: number; entryCount: number }[];
    const entry = report[0];
    if (entry === undefined) throw new Error(`npm pack printed no report for ${name}`);
    return { name, tarball: path.join(out, entry.filename), packedBytes: entry.size, unpackedBytes: entry.unpackedSize, files: entry.entryCount };
  });
}

const kB = (bytes: number): string => `${(bytes / 1024).toFixed(0)} kB`;

export function packTable(packed: readonly Packed[]): string {
  const rows = packed.map((p) => `| ${p.name} | ${kB(p.packedBytes)} | ${kB(p.unpackedBytes)} | ${String(p.files)} | ${path.basename(p.tarball)} |`);
  return ['| package | packed | unpacked | files | tarball |', '|---|---|---|---|---|', ...rows].join('\n');
}

if (import.meta.url === `file://${process.argv[1] ?? ''}`) {
  const { values } = parseArgs({ options: { out: { type: 'string' } } });
  const out = path.resolve(values.out ?? path.join(root, 'dist', 'packages'));
  const packed = packAll(out);
  console.log(packTable(packed));
  console.log(`\ninstall them in a project: npm install ${path.relative(process.cwd(), out) || '.'}/*.tgz`);
}
