// Checks a bundled OpenAPI document against the interface's facts; returns one line per violation.
import * as facts from './interface-facts.ts';
import { countryIsoCodes, stateCodes } from './lookup-facts.ts';

export type JsonObject = Record<string, unknown>;

const isObject = (value: unknown): value is JsonObject =>
  typeof value === 'object' && value !== null && !Array.isArray(value);
const asArray = (value: unknown): unknown[] => (Array.isArray(value) ? (value as unknown[]) : []);

/** Follows local `$ref`s (`#/a/b`) until the node is not a reference. */
export function deref(doc: JsonObject, node: unknown): unknown {
  let current = node;
  for (let depth = 0; isObject(current) && typeof current.$ref === 'string'; depth++) {
    if (depth > 50) throw new Error(`reference cycle at ${current.$ref}`);
    const ref = current.$ref;
    if (!ref.startsWith('#/')) throw new Error(`non-local reference ${ref} in a bundled document`);
    current = ref
      .slice(2)
      .split('/')
      .map((part) => part.replaceAll('~1', '/').replaceAll('~0', '~'))
      .reduce<unknown>((acc, key) => (isObject(acc) ? acc[key] : undefined), doc);
  }
  return current;
}

const typesOf = (schema: JsonObject): string[] =>
  Array.isArray(schema.type) ? schema.type.map(String) : typeof schema.type === 'string' ? [schema.type] : [];

/** A schema seen through $ref, allOf and a nullable oneOf/anyOf: what a value of it may hold. */
interface View {
  readonly properties: Record<string, unknown>;
  readonly required: readonly string[];
  readonly items: unknown;
  readonly types: readonly string[];
  readonly nullable: boolean;
  readonly raw: JsonObject;
}

export function view(doc: JsonObject, node: unknown): View {
  const schema = deref(doc, node);
  if (!isObject(schema)) return { properties: {}, required: [], items: undefined, types: [], nullable: false, raw: {} };
  const properties: Record<string, unknown> = { ...(isObject(schema.properties) ? schema.properties : {}) };
  const required = new Set(Array.isArray(schema.required) ? schema.required.map(String) : []);
  let items: unknown = schema.items;
  let types = typesOf(schema);
  let nullable = types.includes('null') || schema.const === null;
  const merge = (part: View): void => {
    Object.assign(properties, part.properties);
    part.required.forEach((name) => required.add(name));
    items ??= part.items;
    if (types.length === 0) types = [...part.types];
  };
  if (Array.isArray(schema.allOf)) schema.allOf.forEach((part) => { merge(view(doc, part)); });
  for (const key of ['oneOf', 'anyOf'] as const) {
    const alternatives = schema[key];
    if (!Array.isArray(alternatives)) continue;
    const views = alternatives.map((alt) => view(doc, alt));
    const nonNull = views.filter((alt) => !(alt.types.length === 1 && alt.types[0] === 'null'));
    if (nonNull.length < views.length) nullable = true;
    if (nonNull.length === 1 && nonNull[0]) {
      merge(nonNull[0]);
      nullable ||= nonNull[0].nullable;
    }
  }
  return { properties, required: [...required], items, types, nullable, raw: schema };
}

/** The schema at a dotted field path (`a.b`, `a[].b`, `[].b`) below a schema, or undefined. */
export function fieldAt(doc: JsonObject, schema: unknown, fieldPath: string): unknown {
  let current: unknown = schema;
  for (const token of fieldPath.split('.')) {
    const [name, ...brackets] = token.split('[]');
    if (name) {
      const next = view(doc, current).properties[name];
      if (next === undefined) return undefined;
      current = next;
    }
    for (let i = 0; i < brackets.length; i++) {
      const items = view(doc, current).items;
      if (items === undefined) return undefined;
      current = items;
    }
  }
  return current;
}

export function operation(doc: JsonObject, method: string, path: string): JsonObject | undefined {
  const paths = isObject(doc.paths) ? doc.paths : {};
  const item = deref(doc, paths[path]);
  const op = isObject(item) ? item[method] : undefined;
  return isObject(op) ? op : undefined;
}

function allOperations(doc: JsonObject, section: 'paths' | 'webhooks'): [string, string, JsonObject][] {
  const map = isObject(doc[section]) ? doc[section] : {};
  return Object.entries(map).flatMap(([path, rawItem]) => {
    const item = deref(doc, rawItem);
    if (!isObject(item)) return [];
    return ['get', 'put', 'post', 'delete', 'patch', 'head', 'options']
      .filter((method) => isObject(item[method]))
      .map((method): [string, string, JsonObject] => [method, path, item[method] as JsonObject]);
  });
}

function mediaSchema(doc: JsonObject, holder: unknown): unknown {
  const resolved = deref(doc, holder);
  if (!isObject(resolved) || !isObject(resolved.content)) return undefined;
  const media = resolved.content['application/json'] ?? Object.values(resolved.content)[0];
  return isObject(media) ? media.schema : undefined;
}

export function bodySchema(doc: JsonObject, op: JsonObject, where: facts.Where): unknown {
  if (where === 'request') return mediaSchema(doc, op.requestBody);
  return isObject(op.responses) ? mediaSchema(doc, op.responses[where]) : undefined;
}

function parameters(doc: JsonObject, path: string, op: JsonObject): JsonObject[] {
  const item = deref(doc, (doc.paths as JsonObject)[path]);
  const shared = isObject(item) ? asArray(item.parameters) : [];
  return [...shared, ...asArray(op.parameters)].map((p) => deref(doc, p)).filter(isObject);
}

function firstExampleValue(doc: JsonObject, op: JsonObject): unknown {
  const response = isObject(op.responses) ? deref(doc, op.responses['200']) : undefined;
  if (!isObject(response) || !isObject(response.content)) return undefined;
  const media = response.content['application/json'];
  if (!isObject(media)) return undefined;
  if (media.example !== undefined) return media.example;
  const first = isObject(media.examples) ? Object.values(media.examples)[0] : undefined;
  const example = deref(doc, first);
  return isObject(example) ? example.value : undefined;
}

const deepEqual = (a: unknown, b: unknown): boolean => JSON.stringify(a) === JSON.stringify(b);

export function checkFaithfulness(doc: JsonObject): string[] {
  const problems: string[] = [];
  const fail = (message: string): void => { problems.push(message); };
  const schemas = isObject(doc.components) && isObject(doc.components.schemas) ? doc.components.schemas : {};

  // Operations: every interface operation exists; every other one is marked designed.
  const seedOps = new Set(facts.operations.map(([method, path]) => `${method} ${path}`));
  for (const [method, path] of facts.operations) {
    if (!operation(doc, method, path)) fail(`operation ${method.toUpperCase()} ${path} is missing`);
  }
  const tokenOps = allOperations(doc, 'paths').filter(([, , op]) => typeof op['x-interface-address'] === 'string');
  for (const service of facts.tokenServices) {
    const found = tokenOps.find(([, , op]) => op['x-interface-address'] === service.address);
    if (!found) {
      fail(`token service ${service.address} is missing`);
      continue;
    }
    const [, , op] = found;
    const grants = view(doc, bodySchema(doc, op, 'request')).raw.oneOf;
    const consts = (Array.isArray(grants) ? grants : []).map((g) => view(doc, g).properties.grant_type);
    const names = consts.map((c) => (isObject(c) ? c.const : undefined));
    if (!deepEqual([...names].sort(), [...service.grants].sort())) {
      fail(`token service ${service.address} grants are ${JSON.stringify(names)}, not ${JSON.stringify(service.grants)}`);
    }
    if (!Array.isArray(op.servers) || op.servers.length === 0) {
      const pathItem = deref(doc, (doc.paths as JsonObject)[found[1]]);
      if (!isObject(pathItem) || !Array.isArray(pathItem.servers)) fail(`token service ${service.address} has no server of its own`);
    }
    const responseRequired = view(doc, bodySchema(doc, op, '200')).required;
    for (const field of facts.tokenRequired.response) {
      if (!responseRequired.includes(field)) fail(`token service ${service.address}: response field ${field} is not required`);
    }
  }
  for (const [method, path, op] of allOperations(doc, 'paths')) {
    const isSeed = seedOps.has(`${method} ${path}`) || typeof op['x-interface-address'] === 'string';
    if (!isSeed && op['x-provenance'] !== 'designed') {
      fail(`operation ${method.toUpperCase()} ${path} is not in the interface and not marked x-provenance: designed`);
    }
    if (isSeed && op['x-provenance'] === 'designed') {
      fail(`operation ${method.toUpperCase()} ${path} is the interface's but marked designed`);
    }
  }

  // Token request requirements.
  const grantMembers = tokenOps.flatMap(([, , op]) => {
    const oneOf = view(doc, bodySchema(doc, op, 'request')).raw.oneOf;
    return (Array.isArray(oneOf) ? oneOf : []).map((member) => ({ address: op['x-interface-address'], member: view(doc, member) }));
  });
  const grantCheck = (address: string, grant: string, required: readonly string[]): void => {
    const member = grantMembers.find(
      (m) => m.address === address && isObject(m.member.properties.grant_type) && m.member.properties.grant_type.const === grant,
    );
    for (const field of required) {
      if (!member?.member.required.includes(field)) fail(`${address} ${grant}: ${field} is not required`);
    }
  };
  grantCheck('{auth_url}/oauth2/token', 'client_credentials', facts.tokenRequired.client_credentials);
  grantCheck('{crm_auth_url}/oauth2/token', 'password', facts.tokenRequired.password);
  grantCheck('{crm_auth_url}/oauth2/token', 'refresh_token', facts.tokenRequired.crmRefresh);

  // Enumerations.
  for (const [name, values] of Object.entries(facts.enumerations)) {
    const schema = schemas[name];
    if (!isObject(schema) || !Array.isArray(schema.enum)) {
      fail(`enumeration ${name} is missing`);
      continue;
    }
    const varnames = Array.isArray(schema['x-enum-varnames']) ? schema['x-enum-varnames'] : [];
    for (const [id, label] of values) {
      const index = schema.enum.indexOf(id);
      if (index < 0) fail(`enumeration ${name} lacks value ${id}`);
      else if (varnames[index] !== label) fail(`enumeration ${name} names ${id} ${String(varnames[index])}, not ${label}`);
    }
    if (facts.closedEnumerations.includes(name) && schema.enum.length !== values.length) {
      fail(`enumeration ${name} has ${schema.enum.length} values, the interface gives ${values.length}`);
    }
    const designed = Array.isArray(schema['x-designed-values']) ? schema['x-designed-values'] : [];
    for (const value of schema.enum) {
      const seed = values.some(([id]) => id === value);
      if (!seed && !designed.includes(value)) fail(`enumeration ${name} value ${String(value)} is not the interface's and not in x-designed-values`);
    }
  }
  for (const fact of facts.partialNames) {
    const schema = schemas[fact.enumeration];
    if (!isObject(schema) || !Array.isArray(schema.enum)) continue;
    const varnames = Array.isArray(schema['x-enum-varnames']) ? schema['x-enum-varnames'] : [];
    const ids = 'ids' in fact ? fact.ids : [fact.id];
    for (const id of ids) {
      const index = schema.enum.indexOf(id);
      if (index < 0) fail(`enumeration ${fact.enumeration} lacks value ${id}`);
      if ('startsWith' in fact && !String(varnames[index]).startsWith(fact.startsWith)) {
        fail(`enumeration ${fact.enumeration} value ${id} must begin ${fact.startsWith}`);
      }
    }
  }

  // Event types.
  const webhooks = isObject(doc.webhooks) ? doc.webhooks : {};
  for (const [type, id, category] of facts.events) {
    const item = deref(doc, webhooks[type]);
    const op = isObject(item) && isObject(item.post) ? item.post : undefined;
    if (!op) {
      fail(`webhook ${type} is missing`);
      continue;
    }
    if (op['x-event-id'] !== id) fail(`webhook ${type} has event id ${String(op['x-event-id'])}, not ${id}`);
    if (op['x-event-category'] !== category) fail(`webhook ${type} has category ${String(op['x-event-category'])}, not ${category}`);
    const payload = view(doc, bodySchema(doc, op, 'request'));
    for (const field of facts.webhookPayloadFields) {
      if (!(field in payload.properties)) fail(`webhook ${type} payload lacks ${field}`);
      if (!payload.required.includes(field)) fail(`webhook ${type} payload field ${field} is not required`);
    }
    const typeSchema = deref(doc, payload.properties.type);
    if (!isObject(typeSchema) || (typeSchema.const !== type && !deepEqual(typeSchema.enum, [type]))) {
      fail(`webhook ${type} payload does not fix type to ${type}`);
    }
    const headers = (Array.isArray(op.parameters) ? op.parameters : [])
      .map((p) => deref(doc, p))
      .filter((p): p is JsonObject => isObject(p) && p.in === 'header')
      .map((p) => String(p.name).toLowerCase());
    for (const header of facts.webhookSignatureHeaders) {
      if (!headers.includes(header)) fail(`webhook ${type} does not document the ${header} header`);
    }
  }
  for (const [type, item] of Object.entries(webhooks)) {
    const resolved = deref(doc, item);
    const op = isObject(resolved) && isObject(resolved.post) ? resolved.post : {};
    if (!facts.events.some(([name]) => name === type) && op['x-provenance'] !== 'designed') {
      fail(`webhook ${type} is not in the interface and not marked designed`);
    }
  }

  // Bodies: fields, nullability, required.
  for (const body of facts.bodies) {
    const op = operation(doc, body.method, body.path);
    if (!op) continue;
    const schema = bodySchema(doc, op, body.where);
    const where = `${body.method.toUpperCase()} ${body.path} ${body.where === 'request' ? 'request' : 'response 200'}`;
    if (schema === undefined) {
      fail(`${where} has no JSON body`);
      continue;
    }
    for (const spec of body.fields) {
      const nullable = spec.endsWith('?');
      const fieldPath = nullable ? spec.slice(0, -1) : spec;
      const field = fieldAt(doc, schema, fieldPath);
      if (field === undefined) fail(`${where} lacks field ${fieldPath}`);
      else if (nullable && !view(doc, field).nullable) fail(`${where} field ${fieldPath} must be nullable`);
    }
    const required = view(doc, schema).required;
    for (const name of body.required ?? []) {
      if (!required.includes(name)) fail(`${where} field ${name} must be required`);
    }
  }

  // Field rules.
  for (const [method, path, where, field, keyword, value] of facts.rules) {
    const op = operation(doc, method, path);
    const schema = op ? fieldAt(doc, bodySchema(doc, op, where), field) : undefined;
    const resolved = view(doc, schema).raw;
    if (!deepEqual(resolved[keyword], value)) {
      fail(`${method.toUpperCase()} ${path} ${field}: ${keyword} is ${JSON.stringify(resolved[keyword])}, not ${JSON.stringify(value)}`);
    }
  }

  // Query parameters of the lists.
  for (const list of facts.queryParameters) {
    const op = operation(doc, list.method, list.path);
    if (!op) continue;
    const names = parameters(doc, list.path, op).filter((p) => p.in === 'query').map((p) => p.name);
    for (const name of list.names) {
      if (!names.includes(name)) fail(`${list.method.toUpperCase()} ${list.path} lacks query parameter ${name}`);
    }
  }

  // Paging defaults, the version header, bearer security, on every operation.
  for (const [method, path, op] of allOperations(doc, 'paths')) {
    const label = `${method.toUpperCase()} ${path}`;
    const params = parameters(doc, path, op);
    for (const [name, value] of Object.entries(facts.pagingDefaults)) {
      const param = params.find((p) => p.in === 'query' && p.name === name);
      const schema = param ? view(doc, param.schema).raw : undefined;
      if (param && schema?.default !== value) fail(`${label}: ${name} defaults to ${JSON.stringify(schema?.default)}, not ${String(value)}`);
    }
    if (path.startsWith('/pay-int-api/')) {
      const header = params.find((p) => p.in === 'header' && p.name === 'x-api-version');
      if (!header) fail(`${label} lacks the optional x-api-version header`);
      else if (header.required === true) fail(`${label}: x-api-version must be optional`);
    }
    const isToken = typeof op['x-interface-address'] === 'string';
    const security = Array.isArray(op.security) ? op.security : doc.security;
    const bearer = Array.isArray(security) && security.some((req) => isObject(req) && 'bearerAuth' in req);
    if (!isToken && !bearer) fail(`${label} does not require the bearer token`);
  }
  const scheme = isObject(doc.components) && isObject(doc.components.securitySchemes) ? doc.components.securitySchemes.bearerAuth : undefined;
  if (!isObject(scheme) || scheme.type !== 'http' || scheme.scheme !== 'bearer') fail('bearerAuth is not an HTTP bearer scheme');

  // Error bodies.
  const getCustomer = operation(doc, 'get', '/pay-api/v1/customers/{customerId}');
  const standard = getCustomer ? bodySchema(doc, getCustomer, '404') : undefined;
  if (standard === undefined) fail('GET /pay-api/v1/customers/{customerId} has no 404 body');
  for (const [name, type, nullable] of facts.standardErrorFields) {
    const field = standard === undefined ? undefined : fieldAt(doc, standard, name);
    if (field === undefined) {
      if (standard !== undefined) fail(`standard error body lacks ${name}`);
      continue;
    }
    const v = view(doc, field);
    if (!v.types.includes(type)) fail(`standard error body ${name} is ${v.types.join('|')}, not ${type}`);
    if (nullable && !v.nullable) fail(`standard error body ${name} must be nullable`);
  }
  if (standard !== undefined && view(doc, fieldAt(doc, standard, 'correlationId')).raw.format !== 'uuid') {
    fail('standard error body correlationId must be a uuid');
  }
  const createCustomer = operation(doc, 'post', '/pay-api/v1/customers');
  const badRequest = createCustomer ? view(doc, bodySchema(doc, createCustomer, '400')).raw : {};
  const alternatives = Array.isArray(badRequest.oneOf) ? badRequest.oneOf : [];
  const alternative = alternatives.map((a) => view(doc, a)).find((a) => 'traceId' in a.properties);
  if (!alternative) fail('POST /pay-api/v1/customers 400 does not offer the alternative body');
  for (const [name, type] of facts.alternativeErrorFields) {
    const field = alternative?.properties[name];
    if (alternative && field === undefined) fail(`alternative error body lacks ${name}`);
    else if (field !== undefined && !view(doc, field).types.includes(type)) fail(`alternative error body ${name} is not ${type}`);
  }

  // Lookup data.
  const countries = operation(doc, 'get', '/pay-api/v1/lookups/countries');
  const countryData = countries ? firstExampleValue(doc, countries) : undefined;
  if (!Array.isArray(countryData)) fail('the countries lookup has no data');
  else {
    const byId = asArray(countryData).filter(isObject).sort((a, b) => Number(a.id) - Number(b.id));
    const codes = byId.map((c) => c.isoCode);
    if (!deepEqual(codes, countryIsoCodes)) fail('the countries lookup does not hold the interface\'s 250 codes in id order');
    if (!deepEqual(byId.map((c) => c.id), countryIsoCodes.map((_, i) => i + 1))) fail('country ids are not 1..250');
  }
  const states = operation(doc, 'get', '/pay-api/v1/lookups/states');
  const stateData = states ? firstExampleValue(doc, states) : undefined;
  if (!Array.isArray(stateData)) fail('the states lookup has no data');
  else {
    const byId = asArray(stateData).filter(isObject).sort((a, b) => Number(a.id) - Number(b.id));
    if (!deepEqual(byId.map((s) => s.code), stateCodes)) fail('the states lookup does not hold the interface\'s 51 codes in id order');
    if (!deepEqual(byId.map((s) => s.id), stateCodes.map((_, i) => i + 1))) fail('state ids are not 1..51');
    if (byId.some((s) => s.countryId !== 1)) fail('a state is not in country 1');
  }

  return problems;
}
