// The generated validators compile each schema of the document once per ajv instance, however many operations,
// statuses and webhooks refer to it. `compile({ $ref })` made a root of its own each time and compiled every
// schema it referred to again: the gateway's responses made 818 functions for 88 distinct schemas, and a process
// spent 4.4 s compiling them at its first requests.
import { describe, expect, it } from 'vitest';
import { routes } from '@pgw/client/operations';
import { DocumentValidators } from '@pgw/runtime/validation';
import { apiSpec } from '@pgw/client/spec';
import { functionsMadeBy, resolveIn, schemaBound } from '../../scripts/lib/schema-compiles.ts';

type Json = Record<string, unknown>;
const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);
const doc = apiSpec as Json;
const resolve = (node: unknown): unknown => resolveIn(doc, node);

describe('the document validators', () => {
  it('compile each response and event schema once, however many operations and statuses name it', () => {
    const validators = new DocumentValidators(structuredClone(doc));
    const webhooks = Object.keys((doc.webhooks ?? {}));
    expect(webhooks.length).toBeGreaterThan(20);
    const made = functionsMadeBy(() => {
      // Each operation's every status (the body is then checked against the 200's schema, if there is one).
      for (const route of routes) validators.response(route.operationId, route, 200, 'application/json', undefined, {});
      for (const name of webhooks) validators.webhookEvent(name, {});
    });
    expect(made).toBeGreaterThan(0);
    expect(made).toBeLessThanOrEqual(schemaBound(doc));
    // Asked again, nothing is compiled.
    expect(functionsMadeBy(() => {
      for (const route of routes) validators.response(route.operationId, route, 404, 'application/json', undefined, {});
    })).toBe(0);
  });

  it('compile a request body that many operations share once', () => {
    const validators = new DocumentValidators(structuredClone(doc));
    const bodies = new Map<string, string[]>();
    for (const route of routes) {
      const op = (resolve((doc.paths as Json)[route.path]) as Json)[route.method] as Json;
      const schema = (((resolve(op.requestBody) as Json | undefined)?.content as Json | undefined)?.['application/json'] as Json | undefined)?.schema;
      if (isObject(schema) && typeof schema.$ref === 'string') bodies.set(schema.$ref, [...(bodies.get(schema.$ref) ?? []), route.operationId]);
    }
    const shared = [...bodies.values()].find((ids) => ids.length > 1);
    expect(shared, 'an operation body shared by two operations (a create and an update)').toBeDefined();
    const [first, second] = shared as [string, string];
    const byId = (id: string) => routes.find((r) => r.operationId === id) as (typeof routes)[number];
    validators.request(first, byId(first));
    // The second compiles its parameters only: one function for its path, query and headers.
    expect(functionsMadeBy(() => validators.request(second, byId(second)))).toBeLessThanOrEqual(1);
  });

  it('still tell a valid response from an invalid one through a schema many operations share', () => {
    const validators = new DocumentValidators(structuredClone(doc));
    const problem = { details: 'no such record', statusCode: 404, source: 'pgw', exceptionType: 'NotFoundException', correlationId: '0b7a9a5e-7c1f-4f55-9f3a-3c2c8a3f1d10', entityId: null, errorCode: null };
    const shared = routes.filter((r) => r.method === 'get' && r.pathParams.length > 0).slice(0, 5);
    expect(shared.length).toBe(5);
    for (const route of shared) {
      expect(validators.response(route.operationId, route, 404, 'application/json', undefined, problem), route.operationId).toBeUndefined();
      expect(validators.response(route.operationId, route, 404, 'application/json', undefined, { ...problem, statusCode: 'x' }), route.operationId).toBeDefined();
    }
  });
});
