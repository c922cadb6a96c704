// SQLite's query planner statistics: gathered (PRAGMA optimize), then no table's counted smaller than MIN_ROWS rows.
//
// Why: a connection plans with the statistics it loaded and keeps them until it analyzes again, while its tables
// grow. Statistics taken when a table held a handful of rows make SQLite plan even a key range as a scan of the
// whole table (measured: `where id >= ? and id <= ?` on a table whose statistics say 2 rows is SCAN; from 5 rows on
// it is SEARCH). The gateway's connection analyzed the freshly seeded database at open, where FTS5's
// customers_search_data held 2 rows; FTS5 prepares its segment delete once per connection, so after another
// process inserted 100,000 customers each merge of the search index read that whole table, and customer creates
// ran at a quarter of their speed until the connection analyzed again (issue 43). So a small table's statistics
// are raised to MIN_ROWS rows, the rest of each line (rows per key) kept, and its samples (sqlite_stat4) dropped:
// a plan for 1,000 rows uses the keys, and costs little more on a small table. Simply dropping the lines is not
// enough: SQLite's reload leaves a table's row count as last loaded when its lines are gone. SQLite documents
// editing sqlite_stat1 to steer the planner ("Manual Control Of Query Plans Using SQLITE_STAT Tables").
import type { Knex } from 'knex';
import type { SqliteConnection } from './sqlite-client.ts';

/** The fewest rows a table's statistics count. */
export const MIN_ROWS = 1000;

/** The tables whose statistics count fewer than MIN_ROWS (the largest count among a table's rows: its indexes'). */
const SMALL = `select tbl from sqlite_stat1 group by tbl having max(cast(stat as integer)) < ${String(MIN_ROWS)}`;

/** What runs the statements: the pool's connection at open (synchronous) or a Knex handle (the worker). */
export interface StatisticsRunner {
  rows(sql: string): Promise<readonly Record<string, unknown>[]>;
  run(sql: string): Promise<void>;
}

/**
 * Gathers statistics where SQLite advises (`optimize`: the pragma's argument, 0x10002 at open), raises those of
 * small tables to MIN_ROWS and, if any were, has the connection reload them (which also prepares its statements
 * anew, FTS5's own among them). Returns the tables raised.
 */
export async function refreshStatistics(runner: StatisticsRunner, optimize: string): Promise<string[]> {
  await runner.run(`PRAGMA optimize${optimize ? ` = ${optimize}` : ''}`);
  const kept = (await runner.rows("select name from sqlite_schema where type = 'table' and name in ('sqlite_stat1', 'sqlite_stat4')")).map((r) => String(r.name));
  if (!kept.includes('sqlite_stat1')) return [];
  const small = (await runner.rows(SMALL)).map((r) => String(r.tbl));
  if (small.length === 0) return [];
  if (kept.includes('sqlite_stat4')) await runner.run(`delete from sqlite_stat4 where tbl in (${SMALL})`);
  // The first number of a line is the rows counted; what follows (rows per key prefix, options) stays.
  await runner.run(`update sqlite_stat1 set stat = '${String(MIN_ROWS)}' || substr(stat, instr(stat || ' ', ' ')) where tbl in (${SMALL})`);
  await runner.run('ANALYZE sqlite_schema');
  return small;
}

/** The runner of the pool's connection as it opens (Knex's afterCreate). */
export const connectionRunner = (conn: SqliteConnection): StatisticsRunner => ({
  rows: (sql) => Promise.resolve(conn.prepare(sql).all() as Record<string, unknown>[]),
  run: (sql) => {
    conn.exec(sql);
    return Promise.resolve();
  },
});

/** The runner of a Knex handle. */
export const knexRunner = (db: Knex): StatisticsRunner => ({
  rows: async (sql) => (await db.raw<Record<string, unknown>[]>(sql)),
  run: async (sql) => { await db.raw(sql); },
});
