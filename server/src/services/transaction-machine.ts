// The transaction families of the engine: the ACH and card machines of the spec over the transactions
// table. A change is the columns it sets; records moved the same way are written in one statement; the
// history is transaction_history; every event's payload is the record's TransactionDetails.
import { newId } from '../platform/ids.ts';
import type { Knex } from 'knex';
import type { WebhookEventName } from '@pgw/client/webhooks';
import { achStateMachine, cardStateMachine, type AchTransition, type CardTransition } from '@pgw/client/state-machines';
import { ApiError } from '../platform/errors.ts';
import type { EventData } from '../platform/outbox.ts';
import { iso } from '../platform/time.ts';
import * as repo from '../repositories/transactions.ts';
import type { TransactionChanges, TransactionRecord } from '../repositories/transactions.ts';
import { family, type Adapter, type Move, type InTransaction } from './engine.ts';

/** A row of either machine over the transactions table. */
type TransactionRow = AchTransition | CardTransition;
import { transactionDetails } from './transaction-view.ts';

/** Writes moves in as few statements as there are distinct (from status, columns) pairs. */
async function apply(db: Knex, moves: readonly Move<TransactionRecord, TransactionRow, TransactionChanges>[], at: Date): Promise<TransactionRecord[]> {
  const when = iso(at);
  const groups = new Map<string, { from: number; columns: TransactionChanges; ids: string[] }>();
  const afters = moves.map(({ record, row, change }) => {
    if (typeof row.to !== 'number') throw new ApiError('internal_error', { details: 'a transaction is never removed' });
    const columns: TransactionChanges = { ...change, statusId: row.to, modifiedOn: when };
    const key = `${String(record.statusId)} ${JSON.stringify(columns)}`;
    const group = groups.get(key) ?? { from: record.statusId, columns, ids: [] };
    group.ids.push(record.id);
    groups.set(key, group);
    return { ...record, ...columns };
  });
  for (const { from, columns, ids } of groups.values()) {
    if ((await repo.changeTransactions(db, ids, from, columns)) !== ids.length) {
      // The rows were locked before they were read, so only a caller that did not lock them gets here.
      throw new ApiError('internal_error', { details: 'a transaction changed under a transition' });
    }
  }
  return afters;
}

const transactions: Adapter<TransactionRecord, TransactionRow, TransactionChanges, InTransaction> = {
  table: 'transactions',
  fromRow: repo.recordOf,
  status: (record) => record.statusId,
  type: (record) => record.typeId,
  merchantOf: (record) => record.merchantId,
  initial: (record) => ({ status: record.statusId, type: record.typeId }),
  insert: async (db, record) => {
    await repo.insertTransaction(db, record);
    return record;
  },
  apply,
  remove: () => Promise.reject(new ApiError('internal_error', { details: 'a transaction is never removed' })),
  history: (db, moved, at) => repo.addHistory(db, moved.map(({ row, before, after }) => ({
    id: newId(), transactionId: after.id, fromStatusId: before?.statusId ?? null, toStatusId: after.statusId, trigger: row.trigger,
    responseCode: row.responseCodes.length > 0 ? after.responseCode : null, returnCode: after.returnCode, createdOn: iso(at),
  }))),
  // Every event of these machines carries the record as getTransaction shows it: the cast says so for each of
  // them (and the outbox checks the body against the event's schema before it is written).
  // eslint-disable-next-line @typescript-eslint/require-await -- the adapter's contract is asynchronous (an invoice's payload reads)
  eventData: async <E extends WebhookEventName>(_scope: InTransaction, _event: E, after: TransactionRecord): Promise<EventData<E>> => transactionDetails(after) as EventData<E>,
};

/** The ACH machine over the transactions table. */
export const achFamily = family(achStateMachine, transactions);
/** The card machine over the transactions table. */
export const cardFamily = family(cardStateMachine, transactions);
