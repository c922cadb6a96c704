// A named statement's query that asks PostgreSQL for the shape of its rows once per connection, not at every run.
//
// pg describes the portal of every extended-protocol query (Parse, Bind, Describe, Execute, Sync) and, from the
// RowDescription that answers, builds the row's field list, a value parser per column and an empty row object
// anew. A named statement's rows keep one shape (db/pg-session.ts names only statements whose columns are
// named, never a `*` list), so this query sends Describe at its first run on a connection, keeps what pg built
// from the answer, and leaves Describe out after. Profiled on a customer read over PostgreSQL (issue 43), pg's
// Result.addFields alone was 3.5% of the server's samples (7% of its busy time), with the RowDescription's own
// parsing 0.6% more.
//
// It leans on pg's Query (its exported class, v8.x) for everything else; the few members used beyond its typed
// API are declared below, and the tests that run every statement over PostgreSQL check them.
import { createRequire } from 'node:module';
import pg from 'pg';

const require = createRequire(import.meta.url);
/** pg's own conversion of a bound value to its wire text (what Query.prepare binds with). */
const { prepareValue } = require('pg/lib/utils.js') as { prepareValue: (value: unknown) => unknown };

/** What pg built from a statement's RowDescription: its fields, their parsers and the empty row they fill. */
export interface RowShape {
  readonly fields: unknown[];
  readonly parsers: unknown[] | undefined;
  readonly empty: object | undefined;
}

type Callback = (error: Error | null, result?: unknown) => void;

/** The members of pg's connection (pg/lib/connection.js) a prepared run sends with. */
interface WireConnection {
  bind: (config: { portal: string; statement: string; values: unknown[] | undefined; binary: boolean | undefined; valueMapper: (value: unknown) => unknown }) => void;
  close: (config: { type: 'S'; name: string }) => void;
  sync: () => void;
}

/** The members of pg's Query and Result used here beyond the typed API (pg/lib/query.js, pg/lib/result.js). */
interface QueryInternals {
  name: string;
  values: unknown[] | undefined;
  portal: string;
  binary: boolean | undefined;
  rows: number | undefined;
  _accumulateRows: boolean;
  _result: { fields: unknown[]; _parsers?: unknown[]; _prebuiltEmptyResultObject?: object };
  hasBeenParsed(connection: WireConnection): boolean;
  prepare(connection: WireConnection): void;
  handleRowDescription(message: unknown): void;
  handleCommandComplete(message: unknown, connection: WireConnection): void;
  handleError(error: unknown, connection: WireConnection): void;
  _getRows(connection: WireConnection, rows: number | undefined): void;
}

const Query = pg.Query as unknown as new (config: { text: string; values: readonly unknown[]; name: string }, values: undefined, callback: Callback) => QueryInternals;

/**
 * A run of the named statement `name`. `shapes` are the row shapes of the connection's statements by name: the
 * first run of a statement on the connection (or one whose name pg has not parsed yet) describes its portal and
 * records the shape; later runs bind and execute without Describe and read their rows with the kept shape.
 */
export class ShapedQuery extends Query {
  constructor(config: { text: string; values: readonly unknown[]; name: string }, callback: Callback, private readonly shapes: Map<string, RowShape>) {
    super(config, undefined, callback);
  }

  override prepare(connection: WireConnection): void {
    const shape = this.shapes.get(this.name);
    if (shape === undefined || this.rows !== undefined || !this.hasBeenParsed(connection)) {
      super.prepare(connection);
      return;
    }
    // As pg's prepare, less the Parse (done on this connection) and the Describe (its answer kept).
    try {
      connection.bind({ portal: this.portal, statement: this.name, values: this.values, binary: this.binary, valueMapper: prepareValue });
    } catch (error) {
      connection.close({ type: 'S', name: this.name });
      connection.sync();
      this.handleError(error, connection);
      return;
    }
    const result = this._result;
    result.fields = shape.fields;
    if (shape.parsers) result._parsers = shape.parsers;
    if (shape.empty) result._prebuiltEmptyResultObject = shape.empty;
    // As handleRowDescription sets it for a query with a callback: the rows are collected into the result.
    this._accumulateRows = true;
    this._getRows(connection, this.rows);
  }

  override handleRowDescription(message: unknown): void {
    super.handleRowDescription(message);
    const result = this._result;
    this.shapes.set(this.name, { fields: result.fields, parsers: result._parsers, empty: result._prebuiltEmptyResultObject });
  }

  override handleCommandComplete(message: unknown, connection: WireConnection): void {
    // No shape yet at its end: it was described and no RowDescription came (NoData: an insert, an update without
    // RETURNING), so its shape is none. A run that came with one, or that used a kept one, finds it here.
    if (!this.shapes.has(this.name)) this.shapes.set(this.name, { fields: [], parsers: undefined, empty: undefined });
    super.handleCommandComplete(message, connection);
  }
}
