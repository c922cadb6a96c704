// Status schemas' x-state-machine -> state-machines.ts: each machine as typed, readonly data, one row per
// (from status, trigger, outcome), with status names resolved to their ids. Refuses a row that names an
// unknown status, trigger, event, response code or transaction type, or has no provenance: a table the
// server and the conformance suite run must say only what the document defines.
import type { GeneratedFile, Printer } from '../lib/ts.ts';
import type { JsonObject } from '../model.ts';
import { literal, propertyKey } from '../names.ts';

const asObject = (v: unknown): JsonObject => (typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as JsonObject) : {});
const asArray = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);

export interface StateRow {
  from: number | null;
  trigger: string;
  to: number | 'removed';
  responseCodes: string[];
  event: string | null;
  types: number[] | null;
  provenance: 'seed' | 'designed';
  note: string | null;
}

export interface StateMachineModel {
  /** The status schema that declares it. */
  schema: string;
  name: string;
  statuses: [string, number][];
  refusal: JsonObject;
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

/** Reads and checks every x-state-machine of the document's schemas, in schema order. */
export function readStateMachines(doc: JsonObject): StateMachineModel[] {
  const schemas = asObject(asObject(doc.components).schemas);
  const operations = operationIds(doc);
  const events = new Set(Object.keys(asObject(doc.webhooks)));
  const codes = new Set(asArray(asObject(schemas.TransactionResponseCode).enum).map(String));
  const types = namedEnum(schemas, 'TransactionType');
  const machines: StateMachineModel[] = [];
  for (const [schemaName, schema] of Object.entries(schemas)) {
    const declared = asObject(schema)['x-state-machine'];
    if (declared === undefined) continue;
    const machine = asObject(declared);
    const statuses = namedEnum(schemas, schemaName);
    const triggers = Object.entries(asObject(machine.triggers)).map(([k, v]) => [k, String(v)] as [string, string]);
    const fail = (index: number, message: string): never => {
      throw new Error(`${schemaName} x-state-machine, transition ${String(index)}: ${message}`);
    };
    const statusId = (index: number, name: unknown): number => {
      const id = statuses.get(String(name));
      return id ?? fail(index, `names no status ${String(name)} of ${schemaName}`);
    };
    const rows: StateRow[] = [];
    asArray(machine.transitions).forEach((entry, index) => {
      const t = asObject(entry);
      const trigger = String(t.trigger);
      if (!operations.has(trigger) && !triggers.some(([name]) => name === trigger)) {
        fail(index, `trigger ${trigger} is neither an operationId of the document nor declared under triggers`);
      }
      const event = typeof t.event === 'string' ? t.event : null;
      if (t.event !== null && t.event !== undefined && event === null) fail(index, 'event must be a webhook name or null');
      if (event !== null && !events.has(event)) fail(index, `event ${event} is no webhook of the document`);
      const responseCodes = asArray(t.responseCodes).map(String);
      for (const code of responseCodes) if (!codes.has(code)) fail(index, `response code ${code} is not a TransactionResponseCode`);
      const typeIds = t.types === undefined ? null : asArray(t.types).map((n) => types.get(String(n)) ?? fail(index, `names no TransactionType ${String(n)}`));
      if (t.provenance !== 'seed' && t.provenance !== 'designed') fail(index, 'has no provenance (seed or designed)');
      const froms = asArray(t.from);
      if (froms.length === 0) fail(index, 'has no from status');
      for (const from of froms) {
        const fromId = from === 'initial' ? null : statusId(index, from);
        let to: number | 'removed';
        if (t.to === 'removed') to = 'removed';
        else if (t.to === 'same') to = fromId ?? fail(index, 'a creation (from initial) cannot stay the same');
        else to = statusId(index, t.to);
        rows.push({
          from: fromId, trigger, to, responseCodes, event, types: typeIds, provenance: t.provenance as 'seed' | 'designed',
          note: typeof t.note === 'string' ? t.note : null,
        });
      }
    });
    machines.push({ schema: schemaName, name: String(machine.name), statuses: [...statuses], refusal: asObject(machine.refusal), triggers, rows });
  }
  return machines;
}

const constName = (machine: StateMachineModel): string => `${machine.name}StateMachine`;

/** A JSON value as a TypeScript literal (single quotes, bare keys where they are identifiers). */
function valueText(value: unknown): string {
  if (typeof value === 'string') return literal(value);
  if (typeof value === 'number' || typeof value === 'boolean' || value === null) return String(value);
  if (Array.isArray(value)) return `[${value.map(valueText).join(', ')}]`;
  return `{ ${Object.entries(asObject(value)).map(([k, v]) => `${propertyKey(k)}: ${valueText(v)}`).join(', ')} }`;
}

function rowText(row: StateRow): string {
  return `{ from: ${row.from === null ? 'null' : String(row.from)}, trigger: ${literal(row.trigger)}, to: ${typeof row.to === 'number' ? String(row.to) : literal(row.to)}, ` +
    `responseCodes: [${row.responseCodes.map(literal).join(', ')}], event: ${row.event === null ? 'null' : literal(row.event)}, ` +
    `types: ${row.types === null ? 'null' : `[${row.types.join(', ')}]`}, provenance: ${literal(row.provenance)}, note: ${row.note === null ? 'null' : literal(row.note)} }`;
}

/** The generated module; undefined when the document declares no state machine. */
export function transformStateMachines(doc: JsonObject, printer: Printer): GeneratedFile | undefined {
  const machines = readStateMachines(doc);
  if (machines.length === 0) return undefined;
  const statements: string[] = [
    `/** A row of a state machine table: in status \`from\` (null: no record yet, the trigger creates it), \`trigger\` (an operationId or a network event) leads to \`to\`. */
export interface StateTransition {
  readonly from: number | null;
  readonly trigger: string;
  /** The status after; 'removed' when the record is deleted. */
  readonly to: number | 'removed';
  /** The response codes the row answers with; empty: the transition leaves the code as it was. */
  readonly responseCodes: readonly string[];
  /** The webhook event the transition emits, or null. */
  readonly event: string | null;
  /** The TransactionType ids the row applies to; null: every type. */
  readonly types: readonly number[] | null;
  readonly provenance: 'seed' | 'designed';
  readonly note: string | null;
}`,
    `/** A state machine of the document: its statuses, what a forbidden trigger answers, its non-operation triggers and its rows. */
export interface StateMachine {
  readonly name: string;
  /** The status schema that declares it (x-state-machine). */
  readonly schema: string;
  readonly statuses: Readonly<Record<string, number>>;
  readonly refusal: { readonly kind: 'responseCode'; readonly responseCode: string } | { readonly kind: 'errorCode'; readonly errorCodes: Readonly<Record<string, string>> };
  /** Triggers that are not operations (network and time events), with what they are. */
  readonly triggers: Readonly<Record<string, string>>;
  readonly transitions: readonly StateTransition[];
}`,
  ];
  for (const machine of machines) {
    statements.push(`/** The ${machine.name} state machine (${machine.schema}). A trigger with no row for a status is forbidden there. */
export const ${constName(machine)} = {
  name: ${literal(machine.name)},
  schema: ${literal(machine.schema)},
  statuses: ${valueText(Object.fromEntries(machine.statuses))},
  refusal: ${valueText(machine.refusal)},
  triggers: {
${machine.triggers.map(([n, d]) => `    ${literal(n)}: ${literal(d)},`).join('\n')}
  },
  transitions: [
${machine.rows.map((r) => `    ${rowText(r)},`).join('\n')}
  ],
} as const satisfies StateMachine;`);
  }
  statements.push(`/** Every state machine of the document. */
export const stateMachines = [${machines.map(constName).join(', ')}] as const;`);
  return printer.file('state-machines.ts', 'The state machines the spec declares (x-state-machine on status schemas), as data.', statements);
}
