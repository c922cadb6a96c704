// spec:diff's comparison of two bundled documents: every operation (parameters, request body, responses,
// security) and every webhook event (its payload and headers), each schema through the walk of schema.ts.
import { Collector } from './collector.ts';
import type { Change, Side } from './rules.ts';
import { isObject, resolve, SchemaWalk, type JsonObject } from './schema.ts';

const METHODS = ['get', 'put', 'post', 'delete', 'patch', 'head', 'options', 'trace'] as const;

interface Operation {
  /** `POST /pay-api/v1/terminals`, as the revision (or the base, for a removed one) spells the path. */
  label: string;
  item: JsonObject;
  op: JsonObject;
}

const idOf = (op: JsonObject): string => (typeof op.operationId === 'string' ? op.operationId : '');

const objectAt = (node: unknown, key: string): JsonObject => {
  const value = isObject(node) ? node[key] : undefined;
  return isObject(value) ? value : {};
};

/** The operations of a document by method and path shape (`{id}` and `{customerId}` match). */
function operationsOf(paths: JsonObject): Map<string, Operation> {
  const found = new Map<string, Operation>();
  for (const [path, item] of Object.entries(paths)) {
    if (!isObject(item)) continue;
    for (const method of METHODS) {
      const op = item[method];
      if (!isObject(op)) continue;
      found.set(`${method} ${path.replace(/\{[^}]*\}/g, '{}')}`, { label: `${method.toUpperCase()} ${path}`, item, op });
    }
  }
  return found;
}

export class DocumentDiff {
  private readonly collector = new Collector();
  private readonly schemas: SchemaWalk;

  constructor(private readonly base: JsonObject, private readonly revision: JsonObject) {
    const newEvents = new Set(Object.keys(objectAt(revision, 'webhooks')).filter((name) => !(name in objectAt(base, 'webhooks'))));
    this.schemas = new SchemaWalk({ base, revision, collector: this.collector, newEvents });
  }

  run(): Change[] {
    this.compareOperations();
    this.compareEvents();
    return this.collector.list();
  }

  private add(...args: Parameters<Collector['add']>): void {
    this.collector.add(...args);
  }

  private compareOperations(): void {
    const before = operationsOf(objectAt(this.base, 'paths'));
    const after = operationsOf(objectAt(this.revision, 'paths'));
    for (const [key, b] of before) {
      const r = after.get(key);
      if (r === undefined) this.add('operation-removed', 'request', b.label, idOf(b.op), b.label);
      else this.compareOperation(b, r, r.label);
    }
    for (const [key, r] of after) if (!before.has(key)) this.add('operation-added', 'request', r.label, idOf(r.op), r.label);
  }

  private compareOperation(b: Operation, r: Operation, label: string): void {
    if (b.op.operationId !== r.op.operationId) {
      this.add('operation-id-changed', 'request', label, `${String(b.op.operationId)} -> ${String(r.op.operationId)}`, label);
    }
    this.compareSecurity(b.op, r.op, label);
    this.compareParameters(this.parametersOf(this.base, b), this.parametersOf(this.revision, r), label, 'request', 'parameter');
    this.compareRequestBody(b.op.requestBody, r.op.requestBody, label);
    this.compareResponses(objectAt(b.op, 'responses'), objectAt(r.op, 'responses'), label);
  }

  /** The alternatives of an operation's security, each as a canonical text; `{}` is "no credentials". */
  private securityOf(doc: JsonObject, op: JsonObject): Set<string> {
    const requirements = Array.isArray(op.security) ? op.security : Array.isArray(doc.security) ? doc.security : [];
    const canonical = (req: unknown): string =>
      JSON.stringify(Object.entries(isObject(req) ? req : {}).sort(([a], [c]) => a.localeCompare(c)).map(([name, scopes]) => [name, Array.isArray(scopes) ? scopes.map(String).sort() : []]));
    return new Set(requirements.length === 0 ? ['[]'] : requirements.map(canonical));
  }

  private compareSecurity(b: JsonObject, r: JsonObject, label: string): void {
    const before = this.securityOf(this.base, b);
    const after = this.securityOf(this.revision, r);
    const removed = [...before].filter((s) => !after.has(s));
    const added = [...after].filter((s) => !before.has(s));
    if (removed.length > 0) this.add('security-narrowed', 'request', label, removed.join(' '), label);
    if (added.length > 0) this.add('security-widened', 'request', label, added.join(' '), label);
  }

  /** The parameters of an operation (the path item's, overridden by the operation's), by `in` and name. */
  private parametersOf(doc: JsonObject, { item, op }: Operation): Map<string, { param: JsonObject; raw: unknown }> {
    const found = new Map<string, { param: JsonObject; raw: unknown }>();
    for (const list of [item.parameters, op.parameters]) {
      if (!Array.isArray(list)) continue;
      for (const raw of list) {
        const param = resolve(doc, raw).node;
        const name = String(param.name);
        found.set(`${String(param.in)} ${param.in === 'header' ? name.toLowerCase() : name}`, { param, raw });
      }
    }
    return found;
  }

  /** Parameters of an operation (side `request`) or headers of a webhook delivery (side `response`). */
  private compareParameters(
    before: Map<string, { param: JsonObject }>,
    after: Map<string, { param: JsonObject }>,
    label: string,
    side: Side,
    noun: 'parameter' | 'header',
  ): void {
    const required = (p: JsonObject): boolean => p.required === true || p.in === 'path';
    for (const [key, { param }] of before) {
      const at = `${label} ${key}`;
      const other = after.get(key)?.param;
      if (other === undefined) {
        this.add(noun === 'parameter' ? 'parameter-removed' : 'header-removed', side, at, '', label);
        continue;
      }
      if (noun === 'parameter' && required(param) !== required(other)) {
        this.add(required(other) ? 'parameter-became-required' : 'parameter-became-optional', side, at, '', label);
      }
      this.schemas.compare(this.schemaOfParameter(param), this.schemaOfParameter(other), at, side, label);
    }
    for (const [key, { param }] of after) {
      if (before.has(key)) continue;
      const rule = noun === 'header' ? 'header-added' : required(param) ? 'parameter-added-required' : 'parameter-added';
      this.add(rule, side, `${label} ${key}`, '', label);
    }
  }

  private schemaOfParameter(param: JsonObject): unknown {
    if ('schema' in param) return param.schema;
    // A parameter described by content: its single media type's schema.
    const content = Object.values(objectAt(param, 'content'))[0];
    return isObject(content) ? content.schema : undefined;
  }

  private compareRequestBody(baseBody: unknown, revisionBody: unknown, label: string): void {
    if (baseBody === undefined && revisionBody === undefined) return;
    const b = baseBody === undefined ? undefined : resolve(this.base, baseBody).node;
    const r = revisionBody === undefined ? undefined : resolve(this.revision, revisionBody).node;
    const at = `${label} body`;
    if (b === undefined) { this.add(r?.required === true ? 'body-added-required' : 'body-added', 'request', at, '', label); return; }
    if (r === undefined) { this.add('body-removed', 'request', at, '', label); return; }
    if ((b.required === true) !== (r.required === true)) this.add(r.required === true ? 'body-became-required' : 'body-became-optional', 'request', at, '', label);
    this.compareContent(objectAt(b, 'content'), objectAt(r, 'content'), at, 'request', label);
  }

  /** The media types of a body: one removed or added, and the schemas of the common ones. */
  private compareContent(b: JsonObject, r: JsonObject, at: string, side: Side, label: string): void {
    for (const [type, media] of Object.entries(b)) {
      const other = r[type];
      if (other === undefined) this.add('media-type-removed', side, `${at} ${type}`, '', label);
      else this.schemas.compare(objectAt(media, 'schema'), objectAt(other, 'schema'), `${at} ${type}`, side, label);
    }
    for (const type of Object.keys(r)) if (!(type in b)) this.add('media-type-added', side, `${at} ${type}`, '', label);
  }

  private compareResponses(b: JsonObject, r: JsonObject, label: string): void {
    for (const [status, raw] of Object.entries(b)) {
      const at = `${label} ${status}`;
      const other = r[status];
      if (other === undefined) {
        this.add(status.startsWith('2') ? 'success-status-removed' : 'error-status-removed', 'response', at, '', label);
        continue;
      }
      const before = resolve(this.base, raw).node;
      const after = resolve(this.revision, other).node;
      this.compareContent(objectAt(before, 'content'), objectAt(after, 'content'), at, 'response', label);
      this.compareHeaders(objectAt(before, 'headers'), objectAt(after, 'headers'), at, label);
    }
    for (const status of Object.keys(r)) if (!(status in b)) this.add('status-added', 'response', `${label} ${status}`, '', label);
  }

  private compareHeaders(b: JsonObject, r: JsonObject, at: string, label: string): void {
    const lower = (headers: JsonObject): Map<string, unknown> => new Map(Object.entries(headers).map(([name, h]) => [name.toLowerCase(), h]));
    const before = lower(b);
    const after = lower(r);
    for (const [name, header] of before) {
      const other = after.get(name);
      if (other === undefined) this.add('header-removed', 'response', `${at} header ${name}`, '', label);
      else this.schemas.compare(resolve(this.base, header).node.schema, resolve(this.revision, other).node.schema, `${at} header ${name}`, 'response', label);
    }
    for (const name of after.keys()) if (!before.has(name)) this.add('header-added', 'response', `${at} header ${name}`, '', label);
  }

  /**
   * Webhook events: the gateway sends them, so their payloads and headers are on the response side. What the
   * receiver answers is not compared (the gateway reads only its status).
   */
  private compareEvents(): void {
    const before = objectAt(this.base, 'webhooks');
    const after = objectAt(this.revision, 'webhooks');
    for (const [name, item] of Object.entries(before)) {
      const label = `webhook ${name}`;
      const other = after[name];
      if (other === undefined) {
        this.add('event-removed', 'response', name, '', label);
        continue;
      }
      for (const method of METHODS) {
        const b = objectAt(resolve(this.base, item).node, method);
        const r = objectAt(resolve(this.revision, other).node, method);
        if (Object.keys(b).length === 0) continue;
        if (Object.keys(r).length === 0) {
          this.add('event-removed', 'response', `${name} ${method.toUpperCase()}`, '', label);
          continue;
        }
        const op = (doc: JsonObject, o: JsonObject, i: unknown): Operation => ({ label, item: resolve(doc, i).node, op: o });
        this.compareParameters(this.parametersOf(this.base, op(this.base, b, item)), this.parametersOf(this.revision, op(this.revision, r, other)), label, 'response', 'header');
        const body = (doc: JsonObject, o: JsonObject): JsonObject => objectAt(resolve(doc, o.requestBody).node, 'content');
        this.compareContent(body(this.base, b), body(this.revision, r), `${label} payload`, 'response', label);
      }
    }
    for (const name of Object.keys(after)) if (!(name in before)) this.add('event-added', 'response', name, '', `webhook ${name}`);
  }
}

/** Every client-facing change from `base` to `revision`, breaking ones first. */
export function compareDocuments(base: JsonObject, revision: JsonObject): Change[] {
  return new DocumentDiff(base, revision).run();
}
