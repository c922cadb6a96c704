// Trigger fixtures as data: the format (a JSON Schema checked with ajv), the loader that refuses a fixture
// naming an unknown operation or step before any request is made, and the `${...}` references between steps.
// A fixture file is not trusted: the loader reads at most MAX_FIXTURE_BYTES of it and refuses nesting deeper
// than MAX_FIXTURE_DEPTH before parsing it (a parser's recursion would overflow the stack first).
import { randomUUID } from 'node:crypto';
import { closeSync, fstatSync, openSync, readSync } from 'node:fs';
import { Ajv } from 'ajv';
import { isAlias, isMap, isPair, isSeq, Lexer, Parser, parseDocument, type Document } from 'yaml';
import * as enums from '@pgw/client/enums';
import { sandboxCardFor } from '@pgw/client/magic-values';
import { routes } from '@pgw/client/operations';
import { parseDuration } from './duration.ts';
import { UsageError } from './errors.ts';
import { fillPath, pathSegment, queryString } from './request-url.ts';

export type Json = string | number | boolean | null | Json[] | { [key: string]: Json };
export type JsonObject = { [key: string]: Json };

export interface OperationStep { name: string; operation: string; path?: JsonObject; query?: JsonObject; body?: Json; say?: string }
export interface ClockStep { name: string; clock: { advanceSeconds: Json }; say?: string }
export type Step = OperationStep | ClockStep;
/** `key`: whose key the steps run with: the merchant's (the default) or the partner's (a sandbox merchant made). */
export interface Fixture { description: string; key?: 'merchant' | 'partner'; args?: JsonObject; steps: Step[] }

/** The largest fixture file read: 1 MiB (the built-in ones are under 2 KB). A larger one is refused unread. */
export const MAX_FIXTURE_BYTES = 1024 * 1024;
/**
 * The deepest nesting of objects and lists within each other a fixture may have, the top level counting as one:
 * 64 (the built-in ones need 7). Checked before parsing, and again on the data (YAML aliases, --add values).
 */
export const MAX_FIXTURE_DEPTH = 64;

/** Where a fixture came from: a built-in one of the package (its event type), or a file the user named. */
export type Origin = { builtIn: string } | { file: string };
const origins = new WeakMap<Fixture, Origin>();
/** Where the fixture came from; undefined for one made in memory (trusted as little as a file). */
export const originOf = (fixture: Fixture): Origin | undefined => origins.get(fixture);
/** Marks a fixture loaded from the package's own fixtures/ (recipes.ts). */
export function markBuiltIn(fixture: Fixture, type: string): Fixture {
  origins.set(fixture, { builtIn: type });
  return fixture;
}

/** The format, as a JSON Schema (cli/README.md: "Trigger fixtures"). */
export const fixtureSchema = {
  type: 'object', additionalProperties: false, required: ['description', 'steps'],
  properties: {
    $schema: { type: 'string' },
    description: { type: 'string', minLength: 1 },
    key: { enum: ['merchant', 'partner'] },
    args: { type: 'object' },
    steps: {
      type: 'array', minItems: 1,
      items: {
        type: 'object', required: ['name'],
        properties: { name: { type: 'string', pattern: '^[A-Za-z_][A-Za-z0-9_]*$' }, say: { type: 'string' } },
        oneOf: [
          { required: ['operation'], properties: { name: {}, say: {}, operation: { type: 'string' }, path: { type: 'object' }, query: { type: 'object' }, body: {} }, additionalProperties: false },
          { required: ['clock'], properties: { name: {}, say: {}, clock: { type: 'object', required: ['advanceSeconds'], additionalProperties: false, properties: { advanceSeconds: { type: ['number', 'string'] } } } }, additionalProperties: false },
        ],
      },
    },
  },
} as const;

const validate = new Ajv({ allErrors: true, strict: false }).compile(fixtureSchema);

/** Names a reference may start with that are not steps. */
const BUILT_INS = ['args', 'now', 'random', 'card', 'enum'] as const;
const REFERENCE = /\$\{([^}]+)\}/g;

export const routeOf = (operationId: string) => routes.find((r) => r.operationId === operationId);
export const isClock = (step: Step): step is ClockStep => 'clock' in step;

/** Every `${...}` reference in a value, in order. */
function referencesIn(value: Json | undefined): string[] {
  if (typeof value === 'string') return [...value.matchAll(REFERENCE)].map((m) => m[1] ?? '');
  if (Array.isArray(value)) return value.flatMap(referencesIn);
  if (value !== null && typeof value === 'object') return Object.values(value).flatMap(referencesIn);
  return [];
}

const tooDeep = (what: string): UsageError =>
  new UsageError(`${what} is nested more than ${String(MAX_FIXTURE_DEPTH)} levels deep (objects and lists within each other; a fixture needs a few)`);

/**
 * Whether JSON text nests deeper than `max` (the top level is 1): a scan of its brackets outside strings, with
 * no recursion, so that JSON.parse and what walks its result never see deeper text.
 */
function jsonTooDeep(text: string, max: number): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c) i++; // a backslash: the next character is escaped
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x5b || c === 0x7b) {
      if (++depth > max) return true;
    } else if (c === 0x5d || c === 0x7d) depth--;
  }
  return false;
}

/** Whether YAML text nests deeper than `max`, judged on its syntax tree (yaml's lexer and parser do not recurse). */
function yamlTooDeep(text: string, max: number): boolean {
  // Flow nesting first, on the token stream, stopping at the first level too many (1 MiB of `[` is 1 M levels).
  let flow = 0;
  for (const token of new Lexer().lex(text)) {
    if (token === '[' || token === '{') {
      if (++flow > max) return true;
    } else if (token === ']' || token === '}') flow--;
  }
  // Then block and flow collections together, on the concrete syntax tree, walked with a stack.
  interface CstNode { type?: string; value?: unknown; key?: unknown; items?: { key?: unknown; value?: unknown }[] }
  for (const document of new Parser().parse(text)) {
    const stack: [unknown, number][] = [[document, 0]];
    for (let next = stack.pop(); next !== undefined; next = stack.pop()) {
      const [node, depth] = next as [CstNode | null | undefined, number];
      if (node === null || node === undefined || typeof node !== 'object') continue;
      if (node.type === 'document') {
        stack.push([node.value, depth]);
        continue;
      }
      if (node.type !== 'block-map' && node.type !== 'block-seq' && node.type !== 'flow-collection') continue;
      if (depth + 1 > max) return true;
      for (const item of node.items ?? []) stack.push([item.key, depth + 1], [item.value, depth + 1]);
    }
  }
  return false;
}

/**
 * Whether a YAML document's data nests deeper than `max` once its aliases are followed (an alias of a deep
 * anchor, or of its own ancestor, nests deeper than the text): a walk with a stack, each node visited again only
 * when reached deeper than before.
 */
function yamlDocumentTooDeep(doc: Document, max: number): boolean {
  const deepest = new Map<unknown, number>();
  const stack: [unknown, number][] = [[doc.contents, 0]];
  for (let next = stack.pop(); next !== undefined; next = stack.pop()) {
    const [node, depth] = next;
    if (isAlias(node)) {
      stack.push([node.resolve(doc), depth]);
      continue;
    }
    if (!isMap(node) && !isSeq(node)) continue;
    const level = depth + 1;
    if (level > max) return true;
    if ((deepest.get(node) ?? 0) >= level) continue;
    deepest.set(node, level);
    for (const item of node.items as unknown[]) {
      if (isPair(item)) stack.push([item.key, level], [item.value, level]);
      else stack.push([item, level]);
    }
  }
  return false;
}

/** Whether data nests deeper than `max` (a walk with a stack; shared or circular parts are not walked forever). */
function dataTooDeep(data: unknown, max: number): boolean {
  const deepest = new Map<object, number>();
  const stack: [unknown, number][] = [[data, 0]];
  for (let next = stack.pop(); next !== undefined; next = stack.pop()) {
    const [value, depth] = next;
    if (value === null || typeof value !== 'object') continue;
    const level = depth + 1;
    if (level > max) return true;
    if ((deepest.get(value) ?? 0) >= level) continue;
    deepest.set(value, level);
    for (const child of Object.values(value)) stack.push([child, level]);
  }
  return false;
}

/** Checks a fixture's shape, operations and references; the message names the fixture and the step. */
export function checkFixture(data: unknown, source: string): Fixture {
  if (dataTooDeep(data, MAX_FIXTURE_DEPTH)) throw tooDeep(`fixture ${source}`);
  if (!validate(data)) {
    const said = (validate.errors ?? []).map((e) => `${e.instancePath || '(top)'} ${e.message ?? ''}`).join('; ');
    throw new UsageError(`fixture ${source}: not a fixture: ${said}`);
  }
  const fixture = data as unknown as Fixture;
  const seen = new Set<string>();
  for (const [i, step] of fixture.steps.entries()) {
    const where = `fixture ${source}, step ${String(i + 1)} "${step.name}"`;
    if (seen.has(step.name)) throw new UsageError(`${where}: the name is used by an earlier step`);
    if ((BUILT_INS as readonly string[]).includes(step.name)) throw new UsageError(`${where}: "${step.name}" is reserved (${BUILT_INS.join(', ')})`);
    const later = new Set(fixture.steps.slice(i + 1).map((s) => s.name));
    if (isClock(step)) {
      const s = step.clock.advanceSeconds;
      if (typeof s === 'number' && (!Number.isInteger(s) || s < 1)) throw new UsageError(`${where}: clock.advanceSeconds must be a whole number of seconds, at least 1 (got ${String(s)})`);
      if (typeof s === 'string' && referencesIn(s).length === 0) throw new UsageError(`${where}: clock.advanceSeconds must be a number or a reference (got "${s}")`);
    } else {
      const route = routeOf(step.operation);
      if (!route) throw new UsageError(`${where}: unknown operation "${step.operation}" (an operationId of the spec)`);
      const params = (route.path.match(/\{[^}]+\}/g) ?? []).map((p) => p.slice(1, -1));
      for (const param of params) {
        if (step.path?.[param] === undefined) throw new UsageError(`${where}: ${step.operation} (${route.path}) needs path.${param}`);
      }
      for (const [param, value] of Object.entries(step.path ?? {})) {
        if (!params.includes(param)) throw new UsageError(`${where}: path.${param} is not a parameter of ${step.operation} (${route.path})`);
        // A value written as it is (no reference) is judged now: "..", "." or "" never reaches a request.
        if (referencesIn(value).length === 0) pathSegment(param, value, where);
      }
    }
    const values: Json[] = isClock(step) ? [step.clock.advanceSeconds] : [step.path ?? null, step.query ?? null, step.body ?? null];
    for (const ref of [...values.flatMap(referencesIn), ...referencesIn(step.say ?? null)]) {
      const head = ref.split(/[.[+]/)[0] ?? '';
      if ((BUILT_INS as readonly string[]).includes(head)) continue;
      // A step's `say` may name its own answer; its request only earlier answers.
      if (head === step.name && referencesIn(step.say ?? null).includes(ref)) continue;
      if (head === step.name || later.has(head)) throw new UsageError(`${where}: \${${ref}} refers to step "${head}", which has not run yet (a step can use only earlier steps' answers)`);
      if (!seen.has(head)) throw new UsageError(`${where}: \${${ref}} refers to no step "${head}" (steps: ${[...seen].join(', ') || 'none before it'}; or ${BUILT_INS.join(', ')})`);
    }
    seen.add(step.name);
  }
  return fixture;
}

/**
 * The file's text, read only up to MAX_FIXTURE_BYTES: a larger regular file is refused by its size before any of
 * it is read, and anything else (a pipe, a device such as /dev/zero) once it has given one byte too many.
 */
function readFixtureText(file: string): string {
  const cannot = (error: unknown): UsageError => new UsageError(`cannot read the fixture ${file}: ${(error as { code?: string }).code ?? String(error)}`);
  const tooLarge = (size: string): UsageError =>
    new UsageError(`the fixture ${file} is larger than ${String(MAX_FIXTURE_BYTES / 1024 / 1024)} MiB (${size}; at most ${String(MAX_FIXTURE_BYTES)} bytes): a fixture is a few steps, not data`);
  let fd: number;
  try {
    fd = openSync(file, 'r');
  } catch (error) {
    throw cannot(error);
  }
  try {
    const stat = fstatSync(fd);
    if (stat.isFile() && stat.size > MAX_FIXTURE_BYTES) throw tooLarge(`${String(stat.size)} bytes`);
    const chunks: Buffer[] = [];
    let total = 0;
    for (;;) {
      const chunk = Buffer.allocUnsafe(Math.min(64 * 1024, MAX_FIXTURE_BYTES + 1 - total));
      let n: number;
      try {
        n = readSync(fd, chunk, 0, chunk.length, null);
      } catch (error) {
        throw cannot(error);
      }
      if (n === 0) break;
      chunks.push(chunk.subarray(0, n));
      total += n;
      if (total > MAX_FIXTURE_BYTES) throw tooLarge('it gave more');
    }
    return Buffer.concat(chunks, total).toString('utf8');
  } finally {
    closeSync(fd);
  }
}

export function loadFixtureFile(file: string): Fixture {
  const text = readFixtureText(file);
  // A user's own fixture may be YAML (by its name's ending): the same data, written by hand more easily.
  const yaml = /\.ya?ml$/i.test(file);
  // Nesting is judged before parsing: a parser's recursion overflows the stack on deep enough text (and after
  // one overflow inside yaml's parser, V8 has been seen to abort the process on the next).
  if (yaml ? yamlTooDeep(text, MAX_FIXTURE_DEPTH) : jsonTooDeep(text, MAX_FIXTURE_DEPTH)) throw tooDeep(`the fixture ${file}`);
  let data: unknown;
  try {
    if (yaml) {
      const doc = parseDocument(text, { prettyErrors: true });
      const [error] = doc.errors;
      // The first line: the problem and its line and column (the code frame after it is the file's own text).
      if (error) throw new Error(error.message.split('\n')[0]?.replace(/:$/, '') ?? error.message);
      if (yamlDocumentTooDeep(doc, MAX_FIXTURE_DEPTH)) throw tooDeep(`the fixture ${file}`);
      data = doc.toJS();
    } else {
      data = JSON.parse(text);
    }
  } catch (error) {
    if (error instanceof UsageError) throw error;
    throw new UsageError(`the fixture ${file} is not valid ${yaml ? 'YAML' : 'JSON'}: ${error instanceof Error ? error.message : String(error)}`);
  }
  const fixture = checkFixture(data, file);
  origins.set(fixture, { file });
  return fixture;
}

/** Follows `a.b[0].c` or `list[key=value].c` into a value; undefined when any part is missing. */
export function follow(value: unknown, path: string): unknown {
  let here = value;
  for (const part of path.match(/[^.[\]]+|\[[^\]]*\]/g) ?? []) {
    if (here === null || typeof here !== 'object') return undefined;
    const filter = /^\[([^=\]]+)=([^\]]*)\]$/.exec(part);
    if (filter) {
      // The value may name a contract constant (`[typeId=enum.PaymentProcessorType.Eft]`) rather than copy it.
      const wanted = filter[2]?.startsWith('enum.') ? String(follow(enums, filter[2].slice('enum.'.length))) : filter[2];
      here = Array.isArray(here) ? here.find((x: unknown) => String(follow(x, filter[1] ?? '')) === wanted) : undefined;
      continue;
    }
    const key = part.startsWith('[') ? part.slice(1, -1) : part;
    here = (here as Record<string, unknown>)[key];
  }
  return here;
}

export interface Answers {
  args: JsonObject;
  steps: Map<string, unknown>;
  /** `${now}`: the sandbox's business clock, read before the step that names it (wall time when not read). */
  now?: Date;
}

/** The value of one reference. */
function valueOf(ref: string, answers: Answers, where: string, lenient: boolean): unknown {
  const [head = '', ...rest] = ref.split('.');
  const tail = rest.join('.');
  if (head === 'random') return randomUUID().slice(0, 8).toUpperCase();
  if (head.startsWith('now')) {
    const shift = /^now(?:\+(\w+))?$/.exec(head);
    if (!shift) throw new UsageError(`${where}: \${${ref}}: write \${now} or \${now+30d}`);
    const ms = shift[1] === undefined ? 0 : parseDuration(shift[1], { min: 1, max: 3650 * 86_400, what: 'a ${now+...} shift' }) * 1000;
    return new Date((answers.now?.getTime() ?? Date.now()) + ms).toISOString().replace(/\.\d{3}Z$/, 'Z');
  }
  if (head === 'card') {
    const pan = sandboxCardFor(tail as Parameters<typeof sandboxCardFor>[0]);
    if (pan === undefined) throw new UsageError(`${where}: \${${ref}}: the contract lists no sandbox card answering ${tail}`);
    return pan;
  }
  const found = head === 'enum' ? follow(enums, tail) : head === 'args' ? follow(answers.args, tail) : follow(answers.steps.get(head), tail);
  if (found === undefined && lenient) return '';
  if (found === undefined) {
    const hint = head === 'args' ? ` (pass it: --${tail} for customer, or set it in the fixture's "args")` : head === 'enum' ? ' (generated/enums.ts)' : ` (step "${head}" answered ${((JSON.stringify(answers.steps.get(head)) as string | undefined) ?? 'nothing').slice(0, 300)})`;
    throw new UsageError(`${where}: \${${ref}} is not there${hint}`);
  }
  return found;
}

/** Text with each reference written into it (an object as JSON). */
export function interpolate(text: string, answers: Answers, where: string, lenient = false): string {
  return text.replace(REFERENCE, (_, ref: string) => {
    const v = valueOf(ref, answers, where, lenient);
    return typeof v === 'string' ? v : JSON.stringify(v);
  });
}

/**
 * A value with its references filled in: a string that is one reference keeps the referenced value's type.
 * Lenient (a step's `say`): a missing answer field prints as nothing rather than failing a run that worked.
 */
export function resolve(value: Json | undefined, answers: Answers, where: string, lenient = false): Json | undefined {
  if (typeof value === 'string') {
    const whole = /^\$\{([^}]+)\}$/.exec(value);
    if (whole) return valueOf(whole[1] ?? '', answers, where, lenient) as Json;
    return interpolate(value, answers, where, lenient);
  }
  if (Array.isArray(value)) return value.map((v) => resolve(v, answers, where, lenient) ?? null);
  if (value !== null && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, resolve(v, answers, where, lenient) ?? null]));
  return value;
}

/** The method, URL (path parameters and query written in and encoded: request-url.ts) and body of an operation step. */
export function stepRequest(step: OperationStep, answers: Answers, where: string): { method: string; url: string; body?: Json } {
  const route = routeOf(step.operation);
  if (!route) throw new UsageError(`${where}: unknown operation "${step.operation}"`);
  const path = fillPath(route.path, (resolve(step.path ?? {}, answers, where) ?? {}) as JsonObject, where);
  const query = queryString((resolve(step.query ?? {}, answers, where) ?? {}) as JsonObject, where);
  return { method: route.method.toUpperCase(), url: `${path}${query}`, ...(step.body === undefined ? {} : { body: resolve(step.body, answers, where) ?? null }) };
}

/**
 * Before a run sends anything: each path parameter that names no step's answer (a literal, `${args.X}`, a
 * built-in) is filled in and judged, so a bad one (`--customer ..`) is refused before the first request.
 */
export function checkPathsBeforeRun(fixture: Fixture, answers: Answers, where: (i: number, step: Step) => string): void {
  for (const [i, step] of fixture.steps.entries()) {
    if (isClock(step)) continue;
    const route = routeOf(step.operation);
    if (!route || step.path === undefined) continue;
    const early = Object.fromEntries(Object.entries(step.path).filter(([, value]) =>
      referencesIn(value).every((ref) => (BUILT_INS as readonly string[]).includes(ref.split(/[.[+]/)[0] ?? ''))));
    for (const [param, value] of Object.entries(early)) pathSegment(param, resolve(value, answers, where(i, step)), where(i, step));
  }
}

/** An `--override`/`--add` value: JSON when it parses as JSON (42, true, null, {"a":1}), else the text (see applyEdits). */
function parseValue(text: string): Json {
  try {
    return JSON.parse(text) as Json;
  } catch {
    return text;
  }
}

export interface Edit { kind: 'override' | 'add'; step: string; field: string; value: Json; text: string }

export function parseEdit(kind: Edit['kind'], text: string): Edit {
  const m = /^([A-Za-z_][A-Za-z0-9_]*):([^=]+)=(.*)$/s.exec(text);
  if (!m) throw new UsageError(`--${kind} "${text}": write step:field.path=value (e.g. --${kind} sale:amount=12.5)`);
  return { kind, step: m[1] ?? '', field: m[2] ?? '', value: parseValue(m[3] ?? ''), text: m[3] ?? '' };
}

/**
 * Applies --override (the field must be there) and --add (it must not): the field path is into the step's
 * body, or its path or query with a `path.`/`query.` prefix; into a clock step's `clock`.
 */
export function applyEdits(fixture: Fixture, edits: readonly Edit[], source: string): Fixture {
  const copy = structuredClone(fixture);
  for (const edit of edits) {
    const step = copy.steps.find((s) => s.name === edit.step);
    const flag = `--${edit.kind} ${edit.step}:${edit.field}`;
    if (!step) throw new UsageError(`${flag}: fixture ${source} has no step "${edit.step}" (steps: ${copy.steps.map((s) => s.name).join(', ')})`);
    const [first = '', ...others] = edit.field.split('.');
    const holder = step as unknown as Record<string, Json>;
    const [rootKey, parts] = isClock(step) ? ['clock', edit.field.split('.')] : first === 'path' || first === 'query' ? [first, others] : ['body', edit.field.split('.')];
    holder[rootKey] ??= {};
    let here: Json | undefined = holder[rootKey];
    for (const [i, part] of parts.entries()) {
      if (here === null || typeof here !== 'object') throw new UsageError(`${flag}: ${parts.slice(0, i).join('.')} is not an object in step "${step.name}"`);
      const container = here as Record<string, Json>;
      if (i === parts.length - 1) {
        const present = container[part] !== undefined;
        if (edit.kind === 'override' && !present) throw new UsageError(`${flag}: step "${step.name}" has no ${edit.field} to override (--add adds a field)`);
        if (edit.kind === 'add' && present) throw new UsageError(`${flag}: step "${step.name}" already has ${edit.field} (--override changes it)`);
        // An override keeps a text field text: a card number or a postal code is not made a number.
        const old = container[part];
        container[part] = edit.kind === 'override' && typeof old === 'string' ? edit.text : edit.value;
      } else {
        if (container[part] === undefined && edit.kind === 'add') container[part] = {};
        if (container[part] === undefined) throw new UsageError(`${flag}: step "${step.name}" has no ${parts.slice(0, i + 1).join('.')} to override`);
        here = container[part];
      }
    }
  }
  const edited = checkFixture(copy, source);
  // Edits typed on the command line keep the fixture what it was: a built-in one stays built-in.
  const origin = origins.get(fixture);
  if (origin !== undefined) origins.set(edited, origin);
  return edited;
}
