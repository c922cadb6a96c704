// The typed client accepts every request the spec allows: for each operation with a body, the smallest valid
// body (required fields only, built from the schema) compiles; a field with a default may be left out.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
type Schema = { [key: string]: Json };
const doc = JSON.parse(readFileSync(path.join(root, 'generated', 'src', 'openapi.json'), 'utf8')) as Schema;

function isSchema(value: Json | undefined): value is Schema {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function resolve(schema: Schema): Schema {
  const ref = schema.$ref;
  if (typeof ref !== 'string') return schema;
  let node: Json | undefined = doc;
  for (const part of ref.replace(/^#\//, '').split('/')) node = isSchema(node) ? node[part] : undefined;
  if (!isSchema(node)) throw new Error(`unresolved ${ref}`);
  return resolve(node);
}

/** The smallest value of a schema: required properties only, the first branch, the first enumeration value. */
export function minimal(input: Schema, depth = 0): Json {
  if (depth > 12) throw new Error('schema too deep');
  const schema = resolve(input);
  if ('const' in schema) return schema.const ?? null;
  if (Array.isArray(schema.enum)) return schema.enum.find((v) => v !== null) ?? null;
  for (const key of ['oneOf', 'anyOf'] as const) {
    const branches = schema[key];
    if (Array.isArray(branches)) {
      const first = branches.map((b) => (isSchema(b) ? resolve(b) : {})).find((b) => b.type !== 'null');
      if (first) return minimal(first, depth + 1);
    }
  }
  if (Array.isArray(schema.allOf) && schema.allOf.length === 1 && isSchema(schema.allOf[0])) return minimal(schema.allOf[0], depth + 1);
  if (Array.isArray(schema.allOf)) {
    const merged: Schema = { type: 'object', properties: {}, required: [] };
    for (const part of schema.allOf) {
      if (!isSchema(part)) continue;
      const r = resolve(part);
      Object.assign(merged.properties as Schema, isSchema(r.properties) ? r.properties : {});
      (merged.required as Json[]).push(...(Array.isArray(r.required) ? r.required : []));
    }
    return minimal(merged, depth + 1);
  }
  const types = Array.isArray(schema.type) ? schema.type : [schema.type];
  const type = types.find((t) => t !== 'null');
  switch (type) {
    case 'string': return 'x';
    case 'integer': case 'number': return typeof schema.minimum === 'number' ? schema.minimum : 1;
    case 'boolean': return false;
    case 'array': {
      const count = typeof schema.minItems === 'number' ? schema.minItems : 0;
      return Array.from({ length: count }, () => minimal(isSchema(schema.items) ? schema.items : {}, depth + 1));
    }
    default: {
      const properties = isSchema(schema.properties) ? schema.properties : {};
      const required = Array.isArray(schema.required) ? schema.required.filter((r): r is string => typeof r === 'string') : [];
      return Object.fromEntries(required.map((name) => [name, minimal(isSchema(properties[name]) ? properties[name] : {}, depth + 1)]));
    }
  }
}

interface BodyCase { operationId: string; body: Json; omitted: string[] }

/** Every operation with a JSON body, its smallest body, and the defaulted fields that body leaves out. */
function cases(): BodyCase[] {
  const found: BodyCase[] = [];
  for (const item of Object.values(isSchema(doc.paths) ? doc.paths : {})) {
    if (!isSchema(item)) continue;
    for (const op of Object.values(item)) {
      if (!isSchema(op) || typeof op.operationId !== 'string' || !isSchema(op.requestBody)) continue;
      const content = resolve(op.requestBody).content;
      const media = isSchema(content) ? content['application/json'] : undefined;
      if (!isSchema(media) || !isSchema(media.schema)) continue;
      const schema = resolve(media.schema);
      const properties = isSchema(schema.properties) ? schema.properties : {};
      const required = Array.isArray(schema.required) ? schema.required : [];
      const omitted = Object.entries(properties)
        .filter(([name, p]) => isSchema(p) && resolve(p).default !== undefined && !required.includes(name))
        .map(([name]) => name);
      found.push({ operationId: op.operationId, body: minimal(schema), omitted });
    }
  }
  return found;
}

const all = cases();
let dir: string;
let problems: string[] = [];

beforeAll(() => {
  dir = mkdtempSync(path.join(root, 'generator', 'test', '.client-requests-'));
  const lines = [
    "import type { operations } from '@pgw/client/types';",
    "import { createApiClient } from '@pgw/client/client';",
    'type Body<K extends keyof operations> = operations[K] extends { requestBody?: infer B } ? NonNullable<B> extends { content: { "application/json": infer J } } ? J : never : never;',
    ...all.map((c) => `export const ${c.operationId}: Body<'${c.operationId}'> = ${JSON.stringify(c.body)};`),
    // The case an integrator met first: a customer with a name and an e-mail address.
    "export const call = (client: ReturnType<typeof createApiClient>) => client.api.POST('/pay-api/v1/customers', { body: { firstName: 'Jane', lastName: 'Doe', email: 'jane@example.com' } });",
  ];
  const file = path.join(dir, 'bodies.ts');
  writeFileSync(file, lines.join('\n'));
  const config = ts.getParsedCommandLineOfConfigFile(path.join(root, 'tsconfig.json'), {}, {
    ...ts.sys,
    onUnRecoverableConfigFileDiagnostic: (d) => { throw new Error(ts.flattenDiagnosticMessageText(d.messageText, '\n')); },
  });
  if (!config) throw new Error('no tsconfig');
  const program = ts.createProgram([file], config.options);
  const source = program.getSourceFile(file);
  problems = [...program.getSemanticDiagnostics(source), ...program.getSyntacticDiagnostics(source)].map((d) => {
    const line = d.start === undefined || !source ? '?' : String(source.getLineAndCharacterOfPosition(d.start).line + 1);
    return `line ${line}: ${ts.flattenDiagnosticMessageText(d.messageText, '\n')}`;
  });
}, 120_000);

afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

describe('client request types', () => {
  it('cover the operations with a JSON body, some of them with defaulted fields left out', () => {
    expect(all.length).toBeGreaterThan(25);
    expect(all.filter((c) => c.omitted.length > 0).map((c) => c.operationId)).toEqual(expect.arrayContaining(['createCustomer', 'createAchDebit', 'createLineItem']));
  });

  it('accept the smallest valid body of every operation (defaults may be left out)', () => {
    expect(problems).toEqual([]);
  });
});
