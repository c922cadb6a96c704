// Data that lives in the spec (enumeration names, lookup lists), read from the bundled document, so the
// server never restates what the contract says.
import type { enumerations } from '@pgw/client/enums';
import { apiSpec } from '@pgw/client/server';

/** The name of an integer enumeration of the spec (generated/enums.ts): a misspelt one does not compile. */
export type EnumerationName = keyof typeof enumerations;

type JsonObject = Record<string, unknown>;
const asObject = (v: unknown): JsonObject => (typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as JsonObject) : {});

/** `id -> name` of an integer enumeration of the spec (`x-enum-varnames`). */
export function enumeration(name: EnumerationName, document: JsonObject = apiSpec): Map<number, string> {
  const schema = asObject(asObject(asObject(document.components).schemas)[name]);
  const ids = Array.isArray(schema.enum) ? (schema.enum as number[]) : [];
  const names = Array.isArray(schema['x-enum-varnames']) ? (schema['x-enum-varnames'] as string[]) : [];
  if (ids.length === 0 || ids.length !== names.length) throw new Error(`the spec has no named enumeration ${name}`);
  return new Map(ids.map((id, i) => [id, names[i] ?? String(id)]));
}

export const enumerationItems = (name: EnumerationName): { id: number; name: string }[] =>
  [...enumeration(name)].map(([id, label]) => ({ id, name: label }));

/** The value of the first example of an operation's 200 response: the data behind the lookups. */
export function responseExample(path: string, method: string, document: JsonObject = apiSpec): unknown {
  const operation = asObject(asObject(asObject(document.paths)[path])[method]);
  const media = asObject(asObject(asObject(asObject(operation.responses)['200']).content)['application/json']);
  if (media.example !== undefined) return media.example;
  const first = Object.values(asObject(media.examples))[0];
  let example = asObject(first);
  const ref = example.$ref;
  if (typeof ref === 'string' && ref.startsWith('#/components/examples/')) {
    example = asObject(asObject(asObject(document.components).examples)[ref.slice('#/components/examples/'.length)]);
  }
  if (example.value === undefined) throw new Error(`the spec gives no example data for ${method.toUpperCase()} ${path}`);
  return example.value;
}

/** The `maximum` of a property of a component schema: a bound the contract states, read rather than restated. */
export function schemaMaximum(schema: string, property: string, document: JsonObject = apiSpec): number {
  const maximum = asObject(asObject(asObject(asObject(asObject(document.components).schemas)[schema]).properties)[property]).maximum;
  if (typeof maximum !== 'number') throw new Error(`the spec gives ${schema}.${property} no maximum`);
  return maximum;
}
