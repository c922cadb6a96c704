// Reads a bundled OpenAPI 3.1 document into the plain model every transform works from.
import { camelCase, pascalCase } from './names.ts';

export type JsonObject = Record<string, unknown>;
const isObject = (v: unknown): v is JsonObject => typeof v === 'object' && v !== null && !Array.isArray(v);
const METHODS = ['get', 'put', 'post', 'delete', 'patch', 'head', 'options'] as const;
export type Method = (typeof METHODS)[number];

export interface ParameterModel {
  readonly name: string;
  readonly in: 'path' | 'query' | 'header' | 'cookie';
  readonly required: boolean;
}

export interface ResponseModel {
  /** `200`, `4XX` or `default`, as the document writes it. */
  readonly status: string;
  /** Media types of the body; empty when the response has none. */
  readonly mediaTypes: readonly string[];
}

export interface OperationModel {
  readonly operationId: string;
  /** PascalCase of operationId, the stem of the generated type names. */
  readonly typeName: string;
  readonly method: Method;
  readonly path: string;
  readonly tag: string;
  /** camelCase of the tag: the key of its handler group. */
  readonly group: string;
  readonly summary: string | undefined;
  readonly description: string | undefined;
  readonly deprecated: boolean;
  readonly parameters: readonly ParameterModel[];
  readonly requestBody: { readonly required: boolean; readonly mediaTypes: readonly string[] } | undefined;
  readonly responses: readonly ResponseModel[];
  readonly security: readonly (readonly string[])[];
}

export interface TagModel {
  readonly name: string;
  readonly group: string;
  /** The handler interface name, e.g. `CustomersHandlers`. */
  readonly interfaceName: string;
  readonly description: string | undefined;
  readonly operations: readonly OperationModel[];
}

export interface WebhookModel {
  /** The key in the document's `webhooks` (the event type). */
  readonly name: string;
  readonly method: Method;
  readonly operationId: string | undefined;
  readonly typeName: string;
  readonly summary: string | undefined;
  /** Media types of the request body. */
  readonly mediaTypes: readonly string[];
  /** Extensions that describe the event, such as `x-event-id`, kept as written. */
  readonly extensions: Readonly<Record<string, unknown>>;
}

export interface ApiModel {
  readonly title: string;
  readonly version: string;
  readonly operations: readonly OperationModel[];
  readonly tags: readonly TagModel[];
  readonly webhooks: readonly WebhookModel[];
}

export class ModelError extends Error {}

function deref(doc: JsonObject, node: unknown): unknown {
  let current = node;
  for (let depth = 0; isObject(current) && typeof current.$ref === 'string'; depth++) {
    if (depth > 32) throw new ModelError(`reference cycle at ${current.$ref}`);
    const ref = current.$ref;
    if (!ref.startsWith('#/')) throw new ModelError(`${ref}: bundle the document first (only local references are read)`);
    current = ref.slice(2).split('/').map((p) => p.replaceAll('~1', '/').replaceAll('~0', '~'))
      .reduce<unknown>((acc, key) => (isObject(acc) ? acc[key] : undefined), doc);
    if (current === undefined) throw new ModelError(`unresolved reference ${ref}`);
  }
  return current;
}

function parametersOf(doc: JsonObject, ...lists: unknown[]): ParameterModel[] {
  const byKey = new Map<string, ParameterModel>();
  for (const list of lists) {
    for (const raw of Array.isArray(list) ? list : []) {
      const p = deref(doc, raw);
      if (!isObject(p) || typeof p.name !== 'string') continue;
      const location = p.in;
      if (location !== 'path' && location !== 'query' && location !== 'header' && location !== 'cookie') continue;
      // An operation's parameter overrides the path item's one of the same name and location
      // (header names compare without case).
      const key = location === 'header' ? p.name.toLowerCase() : p.name;
      byKey.set(`${location}:${key}`, { name: p.name, in: location, required: p.required === true || location === 'path' });
    }
  }
  return [...byKey.values()];
}

const mediaTypesOf = (content: unknown): string[] => (isObject(content) ? Object.keys(content) : []);

function securityOf(requirements: unknown): string[][] {
  if (!Array.isArray(requirements)) return [];
  return requirements.filter(isObject).map((req) => Object.keys(req).sort());
}

function readOperation(doc: JsonObject, path: string, method: Method, item: JsonObject, op: JsonObject, tagOrder: string[]): OperationModel {
  const where = `${method.toUpperCase()} ${path}`;
  if (typeof op.operationId !== 'string' || !/^[A-Za-z_][A-Za-z0-9_]*$/.test(op.operationId)) {
    throw new ModelError(`${where}: an operationId made of letters, digits and _ is required`);
  }
  const tags = Array.isArray(op.tags) ? op.tags.filter((t): t is string => typeof t === 'string') : [];
  const tag = tags[0] ?? 'default';
  if (!tagOrder.includes(tag)) tagOrder.push(tag);
  const body = deref(doc, op.requestBody);
  const responses = isObject(op.responses) ? op.responses : {};
  const security = op.security !== undefined ? op.security : doc.security;
  const requirements = securityOf(security);
  return {
    operationId: op.operationId,
    typeName: pascalCase(op.operationId),
    method,
    path,
    tag,
    group: camelCase(tag),
    summary: typeof op.summary === 'string' ? op.summary : undefined,
    description: typeof op.description === 'string' ? op.description : undefined,
    deprecated: op.deprecated === true,
    parameters: parametersOf(doc, item.parameters, op.parameters),
    requestBody: isObject(body) ? { required: body.required === true, mediaTypes: mediaTypesOf(body.content) } : undefined,
    responses: Object.keys(responses).map((status) => {
      const response = deref(doc, responses[status]);
      return { status, mediaTypes: isObject(response) ? mediaTypesOf(response.content) : [] };
    }),
    // An empty requirement object ({}) means "no authentication" is one of the alternatives.
    security: requirements.some((r) => r.length === 0) ? [] : requirements,
  };
}

/** Builds the model of a bundled document; throws ModelError for what the generator cannot serve. */
export function readModel(doc: JsonObject): ApiModel {
  if (typeof doc.openapi !== 'string' || !doc.openapi.startsWith('3.')) throw new ModelError('an OpenAPI 3 document is required');
  const info = isObject(doc.info) ? doc.info : {};
  const tagOrder = (Array.isArray(doc.tags) ? doc.tags : []).filter(isObject).map((t) => String(t.name));
  const operations: OperationModel[] = [];
  const paths = isObject(doc.paths) ? doc.paths : {};
  for (const [path, rawItem] of Object.entries(paths)) {
    const item = deref(doc, rawItem);
    if (!isObject(item)) continue;
    for (const method of METHODS) {
      const op = item[method];
      if (isObject(op)) operations.push(readOperation(doc, path, method, item, op, tagOrder));
    }
  }
  const seen = new Map<string, OperationModel>();
  for (const op of operations) {
    const other = seen.get(op.typeName);
    if (other) throw new ModelError(`operationIds ${other.operationId} and ${op.operationId} give the same type name ${op.typeName}`);
    seen.set(op.typeName, op);
  }
  const tagInfo = new Map((Array.isArray(doc.tags) ? doc.tags : []).filter(isObject).map((t) => [String(t.name), t]));
  const tags = tagOrder
    .map((name): TagModel => ({
      name,
      group: camelCase(name),
      interfaceName: `${pascalCase(name)}Handlers`,
      description: typeof tagInfo.get(name)?.description === 'string' ? String(tagInfo.get(name)?.description) : undefined,
      operations: operations.filter((op) => op.tag === name),
    }))
    .filter((tag) => tag.operations.length > 0);
  const groups = new Map<string, string>();
  for (const tag of tags) {
    const other = groups.get(tag.group);
    if (other !== undefined) throw new ModelError(`tags "${other}" and "${tag.name}" give the same handler group ${tag.group}`);
    groups.set(tag.group, tag.name);
  }
  const webhooks: WebhookModel[] = [];
  const hooks = isObject(doc.webhooks) ? doc.webhooks : {};
  for (const [name, rawItem] of Object.entries(hooks)) {
    const item = deref(doc, rawItem);
    if (!isObject(item)) continue;
    for (const method of METHODS) {
      const op = item[method];
      if (!isObject(op)) continue;
      const body = deref(doc, op.requestBody);
      webhooks.push({
        name,
        method,
        operationId: typeof op.operationId === 'string' ? op.operationId : undefined,
        typeName: pascalCase(typeof op.operationId === 'string' ? op.operationId : `${name} ${method}`),
        summary: typeof op.summary === 'string' ? op.summary : undefined,
        mediaTypes: isObject(body) ? mediaTypesOf(body.content) : [],
        extensions: Object.fromEntries(Object.entries(op).filter(([key]) => key.startsWith('x-'))),
      });
    }
  }
  return {
    title: typeof info.title === 'string' ? info.title : 'API',
    version: typeof info.version === 'string' ? info.version : '0.0.0',
    operations,
    tags,
    webhooks,
  };
}
