// The base of spec:diff: which revision the contract is compared with (a given one, else the last release tag,
// else where HEAD left the main branch), and that revision's spec read from git and bundled.
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { bundleFile } from '../lib/bundle.ts';
import type { JsonObject } from './schema.ts';

export interface Base {
  /** The commit compared with. */
  commit: string;
  /** How the listing names it: `v1.2.0`, `main (merge-base a1b2c3d)`, the revision given. */
  label: string;
}

/** A base, or why there is none (said to the user as it is). */
export type BaseAnswer = { base: Base } | { problem: string };

/** A release tag: `v` and a version (`v1.2.0`, `v2.0.0-rc.1`). */
const RELEASE_TAGS = 'v[0-9]*';

function git(root: string, args: readonly string[]): { ok: boolean; out: string; err: string } {
  const result = spawnSync('git', args, { cwd: root, encoding: 'utf8', maxBuffer: 256 * 1024 * 1024 });
  if (result.error) return { ok: false, out: '', err: result.error.message };
  return { ok: result.status === 0, out: result.stdout.trim(), err: result.stderr.trim() };
}

const short = (commit: string): string => commit.slice(0, 7);

/** The revision the user named (a tag, a branch, a commit). */
export function namedBase(root: string, revision: string): BaseAnswer {
  const commit = git(root, ['rev-parse', '--verify', '--quiet', `${revision}^{commit}`]);
  if (!commit.ok) return { problem: `"${revision}" is not a revision of this repository (git rev-parse found no commit)` };
  return { base: { commit: commit.out, label: revision } };
}

/** The last release tag reachable from HEAD, else the commit where HEAD left `main` (or `origin/main`). */
export function defaultBase(root: string): BaseAnswer {
  const inside = git(root, ['rev-parse', '--is-inside-work-tree']);
  if (!inside.ok || inside.out !== 'true') return { problem: `${root} is not a git work tree, so there is no earlier contract to compare with` };
  const tag = git(root, ['describe', '--tags', '--abbrev=0', '--match', RELEASE_TAGS, 'HEAD']);
  if (tag.ok && tag.out !== '') return namedBase(root, tag.out);
  for (const branch of ['main', 'origin/main']) {
    if (!git(root, ['rev-parse', '--verify', '--quiet', `${branch}^{commit}`]).ok) continue;
    const fork = git(root, ['merge-base', 'HEAD', branch]);
    if (!fork.ok) {
      return { problem: `HEAD and ${branch} share no commit in this clone (a shallow clone?): fetch more history or name a base: npm run spec:diff -- <revision>` };
    }
    return { base: { commit: fork.out, label: `${branch} (${short(fork.out)})` } };
  }
  return { problem: 'no release tag (v*) and no main branch to compare with: name a base: npm run spec:diff -- <revision>' };
}

/** The spec files of `commit` (spec/, without its tests and build output), by path. */
function specFilesAt(root: string, commit: string): Map<string, Buffer> | undefined {
  const listed = git(root, ['ls-tree', '-r', '-z', '--name-only', commit, '--', 'spec']);
  if (!listed.ok) return undefined;
  const names = listed.out.split('\0').filter((name) => name !== '' && !/^spec\/(test|dist)\//.test(name));
  if (!names.includes('spec/openapi.yaml')) return undefined;
  // One git process for every file: `cat-file --batch` answers "<sha> blob <size>\n<bytes>\n" per name.
  const batch = spawnSync('git', ['cat-file', '--batch'], { cwd: root, input: names.map((n) => `${commit}:${n}`).join('\n') + '\n', maxBuffer: 256 * 1024 * 1024 });
  if (batch.status !== 0) return undefined;
  const files = new Map<string, Buffer>();
  let offset = 0;
  for (const name of names) {
    const end = batch.stdout.indexOf(0x0a, offset);
    const header = batch.stdout.subarray(offset, end).toString('utf8').split(' ');
    const size = Number(header[2]);
    if (header[1] !== 'blob' || !Number.isInteger(size)) return undefined;
    files.set(name, batch.stdout.subarray(end + 1, end + 1 + size));
    offset = end + 1 + size + 1;
  }
  return files;
}

/** The bundled contract of `commit`, or why it cannot be read. Bundled as `npm run generate` bundles. */
export async function documentAt(root: string, commit: string): Promise<{ doc: JsonObject } | { problem: string }> {
  const files = specFilesAt(root, commit);
  if (files === undefined) return { problem: `commit ${short(commit)} has no spec/openapi.yaml` };
  const dir = mkdtempSync(path.join(tmpdir(), 'pgw-spec-diff-'));
  try {
    for (const [name, content] of files) {
      mkdirSync(path.dirname(path.join(dir, name)), { recursive: true });
      writeFileSync(path.join(dir, name), content);
    }
    return { doc: await bundleFile(path.join(dir, 'spec', 'openapi.yaml')) };
  } catch (error) {
    return { problem: `the spec of ${short(commit)} does not bundle: ${error instanceof Error ? error.message : String(error)}` };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
