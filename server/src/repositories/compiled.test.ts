// Compiled queries answer as the Knex builder does, on both engines, in and out of a transaction.
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDatabase, type Database } from '../db/knex.ts';
import { spyOnStatements } from '../../test/pg-statements.ts';
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

/** The probe table, in a schema of its own on PostgreSQL. */
async function createProbe(db: Database, schema: string | undefined): Promise<void> {
  if (schema !== undefined) await db.raw('create schema ??', [schema]);
  await db.schema.createTable('probe', (t) => {
    t.string('id').primary();
    t.integer('n');
    t.boolean('flag');
    t.string('note').defaultTo('kept');
  });
}

describe.each(engines)('compiled queries on %s', (engine) => {
  let db: Database;
  const schema = `t_${randomBytes(6).toString('hex')}`;
  beforeAll(async () => {
    db = engine === 'postgres' ? createDatabase(postgresUrl ?? '', { schema }) : createDatabase('sqlite::memory:');
    await createProbe(db, engine === 'postgres' ? schema : undefined);
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

  // Strings that a statement's text or JSON would have to escape: each must arrive as it was sent.
  const awkward = ["it's", 'a "quote"', 'back\\slash \\u0041', '? ?? $1 $2 :name', 'line\nbreak\ttab', 'unicode \u00e9\u4e2d\ud83d\ude00', '', ' '];

  it('insertRows stores many rows as the builder stores them: awkward strings, nulls, booleans, the columns it does not name at their default', async () => {
    const rows = Array.from({ length: 2_500 }, (_, i) => ({ id: `many-${String(i)}`, n: i % 7 === 0 ? null : i - 1_000, flag: i % 3 === 0 ? null : i % 2 === 0 }));
    const withNotes = awkward.map((note, i) => ({ id: `awkward-${String(i)}`, n: 2_147_483_647 - i, flag: true, note }));
    await insertRows(db, 'probe', rows);
    await insertRows(db, 'probe', withNotes);
    await db('probe').insert(rows.slice(0, 50).map((r) => ({ ...r, id: `builder-${r.id}` })));
    const stored = await db('probe').whereLike('id', 'many-%').orderBy('id').select<Probe[]>('id', 'n', 'flag', 'note');
    expect(stored).toHaveLength(2_500);
    const byKey = new Map(stored.map((r) => [r.id, r]));
    for (const row of rows) {
      const got = byKey.get(row.id);
      expect({ ...got, flag: got?.flag === null ? null : Boolean(got?.flag) }).toEqual({ ...row, note: 'kept' });
    }
    for (const row of rows.slice(0, 50)) expect({ ...byKey.get(row.id), id: '' }).toEqual({ ...await read(db, `builder-${row.id}`), id: '' });
    for (const row of withNotes) expect((await read(db, row.id))?.note).toBe(row.note);
    expect((await read(db, 'awkward-0'))?.n).toBe(2_147_483_647);
  });

  it('insertRows with rows of different columns, or a value left undefined, inserts as the builder does', async () => {
    const rows = [{ id: 'mixed-a', n: 1, flag: true, note: 'given' }, { id: 'mixed-b', n: 2, flag: false }, { id: 'mixed-c', n: 3, flag: true, note: undefined }];
    await insertRows(db, 'probe', rows);
    await db('probe').insert(rows.map((r) => ({ ...r, id: `${r.id}-builder` })));
    for (const row of rows) expect({ ...await read(db, row.id), id: row.id }).toEqual({ ...await read(db, `${row.id}-builder`), id: row.id });
    expect((await read(db, 'mixed-a'))?.note).toBe('given');
  });

  it('insertRows in a transaction is seen by it and undone with it; a broken row fails the whole insert', async () => {
    const rows = Array.from({ length: 300 }, (_, i) => ({ id: `tx-${String(i)}`, n: i, flag: true, note: 'tx' }));
    await db.transaction(async (tx) => {
      await insertRows(tx, 'probe', rows);
      expect(await tx('probe').where({ note: 'tx' }).count({ c: '*' }).first()).toEqual({ c: engine === 'postgres' ? '300' : 300 });
      await tx.rollback();
    }).catch(() => undefined);
    expect(await db('probe').where({ note: 'tx' }).count({ c: '*' }).first()).toEqual({ c: engine === 'postgres' ? '0' : 0 });
    // The last row repeats the first's id: nothing of the batch stays.
    await expect(db.transaction(async (tx) => { await insertRows(tx, 'probe', [...rows, { id: 'tx-0', n: 0, flag: true, note: 'tx' }]); })).rejects.toThrow(/unique|UNIQUE|duplicate/);
    expect(await db('probe').where({ note: 'tx' }).count({ c: '*' }).first()).toEqual({ c: engine === 'postgres' ? '0' : 0 });
  });

  it('a call without one of its values is refused before anything runs', async () => {
    await expect(byN(db, { min: 1 } as unknown as { min: number; note: string })).rejects.toThrow(/no value for note/);
  });
});

// A `*` of a select, alone and qualified beside a join (the customer read's shape).
const starred = compiledSelect<{ id: string }, Probe>((db, v) => db('probe').where({ id: v.id }).select('*'));
const joined = compiledSelect<{ id: string }, Probe & { other_note: string | null }>((db, v) => db('probe as p')
  .leftJoin('probe as o', 'o.id', 'p.note').where({ 'p.id': v.id }).select('p.*', 'o.note as other_note'));

describe.each(engines)('compiled selects of * on %s', (engine) => {
  const schema = `t_${randomBytes(6).toString('hex')}`;
  let db: Database;
  let spy: ReturnType<typeof spyOnStatements> | undefined;
  beforeAll(async () => {
    // On PostgreSQL a handle opened after the spy: the session binds pg's query when the pool makes a connection.
    spy = engine === 'postgres' ? spyOnStatements() : undefined;
    db = engine === 'postgres' ? createDatabase(postgresUrl ?? '', { schema }) : createDatabase('sqlite::memory:');
    await createProbe(db, engine === 'postgres' ? schema : undefined);
    await db('probe').insert([{ id: 'star', n: 7, flag: true, note: 'other' }, { id: 'other', n: 8, flag: false, note: 'theirs' }]);
  });
  afterAll(async () => {
    spy?.restore();
    if (engine === 'postgres') await db.raw('drop schema ?? cascade', [schema]);
    await db.destroy();
  });

  it('answer the rows the builder answers, every column in the table\'s order', async () => {
    for (let i = 0; i < 3; i++) {
      const [row] = await starred(db, { id: 'star' });
      expect(Object.keys(row ?? {})).toEqual(['id', 'n', 'flag', 'note']);
      expect(row).toEqual(await db('probe').where({ id: 'star' }).first());
      expect(await joined(db, { id: 'star' })).toEqual([{ ...(await db('probe').where({ id: 'star' }).first()), other_note: 'theirs' }]);
      expect(await starred(db, { id: 'none' })).toEqual([]);
    }
  });

  it.runIf(engine === 'postgres')('go to PostgreSQL with their columns named, prepared by name on the connection', async () => {
    if (!spy) throw new Error('no spy');
    spy.sent.length = 0;
    spy.names.length = 0;
    await starred(db, { id: 'star' });
    await joined(db, { id: 'star' });
    const selects = spy.sent.map((text, i) => ({ text, name: spy?.names[i] })).filter(({ text }) => /"probe"/.test(text));
    expect(selects).toHaveLength(2);
    for (const { text, name } of selects) {
      expect(text).not.toMatch(/\*/);
      expect(name).toMatch(/^pgw_\d+$/);
    }
    expect(selects[0]?.text).toMatch(/^select "id", "n", "flag", "note" from "probe"/);
    expect(selects[1]?.text).toMatch(/^select "p"\."id", "p"\."n", "p"\."flag", "p"\."note", "o"\."note" as "other_note" from "probe" as "p"/);
  });
});

// Beside the engines' runs above: it needs a schema of its own and a handle opened after the spy.
describe.skipIf(!postgresUrl)('insertRows on PostgreSQL', () => {
  const schema = `t_${randomBytes(6).toString('hex')}`;
  let db: Database;
  beforeAll(async () => {
    db = createDatabase(postgresUrl ?? '', { schema });
    await createProbe(db, schema);
  });
  afterAll(async () => {
    await db.raw('drop schema ?? cascade', [schema]);
    await db.destroy();
  });

  it('many rows of the same columns are one statement with their JSON as its one value', async () => {
    // A handle of its own, opened after the spy: the session binds pg's query when the pool makes a connection.
    const spy = spyOnStatements();
    const own = createDatabase(postgresUrl ?? '', { schema });
    try {
      const rows = Array.from({ length: 10_000 }, (_, i) => ({ id: `json-${String(i)}`, n: i, flag: false, note: 'json' }));
      spy.sent.length = 0;
      await own.transaction(async (tx) => { await insertRows(tx, 'probe', rows); });
      const inserts = spy.sent.filter((text) => /insert/i.test(text));
      expect(inserts).toHaveLength(1);
      expect(inserts[0]).toMatch(/json_populate_recordset\(null::"probe", \$1::json\)/);
      expect(await own('probe').where({ note: 'json' }).count({ c: '*' }).first()).toEqual({ c: '10000' });
    } finally {
      spy.restore();
      await own.destroy();
    }
  });
});
