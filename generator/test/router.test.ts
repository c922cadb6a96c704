// The generated router (small fixture): context before validation, request and response validation,
// dispatch with typed inputs, media types, route order, and the error classification it hands on; mounted in
// Express and called from a plain Node server, which answer alike.
import type { IncomingMessage, ServerResponse } from 'node:http';
import express, { type NextFunction, type Request, type Response } from 'express';
import request from 'supertest';
import { describe, expect, it } from 'vitest';
import { MissingHandlersError, createApiRouter, isUnknownPath, respondJson, routerProblem, type ApiRouter } from './golden/small/server.ts';
import type { Handlers } from './golden/small/handlers.ts';
import type * as op from './golden/small/operations.ts';

const pet = { id: '0b6f2c1e-3d4a-4b5c-8d6e-7f8091a2b3c4', name: 'Rex', kind: 1 as const, nickname: null, tag: 'a' };
const seen: { operationId: string; input: unknown }[] = [];
let answer: 'good' | 'broken' = 'good';

class Unauthorized extends Error {}

const handlers: Handlers = {
  pets: {
    listPets(input: op.ListPetsInput): Promise<op.ListPetsResult> {
      seen.push({ operationId: 'listPets', input });
      if (input.query.limit === 2) return Promise.resolve({ status: 200, contentType: 'text/csv', body: 'id,name\n1,Rex\n' });
      return Promise.resolve({ status: 200, contentType: 'application/json', body: { items: [pet], total: input.query.limit ?? 10 } });
    },
    createPet(input: op.CreatePetInput): Promise<op.CreatePetResult> {
      seen.push({ operationId: 'createPet', input });
      if (answer === 'broken') return Promise.resolve({ status: 201, body: { ...pet, name: undefined } as unknown as typeof pet });
      return Promise.resolve({ status: 201, body: { ...pet, name: input.body.name } });
    },
    getPet(input: op.GetPetInput): Promise<op.GetPetResult> {
      seen.push({ operationId: 'getPet', input });
      return Promise.resolve({ status: 200, body: { ...pet, id: input.path['pet-id'] } });
    },
    renamePet(input: op.RenamePetInput): Promise<op.RenamePetResult> {
      seen.push({ operationId: 'renamePet', input });
      return Promise.resolve({ status: 204 });
    },
    listPetNames(): Promise<op.ListPetNamesResult> {
      seen.push({ operationId: 'listPetNames', input: null });
      return Promise.resolve({ status: 200, body: ['Rex'] });
    },
  },
  lineItems: {
    createLineItem(input: op.CreateLineItemInput): Promise<op.CreateLineItemResult> {
      return Promise.resolve({ status: 200, body: { sku: input.body.sku } });
    },
  },
  default: {
    health(): Promise<op.HealthResult> {
      return Promise.resolve({ status: 200, body: { ok: true } });
    },
  },
};

const router = (): ApiRouter => createApiRouter({
  handlers,
  context: (req, res, route) => {
    // Authentication happens here, before the body is parsed or validated.
    if (route.security.length > 0 && req.headers.authorization !== 'Bearer good') throw new Unauthorized('no token');
    return { req, res, route };
  },
});

const expressApp = express();
expressApp.use(router());
// Express knows an error handler by its four parameters.
// eslint-disable-next-line @typescript-eslint/no-unused-vars
expressApp.use((err: unknown, _req: Request, res: Response, _next: NextFunction) => {
  if (err instanceof Unauthorized) {
    res.status(401).json({ kind: 'unauthorized' });
    return;
  }
  const problem = routerProblem(err);
  if (problem?.allow) res.setHeader('Allow', problem.allow);
  res.status(problem?.status ?? 500).json(problem ?? { kind: 'fault' });
});

// The same router on Node's own request and response, with an error handler answering through respondJson.
const unknownPaths: unknown[] = [];
const nodeRouter = router();
const nodeApp = (req: IncomingMessage, res: ServerResponse): void => {
  nodeRouter(req, res, (err?: unknown) => {
    if (isUnknownPath(err)) unknownPaths.push(err);
    if (err instanceof Unauthorized) {
      respondJson(req, res, 401, { kind: 'unauthorized' });
      return;
    }
    const problem = routerProblem(err);
    respondJson(req, res, problem?.status ?? 500, problem ?? { kind: 'fault' }, problem?.allow ? { Allow: problem.allow } : {});
  });
};

const auth = { authorization: 'Bearer good' };
interface ProblemBody { kind: string; problems: { location: string; path: string; message: string }[] }
const problemOf = (res: request.Response): ProblemBody => res.body as ProblemBody;
const last = (): { operationId: string; input: unknown } | undefined => seen.at(-1);

describe.each([['mounted in Express', expressApp], ['on a Node server', nodeApp]] as const)('the generated router %s', (_hosting, app) => {
  it('refuses to be built when an operation has no handler, naming each one', () => {
    const pets: Partial<Handlers['pets']> = { ...handlers.pets };
    delete pets.getPet;
    const partial = { ...handlers, pets, default: {} } as unknown as Handlers;
    const build = (): unknown => createApiRouter({ handlers: partial, context: (req, res, route) => ({ req, res, route }) });
    expect(build).toThrow(MissingHandlersError);
    expect(build).toThrow(/^no handler for 2 operations/);
    expect(build).toThrow(/pets\.getPet \(GET \/pets\/\{pet-id\}\)/);
    expect(build).toThrow(/default\.health \(GET /);
  });

  it('passes typed, validated inputs: query coerced, headers lower-cased', async () => {
    const res = await request(app).get('/pets?limit=5&kind=2').set(auth).set('X-Request-Id', 'r-1');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ items: [pet], total: 5 });
    expect(last()).toEqual({
      operationId: 'listPets',
      input: { path: {}, query: { limit: 5, kind: 2 }, headers: { 'x-request-id': 'r-1' }, body: undefined },
    });
  });

  it('refuses a request without a valid token before looking at its body', async () => {
    const res = await request(app).post('/pets').set('content-type', 'application/json').send('{not json');
    expect(res.status).toBe(401);
  });

  it.each<[string, () => request.Test, string, RegExp]>([
    ['a missing required header', () => request(app).get('/pets').set(auth), 'headers', /x-request-id/],
    ['a query value below its minimum', () => request(app).get('/pets?limit=0').set(auth).set('X-Request-Id', 'r'), 'query', /limit/],
    ['an unknown query parameter', () => request(app).get('/pets?colour=red').set(auth).set('X-Request-Id', 'r'), 'query', /colour/],
    ['a body value of the wrong type (not coerced)', () => request(app).post('/pets').set(auth).send({ name: 'Rex', kind: '1' }), 'body', /kind/],
    ['a missing required body field', () => request(app).post('/pets').set(auth).send({ kind: 1 }), 'body', /name/],
    ['a path parameter of the wrong format', () => request(app).get('/pets/not-a-uuid').set(auth), 'path', /pet-id/],
  ])('answers 400 for %s, saying where', async (_name, send, location, field) => {
    const res = await send();
    expect(res.status).toBe(400);
    expect(problemOf(res).kind).toBe('validation');
    const problems = problemOf(res).problems;
    expect(problems.some((p) => p.location === location && field.test(`${p.path} ${p.message}`))).toBe(true);
  });

  it('answers 400 malformed_json for a body that is not JSON', async () => {
    const res = await request(app).post('/pets').set(auth).set('content-type', 'application/json').send('{"name":');
    expect(res.status).toBe(400);
    expect(problemOf(res).kind).toBe('malformed_json');
  });

  it.each(['application/json; charset=utf-8', 'application/json;charset=UTF-8', 'Application/JSON', 'application/json; charset="utf-8"; foo=bar'])(
    'accepts the documented media type written as %s (parameters and letter case do not make it another type)',
    async (type) => {
      const res = await request(app).post('/pets').set(auth).set('content-type', type).send(JSON.stringify({ name: 'Rex', kind: 1 }));
      expect(res.status).toBe(201);
      expect(res.body).toMatchObject({ name: 'Rex' });
    },
  );

  it('answers 415 for a body of another media type', async () => {
    const res = await request(app).post('/pets').set(auth).set('content-type', 'text/plain').send('Rex');
    expect(res.status).toBe(415);
    expect(problemOf(res).kind).toBe('unsupported_media_type');
  });

  it('answers 405 with Allow for a method the path does not have, and 404 for an unknown path', async () => {
    const wrongMethod = await request(app).delete('/pets').set(auth);
    expect(wrongMethod.status).toBe(405);
    expect(wrongMethod.headers.allow).toMatch(/GET/);
    expect((await request(app).get('/nowhere').set(auth)).status).toBe(404);
  });

  it('tries literal segments before parameters', async () => {
    const res = await request(app).get('/pets/names').set(auth);
    expect(res.status).toBe(200);
    expect(last()?.operationId).toBe('listPetNames');
  });

  it('passes a path parameter whose name Express cannot take', async () => {
    const id = '5d1e8a4b-2c3f-4a6b-9c7d-8e9f0a1b2c3d';
    const res = await request(app).get(`/pets/${id}`).set(auth);
    expect(res.status).toBe(200);
    expect(last()).toMatchObject({ operationId: 'getPet', input: { path: { 'pet-id': id } } });
  });

  it('sends each media type as the handler chose, and no body for a no-content answer', async () => {
    const csv = await request(app).get('/pets?limit=2').set(auth).set('X-Request-Id', 'r');
    expect(csv.headers['content-type']).toMatch(/^text\/csv/);
    expect(csv.text).toBe('id,name\n1,Rex\n');
    const renamed = await request(app).put(`/pets/${pet.id}`).set(auth).send({ name: null });
    expect(renamed.status).toBe(204);
    expect(renamed.text).toBe('');
  });

  it('parses a form body and serves a public operation without a token', async () => {
    const res = await request(app).post('/line-items').type('form').send('sku=AB-1');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ sku: 'AB-1' });
    expect((await request(app).get('/health')).body).toEqual({ ok: true });
  });

  it('turns a response the spec does not allow into a 500, never sending it', async () => {
    answer = 'broken';
    const res = await request(app).post('/pets').set(auth).send({ name: 'Rex', kind: 1 });
    answer = 'good';
    expect(res.status).toBe(500);
    expect(problemOf(res).kind).toBe('response_validation');
    expect(JSON.stringify(res.body)).toMatch(/name/);
  });
});

describe('the router on a Node server and in Express', () => {
  const id = '5d1e8a4b-2c3f-4a6b-9c7d-8e9f0a1b2c3d';
  const cases: [string, (app: Parameters<typeof request>[0]) => request.Test][] = [
    ['a JSON list', (app) => request(app).get('/pets?limit=5&kind=2').set(auth).set('X-Request-Id', 'r')],
    ['a text body (csv)', (app) => request(app).get('/pets?limit=2').set(auth).set('X-Request-Id', 'r')],
    ['a repeated query value', (app) => request(app).get('/pets?limit=1&limit=2').set(auth).set('X-Request-Id', 'r')],
    ['an encoded query value', (app) => request(app).get('/pets?limit=%35&kind=2').set(auth).set('X-Request-Id', 'r')],
    ['a created record', (app) => request(app).post('/pets').set(auth).send({ name: 'Rëx ☃', kind: 1 })],
    ['a path parameter', (app) => request(app).get(`/pets/${id}`).set(auth)],
    ['an encoded path parameter', (app) => request(app).get(`/pets/${encodeURIComponent(id)}%2F`).set(auth)],
    ['a trailing slash', (app) => request(app).get('/pets/names/').set(auth)],
    ['no content', (app) => request(app).put(`/pets/${id}`).set(auth).send({ name: null })],
    ['a form body', (app) => request(app).post('/line-items').type('form').send('sku=AB-1')],
    ['a validation refusal', (app) => request(app).get('/pets?limit=0').set(auth).set('X-Request-Id', 'r')],
    ['malformed JSON', (app) => request(app).post('/pets').set(auth).set('content-type', 'application/json').send('{"name":')],
    ['another media type', (app) => request(app).post('/pets').set(auth).set('content-type', 'text/plain').send('Rex')],
    ['a method the path does not have', (app) => request(app).delete('/pets').set(auth)],
    ['HEAD of a path without it', (app) => request(app).head('/pets').set(auth)],
    ['a malformed escape in the path', (app) => request(app).get('/pets/%E0%A4%A').set(auth)],
    ['no token', (app) => request(app).get('/pets').set('X-Request-Id', 'r')],
  ];

  it.each(cases)('answers %s alike: status, media type, length, Allow and body', async (_name, send) => {
    const [viaExpress, viaNode] = [await send(expressApp), await send(nodeApp)];
    const shape = (res: request.Response): unknown => ({
      status: res.status, type: res.headers['content-type'], length: res.headers['content-length'], allow: res.headers.allow, text: res.text,
    });
    expect(shape(viaNode)).toEqual(shape(viaExpress));
  });

  it('hands only an undocumented path to next as an unknown path (not a 404 a handler or validation gives)', async () => {
    unknownPaths.length = 0;
    await request(nodeApp).get('/nowhere').set(auth);
    await request(nodeApp).get('/PETS').set(auth);
    expect(unknownPaths).toHaveLength(2);
    await request(nodeApp).get(`/pets/${id}`).set(auth);
    await request(nodeApp).get('/pets/not-a-uuid').set(auth);
    await request(nodeApp).delete('/pets').set(auth);
    expect(unknownPaths).toHaveLength(2);
    expect(isUnknownPath(routerProblem(new Error('x')))).toBe(false);
  });
});
