// Reads a bundled OpenAPI 3.1 document into the plain model every transform works from.
import { camelCase, isIdentifier, nameKey, operationName, pascalCase, uniqueNames } from './names.ts';

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
  /**
   * The operation's name in generated code (handler method, dispatch key, `OperationId` member): the document's
   * operationId when that is an identifier, else a name derived from it or from the method and path
   * (names.ts `operationName`), made unique.
   */
  readonly operationId: string;
  /** The operationId as the document writes it; undefined when it has none. */
  readonly documentOperationId: string | undefined;
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
  /** The event body's type name (`CustomerCreatedEvent`), unique in webhooks.ts. */
  readonly typeName: string;
  readonly summary: string | undefined;
  /** Media types of the request body. */
  readonly mediaTypes: readonly string[];
  /** Extensions that describe the event, such as `x-event-id`, kept as written. */
  readonly extensions: Readonly<Record<string, unknown>>;
  /** The schema of the JSON body, as written (a `$ref` unresolved); undefined without a JSON body. */
  readonly schema: unknown;
}

export interface ApiModel {
  readonly title: string;
  /** What the generator says about the document without refusing it (names it derived, what it cannot express). */
  readonly notes: readonly string[];
  readonly version: string;
  readonly operations: readonly OperationModel[];
  readonly tags: readonly TagModel[];
  readonly webhooks: readonly WebhookModel[];
}

export class ModelError extends Error {}

/** The schema of a request body's JSON media type (`application/json` or `+json`), if it has one. */
function jsonSchemaOf(doc: JsonObject, body: unknown): unknown {
  if (!isObject(body) || !isObject(body.content)) return undefined;
  const media = Object.keys(body.content).find((m) => /^application\/(?:[\w.-]+\+)?json\b/i.test(m));
  const entry = media === undefined ? undefined : deref(doc, body.content[media]);
  return isObject(entry) ? entry.schema : undefined;
}

/** The node a local `$ref` chain ends at (the node itself when it is no reference). */
export function deref(doc: JsonObject, node: unknown): unknown {
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

/**
 * What the generator cannot express, by kind, with the places that use it: said once per kind (a note, not a
 * refusal), the places listed.
 */
class Unexpressed {
  private readonly places = new Map<string, string[]>();
  add(kind: string, place: string): void {
    const list = this.places.get(kind) ?? [];
    if (!list.includes(place)) list.push(place);
    this.places.set(kind, list);
  }
  notes(): string[] {
    return [...this.places].map(([kind, list]) => `${kind}: ${list.slice(0, 3).join(', ')}${list.length > 3 ? `, and ${String(list.length - 3)} more` : ''}`);
  }
}

/** The default style of a parameter's location, and whether it explodes by default. */
const DEFAULT_STYLE = { path: 'simple', query: 'form', header: 'simple', cookie: 'form' } as const;

/** Media types the router's body reader parses (request-body.ts). */
const readable = (type: string): boolean => /^application\/(?:[\w.+-]*\+)?json\b/.test(type) || type.startsWith('application/x-www-form-urlencoded') || type.startsWith('text/');

/** Notes what of an operation's parameters and body the router does not read as the document says. */
function noteUnexpressed(doc: JsonObject, where: string, item: JsonObject, op: JsonObject, unexpressed: Unexpressed): void {
  const list = (v: unknown): unknown[] => (Array.isArray(v) ? (v as unknown[]) : []);
  for (const raw of [...list(item.parameters), ...list(op.parameters)]) {
    const p = deref(doc, raw);
    if (!isObject(p) || typeof p.name !== 'string') continue;
    const place = `${where} ${String(p.in)} ${p.name}`;
    if (p.in === 'cookie') unexpressed.add('cookie parameters are not read (handlers do not receive them, the router does not check them)', place);
    const location = p.in === 'path' || p.in === 'query' || p.in === 'header' ? p.in : undefined;
    if (location === undefined) continue;
    const style = typeof p.style === 'string' ? p.style : DEFAULT_STYLE[location];
    const explode = typeof p.explode === 'boolean' ? p.explode : style === 'form';
    if (style !== DEFAULT_STYLE[location] || explode !== (style === 'form')) unexpressed.add('parameters of a style other than their location\'s default are read as the default style (path, header: simple; query: form, exploded)', `${place} (${style}${explode ? ', explode' : ''})`);
    if (p.content !== undefined) unexpressed.add('parameters described by content (not schema) are read as text, not parsed', place);
  }
  const body = deref(doc, op.requestBody);
  for (const type of isObject(body) ? mediaTypesOf(body.content) : []) {
    if (!readable(type)) unexpressed.add('request bodies of media types other than JSON, forms (urlencoded) and text are not parsed: the handler receives no body, and a required one is refused', `${where} ${type}`);
  }
  if (isObject(op.callbacks) && Object.keys(op.callbacks).length > 0) unexpressed.add('callbacks have types (types.ts `callbacks`), but no client to send them nor router to receive them', where);
}

/** An operation as read, before its name is settled (names depend on every operation of the document). */
type OperationDraft = Omit<OperationModel, 'operationId' | 'typeName'>;

function readOperation(doc: JsonObject, path: string, method: Method, item: JsonObject, op: JsonObject, tagOrder: string[], unexpressed: Unexpressed): OperationDraft {
  noteUnexpressed(doc, `${method.toUpperCase()} ${path}`, item, op, unexpressed);
  const tags = Array.isArray(op.tags) ? op.tags.filter((t): t is string => typeof t === 'string') : [];
  const tag = tags[0] ?? 'default';
  if (!tagOrder.includes(tag)) tagOrder.push(tag);
  const body = deref(doc, op.requestBody);
  const responses = isObject(op.responses) ? op.responses : {};
  const security = op.security !== undefined ? op.security : doc.security;
  const requirements = securityOf(security);
  return {
    documentOperationId: typeof op.operationId === 'string' ? op.operationId : undefined,
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

/**
 * Each operation's name: an operationId that is an identifier keeps it (the first of two that differ only in
 * case); the others are derived and numbered past every name taken, in document order, so that adding an
 * operation never renames one that has an operationId.
 */
function nameOperations(drafts: readonly OperationDraft[], notes: string[]): string[] {
  const explicit = drafts.map((d) => (d.documentOperationId !== undefined && isIdentifier(d.documentOperationId) ? d.documentOperationId : undefined));
  const seen = new Set<string>();
  const kept = explicit.map((id) => {
    if (id === undefined || seen.has(nameKey(id))) return undefined;
    seen.add(nameKey(id));
    return id;
  });
  const rest = drafts.flatMap((d, i) => (kept[i] === undefined ? [i] : []));
  const derived = uniqueNames(rest.map((i) => operationName(drafts[i]?.documentOperationId, drafts[i]?.method ?? 'get', drafts[i]?.path ?? '/')), seen);
  const names = [...kept];
  rest.forEach((index, k) => { names[index] = derived[k]; });
  const where = (i: number): string => `${(drafts[i]?.method ?? '').toUpperCase()} ${drafts[i]?.path ?? ''}`;
  const unnamed = rest.filter((i) => drafts[i]?.documentOperationId === undefined);
  const renamed = rest.filter((i) => drafts[i]?.documentOperationId !== undefined);
  const sample = (list: number[]): string => list.slice(0, 3).map((i) => `${where(i)} -> ${names[i] ?? ''}`).join(', ') + (list.length > 3 ? ', …' : '');
  if (unnamed.length > 0) notes.push(`${String(unnamed.length)} operation(s) without an operationId, named from the method and path: ${sample(unnamed)}`);
  if (renamed.length > 0) notes.push(`${String(renamed.length)} operationId(s) that are not identifiers or give another's type name, renamed (the route table keeps the document's): ${sample(renamed)}`);
  return names.map((n) => n ?? '_');
}

/** Builds the model of a bundled document; throws ModelError for what the generator cannot serve. */
export function readModel(doc: JsonObject): ApiModel {
  if (typeof doc.openapi !== 'string' || !doc.openapi.startsWith('3.')) throw new ModelError('an OpenAPI 3 document is required');
  const info = isObject(doc.info) ? doc.info : {};
  const tagOrder = (Array.isArray(doc.tags) ? doc.tags : []).filter(isObject).map((t) => String(t.name));
  const drafts: OperationDraft[] = [];
  const unexpressed = new Unexpressed();
  const paths = isObject(doc.paths) ? doc.paths : {};
  for (const [path, rawItem] of Object.entries(paths)) {
    const item = deref(doc, rawItem);
    if (!isObject(item)) continue;
    for (const method of METHODS) {
      const op = item[method];
      if (isObject(op)) drafts.push(readOperation(doc, path, method, item, op, tagOrder, unexpressed));
    }
  }
  const notes: string[] = [];
  const names = nameOperations(drafts, notes);
  notes.push(...unexpressed.notes());
  // Tags that give the same handler group (`pets`, `Pets`) are numbered like operations.
  const groups = uniqueNames(tagOrder.map(camelCase));
  const groupOf = new Map(tagOrder.map((name, i) => [name, groups[i] ?? camelCase(name)]));
  const operations: OperationModel[] = drafts.map((draft, i) => {
    const name = names[i] ?? '_';
    return { ...draft, operationId: name, typeName: pascalCase(name), group: groupOf.get(draft.tag) ?? draft.group };
  });
  const tagInfo = new Map((Array.isArray(doc.tags) ? doc.tags : []).filter(isObject).map((t) => [String(t.name), t]));
  const tags = tagOrder
    .map((name): TagModel => {
      const group = groupOf.get(name) ?? camelCase(name);
      return {
        name,
        group,
        interfaceName: `${pascalCase(group)}Handlers`,
        description: typeof tagInfo.get(name)?.description === 'string' ? String(tagInfo.get(name)?.description) : undefined,
        operations: operations.filter((op) => op.tag === name),
      };
    })
    .filter((tag) => tag.operations.length > 0);
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
        typeName: `${pascalCase(name)}${method === 'post' ? '' : pascalCase(method)}Event`,
        summary: typeof op.summary === 'string' ? op.summary : undefined,
        mediaTypes: isObject(body) ? mediaTypesOf(body.content) : [],
        extensions: Object.fromEntries(Object.entries(op).filter(([key]) => key.startsWith('x-'))),
        schema: jsonSchemaOf(doc, body),
      });
    }
  }
  // Event type names are unique like operation names, past the names webhooks.ts declares itself.
  const eventTypes = uniqueNames(webhooks.map((hook) => hook.typeName), new Set(['WebhookEvent', 'WebhookEventName', 'WebhookEventInfo'].map(nameKey)));
  webhooks.forEach((hook, i) => { (hook as { typeName: string }).typeName = eventTypes[i] ?? hook.typeName; });
  return {
    title: typeof info.title === 'string' ? info.title : 'API',
    notes,
    version: typeof info.version === 'string' ? info.version : '0.0.0',
    operations,
    tags,
    webhooks,
  };
}
