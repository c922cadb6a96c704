// Compiled queries answer as the Knex builder does, on both engines, in and out of a transaction.
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDatabase, type Database } from '../db/knex.ts';
import { compiledSelect, insertRow, insertRows } from './compiled.ts';

const postgresUrl = process.env.PGW_TEST_DATABASE_URL;
if (!postgresUrl) console.warn('\n*** SKIPPING the PostgreSQL run of compiled.test.ts: PGW_TEST_DATABASE_URL is not set ***\n');
const engines = postgresUrl ? (['sqlite', 'postgres'] as const) : (['sqlite'] as const);

interface Probe { id: string; n: number | null; flag: boolean | number | null; note: string | null }

// Defined once for the file: each engine's handle must get SQL of its own dialect from the same query.
const byN = compiledSelect<{ min: number; note: string }, Probe>((db, v) =>
  db('probe').where('n', '>=', v.min).andWhere({ note: v.note }).orderBy('id').limit(2).select('id', 'n', 'flag', 'note'));
const byId = compiledSelect<{ id: string }, Probe>((db, v) => db('probe').where({ id: v.id }).first('id', 'n', 'flag', 'note'));

const read = async (db: Database, id: string): Promise<Probe | undefined> =>
  (await db('probe').where({ id }).first<Probe | undefined>('id', 'n', 'flag', 'note'));

describe.each(engines)('compiled queries on %s', (engine) => {
  let db: Database;
  const schema = `t_${randomBytes(6).toString('hex')}`;
  beforeAll(async () => {
    db = engine === 'postgres' ? createDatabase(postgresUrl ?? '', { schema }) : createDatabase('sqlite::memory:');
    if (engine === 'postgres') await db.raw('create schema ??', [schema]);
    await db.schema.createTable('probe', (t) => {
      t.string('id').primary();
      t.integer('n');
      t.boolean('flag');
      t.string('note').defaultTo('kept');
    });
  });
  afterAll(async () => {
    if (engine === 'postgres') await db.raw('drop schema ?? cascade', [schema]);
    await db.destroy();
  });

  it('insertRow stores what the builder stores, a column left undefined included (DEFAULT, or NULL on SQLite)', async () => {
    const rows = [
      { id: 'a', n: 1, flag: true, note: 'x' },
      { id: 'b', n: 2, flag: false, note: undefined },
      { id: 'c', n: null, flag: null, note: 'x' },
    ];
    for (const row of rows) {
      await insertRow(db, 'probe', row);
      await db('probe').insert({ ...row, id: `${row.id}-builder` });
    }
    for (const row of rows) {
      const compiled = await read(db, row.id);
      const built = await read(db, `${row.id}-builder`);
      expect(compiled).toEqual({ ...built, id: row.id });
    }
    // The two engines differ here, as Knex makes them differ.
    expect((await read(db, 'b'))?.note).toBe(engine === 'postgres' ? 'kept' : null);
  });

  it('a select takes new values each call and keeps the constants it was built with (the limit)', async () => {
    await insertRows(db, 'probe', [{ id: 'd', n: 5, flag: true, note: 'y' }, { id: 'e', n: 6, flag: true, note: 'y' }, { id: 'f', n: 7, flag: true, note: 'y' }]);
    expect((await byN(db, { min: 5, note: 'y' })).map((r) => r.id)).toEqual(['d', 'e']);
    expect((await byN(db, { min: 7, note: 'y' })).map((r) => r.id)).toEqual(['f']);
    expect(await byN(db, { min: 1, note: 'none' })).toEqual([]);
    const [row] = await byId(db, { id: 'e' });
    expect({ ...row, flag: Boolean(row?.flag) }).toEqual({ id: 'e', n: 6, flag: true, note: 'y' });
  });

  it('runs inside a transaction, seeing its uncommitted rows, and is undone with it', async () => {
    await db.transaction(async (tx) => {
      await insertRow(tx, 'probe', { id: 'g', n: 9, flag: false, note: 'z' });
      expect((await byId(tx, { id: 'g' }))[0]?.n).toBe(9);
      await tx.rollback();
    }).catch(() => undefined);
    expect(await byId(db, { id: 'g' })).toEqual([]);
  });

  it('a call without one of its values is refused before anything runs', async () => {
    await expect(byN(db, { min: 1 } as unknown as { min: number; note: string })).rejects.toThrow(/no value for note/);
  });
});
