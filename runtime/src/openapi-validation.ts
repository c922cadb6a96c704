// Request and response validation against the document, compiled once per operation (ajv, JSON Schema 2020-12)
// and shared by every router built from the same document: per request, only the compiled functions run.
import { Ajv2020, type ErrorObject, type ValidateFunction } from 'ajv/dist/2020.js';
import type { DataValidationCxt, SchemaValidateFunction } from 'ajv/dist/types/index.js';
import * as formats from 'ajv-formats';
import { jsonMediaType, normalizeMediaType, pickMediaType } from './media-types.ts';
import { NumberTexts, decimalProblem, placesOf } from './number-texts.ts';

// ajv-formats is CommonJS: under NodeNext its plugin is the module's `default`.
const addFormats = formats.default as unknown as (ajv: Ajv2020, options: { mode: 'fast' | 'full' }) => Ajv2020;

type JsonObject = Record<string, unknown>;
const isJsonObject = (v: unknown): v is JsonObject => typeof v === 'object' && v !== null && !Array.isArray(v);

/** A problem in the shape the router's error classifier reads: where (`/body/a/b`), what, and the keyword. */
export interface ValidationProblem { path: string; message: string; errorCode?: string }

/** A refused request or response: the HTTP status, a summary, each problem; `Allow` for 405. */
export class ValidationError extends Error {
  constructor(
    readonly status: number,
    message: string,
    public errors: ValidationProblem[],
    readonly headers?: { Allow?: string },
  ) {
    super(message);
    this.name = 'ValidationError';
  }
}

/** The parts of one operation the validators need, read from the document. */
export interface OperationShape {
  /** The document's path and method (`/customers/{customerId}`, `get`). */
  readonly path: string;
  readonly method: string;
}

type Location = 'query' | 'headers' | 'params';
type ScalarKind = 'integer' | 'number' | 'boolean';

interface Parameter { name: string; location: Location; required: boolean; allowEmpty: boolean; kinds: Set<ScalarKind>; schema: unknown }

/** How one media type of a response is checked: JSON bodies by schema; others are not validated. */
type ResponseCheck = { kind: 'none' } | { kind: 'json'; validate: ValidateFunction };

/** What a request validation leaves: the coerced query (defaults filled) and the body (defaults filled). */
export interface ValidatedRequest { query: Record<string, unknown>; params: Record<string, string> }

const DECIMAL: Record<'integer' | 'number', RegExp> = { integer: /^-?\d+$/, number: /^-?\d+(\.\d+)?$/ };

// The OpenAPI formats ajv-formats does not define (as express-openapi-validator defines them).
const MAX_INT32 = 2 ** 31 - 1;
const MIN_INT32 = -(2 ** 31);
const OPENAPI_FORMATS: Record<string, { type: 'number' | 'string'; validate: (value: never) => boolean }> = {
  int32: { type: 'number', validate: (i: number) => Number.isInteger(i) && i <= MAX_INT32 && i >= MIN_INT32 },
  int64: { type: 'number', validate: (i: number) => Number.isInteger(i) && i <= 2 ** 63 - 1 && i >= -(2 ** 63) },
  float: { type: 'number', validate: (i: number) => typeof i === 'number' },
  double: { type: 'number', validate: (i: number) => typeof i === 'number' },
  byte: { type: 'string', validate: (b: string) => b.length % 4 === 0 && /^[A-Za-z0-9+/]*(=|==)?$/.test(b) },
  binary: { type: 'string', validate: () => true },
  password: { type: 'string', validate: () => true },
};

/**
 * The `decimalPlaces` rule that stands for `multipleOf: 10^-n`: the number's text has at most n decimal places
 * (see number-texts.ts). The text is the one the client wrote when the request kept it (a NumberTexts passed as
 * the validation's `this`), else the value's own shortest decimal text, which is exact for every other number.
 * ajv's own multipleOf divides doubles (4.99 / 0.01 = 499.00000000000006) and cannot see the written text.
 */
const decimalPlaces: SchemaValidateFunction = function (this: unknown, places: number, data: number, _parent?: unknown, cxt?: DataValidationCxt): boolean {
  const text = (this instanceof NumberTexts ? this.byPointer.get(cxt?.instancePath ?? '') : undefined) ?? String(data);
  const problem = decimalProblem(text, places);
  if (problem === undefined) return true;
  decimalPlaces.errors = [{ keyword: 'decimalPlaces', message: problem, params: { places } }];
  return false;
};

/**
 * The copy of the document the validators compile: each `x-decimal-places: n` (the spec's way to state a decimal
 * field's precision) and each `multipleOf: 10^-n` is the `decimalPlaces: n` rule, and
 * a property an object requires has no `default` (ajv's useDefaults would fill it in before `required` is
 * checked, so a required field with a default could never be missing: required means required).
 */
function forValidation(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(forValidation);
  if (!isJsonObject(node)) return node;
  const copy: JsonObject = {};
  for (const [key, value] of Object.entries(node)) copy[key] = forValidation(value);
  const declared = node['x-decimal-places'];
  const places = typeof declared === 'number' && Number.isInteger(declared) && declared >= 0 ? declared : placesOf(node.multipleOf);
  if (places !== undefined) {
    if (placesOf(node.multipleOf) !== undefined) delete copy.multipleOf;
    copy.decimalPlaces = places;
  }
  if (Array.isArray(node.required) && isJsonObject(copy.properties)) {
    const properties: JsonObject = { ...copy.properties };
    for (const name of node.required) {
      const property = typeof name === 'string' ? properties[name] : undefined;
      if (isJsonObject(property) && 'default' in property) {
        const rest = { ...property };
        delete rest.default;
        properties[name as string] = rest;
      }
    }
    copy.properties = properties;
  }
  return copy;
}

function newAjv(request: boolean): Ajv2020 {
  const ajv = new Ajv2020({
    strict: false, strictNumbers: true, strictTuples: true, allowUnionTypes: false, validateSchema: false,
    // A refused request names every problem; a response stops at the first (it only tells a 500 from a 200).
    allErrors: request, useDefaults: request, coerceTypes: false, removeAdditional: false,
    // The request's number texts reach the decimalPlaces rule as `this`.
    passContext: true,
  });
  // 'full': dates are real dates (2030-02-30 is refused), an email has a domain with a dot.
  addFormats(ajv, { mode: 'full' });
  for (const [name, format] of Object.entries(OPENAPI_FORMATS)) ajv.addFormat(name, format as never);
  ajv.addFormat('media-range', true);
  ajv.addKeyword({ keyword: 'decimalPlaces', type: 'number', schemaType: 'number', errors: true, validate: decimalPlaces });
  return ajv;
}

/** `paths/~1customers~1%7Bid%7D/get`: a JSON pointer into the document, written as a URI fragment. */
const pointer = (...parts: string[]): string => parts.map((p) => encodeURIComponent(p.replaceAll('~', '~0').replaceAll('/', '~1'))).join('/');

/** The problems of an ajv run, located under `prefix` (`/body`, `/query`), as express-openapi-validator names them. */
function problemsOf(errors: readonly ErrorObject[] | null | undefined, prefix: string): ValidationProblem[] {
  return (errors ?? []).map((e) => {
    const params = e.params as { missingProperty?: string; additionalProperty?: string; unevaluatedProperty?: string; allowedValues?: unknown[] };
    const extra = params.missingProperty ?? params.additionalProperty ?? params.unevaluatedProperty;
    const unknown = params.additionalProperty ?? params.unevaluatedProperty;
    const message = unknown !== undefined ? 'is not a field the document names here (a typo, or another API\'s field?)'
      : e.keyword === 'enum' && Array.isArray(params.allowedValues) ? `${e.message ?? ''}: ${params.allowedValues.join(', ')}` : e.message ?? 'is not valid';
    return { path: `${prefix}${e.instancePath}${extra === undefined ? '' : `/${extra}`}`, message, errorCode: `${e.keyword}.openapi.validation` };
  });
}

const summary = (problems: readonly ValidationProblem[], dataVar: string): string =>
  problems.map((p) => `${dataVar}${p.path} ${p.message}`).join(', ');

/** The node at a URI fragment's JSON pointer (`/components/schemas/Customer`) in `root`, if there is one. */
const nodeAt = (root: unknown, fragment: string): unknown => fragment.split('/').slice(1)
  .map((p) => decodeURIComponent(p).replaceAll('~1', '/').replaceAll('~0', '~'))
  .reduce<unknown>((acc, key) => (isJsonObject(acc) ? acc[key] : undefined), root);

/** Keywords that only annotate: a schema of a `$ref` and these validates as the schema it refers to. */
const ANNOTATIONS = new Set(['description', 'title', 'summary', '$comment', 'examples', 'example', 'deprecated', 'readOnly', 'writeOnly']);

/** The validators of one document: compiled on first use of each operation, then reused. */
export class DocumentValidators {
  private readonly requestAjv = newAjv(true);
  private readonly responseAjv = newAjv(false);
  private readonly requests = new Map<string, OperationRequest>();
  private readonly responses = new Map<string, Map<string, Map<string, ResponseCheck>>>();
  private readonly events = new Map<string, ValidateFunction>();

  /** The copy of the document the validators compile (see forValidation). */
  private readonly validated: JsonObject;

  constructor(private readonly doc: JsonObject) {
    // One copy of the document per instance, so `$ref`s resolve against it wherever a schema sits.
    this.validated = { ...(forValidation(doc) as JsonObject), $id: 'api' };
    this.requestAjv.addSchema(this.validated);
    this.responseAjv.addSchema(this.validated);
  }

  /**
   * The validator of the schema at `at` (a JSON pointer into the document, URI-encoded), compiled once per ajv
   * instance. A schema that is only a `$ref` (and annotations) is followed to where it points, so that every
   * response, body and event naming the same schema gets the one validator. `getSchema` keeps it by that pointer;
   * the schemas it refers to compile under the document's root, where later compiles find them.
   * `compile({ $ref })` made a new root each time and compiled every referred schema again: the gateway's 702
   * response schemas are 88 distinct ones, and compiling them all took 4.4 s; now 0.4 s.
   */
  private validatorAt(ajv: Ajv2020, at: string): ValidateFunction {
    let fragment = at;
    for (let i = 0; i < 20; i++) {
      const node = nodeAt(this.validated, fragment);
      if (!isJsonObject(node) || typeof node.$ref !== 'string' || !node.$ref.startsWith('#/')) break;
      if (Object.keys(node).some((key) => key !== '$ref' && !ANNOTATIONS.has(key) && !key.startsWith('x-'))) break;
      fragment = node.$ref.slice(1);
    }
    const found = ajv.getSchema(`api#${fragment}`);
    if (!found) throw new Error(`no schema at #${fragment} in the document`);
    return found;
  }

  private resolve(node: unknown): unknown {
    let current = node;
    for (let i = 0; i < 20 && isJsonObject(current) && typeof current.$ref === 'string' && current.$ref.startsWith('#/'); i++) {
      current = nodeAt(this.doc, current.$ref.slice(1));
    }
    return current;
  }

  /** The path item and operation, with the JSON pointers where they sit (a path item may be a `$ref`). */
  private item(shape: OperationShape): { item: JsonObject; op: JsonObject; itemAt: string; opAt: string } {
    const paths = isJsonObject(this.doc.paths) ? this.doc.paths : {};
    const raw = paths[shape.path];
    const item = this.resolve(raw);
    const op = isJsonObject(item) ? item[shape.method] : undefined;
    const itemAt = isJsonObject(raw) && typeof raw.$ref === 'string' ? raw.$ref.slice(1) : `/${pointer('paths', shape.path)}`;
    return { item: isJsonObject(item) ? item : {}, op: isJsonObject(op) ? op : {}, itemAt, opAt: `${itemAt}/${pointer(shape.method)}` };
  }

  /** The request validator of an operation (compiled the first time it is asked for). */
  request(operationId: string, shape: OperationShape): OperationRequest {
    let found = this.requests.get(operationId);
    if (!found) {
      found = this.compileRequest(shape);
      this.requests.set(operationId, found);
    }
    return found;
  }

  private kinds(schema: unknown, depth = 0): Set<ScalarKind> {
    const resolved = this.resolve(schema);
    const kinds = new Set<ScalarKind>();
    if (!isJsonObject(resolved) || depth > 10) return kinds;
    for (const type of (Array.isArray(resolved.type) ? resolved.type : [resolved.type]) as unknown[]) {
      if (type === 'integer' || type === 'number' || type === 'boolean') kinds.add(type);
    }
    for (const list of [resolved.allOf, resolved.oneOf, resolved.anyOf]) {
      if (Array.isArray(list)) for (const part of list) for (const kind of this.kinds(part, depth + 1)) kinds.add(kind);
    }
    return kinds;
  }

  private compileRequest(shape: OperationShape): OperationRequest {
    const { item, op, itemAt, opAt } = this.item(shape);
    const location: Record<string, Location> = { query: 'query', header: 'headers', path: 'params' };
    const byKey = new Map<string, Parameter>();
    const listOf = (value: unknown): unknown[] => (Array.isArray(value) ? (value as unknown[]) : []);
    // Operation parameters override the path item's of the same name and location. Each schema is referred to
    // where it sits in the document, so its own `#/components/...` references resolve there.
    const sources: [unknown[], string][] = [[listOf(item.parameters), itemAt], [listOf(op.parameters), opAt]];
    for (const [list, at] of sources) {
      list.forEach((raw, index) => {
        const param = this.resolve(raw);
        if (!isJsonObject(param) || typeof param.name !== 'string' || typeof param.in !== 'string') return;
        const where = location[param.in];
        if (where === undefined || param.schema === undefined) return;
        const name = where === 'headers' ? param.name.toLowerCase() : param.name;
        const home = isJsonObject(raw) && typeof raw.$ref === 'string' ? raw.$ref.slice(1) : `${at}/parameters/${String(index)}`;
        byKey.set(`${where} ${name}`, {
          name, location: where, required: param.required === true, allowEmpty: param.allowEmptyValue === true,
          kinds: this.kinds(param.schema), schema: { $ref: `api#${home}/schema` },
        });
      });
    }
    const parameters = [...byKey.values()];
    const objectOf = (where: Location): JsonObject => {
      const own = parameters.filter((p) => p.location === where);
      const required = own.filter((p) => p.required).map((p) => p.name);
      return { type: 'object', properties: Object.fromEntries(own.map((p) => [p.name, p.schema])), ...(required.length > 0 ? { required } : {}) };
    };
    // Parameters are validated as one object per location (a `$ref` into the document for each schema).
    const general = this.requestAjv.compile({
      type: 'object',
      properties: { query: objectOf('query'), headers: objectOf('headers'), params: objectOf('params') },
    });
    const body = this.resolve(op.requestBody);
    const content = isJsonObject(body) && isJsonObject(body.content) ? body.content : undefined;
    const media = new Map<string, ValidateFunction | undefined>();
    for (const [type, entry] of Object.entries(content ?? {})) {
      const schema = isJsonObject(entry) ? entry.schema : undefined;
      const bodyPointer = isJsonObject(op.requestBody) && typeof op.requestBody.$ref === 'string'
        ? `${op.requestBody.$ref.slice(1)}/content/${pointer(type)}/schema`
        : `${opAt}/requestBody/content/${pointer(type)}/schema`;
      const resolved = this.resolve(schema);
      // A binary body is not a JSON value: its schema says nothing to validate.
      media.set(type, schema === undefined || (isJsonObject(resolved) && resolved.format === 'binary') ? undefined : this.validatorAt(this.requestAjv, bodyPointer));
    }
    const bodySchema = content === undefined ? undefined : this.resolve(Object.values(content).map((e) => (isJsonObject(e) ? e.schema : undefined))[0]);
    return new OperationRequest(parameters, general, media, {
      present: content !== undefined,
      required: isJsonObject(body) ? body.required : undefined,
      // express-openapi-validator asks for a body when the body's schema lists required properties.
      schemaRequires: isJsonObject(bodySchema) && Array.isArray(bodySchema.required) && bodySchema.required.length > 0,
    });
  }

  /**
   * Checks a webhook event's body (what a delivery of `name` sends) against the document's webhook of that name:
   * the problems, an empty list when it matches, or a problem for an event type the document does not have.
   */
  webhookEvent(name: string, body: unknown): ValidationProblem[] {
    let validate = this.events.get(name);
    if (!validate) {
      const webhooks = isJsonObject(this.doc.webhooks) ? this.doc.webhooks : {};
      if (!isJsonObject(webhooks[name])) return [{ path: '/type', message: `no webhook ${name} in the document` }];
      validate = this.validatorAt(this.responseAjv, `/${pointer('webhooks', name, 'post', 'requestBody', 'content', 'application/json', 'schema')}`);
      this.events.set(name, validate);
    }
    return validate(body) ? [] : problemsOf(validate.errors, '');
  }

  /** Checks a JSON response body against the operation's response for its status and media type. */
  response(operationId: string, shape: OperationShape, status: number, contentType: string | undefined, accept: string | undefined, body: unknown): ValidationError | undefined {
    let byStatus = this.responses.get(operationId);
    if (!byStatus) {
      byStatus = this.compileResponses(shape);
      this.responses.set(operationId, byStatus);
    }
    const checks = byStatus.get(String(status)) ?? byStatus.get(`${String(status)[0] ?? ''}XX`) ?? byStatus.get('default');
    if (!checks) return new ValidationError(500, `.response no schema defined for status code '${String(status)}' in the openapi spec`, [{ path: '/response', message: `no schema defined for status code '${String(status)}' in the openapi spec` }]);
    if (checks.size === 0) {
      return body === undefined ? undefined : new ValidationError(500, '.response should NOT have a body', [{ path: '/response', message: 'response should NOT have a body' }]);
    }
    const type = pickMediaType(contentType !== undefined ? [contentType] : accept !== undefined ? accept.split(',').map((h) => h.trim()) : [], [...checks.keys()]);
    const check = checks.get(type ?? '') ?? checks.values().next().value;
    if (!check || check.kind === 'none') return undefined;
    if (body === undefined || body === null) return new ValidationError(500, '.response body required.', [{ path: '/response', message: 'response body required.' }]);
    if (check.validate(body)) return undefined;
    const problems = problemsOf(check.validate.errors, '/response');
    return new ValidationError(500, summary(problems, ''), problems);
  }

  private compileResponses(shape: OperationShape): Map<string, Map<string, ResponseCheck>> {
    const { op, opAt } = this.item(shape);
    const found = new Map<string, Map<string, ResponseCheck>>();
    const responses = isJsonObject(op.responses) ? op.responses : {};
    for (const [code, raw] of Object.entries(responses)) {
      const response = this.resolve(raw);
      const checks = new Map<string, ResponseCheck>();
      const base = isJsonObject(raw) && typeof raw.$ref === 'string' ? raw.$ref.slice(1) : `${opAt}/responses/${pointer(code)}`;
      if (isJsonObject(response) && isJsonObject(response.content)) {
        for (const [type, entry] of Object.entries(response.content)) {
          if (!isJsonObject(entry) || entry.schema === undefined) continue;
          checks.set(type, jsonMediaType(type)
            ? { kind: 'json', validate: this.validatorAt(this.responseAjv, `${base}/content/${pointer(type)}/schema`) }
            : { kind: 'none' });
        }
      }
      found.set(code, checks);
    }
    return found;
  }
}

/** The request side of one operation: parameters coerced from text and validated, then the body. */
export class OperationRequest {
  constructor(
    private readonly parameters: readonly Parameter[],
    private readonly general: ValidateFunction,
    private readonly media: ReadonlyMap<string, ValidateFunction | undefined>,
    private readonly body: { present: boolean; required: unknown; schemaRequires: boolean },
  ) {}

  /**
   * The media type of the request's body among the documented ones, or a 415 error. A request without a
   * Content-Type passes when the body is optional.
   */
  mediaType(contentType: string | undefined): string | undefined | ValidationError {
    if (!this.body.present) return undefined;
    const given = contentType === undefined ? undefined : normalizeMediaType(contentType);
    // The type as sent, then its equivalents: without its parameters, and with charset=utf-8 when it has none.
    const bare = given?.split(';')[0] ?? '';
    const candidates = given === undefined ? [] : [given, bare, ...(given.includes('charset=') ? [] : [`${given}; charset=utf-8`])];
    for (const candidate of candidates) {
      for (const type of this.media.keys()) if (normalizeMediaType(type) === candidate) return type;
    }
    for (const type of [...this.media.keys()].sort().reverse()) {
      if (type === '*/*') return type;
      const wildcard = /^([a-z]+)\/\*$/.exec(type);
      if (wildcard && given !== undefined && given.startsWith(`${wildcard[1] ?? ''}/`)) return type;
    }
    if (given === undefined && this.body.required === false) return undefined;
    const message = given === undefined ? 'media type not specified' : `unsupported media type ${given}`;
    return new ValidationError(415, message, [{ path: '', message }]);
  }

  /**
   * Validates path, query, headers and body. Numeric and boolean parameters are converted from their text
   * (decimal digits only: `0x10`, `1e3` and ` 1` are refused), defaults are filled in; the body is checked
   * against its media type's schema. Returns the problems, or the converted parameters.
   */
  validate(raw: { params: Record<string, string>; query: Record<string, unknown>; headers: Record<string, string | string[] | undefined>; body: unknown; bodyNumbers?: NumberTexts | undefined }, mediaType: string | undefined): ValidatedRequest | ValidationError {
    // Text is text: a control character in any value (path, query, a documented header, the body) is refused
    // first, before anything is converted, looked up or written.
    const controls = [
      ...controlCharacterProblems(raw.params, '/params'),
      ...controlCharacterProblems(raw.query, '/query'),
      ...controlCharacterProblems(Object.fromEntries(this.parameters.filter((p) => p.location === 'headers').map((p) => [p.name, raw.headers[p.name]])), '/headers'),
      ...controlCharacterProblems(raw.body, '/body'),
    ];
    if (controls.length > 0) return new ValidationError(400, summary(controls, 'request'), controls);
    const query: Record<string, unknown> = { ...raw.query };
    const params: Record<string, unknown> = { ...raw.params };
    const headers: Record<string, unknown> = {};
    const extra: ValidationProblem[] = [];
    const paramTexts = new Map<string, string>();
    for (const name of Object.keys(query)) {
      const param = this.parameters.find((p) => p.location === 'query' && p.name === name);
      if (!param) return new ValidationError(400, `Unknown query parameter '${name}'`, [{ path: `/query/${name}`, message: `Unknown query parameter '${name}'` }]);
      if (!param.allowEmpty && query[name] === '') return new ValidationError(400, `Empty value found for query parameter '${name}'`, [{ path: `/query/${name}`, message: `Empty value found for query parameter '${name}'` }]);
    }
    for (const param of this.parameters) {
      const bag = param.location === 'query' ? query : param.location === 'params' ? params : headers;
      const value = param.location === 'headers' ? raw.headers[param.name] : bag[param.name];
      if (value === undefined) continue;
      bag[param.name] = Array.isArray(value) ? value.map((v: unknown) => convert(v, param, extra)) : convert(value, param, extra);
      // A number parameter is judged by its text too (a long one is not the double it reads as).
      if (typeof value === 'string' && typeof bag[param.name] === 'number') paramTexts.set(`/${param.location}/${param.name}`, value);
    }
    const data = { query, headers: { ...raw.headers, ...headers }, params };
    const generalOk = this.general.call(paramTexts.size > 0 ? new NumberTexts(paramTexts) : undefined, data);
    const problems = [...problemsOf(this.general.errors, '')];
    const known = new Set(problems.map((p) => p.path));
    problems.push(...extra.filter((p) => !known.has(p.path)));
    const validateBody = mediaType === undefined ? undefined : this.media.get(mediaType);
    // No body where the document requires one (or its schema requires properties, as express-openapi-validator
    // has it): an empty body counts as none (request-body.ts).
    if (this.body.present && (this.body.required === true || this.body.schemaRequires) && raw.body === undefined) {
      problems.push({ path: '/body', message: "must have required property 'body'", errorCode: 'required.openapi.validation' });
    } else if (validateBody && raw.body !== undefined && !validateBody.call(raw.bodyNumbers, raw.body)) {
      problems.push(...problemsOf(validateBody.errors, '/body'));
    }
    if (problems.length > 0 || !generalOk) return new ValidationError(400, summary(problems, 'request'), problems);
    return { query, params: params as Record<string, string> };
  }
}

/**
 * The C0 control characters but TAB, LF and CR, and DEL: text no request may carry in any string, whatever its
 * schema (a NUL cut SQLite's text short and failed PostgreSQL's; an ESC reaches a terminal that prints a log).
 */
// eslint-disable-next-line no-control-regex -- matching control characters is the point
const CONTROL = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\u007F]/;

const pointerOf = (key: string): string => key.replaceAll('~', '~0').replaceAll('/', '~1');

/** A problem for each string (or property name) under `value` that holds a control character, at its JSON pointer. */
export function controlCharacterProblems(value: unknown, path: string, problems: ValidationProblem[] = []): ValidationProblem[] {
  if (typeof value === 'string') {
    const found = CONTROL.exec(value);
    if (found) problems.push({ path, message: `must not contain the control character U+${(found[0].codePointAt(0) ?? 0).toString(16).toUpperCase().padStart(4, '0')}`, errorCode: 'pattern.openapi.validation' });
  } else if (Array.isArray(value)) {
    value.forEach((item, i) => controlCharacterProblems(item, `${path}/${String(i)}`, problems));
  } else if (isJsonObject(value)) {
    for (const [key, item] of Object.entries(value)) {
      if (CONTROL.test(key)) problems.push({ path: `${path}/${pointerOf(key)}`, message: 'the property name must not contain a control character', errorCode: 'pattern.openapi.validation' });
      controlCharacterProblems(item, `${path}/${pointerOf(key)}`, problems);
    }
  }
  return problems;
}

/** A parameter's text as the value its schema types it as; a number not in decimal digits is a problem. */
function convert(value: unknown, param: Parameter, problems: ValidationProblem[]): unknown {
  if (typeof value !== 'string') return value;
  for (const kind of ['integer', 'number'] as const) {
    if (!param.kinds.has(kind)) continue;
    if (DECIMAL[kind].test(value)) return Number(value);
    // JavaScript would read `0x10`, `1e3` or ` 1` as numbers: refused with their own message (and read as
    // the number, so the schema's own checks do not report the same value twice).
    if (value.trim() !== '' && Number.isFinite(Number(value))) {
      problems.push({ path: `/${param.location}/${param.name}`, message: `must be ${kind === 'integer' ? 'an integer' : 'a number'} written in decimal digits`, errorCode: 'type.openapi.validation' });
      return Number(value);
    }
  }
  if (param.kinds.has('boolean') && (value === 'true' || value === 'false')) return value === 'true';
  return value;
}
