// The one transaction and row-lock helper. A service that changes state runs in withTransaction; when it
// is already inside a transaction (an idempotent request runs whole in one), it joins that transaction
// rather than nesting, so the key, the effects, the events and the stored response commit together.
import type { Knex } from 'knex';
import { clientConfigOf, isPostgres } from '../db/knex.ts';
import { sendOnPgConnection } from '../db/pg-direct.ts';
import { pgTransaction } from '../db/pg-transaction.ts';
import type { SqliteConnection } from '../db/sqlite-client.ts';

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

/**
 * Runs `task` once `db`'s transaction has committed, when it was opened by this module; otherwise (outside a
 * transaction too) not at all. For a wake-up whose work a poll also finds: it may be lost, never run early.
 */
export function whenCommitted(db: Knex, task: () => void): void {
  const tasks = db.isTransaction ? committed.get(db) : undefined;
  tasks?.push(() => { task(); return Promise.resolve(); });
}

/**
 * Work to do once in a transaction, just before it commits, by the transaction (and each savepoint of it): a
 * set, so work registered by many callers of a group commit runs once, after all of them.
 */
const closing = new WeakMap<Knex, Set<Task>>();

/**
 * Runs `task` in `db`'s transaction once, just before it commits (after every caller of a group commit), or at
 * once when `db` is no transaction. The same task registered again in the transaction runs once. A task that
 * fails fails the commit, and every caller of its group with it: register only work that cannot fail on its own.
 */
export async function beforeCommit(db: Knex, task: Task): Promise<void> {
  if (!db.isTransaction) {
    await task(db);
    return;
  }
  const tasks = closing.get(db);
  if (!tasks) throw new Error('beforeCommit: the transaction was not opened by platform/transaction.ts');
  tasks.add(task);
}

/** Runs the transaction's before-commit work (what it adds meanwhile runs too), in the order registered. */
async function close(tx: Knex): Promise<void> {
  const tasks = closing.get(tx);
  if (!tasks) return;
  for (const task of tasks) await task(tx);
}

/** One caller's work in a group (SQLite), with what settles its promise. */
interface Member {
  readonly work: (tx: Knex.Transaction) => Promise<unknown>;
  readonly tasks: Task[];
  readonly resolve: (value: unknown) => void;
  readonly reject: (reason: unknown) => void;
}

/** The group of each SQLite database that is still taking members, by the database's client configuration. */
const groups = new WeakMap<object, Member[]>();
/** The most callers one SQLite commit serves (a reader waiting for the connection waits at most this many). */
export const GROUP_LIMIT = 32;

/**
 * A new transaction; its after-commit tasks run, in order, before this resolves.
 *
 * On SQLite, transactions that start while another is open or waiting share its commit (group commit): each
 * runs in a savepoint of its own, in arrival order, and a failure rolls back only its own savepoint. The
 * database has one connection and one writer, so they ran one after another anyway; a commit writes every page
 * it changed to the WAL (~25 for a customer, ~40 for a payment, most of them the same index pages), and one
 * commit for several callers writes each page once. Before committing, the group gives the event loop one turn
 * (a SQLite transaction never yields otherwise), so that requests already received join it. Every caller's
 * promise settles after the shared commit, so nothing is answered before it is durable; a reader waits for the
 * connection until the commit, as it did for one transaction. Measured (wrk, 10 connections): customer create
 * 1,490 -> 2,230-2,350 req/s, ACH debit 800 -> 1,030-1,110, card sale 1,470 -> 1,500-1,600; groups of 10.
 */
export function transaction<T>(db: Knex, work: (tx: Knex.Transaction) => Promise<T>): Promise<T> {
  if (isPostgres(db)) return single(db, work);
  return new Promise<T>((resolve, reject) => {
    const member: Member = { work, tasks: [], resolve: resolve as (value: unknown) => void, reject };
    const open = groups.get(clientConfigOf(db));
    if (open && open.length < GROUP_LIMIT) {
      open.push(member);
      return;
    }
    const group = [member];
    groups.set(clientConfigOf(db), group);
    void commitGroup(db, group);
  });
}

/** A transaction of its own (PostgreSQL: concurrent transactions commit in parallel there), db/pg-transaction.ts's. */
async function single<T>(db: Knex, work: (tx: Knex.Transaction) => Promise<T>): Promise<T> {
  const tasks: Task[] = [];
  const result = await pgTransaction(db, async (tx) => {
    committed.set(tx, tasks);
    closing.set(tx, new Set());
    const value = await work(tx);
    await close(tx);
    return value;
  });
  for (const task of tasks) await task(db);
  return result;
}

/** The savepoint of a group's member: one name, since members run one after another, never nested. */
const MEMBER = 'group_member';

async function commitGroup(db: Knex, group: Member[]): Promise<void> {
  const done: { member: Member; result: unknown }[] = [];
  const ended = (): void => { if (groups.get(clientConfigOf(db)) === group) groups.delete(clientConfigOf(db)); };
  try {
    await db.transaction(async (tx) => {
      // Each member runs in a savepoint sent straight to the connection (its statements prepared once), with the
      // group's transaction as its own: a Knex savepoint made a transaction object per member and prepared its
      // two numbered statements anew, 9% of a customer create's CPU (profiled, issue 43).
      const connection = await (tx.client as { acquireConnection: () => Promise<SqliteConnection> }).acquireConnection();
      const send = (sql: string): void => { connection.prepare(sql).run(); };
      closing.set(tx, new Set());
      for (let i = 0; ; i++) {
        // SQLite runs a transaction without giving the event loop a turn (every statement is synchronous):
        // when the group runs dry, give it one, so that requests already received join this commit.
        if (i === group.length) await new Promise((resolve) => setImmediate(resolve));
        const member = group[i];
        if (member === undefined) break;
        // What the member leaves to run after commit is its own (members run one at a time).
        committed.set(tx, member.tasks);
        send(`SAVEPOINT ${MEMBER}`);
        let result: unknown;
        try {
          result = await member.work(tx);
        } catch (error) {
          send(`ROLLBACK TO ${MEMBER}`);
          send(`RELEASE ${MEMBER}`);
          member.reject(error);
          continue;
        }
        send(`RELEASE ${MEMBER}`);
        done.push({ member, result });
      }
      committed.delete(tx);
      // Closed before the commit: a caller from now on starts the next group.
      ended();
      await close(tx);
    });
  } catch (error) {
    ended();
    // Nothing of the group was committed (or it never began): every caller not yet refused is refused now.
    for (const member of group) member.reject(error);
    return;
  }
  for (const { member, result } of done) {
    try {
      for (const task of member.tasks) await task(db);
      member.resolve(result);
    } catch (error) {
      member.reject(error);
    }
  }
}

/** Runs `work` in a transaction: the caller's when `db` is one already, else a new one. */
export function withTransaction<T>(db: Knex, work: (tx: Knex.Transaction) => Promise<T>): Promise<T> {
  if (db.isTransaction) return work(db as Knex.Transaction);
  return transaction(db, work);
}

/**
 * A savepoint of the caller's transaction when `db` is one (a failure undoes only `work`, and the caller's
 * transaction goes on), else a new transaction: a batch that may be refused and tried again, inside or outside
 * an idempotent request. What `work` leaves to run after commit runs after the outer commit, and only when
 * the savepoint was released.
 */
export async function inSavepoint<T>(db: Knex, work: (tx: Knex.Transaction) => Promise<T>): Promise<T> {
  if (!db.isTransaction) return transaction(db, work);
  const outer = committed.get(db);
  if (!outer) throw new Error('inSavepoint: the transaction was not opened by platform/transaction.ts');
  const tasks: Task[] = [];
  const result = await (db as Knex.Transaction).transaction((savepoint) => {
    committed.set(savepoint, tasks);
    // Before-commit work belongs to the whole transaction: it runs before the outer commit.
    const outerClosing = closing.get(db);
    if (outerClosing) closing.set(savepoint, outerClosing);
    return work(savepoint);
  });
  outer.push(...tasks);
  return result;
}

/**
 * How a read locks the rows it reads until its transaction ends (PostgreSQL; SQLite has one writer and this
 * server one connection, so a transaction there excludes every other already and the plain read is the lock).
 * - `no key update` (the default): excludes every other lock and change of the rows but not the key-share
 *   locks that inserting a child row takes (an event of the merchant while the merchant's clock advance holds
 *   it: FOR UPDATE would deadlock the two).
 * - `update`: excludes those inserts too (a removal batch that must not interleave with the merchant's
 *   requests, a payment record the executor changes).
 * - `skip`: rows another transaction holds are left out rather than waited for (a worker claiming due work:
 *   two instances never take the same row and never wait on each other).
 */
export interface LockOptions {
  readonly strength?: 'no key update' | 'update';
  readonly skip?: boolean;
}

/**
 * The query's rows, locked as `options` say until `tx` ends: every row lock of the server is taken here. On the
 * pool (no transaction) the lock lasts for the one statement the query is part of (a subquery's rows).
 */
export function locked<Q extends Knex.QueryBuilder>(tx: Knex, query: Q, options: LockOptions = {}): Q {
  if (!isPostgres(tx)) return query;
  const lockedQuery = options.strength === 'update' ? query.forUpdate() : query.forNoKeyUpdate();
  return (options.skip === true ? lockedQuery.skipLocked() : lockedQuery) as Q;
}

/** Reads a row and locks it until the transaction ends (see `locked`; FOR NO KEY UPDATE unless told). */
export async function lockRow<Row>(tx: Knex.Transaction, table: string, where: Record<string, string | number>, options: LockOptions = {}): Promise<Row | undefined> {
  return (await locked(tx, tx(table).where(where).first(), options)) as Row | undefined;
}

/** Reads the rows of the given ids and locks them (as `lockRow`), in id order: two callers locking overlapping sets never deadlock. */
export async function lockRows<Row>(tx: Knex.Transaction, table: string, ids: readonly string[], options: LockOptions = {}): Promise<Row[]> {
  if (ids.length === 0) return [];
  return (await locked(tx, tx(table).whereIn('id', [...ids]).orderBy('id').select('*'), options)) as Row[];
}

/**
 * An insert whose rows nothing in the transaction reads before its next statement: on PostgreSQL it is held and
 * sent together with the transaction's other held inserts, as one statement, before its next statement or at
 * its commit (db/pg-session.ts); elsewhere, and outside a transaction or inside a savepoint, it runs now. A
 * broken constraint fails that later statement or the commit, and the whole transaction with it: hold only
 * inserts of rows made here (new ids), never one whose failure the caller handles.
 */
export async function insertLater(db: Knex, query: Knex.QueryBuilder | Knex.Raw): Promise<void> {
  await later(db, query);
}

/**
 * An update whose row count nobody reads (a counter's): held as `insertLater`'s inserts are, when nothing held
 * already writes its table (db/pg-session.ts holdStatement); otherwise it runs now, after what is held.
 */
export async function updateLater(db: Knex, query: Knex.QueryBuilder | Knex.Raw): Promise<void> {
  await later(db, query);
}

async function later(db: Knex, query: Knex.QueryBuilder | Knex.Raw): Promise<void> {
  if (db.isTransaction && isPostgres(db)) {
    const native = query.toSQL().toNative();
    await sendOnPgConnection(db, native.sql, native.bindings);
    return;
  }
  await query;
}
