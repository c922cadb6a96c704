// The suite's knowledge of the API: the bundled spec, its operations by operationId, and a validator of
// responses against the documented statuses, media types and schemas (JSON Schema 2020-12, ajv).
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import * as formats from 'ajv-formats';

// ajv-formats is CommonJS: under NodeNext its plugin is the module's `default`.
const addFormats = formats.default as unknown as (ajv: Ajv2020) => Ajv2020;

type JsonObject = Record<string, unknown>;
const isObject = (v: unknown): v is JsonObject => typeof v === 'object' && v !== null && !Array.isArray(v);

export interface OperationInfo {
  operationId: string;
  method: string;
  path: string;
  tag: string;
  /** Marked x-provenance: designed (the interface does not define it). */
  designed: boolean;
  /** Marked x-destructive: it removes everything its caller owns (called only on a sandbox the suite made). */
  destructive: boolean;
  responses: Record<string, { mediaTypes: string[]; designed: boolean }>;
  secured: boolean;
}

// The contract the suite checks travels with it: @pgw/client's bundled document (its sources in this repository).
export const defaultSpecPath = fileURLToPath(import.meta.resolve('@pgw/client/openapi.json'));

/** Specs loaded by file, with the text they were made from (a changed file is loaded anew). */
const loaded = new Map<string, { text: string; spec: Spec }>();

export class Spec {
  readonly operations = new Map<string, OperationInfo>();
  private readonly ajv: Ajv2020;
  private readonly validators = new Map<string, ValidateFunction>();

  constructor(readonly document: JsonObject) {
    this.ajv = new Ajv2020({ strict: false, allErrors: true, validateFormats: true, multipleOfPrecision: 6 });
    addFormats(this.ajv);
    for (const format of ['int32', 'int64', 'double', 'float']) this.ajv.addFormat(format, true);
    this.ajv.addSchema({ ...document, $id: 'spec' });
    const paths = isObject(document.paths) ? document.paths : {};
    for (const [p, item] of Object.entries(paths)) {
      if (!isObject(item)) continue;
      for (const method of ['get', 'put', 'post', 'delete', 'patch']) {
        const op = item[method];
        if (!isObject(op) || typeof op.operationId !== 'string') continue;
        const responses: OperationInfo['responses'] = {};
        for (const [status, raw] of Object.entries(isObject(op.responses) ? op.responses : {})) {
          const response = this.deref(raw);
          responses[status] = {
            mediaTypes: isObject(response) && isObject(response.content) ? Object.keys(response.content) : [],
            designed: isObject(response) && response['x-provenance'] === 'designed',
          };
        }
        const security = Array.isArray(op.security) ? op.security : document.security;
        this.operations.set(op.operationId, {
          operationId: op.operationId, method, path: p, tag: Array.isArray(op.tags) ? String(op.tags[0]) : 'default',
          designed: op['x-provenance'] === 'designed', destructive: op['x-destructive'] === true, responses,
          secured: Array.isArray(security) && security.some((r) => isObject(r) && Object.keys(r).length > 0) && !security.some((r) => isObject(r) && Object.keys(r).length === 0),
        });
      }
    }
  }

  /**
   * The spec in a file. One instance per file text in a process: a Spec is never changed after it is made, and its
   * compiled schema validators (most of a run's own CPU time) then serve every run in the process (the long-lived
   * test runs the suite twenty times in one).
   */
  static load(file = defaultSpecPath): Spec {
    const text = readFileSync(file, 'utf8');
    const cached = loaded.get(file);
    if (cached?.text === text) return cached.spec;
    const spec = new Spec(JSON.parse(text) as JsonObject);
    loaded.set(file, { text, spec });
    return spec;
  }

  private deref(node: unknown): unknown {
    let current = node;
    while (isObject(current) && typeof current.$ref === 'string' && current.$ref.startsWith('#/')) {
      current = current.$ref.slice(2).split('/').map((p) => p.replaceAll('~1', '/').replaceAll('~0', '~'))
        .reduce<unknown>((acc, key) => (isObject(acc) ? acc[key] : undefined), this.document);
    }
    return current;
  }

  /** The operation a request addresses (its path relative to the server the operation is on), if any. */
  match(method: string, path: string): OperationInfo | undefined {
    const bare = path.split('?')[0] ?? '';
    return [...this.operations.values()].find((op) => op.method === method.toLowerCase() &&
      new RegExp(`^${op.path.replace(/[.*+?^${}()|[\]\\]/g, (c) => (c === '{' || c === '}' ? c : `\\${c}`)).replace(/\{[^}]+\}/g, '[^/]+')}$`).test(bare));
  }

  operation(operationId: string): OperationInfo {
    const op = this.operations.get(operationId);
    if (!op) throw new Error(`the spec has no operation ${operationId}`);
    return op;
  }

  /**
   * What is wrong with a response of an operation, or [] when it conforms: the status is documented, the
   * media type is one the status documents, and the body is valid against its schema.
   */
  responseProblems(operationId: string, status: number, contentType: string | null, body: unknown): string[] {
    const op = this.operation(operationId);
    const key = op.responses[String(status)] ? String(status) : op.responses[`${String(status).charAt(0)}XX`] ? `${String(status).charAt(0)}XX` : op.responses.default ? 'default' : undefined;
    if (key === undefined) return [`status_code_conformance: ${String(status)} is not documented for ${operationId} (documented: ${Object.keys(op.responses).join(', ')})`];
    const documented = op.responses[key]?.mediaTypes ?? [];
    if (documented.length === 0) return body === undefined || body === '' ? [] : [`content_type_conformance: ${String(status)} of ${operationId} documents no body, but one was sent`];
    const media = (contentType ?? '').split(';')[0]?.trim() ?? '';
    if (!documented.includes(media)) return [`content_type_conformance: ${String(status)} of ${operationId} was ${media || 'sent without a Content-Type'}, documented: ${documented.join(', ')}`];
    if (!/json/.test(media)) return [];
    const validator = this.validator(op, key, media);
    if (validator(body)) return [];
    return (validator.errors ?? []).slice(0, 5).map((e) => `response_schema_conformance: ${e.instancePath || '(body)'} ${e.message ?? ''}${'additionalProperty' in e.params ? ` (${String(e.params.additionalProperty)})` : ''}`);
  }

  /** The Response Object documenting a status of an operation (the status, its class `4XX`, or `default`). */
  private responseObject(operationId: string, status: number): unknown {
    const op = this.operation(operationId);
    const key = [String(status), `${String(status).charAt(0)}XX`, 'default'].find((k) => op.responses[k]);
    if (key === undefined) return undefined;
    const pointer = ['paths', op.path, op.method, 'responses', key].map((p) => p.replaceAll('~', '~0').replaceAll('/', '~1')).join('/');
    return this.deref(this.deref({ $ref: `#/${pointer}` }));
  }

  /** The schema of a response (status, JSON media type) with its `$ref`s left for `resolve`, or undefined. */
  responseSchema(operationId: string, status: number): unknown {
    const response = this.responseObject(operationId, status);
    const content = isObject(response) && isObject(response.content) ? Object.entries(response.content).find(([media]) => /json/.test(media))?.[1] : undefined;
    return isObject(content) ? content.schema : undefined;
  }

  /** The response headers whose schema fixes their value (`const`), by lower-case name: `cache-control: no-store`. */
  fixedHeaders(operationId: string, status: number): [string, string][] {
    const response = this.responseObject(operationId, status);
    const headers = isObject(response) && isObject(response.headers) ? response.headers : {};
    const fixed: [string, string][] = [];
    for (const [name, raw] of Object.entries(headers)) {
      const header = this.deref(raw);
      const schema = isObject(header) ? this.deref(header.schema) : undefined;
      if (isObject(schema) && typeof schema.const === 'string') fixed.push([name.toLowerCase(), schema.const]);
    }
    return fixed;
  }

  /** A schema node with its local `$ref`s followed. */
  resolve(node: unknown): unknown {
    return this.deref(node);
  }

  private validator(op: OperationInfo, status: string, media: string): ValidateFunction {
    const id = `${op.operationId} ${status} ${media}`;
    let validate = this.validators.get(id);
    if (!validate) {
      const pointer = ['paths', op.path, op.method, 'responses', status].map((p) => p.replaceAll('~', '~0').replaceAll('/', '~1')).join('/');
      const response = this.deref(this.deref({ $ref: `#/${pointer}` }));
      const content = isObject(response) && isObject(response.content) ? response.content[media] : undefined;
      const schema = isObject(content) ? content.schema : undefined;
      // A schema named by `$ref` is compiled once, whatever operations and statuses name it: getSchema keeps it by
      // its ref, and the schemas it refers to compile under the spec's root, where later compiles find them
      // (`compile({ $ref })` compiled them all again under a root of its own each time: ~7 times the work).
      const shared = isObject(schema) && typeof schema.$ref === 'string' && schema.$ref.startsWith('#/') ? this.ajv.getSchema(`spec${schema.$ref}`) : undefined;
      validate = shared ?? this.ajv.compile(rewriteRefs(schema ?? {}) as object);
      this.validators.set(id, validate);
    }
    return validate;
  }
}

/** Local refs of an inline schema point into the spec document registered as `spec`. */
function rewriteRefs(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(rewriteRefs);
  if (!isObject(node)) return node;
  return Object.fromEntries(Object.entries(node).map(([k, v]) => [k, k === '$ref' && typeof v === 'string' && v.startsWith('#/') ? `spec${v}` : rewriteRefs(v)]));
}
