// The SQLite driver under Knex (sqlite-client.ts): what Knex reads of it (rows, row counts, inserted ids, RETURNING),
// the bindings Knex formats, errors named by their extended result code as better-sqlite3 named them, and the
// settings of the server's connection that the driver's build would otherwise change.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import knex, { type Knex } from 'knex';
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import { DuplicateKeyError, insertCategory } from '../repositories/catalogue.ts';
import { createDatabase, migrate } from './knex.ts';
import { resultCodeName, SqliteClient, SqliteConnection } from './sqlite-client.ts';

const dir = mkdtempSync(path.join(tmpdir(), 'pgw-sqlite-client-'));
afterAll(() => { rmSync(dir, { recursive: true, force: true }); });

const open = (filename = ':memory:', busyTimeoutMs?: number): Knex => knex({
  client: SqliteClient, connection: { filename }, useNullAsDefault: true,
  pool: {
    min: 1, max: 1,
    afterCreate: (conn: SqliteConnection, done: (e: Error | null, c: unknown) => void) => {
      if (busyTimeoutMs !== undefined) conn.exec(`PRAGMA busy_timeout = ${String(busyTimeoutMs)}`);
      done(null, conn);
    },
  },
});

/** The error a promise rejects with (its `code` and message). */
async function failure(work: Promise<unknown>): Promise<{ code: unknown; message: string }> {
  try {
    await work;
  } catch (error) {
    return { code: (error as { code?: unknown }).code, message: error instanceof Error ? error.message : String(error) };
  }
  throw new Error('expected a failure');
}

describe('resultCodeName', () => {
  it('names primary and extended result codes as sqlite3.h does', () => {
    expect(resultCodeName(1)).toBe('SQLITE_ERROR');
    expect(resultCodeName(5)).toBe('SQLITE_BUSY');
    expect(resultCodeName(517)).toBe('SQLITE_BUSY_SNAPSHOT');
    expect(resultCodeName(19)).toBe('SQLITE_CONSTRAINT');
    expect(resultCodeName(275)).toBe('SQLITE_CONSTRAINT_CHECK');
    expect(resultCodeName(787)).toBe('SQLITE_CONSTRAINT_FOREIGNKEY');
    expect(resultCodeName(1299)).toBe('SQLITE_CONSTRAINT_NOTNULL');
    expect(resultCodeName(1555)).toBe('SQLITE_CONSTRAINT_PRIMARYKEY');
    expect(resultCodeName(2067)).toBe('SQLITE_CONSTRAINT_UNIQUE');
    expect(resultCodeName(3091)).toBe('SQLITE_CONSTRAINT_DATATYPE');
    expect(resultCodeName(3082)).toBe('SQLITE_IOERR_NOMEM');
    expect(resultCodeName(266)).toBe('SQLITE_IOERR_READ');
    expect(resultCodeName(9226)).toBe('SQLITE_IOERR_CODEC');
    expect(resultCodeName(264)).toBe('SQLITE_READONLY_RECOVERY');
    // An extension this table does not know keeps its primary name; a code past the primaries has none.
    expect(resultCodeName(19 | (40 << 8))).toBe('SQLITE_CONSTRAINT');
    expect(resultCodeName(99)).toBeUndefined();
  });
});

describe('SqliteClient under Knex', () => {
  let db: Knex;
  beforeEach(async () => {
    db = open();
    await db.raw('create table parents (id integer primary key, name text not null unique, n integer check (n >= 0))');
    await db.raw('create table children (id integer primary key autoincrement, parent_id integer not null references parents (id), note text, at integer, flag integer, data blob)');
    await db.raw('pragma foreign_keys = on');
  });
  afterEach(async () => { await db.destroy(); });

  it('answers rows, inserted ids, row counts and RETURNING as Knex expects of its SQLite dialects', async () => {
    expect(await db('parents').insert({ id: 1, name: 'a', n: 1 })).toEqual([1]);
    expect(await db('parents').insert({ id: 7, name: 'b', n: 2 })).toEqual([7]);
    expect(await db('parents').insert({ id: 9, name: 'c', n: 3 }).returning(['id', 'name'])).toEqual([{ id: 9, name: 'c' }]);
    expect(await db('parents').where('n', '>', 1).update({ n: 5 })).toBe(2);
    expect(await db('parents').where('id', 9).update({ n: 6 }).returning('n')).toEqual([{ n: 6 }]);
    expect(await db('parents').orderBy('id').select('id', 'n')).toEqual([{ id: 1, n: 1 }, { id: 7, n: 5 }, { id: 9, n: 6 }]);
    expect(await db('parents').where('id', 1).first('name')).toEqual({ name: 'a' });
    expect(await db('parents').count({ c: '*' })).toEqual([{ c: 3 }]);
    expect(await db('parents').where('id', 7).delete()).toBe(1);
    expect(await db.raw('pragma foreign_keys')).toEqual([{ foreign_keys: 1 }]);
    // A statement that answers nothing (DDL through raw) answers a run's result, not rows.
    expect(await db('parents').where('id', 404).delete()).toBe(0);
  });

  it('binds what Knex formats: dates as milliseconds, booleans as 0/1, nulls, big integers and bytes', async () => {
    await db('parents').insert({ id: 1, name: 'a', n: 0 });
    const at = new Date('2026-11-25T10:00:00.123Z');
    await db('children').insert({ parent_id: 1, note: null, at, flag: true, data: Buffer.from([0, 1, 254, 255]) });
    await db('children').insert({ parent_id: 1, note: 'x', at: Number.MAX_SAFE_INTEGER, flag: false, data: null });
    const rows = await db('children').orderBy('id').select<{ note: string | null; at: number; flag: number; data: Uint8Array | null }[]>('note', 'at', 'flag', 'data');
    expect(rows.map((r) => [r.note, r.at, r.flag])).toEqual([[null, at.getTime(), 1], ['x', Number.MAX_SAFE_INTEGER, 0]]);
    expect([...(rows[0]?.data ?? [])]).toEqual([0, 1, 254, 255]);
    expect(rows[1]?.data).toBeNull();
    // Text that looks like SQL or holds every awkward character is a value, not SQL.
    const awkward = "'; drop table parents; -- \u0000\u2028 é 😀";
    await db('children').insert({ parent_id: 1, note: awkward });
    expect(await db('children').where('note', awkward).count({ c: '*' })).toEqual([{ c: 1 }]);
    expect(await db.raw('select count(*) as c from parents')).toEqual([{ c: 1 }]);
  });

  it('binds a value left undefined as NULL, as better-sqlite3 did (rows of different columns in one insert)', async () => {
    await db('parents').insert({ id: 1, name: 'a', n: 0 });
    await db('children').insert([{ parent_id: 1, note: 'first' }, { parent_id: 1, at: 5 }, { parent_id: 1, note: undefined, flag: false }]);
    const rows = await db('children').orderBy('id').select<{ note: string | null; at: number | null; flag: number | null }[]>('note', 'at', 'flag');
    expect(rows.map((r) => [r.note, r.at, r.flag])).toEqual([['first', null, null], [null, 5, null], [null, null, 0]]);
    const conn = new SqliteConnection(':memory:');
    try {
      expect(conn.prepare('select ? as a, ? as b').all([undefined, 2])).toEqual([{ a: null, b: 2 }]);
    } finally {
      conn.close();
    }
  });

  it('names each constraint failure by its extended code, as better-sqlite3 did, and changes nothing', async () => {
    await db('parents').insert({ id: 1, name: 'a', n: 0 });
    expect(await failure(db('parents').insert({ id: 2, name: 'a', n: 0 }))).toMatchObject({ code: 'SQLITE_CONSTRAINT_UNIQUE', message: expect.stringContaining('UNIQUE constraint failed: parents.name') as unknown });
    expect((await failure(db('parents').insert({ id: 1, name: 'b', n: 0 }))).code).toBe('SQLITE_CONSTRAINT_PRIMARYKEY');
    expect((await failure(db('parents').insert({ id: 3, name: 'c', n: -1 }))).code).toBe('SQLITE_CONSTRAINT_CHECK');
    expect((await failure(db.raw('insert into parents (id, name) values (4, null)'))).code).toBe('SQLITE_CONSTRAINT_NOTNULL');
    expect((await failure(db('children').insert({ parent_id: 404 }))).code).toBe('SQLITE_CONSTRAINT_FOREIGNKEY');
    expect((await failure(db.raw('select * from nowhere'))).code).toBe('SQLITE_ERROR');
    expect((await failure(db.raw('selec 1'))).code).toBe('SQLITE_ERROR');
    expect(await db('parents').select('id', 'name')).toEqual([{ id: 1, name: 'a' }]);
    expect(await db('children').count({ c: '*' })).toEqual([{ c: 0 }]);
  });

  it('rolls a failed transaction back whole', async () => {
    await expect(db.transaction(async (tx) => {
      await tx('parents').insert({ id: 1, name: 'a', n: 0 });
      await tx('parents').insert({ id: 2, name: 'a', n: 0 });
    })).rejects.toMatchObject({ code: 'SQLITE_CONSTRAINT_UNIQUE' });
    expect(await db('parents').count({ c: '*' })).toEqual([{ c: 0 }]);
  });
});

describe('two connections to one file', () => {
  it('a writer that finds the file locked past its busy timeout fails with SQLITE_BUSY', async () => {
    const file = path.join(dir, 'busy.sqlite');
    const holder = open(file);
    const other = open(file, 0);
    try {
      await holder.raw('pragma journal_mode = wal');
      await holder.raw('create table t (id integer primary key)');
      await holder.transaction(async (tx) => {
        await tx('t').insert({ id: 1 });
        expect((await failure(other('t').insert({ id: 2 }))).code).toBe('SQLITE_BUSY');
      });
      await other('t').insert({ id: 2 });
      expect(await other('t').orderBy('id').pluck('id')).toEqual([1, 2]);
    } finally {
      await other.destroy();
      await holder.destroy();
    }
  });
});

describe("the server's SQLite connection", () => {
  it('keeps recursive triggers off and a 16 MB page cache (the driver\'s build defaults differ)', async () => {
    const db = createDatabase(`sqlite:${path.join(dir, 'server.sqlite')}`);
    try {
      expect(await db.raw('pragma recursive_triggers')).toEqual([{ recursive_triggers: 0 }]);
      expect(await db.raw('pragma cache_size')).toEqual([{ cache_size: -16000 }]);
    } finally {
      await db.destroy();
    }
  });

  it('a second category of one name fails as a duplicate in the repository, under the unique index', async () => {
    const db = createDatabase('sqlite::memory:');
    try {
      await migrate(db, 'sandbox');
      await db.raw('pragma foreign_keys = off');
      const category = { merchantId: 'm-1', name: 'Tea', nameKey: 'tea', defaultUnitTypeId: null, now: '2026-11-25T00:00:00Z' };
      await insertCategory(db, { ...category, id: 'c-1' });
      await expect(insertCategory(db, { ...category, id: 'c-2' })).rejects.toBeInstanceOf(DuplicateKeyError);
      expect(await db('categories').pluck('id')).toEqual(['c-1']);
    } finally {
      await db.destroy();
    }
  });
});
