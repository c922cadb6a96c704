// SQLite's planner statistics never count a table smaller than MIN_ROWS: key lookups and ranges stay index searches
// however much a table grows after the connection loaded them (issue 43's neighbour slowdown).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Knex } from 'knex';
import { afterAll, describe, expect, it } from 'vitest';
import { optimize } from '../repositories/maintenance.ts';
import { systemClock } from '../platform/time.ts';
import { createDatabase, migrate, type Database } from './knex.ts';
import { MIN_ROWS } from './planner-statistics.ts';
import { seedDemoData } from './seed.ts';

const dir = mkdtempSync(path.join(tmpdir(), 'pgw-statistics-'));
afterAll(() => { rmSync(dir, { recursive: true, force: true }); });

type Row = Record<string, unknown>;
const rows = (db: Database, sql: string, bindings: Knex.RawBinding[] = []): Promise<Row[]> => db.raw<Row[]>(sql, bindings);
const plan = async (db: Database, sql: string): Promise<string> => (await rows(db, `explain query plan ${sql}`, [1, 2])).map((r) => String(r.detail)).join(' | ');

/** A select of n codes ('c' and a number, `distinct` of them), through a recursive count (no generate_series here). */
const COUNTED = (n: number, distinct = n): string =>
  `with recursive k(value) as (select 1 union all select value + 1 from k where value < ${String(n)}) select 'c' || (value % ${String(distinct)}) from k`;

/** A migrated, seeded database file (every table a handful of rows), opened as another process would open it. */
async function seededFile(name: string): Promise<string> {
  const url = `sqlite:${path.join(dir, name)}`;
  const setup = createDatabase(url);
  try {
    await migrate(setup, 'sandbox');
    await seedDemoData(setup, systemClock, 'sandbox');
  } finally {
    await setup.destroy();
  }
  return url;
}

/** Each ordinary table (FTS5's shadow tables too) with a rowid, and the first column of each full index. */
async function keys(db: Database): Promise<{ rowid: string[]; indexed: [table: string, column: string, index: string][] }> {
  const tables = (await rows(db, "select name, wr from pragma_table_list where schema = 'main' and type in ('table', 'shadow') and name not like 'sqlite_%'"));
  const indexed: [string, string, string][] = [];
  for (const t of tables) {
    for (const index of await rows(db, 'select name, partial from pragma_index_list(?)', [String(t.name)])) {
      if (index.partial === 1) continue;
      const first = (await rows(db, 'select name from pragma_index_info(?) where seqno = 0', [String(index.name)]))[0];
      if (typeof first?.name === 'string') indexed.push([String(t.name), first.name, String(index.name)]);
    }
  }
  return { rowid: tables.filter((t) => t.wr === 0).map((t) => String(t.name)), indexed };
}

/** The plans among `tables` that scan the whole table for a key range (none should). */
async function scans(db: Database): Promise<string[]> {
  const { rowid, indexed } = await keys(db);
  const found: string[] = [];
  for (const table of rowid) {
    const detail = await plan(db, `select * from "${table}" where rowid >= ? and rowid <= ?`);
    if (!detail.includes('SEARCH')) found.push(`${table} rowid: ${detail}`);
  }
  for (const [table, column] of indexed) {
    const detail = await plan(db, `select * from "${table}" where "${column}" >= ? and "${column}" <= ?`);
    if (!detail.includes('SEARCH')) found.push(`${table}.${column}: ${detail}`);
  }
  return found;
}

describe('SQLite planner statistics', () => {
  it('a connection opened on a freshly seeded database plans every key range of every table as an index search', async () => {
    const db = createDatabase(await seededFile('open.sqlite'));
    try {
      const { rowid, indexed } = await keys(db);
      // FTS5's shadow tables among them: FTS5 deletes a merged segment's pages by rowid range.
      expect(rowid).toContain('customers_search_data');
      expect(indexed.length).toBeGreaterThan(20);
      expect(await scans(db)).toEqual([]);
      // The open gathered statistics (SQLite's advice), each counting at least MIN_ROWS rows, its other figures kept.
      const stats = await rows(db, 'select tbl, idx, stat from sqlite_stat1');
      expect(stats.length).toBeGreaterThan(10);
      for (const s of stats) expect(Number(String(s.stat).split(' ')[0])).toBeGreaterThanOrEqual(MIN_ROWS);
      expect(stats.find((s) => s.idx === 'sqlite_autoindex_merchants_1')?.stat).toBe(`${String(MIN_ROWS)} 1`);
      expect(stats.find((s) => s.idx === 'api_keys_merchant_id_is_active_index')?.stat).toBe(`${String(MIN_ROWS)} 1 1`);
      // The samples of a handful of rows are dropped.
      expect(await rows(db, 'select tbl from sqlite_stat4')).toEqual([]);
    } finally {
      await db.destroy();
    }
  });

  it('another connection growing a table leaves the open connection\'s plans as they were: index searches', async () => {
    const url = await seededFile('grown.sqlite');
    const db = createDatabase(url);
    const other = createDatabase(url);
    try {
      expect(await scans(db)).toEqual([]);
      // The other connection (another process, an import) fills a table and analyzes it for itself.
      await other.raw('create table imported (id integer primary key, code text)');
      await other.raw('create index imported_code on imported (code)');
      await other.raw(`insert into imported (code) ${COUNTED(MIN_ROWS * 3)}`);
      await other.raw('analyze imported');
      expect(await scans(db)).toEqual([]);
      expect(await scans(other)).toEqual([]);
    } finally {
      await other.destroy();
      await db.destroy();
    }
  });

  it('the worker\'s periodic optimize raises small tables again and keeps a large table\'s own figures', async () => {
    const url = await seededFile('worker.sqlite');
    const db = createDatabase(url);
    try {
      await db.raw('create table big (id integer primary key, code text)');
      await db.raw('create index big_code on big (code)');
      await db.raw(`insert into big (code) ${COUNTED(MIN_ROWS * 2, 500)}`);
      await db.raw('create table tiny (id integer primary key, code text)');
      await db.raw('create index tiny_code on tiny (code)');
      await db.raw("insert into tiny (code) values ('a'), ('b')");
      await optimize(db);
      const stat = async (idx: string): Promise<unknown> => (await rows(db, 'select stat from sqlite_stat1 where idx = ?', [idx]))[0]?.stat;
      // 2,000 rows, 4 a code: the table's own figures.
      expect(await stat('big_code')).toBe(`${String(MIN_ROWS * 2)} 4`);
      expect(await stat('tiny_code')).toBe(`${String(MIN_ROWS)} 1`);
      expect(await scans(db)).toEqual([]);
    } finally {
      await db.destroy();
    }
  });
});
