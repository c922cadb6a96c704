// PostgreSQL transactions that begin late and send held inserts together (pg-session.ts): what goes over the
// wire, and that every transaction still means what it meant: it sees its own writes, a failure keeps nothing,
// a savepoint fails alone, the connection is clean afterwards.
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createDatabase, type Database } from './knex.ts';
import fc from 'fast-check';
import { combine, COMBINED_PER_CONNECTION, CombinedTexts, isPlainRead, NAMED_PER_CONNECTION, preparedName, targetOf } from './pg-session.ts';
import { inSavepoint, insertLater, lockRow, transaction, updateLater } from '../platform/transaction.ts';
import { spyOnStatements, type StatementSpy } from '../../test/pg-statements.ts';

const postgresUrl = process.env.PGW_TEST_DATABASE_URL;
if (!postgresUrl) console.warn('\n*** SKIPPING pg-session.test.ts on PostgreSQL: PGW_TEST_DATABASE_URL is not set ***\n');

describe('which statements may run before BEGIN', () => {
  it('plain selects only: no lock, no function that acts', () => {
    for (const text of ['select * from "t" where "id" = $1', 'SELECT count(*) as n from t', '  select coalesce(max(n), 0) from t join u on u.id = t.id', 'select * from "customers" where "name" ilike $1 limit $2']) {
      expect(isPlainRead(text), text).toBe(true);
    }
    for (const text of [
      'select * from "t" where "id" = $1 for update', 'select * from t for no key update skip locked', 'select * from t for share', 'select * from t FOR KEY SHARE',
      'select pg_notify($1, $2)', 'select pg_advisory_xact_lock(1)', "select nextval('s')", 'select set_config($1, $2, true)', 'select txid_current()', 'select pg_current_xact_id()',
      'insert into t values ($1)', 'update t set n = 1', 'delete from t', 'with x as (delete from t returning *) select * from x', 'BEGIN;', 'SAVEPOINT trx2;', 'lock table t',
    ]) {
      expect(isPlainRead(text), text).toBe(false);
    }
  });

  it('combines held inserts into one statement, renumbering the values, and splits beyond 30,000 values', () => {
    const [one, ...rest] = combine([{ text: 'insert into a (x) values ($1)', values: [1] }, { text: 'insert into b (x, y) values ($1, $2)', values: [2, 3] }, { text: 'insert into c (x) values ($1)', values: [4] }]);
    expect(rest).toEqual([]);
    expect(one).toEqual({ text: 'with h0 as (insert into a (x) values ($1)), h1 as (insert into b (x, y) values ($2, $3)) insert into c (x) values ($4)', values: [1, 2, 3, 4] });
    const big = { text: 'insert into a (x) values ($1)', values: Array.from({ length: 20_000 }, () => 0) };
    expect(combine([big, big, big]).map((s) => s.values.length)).toEqual([20_000, 20_000, 20_000]);
  });
});

describe('a connection\'s combined texts (CombinedTexts)', () => {
  // Texts with one, two or three placeholders, and one whose value count varies with the rows it inserts.
  const TEXTS = ['insert into a (x) values ($1)', 'insert into b (x, y) values ($1, $2)', 'update c set n = n + $1 where id = $2', 'insert into d (x) values ($1), ($2), ($3)'];
  // The value count is part of the key too: one more value than placeholders moves every later part's numbers.
  const statement = fc.tuple(fc.integer({ min: 0, max: TEXTS.length - 1 }), fc.integer({ min: 0, max: 1 })).map(([i, extra]) => {
    const text = TEXTS[i] ?? '';
    const count = (text.match(/\$/g) ?? []).length + extra;
    return { text, values: Array.from({ length: count }, (_v, n) => n) };
  });

  it('gives every sequence of parts the text combine makes without them, again on a second call', () => {
    fc.assert(fc.property(fc.array(fc.array(statement, { minLength: 1, maxLength: 6 }), { minLength: 1, maxLength: 40 }), (groups) => {
      const texts = new CombinedTexts();
      for (const group of groups) {
        const kept = combine(group, texts);
        expect(kept).toEqual(combine(group));
        // Asked again, the same text (JavaScript cannot tell one string from an equal one: `kept` counts what is kept).
        expect(combine(group, texts)[0]?.text).toBe(kept[0]?.text);
      }
    }));
  });

  it('keeps at most COMBINED_PER_CONNECTION parts, and past them still gives the right text, built each time', () => {
    const texts = new CombinedTexts();
    const part = (i: number): { text: string; values: number[] } => ({ text: `insert into t${String(i)} (x) values ($1)`, values: [i] });
    for (let i = 0; i < COMBINED_PER_CONNECTION + 50; i++) {
      const group = [part(i), part(i + 1)];
      expect(combine(group, texts)).toEqual(combine(group));
    }
    const late = [part(COMBINED_PER_CONNECTION + 10), part(0)];
    expect(combine(late, texts)[0]?.text).toBe(`with h0 as (insert into t${String(COMBINED_PER_CONNECTION + 10)} (x) values ($1)) insert into t0 (x) values ($2)`);
    expect(texts.kept).toBe(COMBINED_PER_CONNECTION);
  });

  it('leaves a batch too large to keep out whole, so that the sequences after it are still kept', () => {
    const texts = new CombinedTexts();
    const part = (i: number): { text: string; values: number[] } => ({ text: `insert into t${String(i)} (x) values ($1)`, values: [i] });
    const batch = Array.from({ length: COMBINED_PER_CONNECTION + 50 }, (_v, i) => part(i));
    expect(combine(batch, texts)).toEqual(combine(batch));
    expect(texts.kept).toBe(0);
    const payment = [part(1), part(2), part(3)];
    const first = combine(payment, texts)[0]?.text;
    expect(combine(payment, texts)[0]?.text).toBe(first);
    expect(texts.kept).toBe(3);
  });
});

describe('the table a held statement writes', () => {
  it('is the name after INSERT INTO or UPDATE, quoted or not, a schema left off', () => {
    expect(targetOf('insert into "customers" ("id") values ($1)')).toBe('customers');
    expect(targetOf('insert into webhook_deliveries (id) select 1')).toBe('webhook_deliveries');
    expect(targetOf('UPDATE "customers" set "n" = n + 1 where "id" = $1')).toBe('customers');
    expect(targetOf('update Customers set n = 1')).toBe('customers');
    expect(targetOf('update "s"."customers" set n = 1')).toBe('customers');
    expect(targetOf('update s . "Odd""Name" set n = 1')).toBe('Odd"Name');
    expect(targetOf('delete from customers')).toBeUndefined();
  });
});

describe('the statements prepared by name on a connection', () => {
  it('names each text of a read or write once, and names none with a LIKE or a * list', () => {
    const names = new Map<string, string>();
    const read = 'select "id", "n" from "t" where "id" = $1 limit $2';
    const name = preparedName(names, read);
    expect(name).toMatch(/^pgw_/);
    expect(preparedName(names, read)).toBe(name);
    for (const text of ['insert into "t" ("id") values ($1)', 'update "t" set "n" = "n" + $1 where "id" = $2', 'delete from "t" where "id" = $1', 'with h0 as (insert into a (x) values ($1)) insert into b (x) values ($2)', 'select count(*) as n from "t" where "m" = $1']) {
      expect(preparedName(names, text), text).toMatch(/^pgw_/);
    }
    expect(new Set(names.values()).size).toBe(names.size);
    for (const text of ['select * from "t" where "id" = $1', 'select "c".* from "t" as "c" where "id" = $1', 'insert into "t" ("id") values ($1) returning *',
      'select "id" from "t" where lower(name) like $1', 'select "id" from "t" where name ILIKE $1', 'begin', 'set search_path to $1']) {
      expect(preparedName(names, text), text).toBeUndefined();
    }
  });

  it('names no more than NAMED_PER_CONNECTION texts; the ones after go unnamed', () => {
    const names = new Map<string, string>();
    for (let i = 0; i < NAMED_PER_CONNECTION; i++) expect(preparedName(names, `select "n" from "t" where "id" = $1 and ${String(i)} = ${String(i)}`)).toBeDefined();
    expect(preparedName(names, 'select "n" from "t" where "id" = $2')).toBeUndefined();
    expect(preparedName(names, 'select "n" from "t" where "id" = $1 and 0 = 0')).toBe('pgw_0');
  });
});

describe.skipIf(!postgresUrl)('transactions on PostgreSQL', () => {
  const schema = `t_${randomBytes(6).toString('hex')}`;
  let db: Database;
  let spy: StatementSpy;
  /** What reached the server from this file's connections, in order (the statements' texts). */
  let sent: string[] = [];

  beforeAll(async () => {
    spy = spyOnStatements();
    sent = spy.sent;
    db = createDatabase(postgresUrl ?? '', { schema });
    await db.raw('create schema ??', [schema]);
    await db.schema.createTable('parent', (t) => { t.string('id').primary(); t.integer('n').notNullable().defaultTo(0); });
    await db.schema.createTable('item', (t) => { t.string('id').primary(); t.string('parent_id').notNullable().references('parent.id'); t.integer('n'); });
  });
  afterAll(async () => {
    spy.restore();
    await db.raw('drop schema ?? cascade', [schema]);
    await db.destroy();
  });
  beforeEach(async () => {
    await db('item').delete();
    await db('parent').delete();
    sent.length = 0;
  });

  const ours = (): string[] => sent.filter((text) => !/search_path|version\(\)/i.test(text));

  it('reads, then held inserts: no BEGIN, one statement for every insert, atomic by itself', async () => {
    await db('parent').insert({ id: 'p0' });
    sent.length = 0;
    await transaction(db, async (tx) => {
      await tx('parent').where({ id: 'p0' }).first();
      await insertLater(tx, tx('parent').insert({ id: 'p1' }));
      await insertLater(tx, tx('item').insert({ id: 'i1', parent_id: 'p1', n: 1 }));
      await insertLater(tx, tx('item').insert([{ id: 'i2', parent_id: 'p1', n: 2 }, { id: 'i3', parent_id: 'p0', n: 3 }]));
    });
    const texts = ours();
    expect(texts).toHaveLength(2);
    expect(texts[0]).toMatch(/^select/);
    // The child refers to a parent inserted by the same statement: foreign keys are checked at its end.
    expect(texts[1]).toMatch(/^with h0 as \(insert into "parent".*h1 as \(insert into "item".*\) insert into "item"/);
    expect(await db('item').orderBy('id').pluck('id')).toEqual(['i1', 'i2', 'i3']);
  });

  it('sends held inserts before the next statement, so the transaction reads its own writes', async () => {
    await transaction(db, async (tx) => {
      await insertLater(tx, tx('parent').insert({ id: 'p1', n: 5 }));
      expect(await tx('parent').where({ id: 'p1' }).first()).toMatchObject({ id: 'p1', n: 5 });
      await insertLater(tx, tx('item').insert({ id: 'i1', parent_id: 'p1' }));
      await tx('parent').where({ id: 'p1' }).update({ n: 6 });
    });
    expect(ours().map((t) => t.split(/[ ;]/)[0]?.toLowerCase())).toEqual(['begin', 'insert', 'select', 'insert', 'update', 'commit']);
    expect(await db('parent').where({ id: 'p1' }).first()).toMatchObject({ n: 6 });
  });

  it('holds an update of a table nothing held writes: it goes out with the inserts, and counts from the row as committed', async () => {
    await db('parent').insert({ id: 'p0', n: 1 });
    sent.length = 0;
    await transaction(db, async (tx) => {
      await tx('parent').where({ id: 'p0' }).first();
      await insertLater(tx, tx('item').insert({ id: 'i1', parent_id: 'p0', n: 1 }));
      await updateLater(tx, tx('parent').where({ id: 'p0' }).update({ n: tx.raw('n + 1') }));
    });
    const texts = ours();
    expect(texts).toHaveLength(2);
    expect(texts[1]).toMatch(/^with h0 as \(insert into "item".*\) update "parent" set "n" = n \+ 1/);
    expect(await db('parent').where({ id: 'p0' }).first()).toMatchObject({ n: 2 });
  });

  it('runs an update at once when something held writes its table: it sees that row, and two updates of one row both count', async () => {
    sent.length = 0;
    await transaction(db, async (tx) => {
      await insertLater(tx, tx('parent').insert({ id: 'p1', n: 1 }));
      await updateLater(tx, tx('parent').where({ id: 'p1' }).update({ n: tx.raw('n + 1') }));
      await updateLater(tx, tx('parent').where({ id: 'p1' }).update({ n: tx.raw('n + 10') }));
      await updateLater(tx, tx('parent').where({ id: 'p1' }).update({ n: tx.raw('n + 100') }));
    });
    // +1 meets the held insert of its row: it runs after it. +10 is held; +100 meets it and runs after it.
    expect(ours().map((t) => t.split(/[ ;]/)[0]?.toLowerCase())).toEqual(['begin', 'insert', 'update', 'update', 'update', 'commit']);
    expect(await db('parent').where({ id: 'p1' }).first()).toMatchObject({ n: 112 });
  });

  it('a held counter update waits for a concurrent one and adds to what it committed (no lost increment)', async () => {
    await db('parent').insert({ id: 'p0', n: 0 });
    const bumps = Array.from({ length: 20 }, () => transaction(db, async (tx) => {
      await updateLater(tx, tx('parent').where({ id: 'p0' }).update({ n: tx.raw('n + 1') }));
    }));
    await Promise.all(bumps);
    expect(await db('parent').where({ id: 'p0' }).first()).toMatchObject({ n: 20 });
  });

  it('an update with RETURNING, or a delete, is never held', async () => {
    await transaction(db, async (tx) => {
      await expect(updateLater(tx, tx('parent').where({ id: 'x' }).update({ n: 1 }, ['id']))).rejects.toThrow(/RETURNING/);
      await expect(updateLater(tx, tx('parent').where({ id: 'x' }).delete())).rejects.toThrow(/only inserts and updates/);
    }).catch(() => undefined);
  });

  it('begins before a read that locks, and before a select that acts (pg_notify)', async () => {
    await db('parent').insert({ id: 'p0' });
    sent.length = 0;
    await transaction(db, async (tx) => {
      await lockRow(tx, 'parent', { id: 'p0' });
      await tx.raw("select pg_notify('pgw_session_test', 'x')");
    });
    expect(ours().map((t) => t.split(/[ ;]/)[0]?.toLowerCase())).toEqual(['begin', 'select', 'select', 'commit']);
    sent.length = 0;
    await transaction(db, async (tx) => { await tx.raw("select pg_notify('pgw_session_test', 'x')"); });
    expect(ours()[0]).toBe('BEGIN');
  });

  it('a held insert that breaks a constraint fails the commit, keeps nothing, and leaves the connection clean', async () => {
    for (const lateRead of [false, true]) {
      const attempt = transaction(db, async (tx) => {
        await tx('parent').insert({ id: 'kept-not' });
        await insertLater(tx, tx('item').insert({ id: 'orphan', parent_id: 'nobody' }));
        if (lateRead) await tx('item').select('id');
      });
      await expect(attempt).rejects.toThrow(/foreign key/);
      expect(await db('parent').pluck('id')).toEqual([]);
      // Every connection of the pool is usable: none was left in an aborted transaction.
      await Promise.all(Array.from({ length: 12 }, (_, i) => transaction(db, async (tx) => {
        await insertLater(tx, tx('parent').insert({ id: `after-${String(lateRead)}-${String(i)}` }));
      })));
      expect(await db('parent').count<{ count: string }[]>('* as count')).toEqual([{ count: '12' }]);
      await db('parent').delete();
    }
  });

  it('a transaction that only holds inserts and fails keeps none of them, however many statements they take', async () => {
    const rows = Array.from({ length: 9_000 }, (_, i) => ({ id: `p${String(i)}`, n: i }));
    const attempt = transaction(db, async (tx) => {
      // 3 values a row: 27,000 values, then 27,000 more and a broken row: three statements.
      await insertLater(tx, tx('parent').insert(rows));
      await insertLater(tx, tx('parent').insert(rows.map((r) => ({ ...r, id: `q${r.id}` }))));
      await insertLater(tx, tx('item').insert({ id: 'orphan', parent_id: 'nobody' }));
    });
    await expect(attempt).rejects.toThrow(/foreign key/);
    expect(await db('parent').count<{ count: string }[]>('* as count')).toEqual([{ count: '0' }]);
  });

  it('sends held inserts again when a row they read went in a commit they waited for (their snapshot predates the wait)', async () => {
    await db('parent').insert([{ id: 'anchor' }, { id: 'gone' }]);
    // Another transaction holds the parent a child will refer to, and deletes a row the insert below reads.
    const other = await db.transaction();
    await other('parent').where({ id: 'anchor' }).forUpdate().first();
    await other('parent').where({ id: 'gone' }).delete();
    const otherPid = (await other.raw<{ rows: { pid: number }[] }>('select pg_backend_pid() as pid')).rows[0]?.pid ?? 0;
    const mine = transaction(db, async (tx) => {
      await insertLater(tx, tx('item').insert({ id: 'child', parent_id: 'anchor' }));
      // As the fan-out does: the rows to insert are read by the insert itself.
      await insertLater(tx, tx.raw("insert into item (id, parent_id) select 'of-' || id, id from parent where id = 'gone'"));
    });
    const settled = { yet: false };
    void mine.finally(() => { settled.yet = true; }).catch(() => undefined);
    // The other commits once the held inserts wait for its lock (a backend blocked by it), or once they are done.
    const blocked = async (): Promise<boolean> =>
      (await db.raw<{ rows: unknown[] }>('select 1 from pg_stat_activity where ? = any(pg_blocking_pids(pid))', [otherPid])).rows.length > 0;
    while (!settled.yet && !(await blocked())) await new Promise((resolve) => setTimeout(resolve, 10));
    await other.commit();
    await mine;
    expect(await db('item').pluck('id')).toEqual(['child']);
  });

  it('a rollback drops what was held; nothing reaches the server', async () => {
    const attempt = transaction(db, async (tx) => {
      await insertLater(tx, tx('parent').insert({ id: 'p1' }));
      throw new Error('changed my mind');
    });
    await expect(attempt).rejects.toThrow('changed my mind');
    expect(ours()).toEqual([]);
    expect(await db('parent').pluck('id')).toEqual([]);
  });

  it('holds nothing inside a savepoint: a failing insert there fails the savepoint alone', async () => {
    await transaction(db, async (tx) => {
      await insertLater(tx, tx('parent').insert({ id: 'outer' }));
      await expect(inSavepoint(tx, async (sp) => {
        await insertLater(sp, sp('item').insert({ id: 'orphan', parent_id: 'nobody' }));
      })).rejects.toThrow(/foreign key/);
      await inSavepoint(tx, async (sp) => { await insertLater(sp, sp('item').insert({ id: 'child', parent_id: 'outer' })); });
    });
    expect(await db('item').pluck('id')).toEqual(['child']);
    expect(await db('parent').pluck('id')).toEqual(['outer']);
  });

  it('keeps the order of statements a transaction issues at once, and other transactions see nothing before the commit', async () => {
    let seenOutside: unknown[] = ['unset'];
    await transaction(db, async (tx) => {
      await Promise.all([
        insertLater(tx, tx('parent').insert({ id: 'a' })),
        tx('parent').where({ id: 'a' }).first(),
        insertLater(tx, tx('parent').insert({ id: 'b' })),
      ]);
      await tx('parent').select('id');
      seenOutside = await db('parent').pluck('id');
    });
    expect(seenOutside).toEqual([]);
    expect(await db('parent').orderBy('id').pluck('id')).toEqual(['a', 'b']);
  });

  it('prepares a statement with values once on its connection, and answers it as before', async () => {
    await db('parent').insert({ id: 'p0', n: 7 });
    const prepared = await transaction(db, async (tx) => {
      for (let i = 0; i < 3; i++) expect(await tx('parent').where({ id: 'p0' }).first('id', 'n')).toEqual({ id: 'p0', n: 7 });
      expect(await tx('parent').where({ id: 'p0' }).first()).toEqual({ id: 'p0', n: 7 });
      return (await tx.raw<{ rows: { statement: string }[] }>('select statement from pg_prepared_statements')).rows.map((r) => r.statement);
    });
    expect(prepared.filter((text) => text.startsWith('select "id", "n" from "parent"'))).toHaveLength(1);
    expect(prepared.filter((text) => text.startsWith('select * from "parent"'))).toHaveLength(0);
  });

  it('describes a named statement at its first run on a connection only, and reads every type alike after', async () => {
    await db.schema.createTable('shaped', (t) => {
      t.string('id').primary(); t.integer('n'); t.bigInteger('big'); t.timestamp('at', { useTz: true }); t.jsonb('doc'); t.boolean('flag'); t.decimal('amount', 12, 2);
    });
    try {
      // What pg sends per run, counted at its connection: Describe asks the row shape, Parse the statement.
      const counts = { describe: 0, parse: 0 };
      const proto = (pg as unknown as { Connection: { prototype: Record<'describe' | 'parse', (...a: unknown[]) => unknown> } }).Connection.prototype;
      const originals = { describe: proto.describe, parse: proto.parse };
      for (const key of ['describe', 'parse'] as const) {
        const original = originals[key];
        proto[key] = function (this: unknown, ...a: unknown[]) { counts[key] += 1; return original.apply(this, a); };
      }
      try {
        await transaction(db, async (tx) => {
          // Each run on the transaction's one connection: a read with rows, a read without, an insert (no rows, NoData).
          const read = async (id: string): Promise<{ at: unknown }[]> => tx('shaped').where({ id }).select<{ at: unknown }[]>('id', 'n', 'big', 'at', 'doc', 'flag', 'amount');
          const insert = (id: string) => tx.raw('insert into shaped (id, n, big, at, doc, flag, amount) values (?, ?, ?, ?, ?, ?, ?)', [id, 7, '9007199254740993', '2026-11-28T10:00:00Z', JSON.stringify({ a: [1, 'x'] }), true, '12.30']);
          await insert('a');
          const first = { ...counts };
          expect(first).toEqual({ describe: 1, parse: 1 });
          const rows = [];
          for (let i = 0; i < 3; i++) rows.push(await read('a'));
          expect(counts).toEqual({ describe: 2, parse: 2 });
          expect(await read('none')).toEqual([]);
          await insert('b');
          await insert('c');
          expect(counts).toEqual({ describe: 2, parse: 2 });
          // The rows of a run without Describe are the first run's: every column parsed by its type.
          expect(rows[1]).toEqual(rows[0]);
          expect(rows[2]).toEqual(rows[0]);
          expect(rows[2]).toEqual([{ id: 'a', n: 7, big: '9007199254740993', at: new Date('2026-11-28T10:00:00Z'), doc: { a: [1, 'x'] }, flag: true, amount: '12.30' }]);
          expect((await read('c'))[0]?.at).toBeInstanceOf(Date);
        });
      } finally {
        proto.describe = originals.describe;
        proto.parse = originals.parse;
      }
      expect(await db('shaped').orderBy('id').pluck('id')).toEqual(['a', 'b', 'c']);
    } finally {
      await db.schema.dropTable('shaped');
    }
  });

  it('runs an insert at once outside a transaction', async () => {
    await insertLater(db, db('parent').insert({ id: 'now' }));
    expect(await db('parent').pluck('id')).toEqual(['now']);
  });
});
