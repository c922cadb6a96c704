// Table tests of the transforms: a small document in, the generated line(s) that must come out.
import { describe, expect, it } from 'vitest';
import { generate } from '../generate.ts';
import { readModel, ModelError, type JsonObject } from '../model.ts';

/** A minimal document around the given paths, components and webhooks. */
const doc = (parts: { paths?: JsonObject; components?: JsonObject; webhooks?: JsonObject; tags?: JsonObject[] }): JsonObject => ({
  openapi: '3.1.0',
  info: { title: 'T', version: '1' },
  paths: parts.paths ?? {},
  ...(parts.components ? { components: parts.components } : {}),
  ...(parts.webhooks ? { webhooks: parts.webhooks } : {}),
  ...(parts.tags ? { tags: parts.tags } : {}),
});

const ok = { '200': { description: 'ok', content: { 'application/json': { schema: { $ref: '#/components/schemas/Thing' } } } } };
const thing = (schema: JsonObject): JsonObject => ({ schemas: { Thing: schema } });

interface Case {
  given: JsonObject;
  want: { file: string; contains: (string | RegExp)[] };
}

const cases: [string, Case][] = [
  ['a nullable type array becomes a union with null', {
    given: doc({ paths: { '/t': { get: { operationId: 'getT', responses: ok } } }, components: thing({ type: ['string', 'null'] }) }),
    want: { file: 'types.ts', contains: ['Thing: string | null;'] },
  }],
  ['an integer enumeration becomes a union of literals', {
    given: doc({ paths: { '/t': { get: { operationId: 'getT', responses: ok } } }, components: thing({ type: 'integer', enum: [1, 2, 3] }) }),
    want: { file: 'types.ts', contains: ['Thing: 1 | 2 | 3;'] },
  }],
  ['oneOf becomes a union', {
    given: doc({ paths: { '/t': { get: { operationId: 'getT', responses: ok } } }, components: thing({ oneOf: [{ type: 'string' }, { type: 'integer' }] }) }),
    want: { file: 'types.ts', contains: ['Thing: string | number;'] },
  }],
  ['path, query and header parameters reach the input, headers lower-cased', {
    given: doc({
      paths: {
        '/t/{t-id}': {
          parameters: [{ name: 't-id', in: 'path', required: true, schema: { type: 'string' } }],
          get: {
            operationId: 'getT',
            parameters: [
              { name: 'page', in: 'query', schema: { type: 'integer' } },
              { name: 'X-Trace', in: 'header', required: true, schema: { type: 'string' } },
            ],
            responses: ok,
          },
        },
      },
      components: thing({ type: 'string' }),
    }),
    want: {
      file: 'operations.ts',
      contains: [
        "path: paths['/t/{t-id}']['get']['parameters']['path'];",
        "query: NonNullable<paths['/t/{t-id}']['get']['parameters']['query']>;",
        "headers: { 'x-trace': NonNullable<paths['/t/{t-id}']['get']['parameters']['header']>['X-Trace']; };",
        "pathParams: [{ name: 't-id', expressName: 't_id' }],",
        "headerParams: ['x-trace'],",
      ],
    },
  }],
  ['a required JSON body and a no-content response', {
    given: doc({
      paths: { '/t': { put: { operationId: 'putT', requestBody: { required: true, content: { 'application/json': { schema: { type: 'object' } } } }, responses: { '204': { description: 'done' } } } } },
    }),
    want: {
      file: 'operations.ts',
      contains: ["body: paths['/t']['put']['requestBody']['content']['application/json'];", '| { status: 204; body?: undefined; headers?: Record<string, string>; }'],
    },
  }],
  ['an optional body may be undefined', {
    given: doc({
      paths: { '/t': { post: { operationId: 'postT', requestBody: { content: { 'application/json': { schema: { type: 'object' } } } }, responses: { '204': { description: 'done' } } } } },
    }),
    want: { file: 'operations.ts', contains: ["body: NonNullable<paths['/t']['post']['requestBody']>['content']['application/json'] | undefined;"] },
  }],
  ['several media types on one status need a contentType each', {
    given: doc({
      paths: { '/t': { get: { operationId: 'getT', responses: { '200': { description: 'ok', content: { 'application/json': { schema: { type: 'object' } }, 'text/csv': { schema: { type: 'string' } } } } } } } },
    }),
    want: { file: 'operations.ts', contains: ["contentType: 'application/json';", "contentType: 'text/csv';"] },
  }],
  ['an operation without responses may answer anything (3.1 allows it)', {
    given: doc({ paths: { '/t': { get: { operationId: 'getT' } } } }),
    want: { file: 'operations.ts', contains: ['export type GetTResult = OperationResult;', "import type { OperationResult, RouteDefinition } from '@pgw/runtime/router-types';"] },
  }],
  ['a status range or default answers any status of it', {
    given: doc({ paths: { '/t': { get: { operationId: 'getT', responses: { '4XX': { description: 'client error' }, default: { description: 'other' } } } } } }),
    want: { file: 'operations.ts', contains: ['| { status: number; body?: undefined;'] },
  }],
  ['each tag gets a handler interface and a group; an untagged operation goes to default', {
    given: doc({
      tags: [{ name: 'API Keys', description: 'Keys.' }],
      paths: {
        '/k': { get: { operationId: 'listKeys', tags: ['API Keys'], responses: { '204': { description: 'x' } } } },
        '/h': { get: { operationId: 'health', responses: { '204': { description: 'x' } } } },
      },
    }),
    want: {
      file: 'handlers.ts',
      contains: [
        'export interface ApiKeysHandlers<Ctx = RequestContext> {',
        'listKeys(input: op.ListKeysInput, context: Ctx): Promise<op.ListKeysResult>;',
        'apiKeys: ApiKeysHandlers<Ctx>;',
        'default: DefaultHandlers<Ctx>;',
      ],
    },
  }],
  ['the router dispatches each operationId to its handler', {
    given: doc({ paths: { '/k': { get: { operationId: 'listKeys', tags: ['Keys'], responses: { '204': { description: 'x' } } } } } }),
    want: { file: 'router.ts', contains: ['listKeys: (input, context) => h.keys.listKeys(input, context),'] },
  }],
  ['every operationId is a value, a union member and a key of the handler types', {
    given: doc({ paths: { '/k': { get: { operationId: 'listKeys', tags: ['Keys'], responses: { '204': { description: 'x' } } } } } }),
    want: {
      file: 'operations.ts',
      contains: [
        "listKeys: 'listKeys',",
        'export type OperationId = (typeof OperationId)[keyof typeof OperationId];',
        'listKeys: { input: ListKeysInput; result: ListKeysResult };',
        'export const routes: readonly RouteDefinition<OperationId>[] = [',
      ],
    },
  }],
  ['an empty security requirement makes an operation public', {
    given: doc({ paths: { '/p': { get: { operationId: 'pub', security: [{}, { key: [] }], responses: { '204': { description: 'x' } } } } } }),
    want: { file: 'operations.ts', contains: ['security: [],'] },
  }],
  ['webhooks become event types, a union and a table with their extensions', {
    given: doc({
      webhooks: {
        'order.paid': {
          post: {
            summary: 'Order paid',
            'x-event-id': 12,
            'x-event-category': 'Orders',
            requestBody: { content: { 'application/json': { schema: { type: 'object', properties: { type: { const: 'order.paid' } } } } } },
            responses: { '200': { description: 'ok' } },
          },
        },
      },
    }),
    want: {
      file: 'webhooks.ts',
      contains: [
        "export type OrderPaidEvent = NonNullable<NonNullable<webhooks['order.paid']['post']>['requestBody']>['content']['application/json'];",
        'export type WebhookEvent = OrderPaidEvent;',
        "{ name: 'order.paid', id: 12, category: 'Orders', summary: 'Order paid' },",
      ],
    },
  }],
  ['summaries and descriptions become JSDoc', {
    given: doc({ paths: { '/k': { get: { operationId: 'listKeys', summary: 'List keys', description: 'All of them.', responses: { '204': { description: 'x' } } } } } }),
    want: { file: 'handlers.ts', contains: [/\* List keys\n\s+\*\n\s+\* All of them\.\n\s+\*\n\s+\* `GET \/k`/] },
  }],
];

describe('transforms', () => {
  it.each(cases)('%s', async (_name, { given, want }) => {
    const { files } = await generate(given);
    const file = files.find((f) => f.path === want.file);
    expect(file, want.file).toBeDefined();
    for (const expected of want.contains) {
      if (typeof expected === 'string') expect(file?.content).toContain(expected);
      else expect(file?.content).toMatch(expected);
    }
  });
});

describe('operation names: the operationId when it is an identifier, else derived, unique by type name', () => {
  const names = (paths: JsonObject): [string, string | null, string][] =>
    readModel(doc({ paths })).operations.map((op) => [op.operationId, op.documentOperationId ?? null, op.typeName]);
  it.each<[string, JsonObject, [string, string | null, string][]]>([
    ['without an operationId: method and path, a parameter read as "by" it', { '/pets/{petId}': { get: { responses: {} }, delete: { responses: {} } }, '/': { get: { responses: {} } } },
      [['getPetsByPetId', null, 'GetPetsByPetId'], ['deletePetsByPetId', null, 'DeletePetsByPetId'], ['get', null, 'Get']]],
    ['operationIds that are not identifiers are camel-cased', { '/a': { get: { operationId: 'get-stations', responses: {} } }, '/b': { get: { operationId: 'repos/get', responses: {} } }, '/c': { post: { operationId: 'post-checkAccountHolder', responses: {} } }, '/d': { get: { operationId: '1st thing', responses: {} } } },
      [['getStations', 'get-stations', 'GetStations'], ['reposGet', 'repos/get', 'ReposGet'], ['postCheckAccountHolder', 'post-checkAccountHolder', 'PostCheckAccountHolder'], ['_1stThing', '1st thing', '_1stThing']]],
    ['reserved words and Unicode identifiers are kept', { '/a': { delete: { operationId: 'delete', responses: {} } }, '/b': { get: { operationId: 'getÜbersicht', responses: {} } } },
      [['delete', 'delete', 'Delete'], ['getÜbersicht', 'getÜbersicht', 'GetÜbersicht']]],
    ['two names with one type name: the first keeps it, the next is numbered', { '/a': { get: { operationId: 'get_t', responses: {} } }, '/b': { get: { operationId: 'getT', responses: {} } }, '/c': { get: { operationId: 'GetT', responses: {} } } },
      [['get_t', 'get_t', 'GetT'], ['getT2', 'getT', 'GetT2'], ['GetT3', 'GetT', 'GetT3']]],
    ['a derived name never takes an operationId\'s name, wherever the operation is', { '/pets': { get: { responses: {} } }, '/other': { get: { operationId: 'getPets', responses: {} } } },
      [['getPets2', null, 'GetPets2'], ['getPets', 'getPets', 'GetPets']]],
  ])('%s', (_name, paths, expected) => {
    expect(names(paths)).toEqual(expected);
  });

  it('says once what it derived, naming the places', () => {
    const model = readModel(doc({ paths: { '/a': { get: { responses: {} } }, '/b': { get: { operationId: 'b/get', responses: {} } } } }));
    expect(model.notes).toEqual([
      '1 operation(s) without an operationId, named from the method and path: GET /a -> getA',
      "1 operationId(s) that are not identifiers or give another's type name, renamed (the route table keeps the document's): GET /b -> bGet",
    ]);
  });

  it('numbers tags that give one handler group, and event types that give one type name', () => {
    const model = readModel(doc({
      paths: { '/a': { get: { tags: ['pets'], responses: {} } }, '/b': { get: { tags: ['Pets'], responses: {} } } },
      webhooks: { 'pet.created': { post: { responses: {} } }, 'pet-created': { post: { responses: {} } }, webhook: { post: { responses: {} } } },
    }));
    expect(model.tags.map((t) => [t.name, t.group, t.interfaceName])).toEqual([['pets', 'pets', 'PetsHandlers'], ['Pets', 'pets2', 'Pets2Handlers']]);
    expect(model.webhooks.map((w) => w.typeName)).toEqual(['PetCreatedEvent', 'PetCreatedEvent2', 'WebhookEvent2']);
  });
});

describe('documents the generator refuses, with a reason', () => {
  it.each<[string, JsonObject, RegExp]>([
    ['an unbundled document', doc({ paths: { '/t': { get: { operationId: 'getT', responses: { '200': { $ref: 'other.yaml#/R' } } } } } }), /bundle the document first/],
    ['not OpenAPI 3', { swagger: '2.0' }, /OpenAPI 3 document is required/],
  ])('%s', (_name, given, message) => {
    expect(() => readModel(given)).toThrow(ModelError);
    expect(() => readModel(given)).toThrow(message);
  });
});
