// The one transaction and row-lock helper. A service that changes state runs in withTransaction; when it
// is already inside a transaction (an idempotent request runs whole in one), it joins that transaction
// rather than nesting, so the key, the effects, the events and the stored response commit together.
import type { Knex } from 'knex';
import { isPostgres } from '../db/knex.ts';

/** Work to do once a transaction has committed (given the database handle), by transaction. */
type Task = (db: Knex) => Promise<void>;
const committed = new WeakMap<Knex, Task[]>();

/**
 * Runs `task` once what `db` wrote is committed: after its transaction commits (never, if it rolls back), or at
 * once when `db` is no transaction. The transaction must have been opened by `transaction` or `withTransaction`.
 */
export async function afterCommit(db: Knex, task: Task): Promise<void> {
  if (!db.isTransaction) {
    await task(db);
    return;
  }
  const tasks = committed.get(db);
  if (!tasks) throw new Error('afterCommit: the transaction was not opened by platform/transaction.ts');
  tasks.push(task);
}

/** A new transaction; its after-commit tasks run, in order, before this resolves. */
export async function transaction<T>(db: Knex, work: (tx: Knex.Transaction) => Promise<T>): Promise<T> {
  const tasks: Task[] = [];
  const result = await db.transaction((tx) => {
    committed.set(tx, tasks);
    return work(tx);
  });
  for (const task of tasks) await task(db);
  return result;
}

/** Runs `work` in a transaction: the caller's when `db` is one already, else a new one. */
export function withTransaction<T>(db: Knex, work: (tx: Knex.Transaction) => Promise<T>): Promise<T> {
  if (db.isTransaction) return work(db as Knex.Transaction);
  return transaction(db, work);
}

/**
 * Reads a row and locks it until the transaction ends: `SELECT … FOR NO KEY UPDATE` on PostgreSQL, which
 * excludes every other lockRow and change of the row but not the key-share locks that inserting a child row
 * takes (an event of the merchant while the merchant's clock advance holds it: FOR UPDATE would deadlock the
 * two). SQLite has one writer and this server keeps one connection, so a transaction there excludes every
 * other already; the plain read is the lock.
 */
export async function lockRow<Row>(tx: Knex.Transaction, table: string, where: Record<string, string | number>): Promise<Row | undefined> {
  const query = tx(table).where(where).first();
  return (await (isPostgres(tx) ? query.forNoKeyUpdate() : query)) as Row | undefined;
}
