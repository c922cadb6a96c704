// PostgreSQL transactions without Knex's transaction object: a transaction is one pool connection, BEGIN, the
// caller's work on a Knex handle bound to that connection, then COMMIT (or ROLLBACK), as Knex's own transaction
// does. Knex builds each transaction a complete Knex instance (makeKnex defines ~100 methods and its properties
// on a new function, a client with four event relays, an EventEmitter): 6.4% of the instance's CPU on PostgreSQL
// creates and ACH debits was makeKnex's redefineProperties alone (profiled, issue 43). Here the handle is a small
// function whose prototype is the database's own Knex instance, with a context and a client of its own that
// inherit from the database's: every builder, raw and compiled statement of it runs on the transaction's
// connection, through pg-session like any other, and refuses to run once the transaction has ended.
import type { Knex } from 'knex';

/** The members of Knex's client this module uses (the dialect's own methods are inherited as they are). */
interface Client {
  acquireConnection: () => Promise<object>;
  releaseConnection: (connection: object) => Promise<unknown>;
  query: (connection: object, query: string | { sql: string; bindings?: unknown[] }) => Promise<unknown>;
}

/**
 * A transaction's or savepoint's end, its outer transaction's, and its savepoints: how many it has opened (each
 * gets a name of its own) and the last one's end, which the next waits for (as Knex's savepoints wait for their
 * previous sibling: two at once would share a connection, and one's rollback would undo the other's work).
 */
interface State { completed: boolean; readonly outer: State | undefined; savepoints: number; lastSavepoint: Promise<unknown> }

const newState = (outer: State | undefined): State => ({ completed: false, outer, savepoints: 0, lastSavepoint: Promise.resolve() });

const ended = (state: State | undefined): boolean => state !== undefined && (state.completed || ended(state.outer));

/** Knex's message, so that what ran after the end reads as it did. */
const completedError = (): Error => new Error('Transaction query already complete, run with DEBUG=knex:tx for more info');

interface Context { client: Client; userParams: object; transaction: unknown }

/**
 * A handle's events are the database's (its statements reach the pool's listeners): a listener added on it would
 * stay on the database after the transaction, so none may be.
 */
const refuseListener = (): never => { throw new Error('a PostgreSQL transaction takes no event listeners: listen on the database'); };

/** A Knex handle on `connection` for the transaction (or savepoint) `state`. */
function handle(db: Knex, connection: object, state: State): Knex.Transaction {
  const root = db.client as Client;
  const client = Object.create(root) as Client & { transacting: boolean };
  client.transacting = true;
  client.acquireConnection = () => Promise.resolve(connection);
  client.releaseConnection = () => Promise.resolve();
  client.query = (on, query) => {
    if (ended(state)) return Promise.reject(completedError());
    return root.query.call(client, on, query);
  };
  const context = Object.create((db as unknown as { context: object }).context) as Context;
  context.client = client;
  context.userParams = {};
  context.transaction = (work: (tx: Knex.Transaction) => Promise<unknown>) => savepoint(db, connection, state, work);
  // Knex's own handle is a function: `tx('customers')` starts a query on the table.
  const tx = function transactor(table?: string, options?: Parameters<Knex.QueryBuilder['table']>[1]): Knex.QueryBuilder {
    const builder = (context as unknown as { queryBuilder: () => Knex.QueryBuilder }).queryBuilder();
    return table === undefined ? builder : builder.table(table, options);
  };
  Object.setPrototypeOf(tx, db);
  return Object.assign(tx, { context, isTransaction: true, isCompleted: () => ended(state), on: refuseListener, once: refuseListener, addListener: refuseListener, prependListener: refuseListener }) as unknown as Knex.Transaction;
}

/** `work` in a savepoint of the transaction: its failure rolls back only what it did, and is thrown on. */
function savepoint<T>(db: Knex, connection: object, outer: State, work: (tx: Knex.Transaction) => Promise<T>): Promise<T> {
  const run = outer.lastSavepoint.then(() => openSavepoint(db, connection, outer, work));
  outer.lastSavepoint = run.catch(() => undefined);
  return run;
}

async function openSavepoint<T>(db: Knex, connection: object, outer: State, work: (tx: Knex.Transaction) => Promise<T>): Promise<T> {
  if (ended(outer)) throw completedError();
  outer.savepoints += 1;
  const name = `pgw_savepoint_${String(outer.savepoints)}`;
  return within(db, connection, newState(outer), { open: `SAVEPOINT ${name};`, keep: `RELEASE SAVEPOINT ${name};`, undo: `ROLLBACK TO SAVEPOINT ${name};` }, work);
}

/**
 * Opens a transaction or savepoint on `connection`, runs `work` in it, and keeps what the work did when it
 * resolves, or undoes it (and throws the work's error) when it rejects. `state` ends either way, before the last
 * statement: the handle refuses statements from then on.
 */
async function within<T>(db: Knex, connection: object, state: State, statements: { open: string; keep: string; undo: string }, work: (tx: Knex.Transaction) => Promise<T>): Promise<T> {
  const client = db.client as Client;
  await client.query(connection, statements.open);
  let value: T;
  try {
    value = await work(handle(db, connection, state));
  } catch (error) {
    state.completed = true;
    await client.query(connection, statements.undo).catch(() => undefined);
    throw error;
  }
  state.completed = true;
  // A failed commit (a held insert refused at the end) leaves nothing: pg-session has rolled the transaction back.
  await client.query(connection, statements.keep);
  return value;
}

/** `work` in a new transaction on a connection of the pool of `db` (PostgreSQL), committed when it resolves. */
export async function pgTransaction<T>(db: Knex, work: (tx: Knex.Transaction) => Promise<T>): Promise<T> {
  const client = db.client as Client;
  const connection = await client.acquireConnection();
  const state = newState(undefined);
  try {
    return await within(db, connection, state, { open: 'BEGIN;', keep: 'COMMIT;', undo: 'ROLLBACK;' }, work);
  } finally {
    state.completed = true;
    await client.releaseConnection(connection);
  }
}
