// The schema's B-tree indexes, both engines: none is a prefix of another on the same table (issue 25: every row
// written pays for each index, and a prefix answers nothing the longer index does not). Unique and partial
// indexes are rules or serve their own queries, so only plain ones count as the shorter side.
import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { createDatabase, migrate, type Database } from '../knex.ts';
import { GIN_PENDING_LIST_KB } from './026_gin_pending_list.ts';
import { migrationSource } from './index.ts';

const postgresUrl = process.env.PGW_TEST_DATABASE_URL;
if (!postgresUrl) console.warn('\n*** SKIPPING the PostgreSQL run of indexes.test.ts: PGW_TEST_DATABASE_URL is not set ***\n');
const engines = postgresUrl ? (['sqlite', 'postgres'] as const) : (['sqlite'] as const);

interface IndexInfo { name: string; table: string; columns: string[]; plain: boolean }

async function sqliteIndexes(db: Database): Promise<IndexInfo[]> {
  const tables = await db('sqlite_master').where({ type: 'table' }).whereNot('name', 'like', 'sqlite_%').pluck('name') as string[];
  const found: IndexInfo[] = [];
  for (const table of tables) {
    const list = await db.raw<{ name: string; unique: number; origin: string; partial: number }[]>('select * from pragma_index_list(?)', [table]);
    for (const index of list) {
      const columns = await db.raw<{ seqno: number; cid: number; name: string | null; key: number }[]>('select * from pragma_index_xinfo(?)', [index.name]);
      // An expression column has no name (cid -2): the index's SQL names it; the rowid tail (key 0) is not a key.
      const sql = (await db('sqlite_master').where({ name: index.name }).first<{ sql: string | null } | undefined>('sql'))?.sql ?? '';
      const keys = columns.filter((c) => c.key === 1).map((c) => c.name ?? `expr:${sql}`);
      found.push({ name: index.name, table, columns: keys, plain: index.unique === 0 && index.partial === 0 });
    }
  }
  return found;
}

async function postgresIndexes(db: Database, schema: string): Promise<IndexInfo[]> {
  const { rows } = await db.raw<{ rows: { name: string; table: string; unique: boolean; partial: boolean; method: string; def: string }[] }>(
    `select i.relname as name, t.relname as "table", ix.indisunique as unique, ix.indpred is not null as partial, am.amname as method,
            pg_get_indexdef(ix.indexrelid) as def
       from pg_index ix join pg_class i on i.oid = ix.indexrelid join pg_class t on t.oid = ix.indrelid
       join pg_namespace n on n.oid = t.relnamespace join pg_am am on am.oid = i.relam
      where n.nspname = ?`, [schema]);
  return rows.filter((r) => r.method === 'btree').map((r) => {
    const list = /USING btree \((.*)\)(?: WHERE .*)?$/.exec(r.def)?.[1] ?? '';
    // Split on the commas between key columns, not those inside an expression's parentheses.
    const columns: string[] = [];
    let depth = 0; let current = '';
    for (const ch of list) {
      if (ch === ',' && depth === 0) { columns.push(current.trim()); current = ''; continue; }
      if (ch === '(') depth++;
      if (ch === ')') depth--;
      current += ch;
    }
    columns.push(current.trim());
    return { name: r.name, table: r.table, columns, plain: !r.unique && !r.partial };
  });
}

const isPrefix = (shorter: string[], longer: string[]): boolean =>
  shorter.length <= longer.length && shorter.every((column, i) => column === longer[i]);

describe.each(engines)('the indexes of a migrated %s database', (engine) => {
  it('holds no plain index that is a prefix of another index of its table (a write cost that answers no query)', async () => {
    const schema = `t_${randomBytes(6).toString('hex')}`;
    const db = engine === 'postgres' ? createDatabase(postgresUrl ?? '', { schema }) : createDatabase('sqlite::memory:');
    try {
      await migrate(db, 'sandbox', engine === 'postgres' ? schema : undefined);
      const indexes = engine === 'postgres' ? await postgresIndexes(db, schema) : await sqliteIndexes(db);
      expect(indexes.length).toBeGreaterThan(20);
      const redundant = indexes.filter((a) => a.plain).flatMap((a) => indexes
        .filter((b) => b !== a && b.table === a.table && isPrefix(a.columns, b.columns))
        .map((b) => `${a.table}: ${a.name} (${a.columns.join(', ')}) is a prefix of ${b.name} (${b.columns.join(', ')})`));
      expect(redundant).toEqual([]);
    } finally {
      if (engine === 'postgres') await db.raw('drop schema if exists ?? cascade', [schema]);
      await db.destroy();
    }
  });
});

describe.skipIf(!postgresUrl)('the GIN indexes of a migrated PostgreSQL database (migration 026)', () => {
  // Capitals in the schema's name: the server quotes it in the search path, and the migration must find it so.
  const schema = `Gin_${randomBytes(6).toString('hex')}`;
  const gin = async (db: Database): Promise<{ name: string; options: string[] | null }[]> => (await db.raw<{ rows: { name: string; options: string[] | null }[] }>(
    `select i.relname as name, i.reloptions as options from pg_index ix join pg_class i on i.oid = ix.indexrelid join pg_am am on am.oid = i.relam
      where am.amname = 'gin' and i.relnamespace = (select oid from pg_namespace where nspname = ?) order by 1`, [schema])).rows;

  it('each keep a pending list of 64 kB at most (a search reads the whole list), and lose the setting when 026 is undone', async () => {
    const db = createDatabase(postgresUrl ?? '', { schema });
    try {
      await migrate(db, 'sandbox', schema);
      const indexes = await gin(db);
      // The customer search's trigram index at least (pg_trgm is there wherever this suite runs).
      expect(indexes.map((i) => i.name)).toContain('customers_search_trgm_index');
      expect(indexes.filter((i) => !(i.options ?? []).includes(`gin_pending_list_limit=${String(GIN_PENDING_LIST_KB)}`))).toEqual([]);
      // Taken back until 026 is (however many came after it).
      const applied = async (): Promise<boolean> => (await db('knex_migrations').where({ name: '026_gin_pending_list' })).length > 0;
      for (let i = 0; i < 20 && await applied(); i++) await db.migrate.down({ migrationSource: migrationSource('sandbox') });
      expect(await applied()).toBe(false);
      expect((await gin(db)).map((i) => i.options)).toEqual(indexes.map(() => null));
    } finally {
      await db.raw('drop schema if exists ?? cascade', [schema]);
      await db.destroy();
    }
  });
});
