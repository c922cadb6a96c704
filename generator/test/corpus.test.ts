// The corpus: documents nobody here wrote (the OAI's learning examples, GitHub's REST and webhooks descriptions)
// and our stress documents each generate, type-check (strict, noUncheckedIndexedAccess), and for the small ones
// serve: the generated router calls a handler and refuses a bad request with the documented 400.
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import express, { type NextFunction, type Request, type Response } from 'express';
import request from 'supertest';
import ts from 'typescript';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { emit } from '../emit.ts';
import { generate } from '../generate.ts';
import { loadDocument } from '../load.ts';

const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.resolve(here, '..', '..');
const corpus = path.join(here, 'corpus');
const require = createRequire(import.meta.url);
const github = (pkg: string): string => path.join(path.dirname(require.resolve(`@octokit/${pkg}/package.json`)), 'generated', 'api.github.com.json');

/** Every small document of the corpus, by a short name. */
const small: [string, string][] = [
  ...['v3.0', 'v3.1'].flatMap((version) => readdirSync(path.join(corpus, 'oai', version)).sort()
    .map((file): [string, string] => [`oai-${version}-${file.replace('.', '-')}`, path.join(corpus, 'oai', version, file)])),
  ['stress', path.join(corpus, 'stress', 'openapi.yaml')],
  ['stress-3.0', path.join(corpus, 'stress-3.0', 'openapi.yaml')],
];

// Inside the repository, so that the generated code resolves the packages it imports (openapi-fetch, ajv).
const out = mkdtempSync(path.join(here, '.corpus-'));
const notes = new Map<string, readonly string[]>();
afterAll(() => {
  rmSync(out, { recursive: true, force: true });
});

async function generateInto(name: string, file: string): Promise<string> {
  const dir = path.join(out, name);
  const { model, files } = await generate(await loadDocument(file));
  emit(dir, files, false);
  notes.set(name, model.notes);
  return dir;
}

/** tsc's diagnostics over the given entry files, with the repository's options (strict, noUncheckedIndexedAccess). */
function typeCheck(entries: string[]): string[] {
  const config = ts.getParsedCommandLineOfConfigFile(path.join(root, 'tsconfig.json'), {}, {
    ...ts.sys,
    onUnRecoverableConfigFileDiagnostic: (d) => { throw new Error(ts.flattenDiagnosticMessageText(d.messageText, '\n')); },
  });
  if (!config) throw new Error('no tsconfig');
  const program = ts.createProgram(entries, { ...config.options, skipLibCheck: true });
  return ts.getPreEmitDiagnostics(program).map((d) => {
    const where = d.file ? `${path.relative(out, d.file.fileName)}:${String(d.file.getLineAndCharacterOfPosition(d.start ?? 0).line + 1)}` : '';
    return `${where} ${ts.flattenDiagnosticMessageText(d.messageText, '\n')}`;
  });
}

describe('small documents: the OAI learning examples and the stress documents', () => {
  const dirs = new Map<string, string>();
  let diagnostics: string[] = [];

  beforeAll(async () => {
    for (const [name, file] of small) dirs.set(name, await generateInto(name, file));
    // Callbacks have types (openapi-typescript leaves them out): a callback's request body, by path and method.
    writeFileSync(path.join(out, 'callback-use.ts'), [
      "import type { callbacks } from './oai-v3.0-callback-example-yaml/index.ts';",
      "type Data = callbacks['/streams']['post']['onData']['{$request.query.callbackUrl}/data']['post'];",
      "export const body: NonNullable<Data['requestBody']>['content']['application/json'] = { timestamp: '2026-01-01T00:00:00Z', userData: 'x' };",
      "// @ts-expect-error a callback the document does not declare",
      "export type Missing = callbacks['/streams']['post']['onNothing'];",
    ].join('\n'));
    // One program for all of them: each folder's server.ts reaches every module it generated.
    diagnostics = typeCheck([...[...dirs.values()].map((dir) => path.join(dir, 'server.ts')), path.join(out, 'callback-use.ts')]);
  }, 300_000);

  it.each(small.map(([name]) => name))('%s generates and type-checks', (name) => {
    expect(dirs.has(name)).toBe(true);
    expect(diagnostics.filter((d) => d.startsWith(`${name}/`))).toEqual([]);
  });

  it('no diagnostic anywhere else either', () => {
    expect(diagnostics).toEqual([]);
  });

  it('names the operations the documents leave unnamed, and says so', () => {
    expect(notes.get('oai-v3.0-callback-example-yaml')?.join('\n')).toMatch(/without an operationId/);
    expect(notes.get('stress')?.join('\n')).toMatch(/GET \/stations -> getStations/);
  });

  it('says once, naming the places, what it cannot express, and writes the rest', () => {
    const said = notes.get('stress') ?? [];
    expect(said.filter((n) => n.startsWith('cookie parameters are not read'))).toEqual(['cookie parameters are not read (handlers do not receive them, the router does not check them): GET /parameters/{pathLevelId} cookie session']);
    expect(said.join('\n')).toMatch(/style other than .*query filter \(deepObject, explode\)/);
    expect(said.join('\n')).toMatch(/not parsed.*POST \/bodies\/upload multipart\/form-data/);
    expect(said.join('\n')).toMatch(/callbacks have types .*POST \/subscriptions/);
    expect(dirs.has('stress')).toBe(true);
  });

  /** Serves a generated folder in Express with handlers that record each call; errors answer as routerProblem says. */
  async function serve(name: string): Promise<{ app: express.Express; calls: string[] }> {
    const dir = dirs.get(name);
    if (dir === undefined) throw new Error(`${name} was not generated`);
    type Index = typeof import('./golden/small/server.ts');
    const generated = (await import(pathToFileURL(path.join(dir, 'server.ts')).href)) as Index;
    const calls: string[] = [];
    // Every group answers every name: the router checks that each operation has a function.
    const group = new Proxy({}, { get: (_target, key) => (key === 'then' ? undefined : () => { calls.push(String(key)); return Promise.resolve({ status: 204 }); }) });
    const handlers = new Proxy({}, { get: () => group }) as Parameters<Index['createApiRouter']>[0]['handlers'];
    const app = express();
    app.use(generated.createApiRouter({ handlers, context: generated.requestContext, validateResponses: false }));
    // Express knows an error handler by its four parameters.
    const errors = (err: unknown, _req: Request, res: Response, next: NextFunction): void => {
      const problem = generated.routerProblem(err);
      if (problem === undefined || res.headersSent) next(err);
      else res.status(problem.status).json(problem);
    };
    app.use(errors);
    return { app, calls };
  }

  it.each<[string, string, string, (string | undefined)?]>([
    ['oai-v3.0-petstore-yaml', '/pets?limit=3', '/pets?limit=lots', 'listPets'],
    ['oai-v3.0-petstore-expanded-yaml', '/pets?limit=3', '/pets?limit=-', 'findPets'],
    ['oai-v3.0-link-example-yaml', '/2.0/repositories/alice/r1/pullrequests?state=open', '/2.0/repositories/alice/r1/pullrequests?state=lost', 'getPullRequestsByRepository'],
    ['oai-v3.1-tictactoe-yaml', '/board/1/1', '/board/9/1', 'getSquare'],
    ['stress', '/users/u1', '/parameters/not-a-uuid', 'getUser'],
  ])('%s: a handler answers %s, and %s is refused with 400', async (name, good, bad, handler) => {
    const { app, calls } = await serve(name);
    const refused = await request(app).get(bad);
    expect(refused.status).toBe(400);
    expect(calls).toEqual([]);
    const answered = await request(app).get(good);
    expect(answered.status).toBe(204);
    expect(calls.length).toBe(1);
    if (handler !== undefined) expect(calls).toEqual([handler]);
  });

  it('stress: a required JSON body that is missing is refused with 400, naming the body', async () => {
    const { app, calls } = await serve('stress');
    const refused = await request(app).post('/account-holders/check').set('content-type', 'application/json').send('');
    expect(refused.status).toBe(400);
    expect(calls).toEqual([]);
    const answered = await request(app).post('/account-holders/check').send({ accountNumber: '1' });
    expect(answered.status).toBe(204);
    expect(calls).toEqual(['postCheckAccountHolder']);
  });
});

// GitHub's descriptions are large (REST: 13 MB, 1,223 operations; webhooks: 261 events): one program each.
describe.each([
  ['github-webhooks', github('openapi-webhooks')],
  ['github-rest', github('openapi')],
])('%s', (name, file) => {
  let dir = '';
  let diagnostics: string[] = [];
  beforeAll(async () => {
    dir = await generateInto(name, file);
    diagnostics = typeCheck([path.join(dir, 'server.ts')]);
  }, 600_000);

  it('generates and type-checks', () => {
    expect(dir).not.toBe('');
    expect(diagnostics).toEqual([]);
  });
});
