// The one executor of every state machine of the spec (x-state-machine, generated as typed tables): it locks
// the record through the one lock helper, finds the generated row for a trigger typed from that machine,
// applies the change, and writes the history entry and the row's event to the outbox, all in the caller's
// transaction. What differs between aggregates (the table, how a change is written, the history, the event's
// payload) is a family's adapter (transaction-machine.ts, invoice-machine.ts, delivery-machine.ts): adding a
// family is a table in the spec and an adapter. A trigger with no row is forbidden: nothing changes and the
// caller answers the machine's refusal.
import type { Knex } from 'knex';
import type { StateTransition } from '@pgw/client/state-machines';
import type { WebhookEventName } from '@pgw/client/webhooks';
import { ApiError } from '../platform/errors.ts';
import { recordEvents, type EventData, type OutboxEvent } from '../platform/outbox.ts';
import { iso } from '../platform/time.ts';
import { lockRow, lockRows } from '../platform/transaction.ts';
import type { Tx } from '../platform/scope.ts';

/** A row of a generated state machine table, whose event is one of the spec's. */
export type TransitionRow = StateTransition<number | string, string, string, WebhookEventName>;

/** What the engine needs of a generated machine: its name and its rows (with their literal types). */
export interface Machine<Row extends TransitionRow> {
  readonly name: string;
  readonly transitions: readonly Row[];
}

/**
 * What every engine call works in: the caller's transaction (the pool does not compile: a lock, the history and
 * the outbox event must commit with the change). A family may need more for its events' payloads.
 */
export interface InTransaction {
  readonly db: Tx;
}

/** A record moved by a row: as it was, the row, and what the caller changes with it. */
export interface Move<R, Row, Change> {
  readonly record: R;
  readonly row: Row;
  readonly change: Change;
}

/** A record after its move (`before` null: it was created). */
export interface Moved<R, Row, Change> {
  readonly before: R | null;
  readonly after: R;
  readonly row: Row;
  readonly change: Change;
}

/**
 * The per-aggregate part: where the records live and how a change, its history and its event are written.
 * `New` is what a creation is given (the record itself, or what the adapter makes one of).
 */
export interface Adapter<R, Row extends TransitionRow, Change, S extends InTransaction, New = R> {
  /** The table the records are locked in (through platform/transaction.ts lockRow). */
  readonly table: string;
  /** The record of a row read under lock. */
  readonly fromRow: (row: Record<string, unknown>) => R;
  /** The status the machine sees at `at` (an invoice's PastDue is derived from its due date). */
  readonly status: (record: R, at: Date) => number | string;
  /** The record's type, which a row's `types` may narrow to (null for families without types). */
  readonly type: (record: R) => number | null;
  readonly merchantOf: (record: R) => string;
  /** What picks a creation row besides the trigger: the new record's status when it has one already, and its type. */
  readonly initial: (fresh: New) => { readonly status?: number | string; readonly type: number | null };
  /** Inserts a record through its creation row; returns it as stored. */
  readonly insert: (db: Knex, fresh: New, row: Row, change: Change, at: Date) => Promise<R>;
  /** Writes the moves (many at once where it can: what falls due together) and returns each record after its move. */
  readonly apply: (db: Knex, moves: readonly Move<R, Row, Change>[], at: Date) => Promise<R[]>;
  /** Deletes a record through a row that leads to `removed`. */
  readonly remove: (db: Knex, record: R) => Promise<void>;
  /** Writes the history entries of the moves. */
  readonly history: (db: Knex, moved: readonly Moved<R, Row, Change>[], at: Date) => Promise<void>;
  /** The payload of the row's event for the record after its move (the resource as the API returns it). */
  readonly eventData: <E extends NonNullable<Row['event']>>(scope: S, event: E, after: R, at: Date) => Promise<EventData<E>>;
}

/** A machine of the spec with the adapter of its aggregate. */
export interface Family<R, Row extends TransitionRow, Change, S extends InTransaction, New = R> {
  readonly machine: Machine<Row>;
  readonly adapter: Adapter<R, Row, Change, S, New>;
}

/** What every family is, for the constraints of the calls: each call reads its family's parts back by type. */
export interface AnyFamily {
  readonly machine: Machine<TransitionRow>;
  readonly adapter: { readonly table: string };
}
/** The parts of a family, read back from its adapter and machine (each call is typed by the family it is given). */
export type RecordOf<F> = F extends { adapter: { fromRow: (row: never) => infer R } } ? R : never;
export type RowOf<F> = F extends { machine: Machine<infer Row> } ? Row & TransitionRow : never;
export type ChangeOf<F> = F extends { adapter: { insert: (db: never, fresh: never, row: never, change: infer C, at: never) => unknown } } ? C : never;
export type NewOf<F> = F extends { adapter: { initial: (fresh: infer N) => unknown } } ? N : never;
type ScopeOf<F> = F extends { adapter: { eventData: (scope: infer S extends InTransaction, ...rest: never[]) => unknown } } ? S : never;
/** The triggers of a family's machine: a trigger the spec's table does not name does not compile. */
export type TriggerOf<F> = RowOf<F>['trigger'];
type AdapterOf<F> = Adapter<RecordOf<F>, RowOf<F>, ChangeOf<F>, ScopeOf<F>, NewOf<F>>;
/** The family's adapter with its own types (the constraint AnyFamily only says it has one). */
const adapterOf = <F extends AnyFamily>(f: F): AdapterOf<F> => f.adapter as AdapterOf<F>;

/**
 * What a call with trigger T needs: the family's scope when one of T's rows emits an event (its payload may
 * need more than the database: an invoice's addresses need the server's base URL), the transaction alone
 * otherwise.
 */
export type ScopeFor<F, T> = [Extract<RowOf<F>, { trigger: T; event: string }>] extends [never] ? InTransaction : ScopeOf<F>;

/** What picks one row when a trigger has several outcomes (approved, declined, failed). */
export interface Outcome {
  to?: number | string;
  responseCode?: string | null;
  /** A bank's return code: only a row that names it (returnCodes) is taken, or a row that names none. */
  returnCode?: string;
}

/** Defines a family: the generated machine and its aggregate's adapter. */
export const family = <R, Row extends TransitionRow, Change, S extends InTransaction, New>(
  machine: Machine<Row>, adapter: Adapter<R, Row, Change, S, New>,
): Family<R, Row, Change, S, New> => ({ machine, adapter });

/**
 * The row of the family's machine for a record in status `from` (null: not created yet) of type `typeId`, the
 * trigger and the outcome; undefined when the table has none (the trigger is forbidden there).
 */
export function rowFor<F extends AnyFamily>(f: F, from: number | string | null, typeId: number | null, trigger: TriggerOf<F>, outcome: Outcome = {}): RowOf<F> | undefined {
  return (f.machine.transitions as readonly RowOf<F>[]).find((row) =>
    row.from === from && row.trigger === trigger && (row.types === null || (typeId !== null && row.types.includes(typeId)))
    && (outcome.to === undefined || row.to === outcome.to)
    && (outcome.responseCode === undefined || outcome.responseCode === null || row.responseCodes.length === 0 || row.responseCodes.includes(outcome.responseCode))
    && (outcome.returnCode === undefined || row.returnCodes === undefined || row.returnCodes.includes(outcome.returnCode)));
}

/** The row `trigger` takes for the record at `at` (for any outcome), or undefined when it is forbidden there. */
export const rowOf = <F extends AnyFamily>(f: F, record: RecordOf<F>, trigger: TriggerOf<F>, at: Date): RowOf<F> | undefined =>
  rowFor(f, adapterOf(f).status(record, at), adapterOf(f).type(record), trigger);

/** Whether the trigger is permitted from the record's status at `at` at all (for any outcome). */
export const permits = <F extends AnyFamily>(f: F, record: RecordOf<F>, trigger: TriggerOf<F>, at: Date): boolean =>
  rowOf(f, record, trigger, at) !== undefined;

/** Reads the record matching `where` in the family's table and locks it until the transaction ends. */
export async function lock<F extends AnyFamily>(scope: InTransaction, f: F, where: Record<string, string | number>): Promise<RecordOf<F> | undefined> {
  const row = await lockRow<Record<string, unknown>>(scope.db, f.adapter.table, where);
  return row === undefined ? undefined : adapterOf(f).fromRow(row);
}

/**
 * Locks the records of the given ids (one statement, through the one lock helper); those gone are missing from
 * the answer.
 */
export async function lockAll<F extends AnyFamily>(scope: InTransaction, f: F, ids: readonly string[]): Promise<RecordOf<F>[]> {
  return (await lockRows<Record<string, unknown>>(scope.db, f.adapter.table, ids)).map((row) => adapterOf(f).fromRow(row));
}

/** The history entries and events of moves made together (many rows a statement). */
async function historyAndEvents<R, Row extends TransitionRow, Change, S extends InTransaction, New>(
  scope: S, adapter: Adapter<R, Row, Change, S, New>, moved: readonly Moved<R, Row, Change>[], at: Date,
): Promise<void> {
  if (moved.length === 0) return;
  await adapter.history(scope.db, moved, at);
  const events: OutboxEvent<WebhookEventName>[] = [];
  for (const { row, after } of moved) {
    if (row.event === null) continue;
    const type: NonNullable<Row['event']> = row.event;
    events.push({ merchantId: adapter.merchantOf(after), type, data: await adapter.eventData(scope, type, after, at), occurredOn: iso(at) });
  }
  if (events.length > 0) await recordEvents(scope.db, events);
}

/**
 * Creates a record through its creation row (from `initial`; to the new record's status when it has one), at
 * `at`; returns the row it took and the record as stored.
 */
// The scope's type is a parameter of its own (S), so that the object literal given for it does not fix T
// before the trigger is read (T would be every trigger, and every call would need the family's scope).
// eslint-disable-next-line @typescript-eslint/no-unnecessary-type-parameters -- S is checked, not used
export async function create<F extends AnyFamily, const T extends TriggerOf<F>, S extends ScopeFor<F, T> & InTransaction>(
  scope: S, f: F, fresh: NewOf<F>, trigger: T, at: Date, change: ChangeOf<F>, outcome: Outcome = {},
): Promise<{ row: RowOf<F>; record: RecordOf<F> }> {
  const adapter = adapterOf(f);
  const { status, type } = adapter.initial(fresh);
  const row = rowFor(f, null, type, trigger, { ...(status === undefined ? {} : { to: status }), ...outcome });
  if (!row) throw new ApiError('internal_error', { details: `no ${f.machine.name} creation row for ${trigger} to status ${String(status)}` });
  const stored = await adapter.insert(scope.db, fresh, row, change, at);
  // The scope a trigger with an event needs is the family's (ScopeFor): only such rows reach eventData.
  await historyAndEvents(scope as ScopeOf<F>, adapter, [{ before: null, after: stored, row, change }], at);
  return { row, record: stored };
}

/**
 * Moves a locked record through the row of `trigger` (and outcome), applying `change` with it, at `at`.
 * Returns the changed record, or undefined when the table has no such row (forbidden: nothing changed).
 */
// eslint-disable-next-line @typescript-eslint/no-unnecessary-type-parameters -- as create's S
export async function transition<F extends AnyFamily, const T extends TriggerOf<F>, S extends ScopeFor<F, T> & InTransaction>(
  scope: S, f: F, record: RecordOf<F>, trigger: T, at: Date, change: ChangeOf<F>, outcome: Outcome = {},
): Promise<RecordOf<F> | undefined> {
  return (await transitionAll(scope, f, [record], trigger, at, () => change, outcome))[0];
}

/**
 * The same trigger on many locked records at one time (what falls due together): each through its row, the
 * adapter writing them together where it can, history and events many rows a statement. Returns each record
 * after its change, or undefined where the table has no row for it (nothing changed).
 */
// eslint-disable-next-line @typescript-eslint/no-unnecessary-type-parameters -- as create's S
export async function transitionAll<F extends AnyFamily, const T extends TriggerOf<F>, S extends ScopeFor<F, T> & InTransaction>(
  scope: S, f: F, records: readonly RecordOf<F>[], trigger: T, at: Date,
  changeOf: (record: RecordOf<F>) => ChangeOf<F>, outcome: Outcome = {},
): Promise<(RecordOf<F> | undefined)[]> {
  const adapter = adapterOf(f);
  const moves: Move<RecordOf<F>, RowOf<F>, ChangeOf<F>>[] = [];
  const removed: Moved<RecordOf<F>, RowOf<F>, ChangeOf<F>>[] = [];
  const slots = records.map((record) => {
    const row = rowFor(f, adapter.status(record, at), adapter.type(record), trigger, outcome);
    if (row === undefined) return undefined;
    if (row.to === 'removed') {
      removed.push({ before: record, after: record, row, change: changeOf(record) });
      return { removed: true, index: removed.length - 1 };
    }
    moves.push({ record, row, change: changeOf(record) });
    return { removed: false, index: moves.length - 1 };
  });
  for (const { after } of removed) await adapter.remove(scope.db, after);
  const afters = moves.length === 0 ? [] : await adapter.apply(scope.db, moves, at);
  const moved = moves.map((move, i): Moved<RecordOf<F>, RowOf<F>, ChangeOf<F>> => ({ before: move.record, after: afters[i] ?? move.record, row: move.row, change: move.change }));
  await historyAndEvents(scope as ScopeOf<F>, adapter, [...moved, ...removed], at);
  // A removed record is answered as it was before (it is gone).
  return slots.map((slot) => (slot === undefined ? undefined : (slot.removed ? removed : moved)[slot.index]?.after));
}
