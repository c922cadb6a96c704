// The transaction state machines as the spec declares them (`x-state-machine` on the status schemas), and
// how the walk reaches each status: the approving rows, the declining first rows (a magic card from the spec's
// table, or an amount over maxTransactionAmount), the sandbox's network simulation and its clock.
import { OperationId } from '@pgw/client/operations';
import { sandboxMagicValues } from '@pgw/client/magic-values';
import type { Spec } from '../spec.ts';

type JsonObject = Record<string, unknown>;
const isObject = (v: unknown): v is JsonObject => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * A row of a table. `amount` (designed) says which amount takes it among its trigger's rows: `partial`, less
 * than what remains (of a refund: the processed amount less what was refunded); `remainder`, all of it (no amount).
 */
export interface Row {
  from: string[]; trigger: string; to: string; responseCodes?: string[]; types?: string[]; event?: string | null;
  amount?: 'partial' | 'remainder'; magic?: string; overLimit?: boolean;
}
/** A machine as the spec declares it: rows, the refusal (a responseCode, or an errorCode per trigger), names by id. */
export interface Machine { schema: string; refusalCode: string; errorCodes: Record<string, string>; rows: Row[]; names: Map<number, string> }

/** The network triggers the sandbox can force, as simulate requests. */
export const SIMULATED: Record<string, JsonObject> = {
  'network.submit': { outcome: 'submit' },
  'network.clear': { outcome: 'settle' },
  'network.settle': { outcome: 'settle' },
  'network.return.chargeback': { outcome: 'return', returnCode: 'R05' },
  'network.return.failed': { outcome: 'return', returnCode: 'R01' },
  'network.fail': { outcome: 'fail' },
};

/** Triggers the business clock makes happen: the sandbox clock is advanced this many seconds past the rule. */
export const CLOCK: Record<string, number> = {
  // Card authorizations expire 7 days after they were made (the 7-day expiry of the card network).
  'network.expire': 7 * 86_400 + 3_600,
};

/** A kind of record: the machine, the record type its rows name, and the operation that creates it. */
export interface Kind { machine: string; type: string; create: OperationId }
export const KINDS: readonly Kind[] = [
  { machine: 'AchTransactionStatus', type: 'AchDebit', create: OperationId.createAchDebit },
  { machine: 'CardTransactionStatus', type: 'Authorization', create: OperationId.authorizeCard },
  { machine: 'CardTransactionStatus', type: 'Sale', create: OperationId.createCardSale },
];

export function machineOf(spec: Spec, schemaName: string): Machine | undefined {
  const schemas = isObject(spec.document.components) && isObject(spec.document.components.schemas) ? spec.document.components.schemas : {};
  const schema = schemas[schemaName];
  if (!isObject(schema) || !isObject(schema['x-state-machine'])) return undefined;
  const table = schema['x-state-machine'];
  const refusal = isObject(table.refusal) ? table.refusal : {};
  const values = Array.isArray(schema.enum) ? (schema.enum as unknown[]) : [];
  const names = Array.isArray(schema['x-enum-varnames']) ? (schema['x-enum-varnames'] as unknown[]) : [];
  return {
    schema: schemaName,
    refusalCode: typeof refusal.responseCode === 'string' ? refusal.responseCode : '',
    errorCodes: isObject(refusal.errorCodes) ? (refusal.errorCodes as Record<string, string>) : {},
    rows: (Array.isArray(table.transitions) ? table.transitions : []).filter(isObject) as unknown as Row[],
    names: new Map(values.map((v, i) => [Number(v), String(names[i])])),
  };
}

export const applies = (row: Row, kind: Kind): boolean => row.types === undefined || row.types.includes(kind.type);
export const approves = (row: Row): boolean => row.responseCodes === undefined || row.responseCodes.length === 0 || row.responseCodes.includes('000');

/**
 * The sandbox's magic card numbers by the responseCode they produce (the contract's table, generated from
 * spec/data/magic-values.yaml): how the walk reaches the statuses of a declining first row.
 */
const MAGIC_CARDS: ReadonlyMap<string, string> = new Map(sandboxMagicValues.cards.values.filter((c) => c.responseCode !== '000').map((c) => [c.responseCode, c.number]));

/** The response code of an amount above the target's configured maxTransactionAmount. */
const LIMIT_CODES: ReadonlySet<string> = new Set([sandboxMagicValues.limit.responseCode]);

/** How a declining first row is produced: a magic card for one of its codes, else an amount above the limit. */
function declining(row: Row): Row | undefined {
  const pan = (row.responseCodes ?? []).map((code) => MAGIC_CARDS.get(code)).find((p) => p !== undefined);
  if (pan !== undefined) return { ...row, magic: pan };
  return (row.responseCodes ?? []).some((code) => LIMIT_CODES.has(code)) ? { ...row, overLimit: true } : undefined;
}

/** The declining first rows of a kind (its create answered with a business error), each with how to produce it. */
export function decliningFirstRows(machine: Machine, kind: Kind, limited: boolean): Row[] {
  return machine.rows.filter((r) => applies(r, kind) && r.from.includes('initial') && r.trigger === kind.create && !approves(r))
    .flatMap((r) => declining(r) ?? []).filter((r) => limited || r.overLimit !== true);
}

/** The shortest way from `initial` to each status: approving rows, and declining first rows (magic card or limit). */
export function routes(machine: Machine, kind: Kind, spec: Spec, limited: boolean): Map<string, Row[]> {
  const usable = machine.rows.filter((r) => applies(r, kind) && approves(r) && r.to !== 'same' && r.to !== 'removed' &&
    (spec.operations.has(r.trigger) ? true : r.trigger in SIMULATED || r.trigger in CLOCK));
  const found = new Map<string, Row[]>();
  const start = usable.find((r) => r.from.includes('initial') && r.trigger === kind.create);
  if (!start) return found;
  found.set(start.to, [start]);
  const queue = [start.to];
  for (const row of decliningFirstRows(machine, kind, limited)) {
    if (found.has(row.to)) continue;
    found.set(row.to, [row]);
    queue.push(row.to);
  }
  while (queue.length > 0) {
    const at = queue.shift() ?? '';
    for (const row of usable.filter((r) => r.from.includes(at) && !found.has(r.to))) {
      found.set(row.to, [...(found.get(at) ?? []), row]);
      queue.push(row.to);
    }
  }
  return found;
}

/** The statuses the walk reaches for each kind of record on a target that sets a maxTransactionAmount (for tests). */
export function reachableStatuses(spec: Spec): Record<string, string[]> {
  return Object.fromEntries(KINDS.flatMap((kind) => {
    const machine = machineOf(spec, kind.machine);
    return machine ? [[`${kind.machine}:${kind.type}`, [...routes(machine, kind, spec, true).keys()].sort()]] : [];
  }));
}

/** How the walk produces each declining first row, per kind of record: `card <pan>` or `over the limit` (for tests). */
export function decliningRoutes(spec: Spec): Record<string, string[]> {
  return Object.fromEntries(KINDS.flatMap((kind) => {
    const machine = machineOf(spec, kind.machine);
    return machine ? [[`${kind.machine}:${kind.type}`, decliningFirstRows(machine, kind, true)
      .map((r) => `${r.to} ${(r.responseCodes ?? []).join('/')} by ${r.magic === undefined ? 'an amount over the limit' : `card ${r.magic}`}`)]] : [];
  }));
}

