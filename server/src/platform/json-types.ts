// Which JSON types a request body's schema accepts at a field path: a value is of the "wrong JSON type"
// (the interface's alternative 400 body) only when no alternative of the schema accepts its type.
import type { IncomingMessage } from 'node:http';
import { apiSpec, matchedRoute } from '@pgw/client/server';

type JsonObject = Record<string, unknown>;
const isObject = (v: unknown): v is JsonObject => typeof v === 'object' && v !== null && !Array.isArray(v);

export type JsonType = 'null' | 'boolean' | 'integer' | 'number' | 'string' | 'array' | 'object';

export function jsonTypeOf(value: unknown): JsonType {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  if (typeof value === 'number') return Number.isInteger(value) ? 'integer' : 'number';
  if (typeof value === 'boolean' || typeof value === 'string' || typeof value === 'object') return typeof value as JsonType;
  return 'string';
}

function deref(node: unknown): unknown {
  let current = node;
  for (let i = 0; i < 32 && isObject(current) && typeof current.$ref === 'string' && current.$ref.startsWith('#/'); i++) {
    current = current.$ref.slice(2).split('/').map((p) => p.replaceAll('~1', '/').replaceAll('~0', '~'))
      .reduce<unknown>((acc, key) => (isObject(acc) ? acc[key] : undefined), apiSpec);
  }
  return current;
}

/** The schema and the alternatives it composes (oneOf, anyOf, allOf), each resolved. */
function alternatives(node: unknown): JsonObject[] {
  const schema = deref(node);
  if (!isObject(schema)) return [];
  const composed = ['oneOf', 'anyOf', 'allOf'].flatMap((key) => (Array.isArray(schema[key]) ? (schema[key] as unknown[]) : []));
  return [schema, ...composed.flatMap(alternatives)];
}

/** The JSON types accepted at a path below a schema, or 'any' when nothing there restricts the type. */
export function acceptedTypes(schema: unknown, path: readonly string[]): Set<JsonType> | 'any' {
  const options = alternatives(schema);
  if (path.length === 0) {
    const typed = options.filter((o) => o.type !== undefined);
    if (typed.length === 0) return 'any';
    return new Set(typed.flatMap((o) => (Array.isArray(o.type) ? o.type : [o.type]) as JsonType[]));
  }
  const [segment = '', ...rest] = path;
  let any = false;
  const types = new Set<JsonType>();
  for (const option of options) {
    const child = isObject(option.properties) && segment in option.properties ? option.properties[segment]
      : /^\d+$/.test(segment) && option.items !== undefined ? option.items
        : isObject(option.additionalProperties) ? option.additionalProperties : undefined;
    if (child === undefined) continue;
    const found = acceptedTypes(child, rest);
    if (found === 'any') any = true;
    else for (const t of found) types.add(t);
  }
  return any || types.size === 0 ? 'any' : types;
}

/** True when the value at the path is a JSON type that the schema does not accept there. */
export function isWrongJsonType(schema: unknown, body: unknown, path: readonly string[]): boolean {
  let value: unknown = body;
  for (const segment of path) {
    if (!isObject(value) && !Array.isArray(value)) return false;
    value = (value as Record<string, unknown>)[segment];
  }
  if (value === undefined) return false;
  const accepted = acceptedTypes(schema, path);
  if (accepted === 'any') return false;
  const type = jsonTypeOf(value);
  return !(accepted.has(type) || (type === 'integer' && accepted.has('number')));
}

/** The JSON request body schema of the operation the router matched the request to. */
export function requestBodySchema(req: IncomingMessage): unknown {
  const route = matchedRoute(req);
  const paths = isObject(apiSpec.paths) ? apiSpec.paths : {};
  const item = route ? deref(paths[route.path]) : undefined;
  const operation = isObject(item) && route ? item[route.method] : undefined;
  const body = isObject(operation) ? deref(operation.requestBody) : undefined;
  const media = isObject(body) && isObject(body.content) ? body.content['application/json'] : undefined;
  return isObject(media) ? media.schema : undefined;
}
