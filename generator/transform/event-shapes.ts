// An event body's schema -> the EventShape @pgw/runtime/webhooks checks a verified delivery against: JSON types, constants, allowed values and required properties, a few levels deep.
import { ModelError, deref, type JsonObject } from '../model.ts';

type Scalar = string | number | boolean | null;
export interface Shape {
  types?: string[];
  const?: Scalar;
  enum?: Scalar[];
  required?: string[];
  properties?: Record<string, Shape>;
  items?: Shape;
}

const TYPES = new Set(['object', 'array', 'string', 'number', 'integer', 'boolean', 'null']);
/** How deep properties are followed: the envelope, its data, data's fields and theirs. Deeper values pass unchecked. */
const DEPTH = 4;

const isObject = (value: unknown): value is JsonObject => typeof value === 'object' && value !== null && !Array.isArray(value);
const isScalar = (value: unknown): value is Scalar => value === null || ['string', 'number', 'boolean'].includes(typeof value);

function typesOf(schema: JsonObject): string[] | undefined {
  const listed = Array.isArray(schema.type) ? schema.type : typeof schema.type === 'string' ? [schema.type] : undefined;
  if (listed === undefined) return undefined;
  const types = listed.filter((t): t is string => typeof t === 'string' && TYPES.has(t));
  // An integer is a number; OpenAPI 3.0's nullable adds null.
  if (types.includes('number') && !types.includes('integer')) types.push('integer');
  if (schema.nullable === true && !types.includes('null')) types.push('null');
  return types.length > 0 ? types : undefined;
}

/** Two shapes that both hold (allOf): their types intersected, their requirements and properties joined. */
function both(a: Shape, b: Shape): Shape {
  const merged: Shape = { ...a, ...b };
  if (a.types && b.types) merged.types = a.types.filter((t) => b.types?.includes(t) === true);
  if (a.required || b.required) merged.required = [...new Set([...(a.required ?? []), ...(b.required ?? [])])];
  if (a.properties || b.properties) {
    const properties: Record<string, Shape> = { ...a.properties };
    for (const [name, shape] of Object.entries(b.properties ?? {})) properties[name] = properties[name] ? both(properties[name], shape) : shape;
    merged.properties = properties;
  }
  return merged;
}

/** The shape of schema (undefined: anything passes); references followed, cycles and external ones left unchecked. */
export function shapeOf(doc: JsonObject, node: unknown, depth = DEPTH, refs: readonly string[] = []): Shape | undefined {
  if (depth < 0) return undefined;
  const ref = isObject(node) && typeof node.$ref === 'string' ? node.$ref : undefined;
  if (ref !== undefined && refs.includes(ref)) return undefined;
  let schema: unknown;
  try {
    schema = deref(doc, node);
  } catch (error) {
    if (error instanceof ModelError) return undefined;
    throw error;
  }
  if (!isObject(schema)) return undefined;
  const path = ref === undefined ? refs : [...refs, ref];
  let shape: Shape = {};
  const types = typesOf(schema);
  if (types) shape.types = types;
  if (isScalar(schema.const)) shape.const = schema.const;
  if (Array.isArray(schema.enum) && schema.enum.every(isScalar)) shape.enum = schema.enum;
  if (Array.isArray(schema.required)) shape.required = schema.required.filter((r): r is string => typeof r === 'string');
  if (isObject(schema.properties) && depth > 0) {
    const properties: Record<string, Shape> = {};
    for (const [name, inner] of Object.entries(schema.properties)) {
      const innerShape = shapeOf(doc, inner, depth - 1, path);
      if (innerShape !== undefined && Object.keys(innerShape).length > 0) properties[name] = innerShape;
    }
    if (Object.keys(properties).length > 0) shape.properties = properties;
  }
  if (schema.items !== undefined && depth > 0) {
    const items = shapeOf(doc, schema.items, depth - 1, path);
    if (items !== undefined && Object.keys(items).length > 0) shape.items = items;
  }
  // allOf: every part holds. oneOf/anyOf add no requirement here: a delivery is checked only as far as it is certain.
  if (Array.isArray(schema.allOf)) {
    for (const part of schema.allOf) {
      const partShape = shapeOf(doc, part, depth, path);
      if (partShape !== undefined) shape = both(shape, partShape);
    }
  }
  return shape;
}
