// SQLite statements run straight on the connection's prepared statement, past Knex's runner: for the hot
// statements Knex builds once (repositories/compiled.ts). Measured in a transaction, a read by id through
// `db.raw` cost 16-17 us of CPU and 3.4-4.5 us run on the connection (20,000 runs each); a payment runs ~7 such.
import type { Knex } from 'knex';
import type { SqliteConnection } from './sqlite-client.ts';

/** The connection calls used (Knex's client hands out the pool's, or a transaction's own). */
interface Client {
  acquireConnection: () => Promise<SqliteConnection>;
  releaseConnection: (connection: SqliteConnection) => Promise<unknown>;
  emit: (event: string, data: unknown) => boolean;
}

/** A binding as Knex's better-sqlite3 dialect binds it: a Date as its milliseconds, a boolean as 0 or 1. */
const bindable = (value: unknown): unknown => (value instanceof Date ? value.valueOf() : typeof value === 'boolean' ? Number(value) : value);

/**
 * Runs `sql` on the connection of `db` (its transaction's, or one from the pool, given back after): the rows of
 * a statement that returns rows, else its changes, as Knex's raw answers them. Emits Knex's `query` event, so
 * that what counts statements still sees it.
 */
export async function runOnConnection(db: Knex, sql: string, bindings: readonly unknown[]): Promise<unknown> {
  const client = db.client as Client;
  const values = bindings.map(bindable);
  client.emit('query', { sql, bindings: values, method: 'raw' });
  const connection = await client.acquireConnection();
  try {
    const statement = connection.prepare(sql);
    return statement.reader ? statement.all(values) : statement.run(values);
  } finally {
    // A transaction's client hands out its own connection, which stays with it.
    if (!db.isTransaction) await client.releaseConnection(connection);
  }
}
