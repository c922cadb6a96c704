// The provenance rule: every field, parameter and operation the interface does not show is marked designed.
// Returns one line per unmarked invention, so a new field or operation without a mark fails the contract rules.
import * as facts from './interface-facts.ts';
import { bodySchema, deref, operation, view, type JsonObject } from './faithfulness.ts';

const isObject = (v: unknown): v is JsonObject => typeof v === 'object' && v !== null && !Array.isArray(v);
const methods = ['get', 'put', 'post', 'delete', 'patch'] as const;

/** A node is marked when it, the schema it references, or one of its allOf/oneOf/anyOf parts says designed. */
function marked(doc: JsonObject, node: unknown): boolean {
  if (!isObject(node)) return false;
  if (node['x-provenance'] === 'designed') return true;
  const target = deref(doc, node);
  if (isObject(target) && target['x-provenance'] === 'designed') return true;
  return (['allOf', 'oneOf', 'anyOf'] as const).some((key) => {
    const parts = node[key];
    return Array.isArray(parts) && parts.some((part) => {
      const resolved = deref(doc, part);
      return isObject(resolved) && resolved['x-provenance'] === 'designed';
    });
  });
}

/** Every name the interface gives a field: the bodies' field paths, the token services, errors and events. */
function interfaceNames(): Set<string> {
  const names = new Set<string>();
  for (const body of facts.bodies) {
    for (const field of body.fields) for (const part of field.replace(/\?$/, '').split('.')) names.add(part.replaceAll('[]', ''));
  }
  for (const list of Object.values(facts.tokenRequired)) for (const name of list) names.add(name);
  for (const [name] of facts.standardErrorFields) names.add(name);
  for (const [name] of facts.alternativeErrorFields) names.add(name);
  for (const name of facts.webhookPayloadFields) names.add(name);
  names.delete('');
  return names;
}

/** Top-level fields of each body the interface shows: the facts list them all, so any other is designed. */
function unmarkedBodyFields(doc: JsonObject): string[] {
  const found: string[] = [];
  for (const body of facts.bodies) {
    const op = operation(doc, body.method, body.path);
    if (!op) continue;
    const listed = new Set(body.fields.map((f) => (f.replace(/\?$/, '').replace(/^\[\]\./, '').split('.')[0] ?? '').replaceAll('[]', '')));
    const schema = view(doc, bodySchema(doc, op, body.where));
    const shape = Object.keys(schema.properties).length > 0 ? schema : view(doc, schema.items);
    for (const [name, property] of Object.entries(shape.properties)) {
      if (!listed.has(name) && !marked(doc, property)) found.push(`${body.method.toUpperCase()} ${body.path} ${body.where}: field ${name} is not in the interface and not marked designed`);
    }
  }
  return found;
}

/** Nested fields anywhere in the components: a name the interface never uses must be marked (or sit inside a marked node). */
function unmarkedNames(doc: JsonObject, known: Set<string>): string[] {
  const found: string[] = [];
  const visit = (node: unknown, at: string, designed: boolean, seen: Set<unknown>): void => {
    if (!isObject(node) || seen.has(node)) return;
    seen.add(node);
    const here = designed || node['x-provenance'] === 'designed';
    if (isObject(node.properties)) {
      for (const [name, property] of Object.entries(node.properties)) {
        const mark = here || marked(doc, property);
        if (!known.has(name) && !mark) found.push(`${at}.${name}: a field the interface does not name, not marked designed`);
        visit(property, `${at}.${name}`, mark, seen);
      }
    }
    for (const key of ['items', 'allOf', 'oneOf', 'anyOf'] as const) {
      const child = node[key];
      if (Array.isArray(child)) child.forEach((part, i) => { visit(part, `${at}.${key}[${String(i)}]`, here, seen); });
      else visit(child, `${at}.${key}`, here, seen);
    }
  };
  const components = isObject(doc.components) && isObject(doc.components.schemas) ? doc.components.schemas : {};
  for (const [name, schema] of Object.entries(components)) visit(schema, name, false, new Set());
  return found;
}

/** Operations and query parameters the interface does not list must be marked designed. */
function unmarkedOperations(doc: JsonObject): string[] {
  const found: string[] = [];
  const listed = new Set(facts.operations.map(([m, p]) => `${m} ${p}`));
  const queries = new Map(facts.queryParameters.map((q) => [`${q.method} ${q.path}`, new Set(q.names)]));
  const paths = isObject(doc.paths) ? doc.paths : {};
  for (const [path, raw] of Object.entries(paths)) {
    const item = deref(doc, raw);
    if (!isObject(item)) continue;
    for (const method of methods) {
      const op = item[method];
      if (!isObject(op)) continue;
      const key = `${method} ${path}`;
      const interfaceOp = listed.has(key) || typeof op['x-interface-address'] === 'string';
      if (!interfaceOp && op['x-provenance'] !== 'designed') found.push(`${method.toUpperCase()} ${path}: an operation the interface does not list, not marked designed`);
      // An interface operation's query parameters: those the interface names for it, else the common ones.
      if (!interfaceOp) continue;
      const names = queries.get(key) ?? new Set<string>(facts.commonQueryParameters);
      const listOf = (value: unknown): unknown[] => (Array.isArray(value) ? (value as unknown[]) : []);
      const params = [...listOf(item.parameters), ...listOf(op.parameters)];
      for (const raw of params) {
        const param = deref(doc, raw);
        if (!isObject(param) || param.in !== 'query' || typeof param.name !== 'string') continue;
        if (!names.has(param.name) && !marked(doc, param) && !marked(doc, param.schema)) found.push(`${method.toUpperCase()} ${path}: query parameter ${param.name} is not in the interface and not marked designed`);
      }
    }
  }
  return found;
}

export function unmarkedInventions(doc: JsonObject): string[] {
  return [...unmarkedOperations(doc), ...unmarkedBodyFields(doc), ...unmarkedNames(doc, interfaceNames())];
}
