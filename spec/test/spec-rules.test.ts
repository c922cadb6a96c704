// House rules of the contract (spec/README.md) that Redocly's rules cannot express, checked on the bundle.
import { describe, expect, it } from 'vitest';
import { deref, type JsonObject } from './faithfulness.ts';
import { loadBundle } from './bundled.ts';

const doc = loadBundle();
const isObject = (value: unknown): value is JsonObject => typeof value === 'object' && value !== null && !Array.isArray(value);
const methods = ['get', 'put', 'post', 'delete', 'patch'] as const;

interface Op { label: string; path: string; method: string; op: JsonObject; params: JsonObject[] }
const ops: Op[] = Object.entries(doc.paths as JsonObject).flatMap(([path, raw]) => {
  const item = deref(doc, raw) as JsonObject;
  return methods
    .filter((m) => isObject(item[m]))
    .map((method) => {
      const op = item[method] as JsonObject;
      const params = [...(item.parameters as unknown[] | undefined ?? []), ...(op.parameters as unknown[] | undefined ?? [])]
        .map((p) => deref(doc, p) as JsonObject);
      return { label: `${method.toUpperCase()} ${path}`, path, method, op, params };
    });
});
const apiOps = ops.filter((o) => typeof o.op['x-interface-address'] !== 'string');
const responses = (o: Op): JsonObject => o.op.responses as JsonObject;
const jsonBody = (o: Op): boolean => {
  const body = deref(doc, o.op.requestBody);
  return isObject(body) && isObject(body.content) && 'application/json' in body.content;
};
const responseSchema = (o: Op, status: string): JsonObject | undefined => {
  const response = deref(doc, responses(o)[status]);
  if (!isObject(response) || !isObject(response.content)) return undefined;
  const media = response.content['application/json'];
  return isObject(media) ? (deref(doc, media.schema) as JsonObject) : undefined;
};

/** Every node of the document, with its JSON path. */
function* walk(node: unknown, at = '$'): Generator<[string, JsonObject]> {
  if (Array.isArray(node)) {
    for (const [i, child] of node.entries()) yield* walk(child, `${at}[${i}]`);
  } else if (isObject(node)) {
    yield [at, node];
    for (const [key, child] of Object.entries(node)) yield* walk(child, `${at}.${key}`);
  }
}

describe('contract rules', () => {
  it('has all 63 operations of the interface and the designed ones', () => {
    const seed = ops.filter((o) => o.op['x-provenance'] !== 'designed');
    expect(seed.length).toBe(63);
    expect(ops.length - seed.length).toBeGreaterThanOrEqual(14);
  });

  it.each(apiOps.map((o) => [o.label, o] as const))('%s answers 400, 401 and 500 in the documented shapes', (_label, o) => {
    for (const status of ['400', '401', '500']) expect(Object.keys(responses(o))).toContain(status);
    const standard = responseSchema(o, '500');
    expect(standard?.title).toBe('ErrorResponse');
    expect(responseSchema(o, '401')?.title).toBe('ErrorResponse');
    const badRequest = responseSchema(o, '400');
    if (jsonBody(o)) {
      const titles = (badRequest?.oneOf as unknown[] | undefined ?? []).map((s) => (deref(doc, s) as JsonObject).title);
      expect(titles).toEqual(['ErrorResponse', 'ValidationProblemDetails']);
      expect(Object.keys(responses(o))).toContain('415');
    } else {
      expect(badRequest?.title).toBe('ErrorResponse');
    }
  });

  it.each(apiOps.filter((o) => o.params.some((p) => p.in === 'path')).map((o) => [o.label, o] as const))(
    '%s addresses a record and answers 404',
    (_label, o) => {
      expect(Object.keys(responses(o))).toContain('404');
      expect(responseSchema(o, '404')?.title).toBe('ErrorResponse');
    },
  );

  it.each(apiOps.filter((o) => o.method === 'post').map((o) => [o.label, o] as const))(
    '%s takes an Idempotency-Key and documents 409 and 422',
    (_label, o) => {
      expect(o.params.some((p) => p.in === 'header' && p.name === 'Idempotency-Key')).toBe(true);
      expect(Object.keys(responses(o))).toEqual(expect.arrayContaining(['409', '422']));
    },
  );

  it.each(ops.map((o) => [o.label, o] as const))('%s has an operationId, one tag, a summary and a description', (_l, o) => {
    expect(o.op.operationId).toMatch(/^[a-z][A-Za-z0-9]+$/);
    expect(o.op.tags).toHaveLength(1);
    expect(String(o.op.summary).length).toBeGreaterThan(5);
    expect(String(o.op.description).length).toBeGreaterThan(20);
  });

  it('has a success response with an example body on every operation that returns JSON', () => {
    const missing = ops.filter((o) => {
      const success = Object.keys(responses(o)).find((s) => s.startsWith('2'));
      const response = deref(doc, success ? responses(o)[success] : undefined);
      if (!isObject(response) || !isObject(response.content)) return false;
      return Object.values(response.content).some((media) => {
        if (!isObject(media)) return false;
        const schema = deref(doc, media.schema);
        const schemaExamples = isObject(schema) && (Array.isArray(schema.examples) || schema.example !== undefined);
        const itemExamples = isObject(schema) && isObject(deref(doc, schema.items)) &&
          Array.isArray((deref(doc, schema.items) as JsonObject).examples);
        return media.example === undefined && media.examples === undefined && !schemaExamples && !itemExamples;
      });
    });
    expect(missing.map((o) => o.label)).toEqual([]);
  });

  it('lists a field with a default as required wherever a response carries it (clients read it as present)', () => {
    const loose: string[] = [];
    const seen = new Set<unknown>();
    const visit = (node: unknown, at: string): void => {
      const schema = deref(doc, node);
      if (!isObject(schema) || seen.has(schema)) return;
      seen.add(schema);
      const required = Array.isArray(schema.required) ? schema.required : [];
      for (const [name, property] of Object.entries(isObject(schema.properties) ? schema.properties : {})) {
        if (isObject(property) && property.default !== undefined && !required.includes(name)) loose.push(`${at}.${name}`);
        visit(property, `${at}.${name}`);
      }
      for (const key of ['items', 'allOf', 'oneOf', 'anyOf'] as const) {
        const child = schema[key];
        if (Array.isArray(child)) child.forEach((part) => { visit(part, at); });
        else visit(child, at);
      }
    };
    for (const o of ops) for (const status of Object.keys(responses(o))) visit(responseSchema(o, status), `${o.label} ${status}`);
    expect(loose).toEqual([]);
  });

  it('marks every field that holds a secret or a token x-secret, and never caches a response carrying one', () => {
    // A field named like a credential (not a type or a kind of one) must say so.
    const secretName = /(secret|password|(^|_)token$|jwtToken|access_token|refresh_token)$/i;
    const unmarked = [...walk(doc)].flatMap(([at, node]) =>
      Object.entries(isObject(node.properties) ? node.properties : {})
        .filter(([name, p]) => secretName.test(name) && !(isObject(p) && p['x-secret'] === true))
        .map(([name]) => `${at}.${name}`));
    expect(unmarked).toEqual([]);
    const carriesSecret = (node: unknown, seen = new Set<unknown>()): boolean => {
      const schema = deref(doc, node);
      if (!isObject(schema) || seen.has(schema)) return false;
      seen.add(schema);
      if (Object.values(isObject(schema.properties) ? schema.properties : {}).some((p) => isObject(p) && p['x-secret'] === true)) return true;
      return [...Object.values(isObject(schema.properties) ? schema.properties : {}), schema.items,
        ...(['allOf', 'oneOf', 'anyOf'] as const).flatMap((k) => (Array.isArray(schema[k]) ? schema[k] as unknown[] : []))]
        .some((child) => carriesSecret(child, seen));
    };
    const cached = ops.flatMap((o) => Object.keys(responses(o)).filter((status) => status.startsWith('2')).filter((status) => {
      const response = deref(doc, responses(o)[status]);
      const headers = isObject(response) && isObject(response.headers) ? response.headers : {};
      return carriesSecret(responseSchema(o, status)) && !('Cache-Control' in headers);
    }).map((status) => `${o.label} ${status}`));
    expect(cached).toEqual([]);
  });

  it('gives every designed mark a reason', () => {
    const unexplained = [...walk(doc)]
      .filter(([, node]) => node['x-provenance'] === 'designed' || 'x-designed-values' in node || 'x-designed-required' in node)
      .filter(([, node]) => typeof node['x-provenance-note'] !== 'string' || node['x-provenance-note'].length < 10)
      .map(([at]) => at);
    expect(unexplained).toEqual([]);
  });

  it('uses only the provenance value designed', () => {
    const odd = [...walk(doc)].filter(([, n]) => 'x-provenance' in n && n['x-provenance'] !== 'designed').map(([at]) => at);
    expect(odd).toEqual([]);
  });

  it('lists designed values and limits that exist', () => {
    for (const [at, node] of walk(doc)) {
      if (Array.isArray(node['x-designed-values'])) {
        for (const value of node['x-designed-values']) expect((node.enum as unknown[] | undefined) ?? [], at).toContain(value);
      }
      if (Array.isArray(node['x-designed-limits'])) {
        for (const keyword of node['x-designed-limits']) expect(Object.keys(node), at).toContain(keyword);
      }
      if (Array.isArray(node['x-designed-required'])) {
        for (const name of node['x-designed-required']) expect((node.required as unknown[] | undefined) ?? [], at).toContain(name);
      }
    }
  });

  it('gives every integer enumeration its names', () => {
    for (const [at, node] of walk(doc)) {
      const types = Array.isArray(node.type) ? node.type : [node.type];
      if (Array.isArray(node.enum) && types.includes('integer')) {
        expect(node['x-enum-varnames'], at).toHaveLength(node.enum.length);
      }
    }
  });

  it('serves the enumerations lookup exactly as the enumeration schemas say', () => {
    // spec/data/enumerations.yaml repeats spec/schemas/enums.yaml as data; the two must not drift apart.
    const examples = (doc.components as JsonObject).examples as JsonObject;
    const lookup = Object.values(examples).map((e) => e as JsonObject).find((e) => isObject(e.value) && 'AccountType' in e.value);
    const schemas = (doc.components as JsonObject).schemas as JsonObject;
    const enumerationNames = Object.keys(lookup?.value as JsonObject);
    expect(enumerationNames.length).toBeGreaterThanOrEqual(19);
    for (const name of enumerationNames) {
      const schema = schemas[name] as JsonObject;
      const names = schema['x-enum-varnames'] as string[];
      const expected = (schema.enum as number[]).map((id, i) => ({ id, name: names[i] }));
      expect((lookup?.value as JsonObject)[name], name).toEqual(expected);
    }
  });

  it('writes nullable values as 3.1 type arrays, never nullable: true', () => {
    expect([...walk(doc)].filter(([, n]) => 'nullable' in n && typeof n.nullable === 'boolean').map(([at]) => at)).toEqual([]);
  });

  it('lets a partner name the merchant on every merchant-scoped operation', () => {
    const scoped = apiOps.filter((o) => /^\/(pay-api|pay-int-api|v2\/webhooks)\//.test(o.path) && !o.path.includes('/lookups/'));
    const missing = scoped.filter((o) => !o.params.some((p) => p.in === 'header' && p.name === 'x-merchant-id'));
    expect(missing.map((o) => o.label)).toEqual([]);
  });
});
