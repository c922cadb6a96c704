// Status schemas' x-state-machine -> state-machines.ts: each machine as typed, readonly data, one row per
// (from status, trigger, outcome), with status names resolved to their ids. Refuses a row that names an
// unknown status, trigger, event, response code, transaction type or amount, or has no provenance: a table
// the server and the conformance suite run must say only what the document defines.
import type { GeneratedFile, Printer } from '../lib/ts.ts';
import type { JsonObject } from '../model.ts';
import { literal, pascalCase, propertyKey } from '../names.ts';

const asObject = (v: unknown): JsonObject => (typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as JsonObject) : {});
const asArray = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);

/** The schema whose enum values are the response codes a row may name. */
const RESPONSE_CODES = 'TransactionResponseCode';
/** The schema whose enum values are the return codes a row may name (the bank's return that picks the row). */
const RETURN_CODES = 'AchReturnCode';
/** The integer enumeration whose names a row's `types` lists. */
const TRANSACTION_TYPES = 'TransactionType';

/**
 * What a command's amount picks among a trigger's rows: `partial`, less than what remains (of a refund: the
 * processed amount less what was refunded); `remainder`, all of it (that amount, or none given).
 */
export const ROW_AMOUNTS = ['partial', 'remainder'] as const;
export type RowAmount = (typeof ROW_AMOUNTS)[number];
const isRowAmount = (v: unknown): v is RowAmount => (ROW_AMOUNTS as readonly unknown[]).includes(v);

/** A status id: an integer enumeration's (x-enum-varnames name it) or a string enumeration's value (its own name). */
export type StatusId = number | string;

export interface StateRow {
  from: StatusId | null;
  trigger: string;
  /** A status id, or 'removed' when the record is deleted. */
  to: StatusId;
  responseCodes: string[];
  /** The return codes that pick this row among the trigger's (absent: the row is not picked by one). */
  returnCodes: string[] | null;
  /** What the command's amount must be to take this row (absent: the row is not picked by one). */
  amount: RowAmount | null;
  event: string | null;
  types: number[] | null;
  provenance: 'seed' | 'designed';
  note: string | null;
}

export type StateRefusalModel =
  | { kind: 'responseCode'; responseCode: string }
  | { kind: 'errorCode'; errorCodes: Record<string, string> };

export interface StateMachineModel {
  /** The status schema that declares it. */
  schema: string;
  name: string;
  statuses: [string, StatusId][];
  refusal: StateRefusalModel;
  triggers: [string, string][];
  rows: StateRow[];
}

/** Names -> ids of an integer enumeration with x-enum-varnames. */
function namedEnum(schemas: JsonObject, name: string): Map<string, number> {
  const schema = asObject(schemas[name]);
  const ids = asArray(schema.enum);
  const names = asArray(schema['x-enum-varnames']);
  return new Map(names.map((n, i) => [String(n), Number(ids[i])]));
}

/** Names -> ids of a status enumeration: an integer one's x-enum-varnames, or a string one's values (each its own name). */
function statusEnum(schemas: JsonObject, name: string): Map<string, StatusId> {
  const schema = asObject(schemas[name]);
  if (schema.type === 'string') return new Map(asArray(schema.enum).map((v) => [String(v), String(v)]));
  return namedEnum(schemas, name);
}

const idText = (id: StatusId): string => (typeof id === 'number' ? String(id) : literal(id));

function operationIds(doc: JsonObject): Set<string> {
  const ids = new Set<string>();
  for (const item of Object.values(asObject(doc.paths))) {
    for (const operation of Object.values(asObject(item))) {
      const id = asObject(operation).operationId;
      if (typeof id === 'string') ids.add(id);
    }
  }
  return ids;
}

/** What the document defines that a table may name. */
interface Vocabulary {
  readonly operations: ReadonlySet<string>;
  readonly events: ReadonlySet<string>;
  readonly codes: ReadonlySet<string>;
  readonly returnCodes: ReadonlySet<string>;
  readonly types: ReadonlyMap<string, number>;
}

/** One entry of `transitions`, expanded into a row per from status; `fail` names the entry. */
function expandEntry(entry: unknown, statuses: ReadonlyMap<string, StatusId>, declared: ReadonlySet<string>, known: Vocabulary, fail: (message: string) => never): StateRow[] {
  const t = asObject(entry);
  const statusId = (name: unknown): StatusId => statuses.get(String(name)) ?? fail(`names no status ${String(name)}`);
  const trigger = typeof t.trigger === 'string' ? t.trigger : fail('has no trigger');
  if (!known.operations.has(trigger) && !declared.has(trigger)) fail(`trigger ${trigger} is neither an operationId of the document nor declared under triggers`);
  const event = typeof t.event === 'string' ? t.event : null;
  if (t.event !== null && t.event !== undefined && event === null) fail('event must be a webhook name or null');
  if (event !== null && !known.events.has(event)) fail(`event ${event} is no webhook of the document`);
  const responseCodes = asArray(t.responseCodes).map(String);
  for (const code of responseCodes) if (!known.codes.has(code)) fail(`response code ${code} is not a ${RESPONSE_CODES}`);
  const returnCodes = t.returnCodes === undefined ? null : asArray(t.returnCodes).map(String);
  for (const code of returnCodes ?? []) if (!known.returnCodes.has(code)) fail(`return code ${code} is not an ${RETURN_CODES}`);
  const amount = t.amount === undefined ? null : isRowAmount(t.amount) ? t.amount : fail(`amount ${JSON.stringify(t.amount)} is none of ${ROW_AMOUNTS.join(', ')}`);
  const types = t.types === undefined ? null : asArray(t.types).map((n) => known.types.get(String(n)) ?? fail(`names no ${TRANSACTION_TYPES} ${String(n)}`));
  const provenance = t.provenance === 'seed' || t.provenance === 'designed' ? t.provenance : fail('has no provenance (seed or designed)');
  const note = typeof t.note === 'string' ? t.note : null;
  const froms = asArray(t.from);
  if (froms.length === 0) fail('has no from status');
  return froms.map((from): StateRow => {
    const fromId = from === 'initial' ? null : statusId(from);
    let to: StatusId;
    if (t.to === 'removed') to = 'removed';
    else if (t.to === 'same') to = fromId ?? fail('a creation (from initial) cannot stay the same');
    else to = statusId(t.to);
    return { from: fromId, trigger, to, responseCodes, returnCodes, amount, event, types, provenance, note };
  });
}

/** The machine's refusal: a response code of the document, or an errorCode per operation trigger of the machine. */
function readRefusal(raw: unknown, rows: readonly StateRow[], known: Vocabulary, fail: (message: string) => never): StateRefusalModel {
  const refusal = asObject(raw);
  if (refusal.kind === 'responseCode') {
    const code = String(refusal.responseCode);
    if (!known.codes.has(code)) fail(`refusal response code ${code} is not a ${RESPONSE_CODES}`);
    return { kind: 'responseCode', responseCode: code };
  }
  if (refusal.kind !== 'errorCode') return fail('refusal must be { kind: responseCode, responseCode } or { kind: errorCode, errorCodes }');
  const errorCodes: Record<string, string> = {};
  for (const [trigger, code] of Object.entries(asObject(refusal.errorCodes))) {
    if (!known.operations.has(trigger) || !rows.some((r) => r.trigger === trigger)) fail(`refusal errorCodes names ${trigger}, which is no operation trigger of this machine`);
    errorCodes[trigger] = typeof code === 'string' ? code : fail(`refusal errorCodes.${trigger} must be an errorCode string`);
  }
  return { kind: 'errorCode', errorCodes };
}

/** Reads and checks every x-state-machine of the document's schemas, in schema order. */
export function readStateMachines(doc: JsonObject): StateMachineModel[] {
  const schemas = asObject(asObject(doc.components).schemas);
  const known: Vocabulary = {
    operations: operationIds(doc),
    events: new Set(Object.keys(asObject(doc.webhooks))),
    codes: new Set(asArray(asObject(schemas[RESPONSE_CODES]).enum).map(String)),
    returnCodes: new Set(asArray(asObject(schemas[RETURN_CODES]).enum).map(String)),
    types: namedEnum(schemas, TRANSACTION_TYPES),
  };
  const machines: StateMachineModel[] = [];
  for (const [schemaName, schema] of Object.entries(schemas)) {
    const declared = asObject(schema)['x-state-machine'];
    if (declared === undefined) continue;
    const machine = asObject(declared);
    const failMachine = (message: string): never => {
      throw new Error(`${schemaName} x-state-machine: ${message}`);
    };
    const name = String(machine.name);
    if (!/^[a-z][A-Za-z0-9]*$/.test(name)) failMachine(`name ${name} must be a camelCase identifier (it names ${name}StateMachine)`);
    const other = machines.find((m) => m.name === name);
    if (other) failMachine(`name ${name} is taken by the state machine of ${other.schema}`);
    const statuses = statusEnum(schemas, schemaName);
    const triggers = Object.entries(asObject(machine.triggers)).map(([k, v]) => [k, String(v)] as [string, string]);
    const declaredTriggers = new Set(triggers.map(([k]) => k));
    const rows = asArray(machine.transitions).flatMap((entry, index) =>
      expandEntry(entry, statuses, declaredTriggers, known, (message) => {
        const trigger = asObject(entry).trigger;
        throw new Error(`${schemaName} x-state-machine transitions[${String(index)}]${typeof trigger === 'string' ? ` (${trigger})` : ''}: ${message}`);
      }));
    for (const [trigger] of triggers) if (!rows.some((r) => r.trigger === trigger)) failMachine(`trigger ${trigger} is declared but no transition uses it`);
    const refusal = readRefusal(machine.refusal, rows, known, failMachine);
    machines.push({ schema: schemaName, name, statuses: [...statuses], refusal, triggers, rows });
  }
  return machines;
}

const constName = (machine: StateMachineModel): string => `${machine.name}StateMachine`;
const typeStem = (machine: StateMachineModel): string => pascalCase(machine.name);
const union = (members: readonly string[]): string => (members.length > 0 ? members.join(' | ') : 'never');

/** The machine's triggers, each once: the rows' in their order, then any other declared one. */
const triggerNames = (machine: StateMachineModel): string[] => [...new Set([...machine.rows.map((r) => r.trigger), ...machine.triggers.map(([n]) => n)])];

/** A JSON value as a TypeScript literal (single quotes, bare keys where they are identifiers). */
function valueText(value: unknown): string {
  if (typeof value === 'string') return literal(value);
  if (typeof value === 'number' || typeof value === 'boolean' || value === null) return String(value);
  if (Array.isArray(value)) return `[${value.map(valueText).join(', ')}]`;
  return `{ ${Object.entries(asObject(value)).map(([k, v]) => `${propertyKey(k)}: ${valueText(v)}`).join(', ')} }`;
}

function rowText(row: StateRow): string {
  return `{ from: ${row.from === null ? 'null' : idText(row.from)}, trigger: ${literal(row.trigger)}, to: ${row.to === 'removed' ? literal(row.to) : idText(row.to)}, ` +
    `responseCodes: [${row.responseCodes.map(literal).join(', ')}], ` +
    (row.returnCodes === null ? '' : `returnCodes: [${row.returnCodes.map(literal).join(', ')}], `) +
    (row.amount === null ? '' : `amount: ${literal(row.amount)}, `) +
    `event: ${row.event === null ? 'null' : literal(row.event)}, ` +
    `types: ${row.types === null ? 'null' : `[${row.types.join(', ')}]`}, provenance: ${literal(row.provenance)}, note: ${row.note === null ? 'null' : literal(row.note)} }`;
}

/** Whether the machine's statuses are an integer enumeration, which enums.ts generates as a constant. */
const fromEnums = (machine: StateMachineModel): boolean => machine.statuses.every(([, id]) => typeof id === 'number');

function machineText(machine: StateMachineModel): string {
  const stem = typeStem(machine);
  // An integer status type is the enumeration's (enums.ts), aliased only where the machine's name differs from
  // it; a string enumeration (webhook deliveries) has no constant there and is spelled out.
  const status = !fromEnums(machine)
    ? `/** The status ids of the ${machine.name} state machine (${machine.schema}). */
export type ${stem}Status = ${union(machine.statuses.map(([, id]) => idText(id)))};
`
    : `${stem}Status` === machine.schema ? '' : `/** The status ids of the ${machine.name} state machine (${machine.schema}). */
export type ${stem}Status = ${machine.schema};
`;
  return `${status}/** The triggers of the ${machine.name} state machine: operationIds, and the network and time events under \`triggers\`. */
export type ${stem}Trigger = ${union(triggerNames(machine).map(literal))};
/** The ${machine.name} state machine (${machine.schema}). A trigger with no row for a status is forbidden there. */
export const ${constName(machine)} = {
  name: ${literal(machine.name)},
  schema: ${literal(machine.schema)},
  statuses: ${valueText(Object.fromEntries(machine.statuses))},
  refusal: ${valueText(machine.refusal)},
  triggers: ${machine.triggers.length === 0 ? '{}' : `{
${machine.triggers.map(([n, d]) => `    ${literal(n)}: ${literal(d)},`).join('\n')}
  }`},
  transitions: [
${machine.rows.map((r) => `    ${rowText(r)},`).join('\n')}
  ],
} as const satisfies StateMachine<${stem}Status, ${stem}Trigger, ${RESPONSE_CODES}, WebhookEventName>;
/** A row of the ${machine.name} state machine, with its literal types. */
export type ${stem}Transition = (typeof ${constName(machine)}.transitions)[number];`;
}

/** The generated module; undefined when the document declares no state machine. */
export function transformStateMachines(doc: JsonObject, printer: Printer): GeneratedFile | undefined {
  const machines = readStateMachines(doc);
  if (machines.length === 0) return undefined;
  const hasCodes = RESPONSE_CODES in asObject(asObject(doc.components).schemas);
  const statements: string[] = [
    hasCodes ? `import type { components } from './types.ts';` : '',
    machines.some(fromEnums) ? `import type { ${machines.filter(fromEnums).map((m) => m.schema).join(', ')} } from './enums.ts';` : '',
    `import type { WebhookEventName } from './webhooks.ts';`,
    `/** The response codes a row may answer with (the document's ${RESPONSE_CODES}). */
export type ${RESPONSE_CODES} = ${hasCodes ? `components['schemas']['${RESPONSE_CODES}']` : 'never'};`,
    `/**
 * A row of a state machine table: in status \`from\` (null: no record yet, the trigger creates it), \`trigger\`
 * (an operationId or a network or time event) leads to \`to\`. The parameters narrow it to one machine; the
 * defaults describe a row of any.
 */
export interface StateTransition<Status extends number | string = number, Trigger extends string = string, Code extends string = string, Event extends string = string> {
  readonly from: Status | null;
  readonly trigger: Trigger;
  /** The status after; 'removed' when the record is deleted. */
  readonly to: Status | 'removed';
  /** The response codes the row answers with; empty: the transition leaves the code as it was. */
  readonly responseCodes: readonly Code[];
  /** The bank return codes (${RETURN_CODES}) that pick this row among its trigger's; absent on other rows. */
  readonly returnCodes?: readonly string[];
  /** What the command's amount must be to take this row: less than what remains (partial) or all of it (remainder); absent on other rows. */
  readonly amount?: 'partial' | 'remainder';
  /** The webhook event the transition emits, or null. */
  readonly event: Event | null;
  /** The ${TRANSACTION_TYPES} ids the row applies to; null: every type. */
  readonly types: readonly number[] | null;
  readonly provenance: 'seed' | 'designed';
  readonly note: string | null;
}`,
    `/** What a trigger with no row for the status answers: a response code (HTTP 200, nothing changed), or an errorCode per operation. */
export type StateRefusal<Trigger extends string = string, Code extends string = string> =
  | { readonly kind: 'responseCode'; readonly responseCode: Code }
  | { readonly kind: 'errorCode'; readonly errorCodes: { readonly [T in Trigger]?: string } };`,
    `/** A state machine of the document: its statuses, what a forbidden trigger answers, its non-operation triggers and its rows. */
export interface StateMachine<Status extends number | string = number, Trigger extends string = string, Code extends string = string, Event extends string = string> {
  readonly name: string;
  /** The status schema that declares it (x-state-machine). */
  readonly schema: string;
  readonly statuses: Readonly<Record<string, Status>>;
  readonly refusal: StateRefusal<Trigger, Code>;
  /** Triggers that are not operations (network and time events), with what they are. */
  readonly triggers: { readonly [T in Trigger]?: string };
  readonly transitions: readonly StateTransition<Status, Trigger, Code, Event>[];
}`,
    ...machines.map(machineText),
    `/** Every state machine of the document. */
export const stateMachines = [${machines.map(constName).join(', ')}] as const;`,
  ].filter((s) => s !== '');
  return printer.file('state-machines.ts', 'The state machines the spec declares (x-state-machine on status schemas), as data.', statements);
}
