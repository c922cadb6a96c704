// PostgreSQL statements run straight on the pool's connection (through db/pg-session.ts), past Knex's runner: for
// the hot statements Knex builds once (repositories/compiled.ts), as db/sqlite-direct.ts does on SQLite. Knex's
// runner turns `?` into `$n` again, copies the bindings, builds a query object and its events on every run; a
// compiled statement is already in PostgreSQL's form. Profiled on a card sale over PostgreSQL (issue 43), Knex's
// runner and pool calls were ~5% of the server's CPU beside pg's own.
import type { Knex } from 'knex';
import { holdStatement } from './pg-session.ts';

/** The pg connection call used: the callback form, which db/pg-session.ts serves. */
interface PgConnection { query: (config: { text: string; values: readonly unknown[] }, callback: (error: Error | null, result?: unknown) => void) => unknown }

/** The connection calls used (Knex's client hands out the pool's, or a transaction's own). */
interface Client {
  acquireConnection: () => Promise<PgConnection>;
  releaseConnection: (connection: PgConnection) => Promise<unknown>;
  emit: (event: string, data: unknown) => boolean;
}

/** A transaction Knex has ended refuses statements, as Knex's own runner does. */
function refuseEnded(db: Knex): void {
  if (db.isTransaction && (db as Knex.Transaction).isCompleted()) throw new Error('Transaction query already complete, run with DEBUG=knex:tx for more info');
}

/**
 * Runs `text` (with `$n` placeholders) on the connection of `db` (its transaction's, or one from the pool, given
 * back after), answering pg's result as Knex's raw answers it. Emits Knex's `query` event, so that what counts
 * statements still sees it.
 */
export async function runOnPgConnection(db: Knex, text: string, values: readonly unknown[]): Promise<unknown> {
  refuseEnded(db);
  const client = db.client as Client;
  client.emit('query', { sql: text, bindings: values, method: 'raw' });
  const connection = await client.acquireConnection();
  try {
    refuseEnded(db);
    return await new Promise((resolve, reject) => {
      connection.query({ text, values }, (error, result) => { if (error) reject(error); else resolve(result); });
    });
  } finally {
    // A transaction's client hands out its own connection, which stays with it.
    if (!db.isTransaction) await client.releaseConnection(connection);
  }
}

/**
 * Holds `text` in the transaction of `db` until its next statement or its commit (db/pg-session.ts holdStatement),
 * or runs it now where nothing can be held (no transaction, a savepoint, an update of a table something held writes).
 */
export async function sendOnPgConnection(db: Knex, text: string, values: readonly unknown[]): Promise<void> {
  if (db.isTransaction) {
    refuseEnded(db);
    // A transaction's client hands out the transaction's one connection.
    const connection = await (db.client as Client).acquireConnection();
    // Asked again: the transaction may have ended while the connection was handed out.
    refuseEnded(db);
    // Held statements are not Knex's `query` events: they go out inside another statement.
    if (holdStatement(connection, { text, values })) return;
  }
  await runOnPgConnection(db, text, values);
}
