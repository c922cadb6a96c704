// Trigger fixtures as data: the format (a JSON Schema checked with ajv), the loader that refuses a fixture
// naming an unknown operation or step before any request is made, and the `${...}` references between steps.
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { Ajv } from 'ajv';
import { parse as parseYaml } from 'yaml';
import * as enums from '@pgw/client/enums';
import { sandboxCardFor } from '@pgw/client/magic-values';
import { routes } from '@pgw/client/operations';
import { parseDuration } from './duration.ts';
import { UsageError } from './errors.ts';

export type Json = string | number | boolean | null | Json[] | { [key: string]: Json };
export type JsonObject = { [key: string]: Json };

export interface OperationStep { name: string; operation: string; path?: JsonObject; query?: JsonObject; body?: Json; say?: string }
export interface ClockStep { name: string; clock: { advanceSeconds: Json }; say?: string }
export type Step = OperationStep | ClockStep;
/** `key`: whose key the steps run with: the merchant's (the default) or the partner's (a sandbox merchant made). */
export interface Fixture { description: string; key?: 'merchant' | 'partner'; args?: JsonObject; steps: Step[] }

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

/** Checks a fixture's shape, operations and references; the message names the fixture and the step. */
export function checkFixture(data: unknown, source: string): Fixture {
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
      for (const param of route.path.match(/\{[^}]+\}/g) ?? []) {
        if (step.path?.[param.slice(1, -1)] === undefined) throw new UsageError(`${where}: ${step.operation} (${route.path}) needs path.${param.slice(1, -1)}`);
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

export function loadFixtureFile(file: string): Fixture {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    throw new UsageError(`cannot read the fixture ${file}: ${(error as { code?: string }).code ?? String(error)}`);
  }
  // A user's own fixture may be YAML (by its name's ending): the same data, written by hand more easily.
  const yaml = /\.ya?ml$/i.test(file);
  let data: unknown;
  try {
    data = yaml ? parseYaml(text, { prettyErrors: true }) : JSON.parse(text);
  } catch (error) {
    throw new UsageError(`the fixture ${file} is not valid ${yaml ? 'YAML' : 'JSON'}: ${error instanceof Error ? error.message : String(error)}`);
  }
  return checkFixture(data, file);
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
  return checkFixture(copy, source);
}
