// Knex's better-sqlite3 dialect over @photostructure/sqlite, node:sqlite's API with its binaries inside the npm package.
//
// Why: better-sqlite3 (12.x, the last line for Node.js 20) downloads its prebuilt binary from GitHub, and a machine
// that reaches only the npm registry compiles SQLite from source instead (python3, make and a C++ compiler needed).
// @photostructure/sqlite (1.x, the last line for Node.js 20) ships the binaries for Linux (glibc and musl), macOS
// and Windows in its package. Measured on this 2-core machine, `npm ci` with an empty npm cache: 89.5 s -> 26.1 s.
// The cost, measured in the same runs (wrk, the two versions alternated): SQLite requests 0.90-1.04x of
// better-sqlite3's (card sale 0.91-0.94, ACH debit 0.95-0.96), about 0.3 us more a statement; rows are read as fast.
// Its API is node:sqlite's: the day the toolkit needs Node.js 22, `node:sqlite` itself can replace it here.
//
// Knex's dialect (the SQL it writes, its DDL, transactions) stays better-sqlite3's: only the driver under it is
// adapted, to the few calls Knex makes (prepare, and a statement's reader/all/run) plus exec and close.
import { createRequire } from 'node:module';
import { DatabaseSync, type DatabaseSyncInstance, type StatementSyncInstance } from '@photostructure/sqlite';
import type { Knex } from 'knex';

const require = createRequire(import.meta.url);

/** SQLite's extended result codes by primary code: the name of (primary | n << 8) is the nth, as sqlite3.h has it. */
const EXTENDED: Record<number, readonly string[]> = {
  1: ['MISSING_COLLSEQ', 'RETRY', 'SNAPSHOT', 'RESERVESIZE', 'KEY', 'UNABLE'],
  4: ['', 'ROLLBACK'],
  5: ['RECOVERY', 'SNAPSHOT', 'TIMEOUT'],
  6: ['SHAREDCACHE', 'VTAB'],
  8: ['RECOVERY', 'CANTLOCK', 'ROLLBACK', 'DBMOVED', 'CANTINIT', 'DIRECTORY'],
  10: ['READ', 'SHORT_READ', 'WRITE', 'FSYNC', 'DIR_FSYNC', 'TRUNCATE', 'FSTAT', 'UNLOCK', 'RDLOCK', 'DELETE', 'BLOCKED',
    'NOMEM', 'ACCESS', 'CHECKRESERVEDLOCK', 'LOCK', 'CLOSE', 'DIR_CLOSE', 'SHMOPEN', 'SHMSIZE', 'SHMLOCK', 'SHMMAP', 'SEEK',
    'DELETE_NOENT', 'MMAP', 'GETTEMPPATH', 'CONVPATH', 'VNODE', 'AUTH', 'BEGIN_ATOMIC', 'COMMIT_ATOMIC', 'ROLLBACK_ATOMIC',
    'DATA', 'CORRUPTFS', 'IN_PAGE', 'BADKEY', 'CODEC'],
  11: ['VTAB', 'SEQUENCE', 'INDEX'],
  14: ['NOTEMPDIR', 'ISDIR', 'FULLPATH', 'CONVPATH', 'DIRTYWAL', 'SYMLINK'],
  19: ['CHECK', 'COMMITHOOK', 'FOREIGNKEY', 'FUNCTION', 'NOTNULL', 'PRIMARYKEY', 'TRIGGER', 'UNIQUE', 'VTAB', 'ROWID', 'PINNED', 'DATATYPE'],
  23: ['USER'],
  27: ['RECOVER_WAL', 'RECOVER_ROLLBACK', 'RBU'],
  28: ['AUTOINDEX'],
};

const PRIMARY = ['OK', 'ERROR', 'INTERNAL', 'PERM', 'ABORT', 'BUSY', 'LOCKED', 'NOMEM', 'READONLY', 'INTERRUPT', 'IOERR', 'CORRUPT',
  'NOTFOUND', 'FULL', 'CANTOPEN', 'PROTOCOL', 'EMPTY', 'SCHEMA', 'TOOBIG', 'CONSTRAINT', 'MISMATCH', 'MISUSE', 'NOLFS', 'AUTH',
  'FORMAT', 'RANGE', 'NOTADB', 'NOTICE', 'WARNING'];

/** The name of an (extended) result code, as better-sqlite3 puts it in `code`: 2067 -> SQLITE_CONSTRAINT_UNIQUE. */
export function resultCodeName(code: number): string | undefined {
  const primary = PRIMARY[code & 0xff];
  if (primary === undefined) return undefined;
  const extended = code >> 8;
  if (extended === 0) return `SQLITE_${primary}`;
  const name = EXTENDED[code & 0xff]?.[extended - 1];
  return name ? `SQLITE_${primary}_${name}` : `SQLITE_${primary}`;
}

/**
 * The error as the project (and Knex users) read a SQLite error: `code` the extended code's name, as better-sqlite3
 * gave it (node:sqlite says ERR_SQLITE_ERROR and keeps the number in `errcode`). Other errors pass unchanged.
 */
function named(error: unknown): unknown {
  if (error instanceof Error && typeof (error as { errcode?: unknown }).errcode === 'number') {
    const name = resultCodeName((error as unknown as { errcode: number }).errcode);
    if (name !== undefined) Object.defineProperty(error, 'code', { value: name, enumerable: true, configurable: true, writable: true });
  }
  return error;
}

/**
 * The bindings as node:sqlite takes them: `undefined` as NULL, as better-sqlite3 bound it (a value a row of a
 * many-row insert leaves out reaches the driver as undefined); node:sqlite refuses it. Copies only when one is there.
 */
function bound(bindings: readonly unknown[]): readonly unknown[] {
  return bindings.includes(undefined) ? bindings.map((b) => (b === undefined ? null : b)) : bindings;
}

/** A prepared statement as Knex's better-sqlite3 dialect calls it: `reader`, and bindings given as one array. */
class Statement {
  /** Whether the statement returns rows (a SELECT, a PRAGMA that answers, or a write with RETURNING). */
  readonly reader: boolean;

  constructor(private readonly statement: StatementSyncInstance) {
    this.reader = statement.columns().length > 0;
  }

  all(bindings: readonly unknown[] = []): unknown[] {
    try {
      return this.statement.all(...bound(bindings));
    } catch (error) {
      throw named(error);
    }
  }

  run(bindings: readonly unknown[] = []): { changes: number | bigint; lastInsertRowid: number | bigint } {
    try {
      return this.statement.run(...bound(bindings));
    } catch (error) {
      throw named(error);
    }
  }
}

/** A connection: the calls Knex's dialect makes, and `exec` for the pragmas of the pool's afterCreate. */
export class SqliteConnection {
  private readonly db: DatabaseSyncInstance;

  constructor(filename: string, options: { readonly?: boolean } = {}) {
    try {
      this.db = new DatabaseSync(filename, { readOnly: options.readonly === true });
    } catch (error) {
      throw named(error);
    }
  }

  prepare(sql: string): Statement {
    try {
      return new Statement(this.db.prepare(sql));
    } catch (error) {
      throw named(error);
    }
  }

  exec(sql: string): void {
    try {
      this.db.exec(sql);
    } catch (error) {
      throw named(error);
    }
  }

  close(): void {
    this.db.close();
  }
}

// Knex publishes its dialects only by name (a CommonJS module without typings); the better-sqlite3 one is
// subclassed here for its SQL and its calls.
const BetterSqlite3Dialect = require('knex/lib/dialects/better-sqlite3/index.js') as typeof Knex.Client;

/** Knex's client for SQLite: the better-sqlite3 dialect with SqliteConnection as its driver. */
export class SqliteClient extends BetterSqlite3Dialect {
  // Knex calls it when the client is made; better-sqlite3's would require('better-sqlite3').
  _driver(): typeof SqliteConnection {
    return SqliteConnection;
  }
}
