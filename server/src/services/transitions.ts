// The one executor of the transaction state machines (spec: x-state-machine on AchTransactionStatus and
// CardTransactionStatus, generated as typed tables). A change is a row of the table: the executor finds it,
// changes the status (only from the status it read: the row is locked), writes the history entry and the
// row's event to the outbox, all in the caller's transaction. A trigger with no row is forbidden: the caller
// answers the machine's refusal (101) and nothing changes.
import { randomUUID } from 'node:crypto';
import type { Knex } from 'knex';
import type { StateTransition } from '../../../generated/state-machines.ts';
import type { WebhookEventName } from '../../../generated/webhooks.ts';
import { ApiError } from '../platform/errors.ts';
import { recordEvents } from '../platform/outbox.ts';
import { iso } from '../platform/time.ts';
import * as repo from '../repositories/transactions.ts';
import type { TransactionChanges, TransactionRecord } from '../repositories/transactions.ts';
import { transactionDetails, type TransactionEventName } from './transaction-view.ts';

/** A row of a generated state machine table, whose event is one of the spec's. */
export type TransitionRow = StateTransition & { readonly event: WebhookEventName | null };

export interface Machine<Row extends TransitionRow = TransitionRow> {
  readonly name: string;
  readonly transitions: readonly Row[];
}

/** What picks one row when a trigger has several outcomes (approved, declined, failed). */
export interface Outcome {
  to?: number;
  responseCode?: string;
}

/**
 * The row of `machine` for a record in status `from` (null: not created yet) of type `typeId`, the trigger
 * and the outcome; undefined when the table has none (the trigger is forbidden there).
 */
export function rowFor<Row extends TransitionRow>(machine: Machine<Row>, from: number | null, typeId: number, trigger: Row['trigger'], outcome: Outcome = {}): Row | undefined {
  return machine.transitions.find((row) =>
    row.from === from && row.trigger === trigger && (row.types === null || row.types.includes(typeId))
    && (outcome.to === undefined || row.to === outcome.to)
    && (outcome.responseCode === undefined || row.responseCodes.length === 0 || row.responseCodes.includes(outcome.responseCode)));
}

/** Whether the trigger is permitted from the record's status at all (for any outcome). */
export const permits = (machine: Machine, record: Pick<TransactionRecord, 'statusId' | 'typeId'>, trigger: string): boolean =>
  rowFor(machine, record.statusId, record.typeId, trigger) !== undefined;

/** The history entries and events of changes made together (one statement each, many rows). */
async function historyAndEvents(tx: Knex, changed: readonly { row: TransitionRow; before: number | null; after: TransactionRecord }[], at: string): Promise<void> {
  await repo.addHistory(tx, changed.map(({ row, before, after }) => ({
    id: randomUUID(), transactionId: after.id, fromStatusId: before, toStatusId: after.statusId, trigger: row.trigger,
    responseCode: row.responseCodes.length > 0 ? after.responseCode : null, returnCode: after.returnCode, createdOn: at,
  })));
  await recordEvents(tx, changed.flatMap(({ row, after }) => (row.event === null ? [] : [{
    merchantId: after.merchantId, type: row.event as TransactionEventName, data: transactionDetails(after), occurredOn: at,
  }])));
}

/** Creates a transaction through its creation row (from `initial`); returns the row it took. */
export async function create(tx: Knex, machine: Machine, record: TransactionRecord, trigger: string, outcome: Outcome = {}): Promise<TransitionRow> {
  const row = rowFor(machine, null, record.typeId, trigger, { to: record.statusId, ...outcome });
  if (!row) throw new ApiError('internal_error', { details: `no ${machine.name} creation row for ${trigger} to status ${String(record.statusId)}` });
  await repo.insertTransaction(tx, record);
  await historyAndEvents(tx, [{ row, before: null, after: record }], record.createdOn);
  return row;
}

/**
 * Moves a locked record through the row of `trigger` (and outcome), applying `changes` with it, at business
 * time `at`. Returns the changed record, or undefined when the table has no such row (forbidden: nothing
 * changed).
 */
export async function transition(
  tx: Knex, machine: Machine, record: TransactionRecord, trigger: string, at: Date, changes: TransactionChanges = {}, outcome: Outcome = {},
): Promise<TransactionRecord | undefined> {
  return (await transitionAll(tx, machine, [record], trigger, at, () => changes, outcome))[0];
}

/**
 * The same trigger on many locked records at one business time (what falls due together): each through its
 * row, records with the same change updated in one statement, history and events written many a statement.
 * Returns each record after its change, or undefined where the table has no row for it (nothing changed).
 */
export async function transitionAll(
  tx: Knex, machine: Machine, records: readonly TransactionRecord[], trigger: string, at: Date,
  changesOf: (record: TransactionRecord) => TransactionChanges, outcome: Outcome = {},
): Promise<(TransactionRecord | undefined)[]> {
  const when = iso(at);
  const changed: { row: TransitionRow; before: number; after: TransactionRecord }[] = [];
  const groups = new Map<string, { from: number; columns: TransactionChanges; ids: string[] }>();
  const results = records.map((record) => {
    const row = rowFor(machine, record.statusId, record.typeId, trigger, outcome);
    if (!row) return undefined;
    if (row.to === 'removed') throw new ApiError('internal_error', { details: 'a transaction is never removed' });
    const columns: TransactionChanges = { ...changesOf(record), statusId: row.to, modifiedOn: when };
    const key = `${String(record.statusId)} ${JSON.stringify(columns)}`;
    const group = groups.get(key) ?? { from: record.statusId, columns, ids: [] };
    group.ids.push(record.id);
    groups.set(key, group);
    const after: TransactionRecord = { ...record, ...columns };
    changed.push({ row, before: record.statusId, after });
    return after;
  });
  for (const { from, columns, ids } of groups.values()) {
    if ((await repo.changeTransactions(tx, ids, from, columns)) !== ids.length) {
      // The rows were locked before they were read, so only a caller that did not lock them gets here.
      throw new ApiError('internal_error', { details: 'a transaction changed under a transition' });
    }
  }
  if (changed.length > 0) await historyAndEvents(tx, changed, when);
  return results;
}
