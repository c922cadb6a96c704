// Fields a response carries that its schema does not document: the spec marks a field as absent from an
// answer by leaving it out of that answer's schema (AchCommandResult is AchTransactionResult without
// processedAmount), so an extra field is as much a deviation as a missing one, and a secret in a list is one.
import type { Spec } from './spec.ts';

type JsonObject = Record<string, unknown>;
const isObject = (v: unknown): v is JsonObject => typeof v === 'object' && v !== null && !Array.isArray(v);

interface Shape {
  /** Declared property names and their schemas (several schemas when branches of a oneOf/allOf declare one). */
  properties: Map<string, unknown[]>;
  /** Any property may appear (additionalProperties not false, patternProperties, or no properties declared at all). */
  open: boolean;
  items: unknown[];
}

/** What a schema (with its allOf/oneOf/anyOf branches) declares: branches are joined, so only a field no branch declares counts. */
function shapeOf(spec: Spec, node: unknown, shape: Shape = { properties: new Map(), open: false, items: [] }, depth = 0): Shape {
  const schema = spec.resolve(node);
  if (!isObject(schema) || depth > 20) return shape;
  if (isObject(schema.properties)) {
    for (const [name, sub] of Object.entries(schema.properties)) shape.properties.set(name, [...(shape.properties.get(name) ?? []), sub]);
  }
  if (schema.additionalProperties !== undefined && schema.additionalProperties !== false) shape.open = true;
  if (schema.patternProperties !== undefined) shape.open = true;
  if (schema.items !== undefined) shape.items.push(schema.items);
  for (const key of ['allOf', 'oneOf', 'anyOf'] as const) {
    const branches = schema[key];
    if (Array.isArray(branches)) for (const branch of branches) shapeOf(spec, branch, shape, depth + 1);
  }
  return shape;
}

/** Whether a schema says anything about an object's properties (a bare `type: object` says nothing). */
const declaresProperties = (shape: Shape): boolean => shape.properties.size > 0;

function walk(spec: Spec, schemas: readonly unknown[], value: unknown, where: string, found: string[], depth: number): void {
  if (depth > 20 || found.length >= 20) return;
  const shape: Shape = { properties: new Map(), open: false, items: [] };
  for (const s of schemas) shapeOf(spec, s, shape);
  if (Array.isArray(value)) {
    value.forEach((item, i) => { walk(spec, shape.items, item, `${where}[${String(i)}]`, found, depth + 1); });
    return;
  }
  if (!isObject(value) || !declaresProperties(shape)) return;
  for (const [name, child] of Object.entries(value)) {
    const declared = shape.properties.get(name);
    if (declared === undefined) {
      if (!shape.open) found.push(`${where}.${name}`);
      continue;
    }
    walk(spec, declared, child, `${where}.${name}`, found, depth + 1);
  }
}

/** The paths (`body.items[0].clientSecret`) of fields in a response body that its documented schema does not declare. */
export function undocumentedFields(spec: Spec, operationId: string, status: number, body: unknown): string[] {
  const schema = spec.responseSchema(operationId, status);
  if (schema === undefined) return [];
  const found: string[] = [];
  walk(spec, [schema], body, 'body', found, 0);
  return found;
}
