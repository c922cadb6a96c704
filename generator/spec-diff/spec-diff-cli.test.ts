// `npm run spec:diff` as npm test runs it, in a scratch git repository: the default base (a release tag, else
// main), red on an unaccepted breaking change, green once accepted or under a new major, and a clone without
// history to compare said, not crashed on.
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const tsx = path.join(root, 'node_modules', '.bin', 'tsx');
const main = path.join(root, 'generator', 'spec-diff', 'main.ts');
const scratch = mkdtempSync(path.join(tmpdir(), 'pgw-spec-diff-cli-'));
afterAll(() => { rmSync(scratch, { recursive: true, force: true }); });

/** A one-file contract: one operation answering a pet, one event carrying it. */
function spec(version: string, petProperties: string[]): string {
  const properties = petProperties.map((p) => `        ${p}: { type: string }`).join('\n');
  return `openapi: 3.1.0
info: { title: Pets, version: ${version} }
paths:
  /pets/{petId}:
    get:
      operationId: getPet
      parameters: [{ name: petId, in: path, required: true, schema: { type: string } }]
      responses:
        '200': { description: The pet., content: { application/json: { schema: { $ref: '#/components/schemas/Pet' } } } }
webhooks:
  pet.adopted:
    post:
      operationId: onPetAdopted
      requestBody: { content: { application/json: { schema: { $ref: '#/components/schemas/Pet' } } } }
      responses: { '204': { description: Received. } }
components:
  schemas:
    Pet:
      type: object
      required: [${petProperties.join(', ')}]
      properties:
${properties}
`;
}

const env = { ...process.env, GIT_AUTHOR_NAME: 't', GIT_AUTHOR_EMAIL: 't@example.com', GIT_COMMITTER_NAME: 't', GIT_COMMITTER_EMAIL: 't@example.com' };
function git(cwd: string, ...args: string[]): void {
  const result = spawnSync('git', args, { cwd, env, encoding: 'utf8' });
  if (result.status !== 0) throw new Error(`git ${args.join(' ')}: ${result.stderr}`);
}
function specDiff(cwd: string): { status: number | null; out: string } {
  const result = spawnSync(tsx, [main, '--summary'], { cwd, env: { ...env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true' }, encoding: 'utf8' });
  return { status: result.status, out: `${result.stdout}${result.stderr}` };
}

describe('npm run spec:diff', () => {
  const repo = path.join(scratch, 'repo');
  const write = (file: string, text: string): void => {
    mkdirSync(path.dirname(path.join(repo, file)), { recursive: true });
    writeFileSync(path.join(repo, file), text);
  };

  it('fails on a breaking change since main, and passes once it is accepted or the major is raised', () => {
    mkdirSync(repo);
    git(repo, 'init', '-q', '-b', 'main');
    write('spec/openapi.yaml', spec('1.0.0', ['name', 'species']));
    git(repo, 'add', '-A');
    git(repo, 'commit', '-q', '-m', 'contract');
    git(repo, 'checkout', '-q', '-b', 'feature');
    write('spec/openapi.yaml', spec('1.0.0', ['name']));

    const refused = specDiff(repo);
    expect(refused.out).toContain('contract changes since main');
    expect(refused.out).toContain('BREAKING   response.property-removed Pet.species');
    expect(refused.status).toBe(1);

    write('accepted-changes.yaml', 'accepted:\n  - id: response.property-removed Pet.species\n    reason: nobody reads species\n');
    const accepted = specDiff(repo);
    expect([accepted.status, accepted.out]).toEqual([0, expect.stringContaining('accepted in accepted-changes.yaml: response.property-removed Pet.species (nobody reads species)')]);

    // A release tag is the base from now on; a new major allows the breaking change without the entry.
    git(repo, 'tag', 'v1.0.0', 'main');
    write('accepted-changes.yaml', 'accepted: []\n');
    write('spec/openapi.yaml', spec('2.0.0', ['name']));
    const major = specDiff(repo);
    expect([major.status, major.out]).toEqual([0, expect.stringContaining("contract changes since v1.0.0 (info.version 1.0.0 -> 2.0.0)")]);
  });

  it('says it did not compare, and passes, where there is no history to compare with', () => {
    const plain = path.join(scratch, 'plain');
    mkdirSync(plain);
    const result = specDiff(plain);
    expect([result.status, result.out]).toEqual([0, expect.stringContaining('spec:diff: not compared:')]);
  });
});
