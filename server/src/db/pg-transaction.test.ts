// PostgreSQL transactions without Knex's transaction object (pg-transaction.ts): the handle behaves as Knex's did
// where the server relies on it: its statements run on one connection, a failure keeps nothing, a savepoint fails
// alone, nothing runs once it has ended, and the connection goes back to the pool clean, whatever happened.
import { randomBytes } from 'node:crypto';
import type { Knex } from 'knex';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createDatabase, type Database } from './knex.ts';
import { pgTransaction } from './pg-transaction.ts';
import { inSavepoint, insertLater, transaction } from '../platform/transaction.ts';

const postgresUrl = process.env.PGW_TEST_DATABASE_URL;
if (!postgresUrl) console.warn('\n*** SKIPPING pg-transaction.test.ts: PGW_TEST_DATABASE_URL is not set ***\n');

describe.skipIf(!postgresUrl)('a PostgreSQL transaction on its own connection', () => {
  const schema = `t_${randomBytes(6).toString('hex')}`;
  let db: Database;
  const used = (): number => (db.client as { pool: { numUsed: () => number } }).pool.numUsed();
  const ids = async (): Promise<string[]> => db('parent').orderBy('id').pluck('id');

  beforeAll(async () => {
    db = createDatabase(postgresUrl ?? '', { schema });
    await db.raw('create schema ??', [schema]);
    await db.schema.createTable('parent', (t) => { t.string('id').primary(); t.integer('n').notNullable().defaultTo(0); });
    await db.schema.createTable('item', (t) => { t.string('id').primary(); t.string('parent_id').notNullable().references('parent.id'); });
  });
  afterAll(async () => {
    await db.raw('drop schema ?? cascade', [schema]);
    await db.destroy();
  });
  beforeEach(async () => {
    await db('item').delete();
    await db('parent').delete();
  });

  it('runs every statement of the handle on one backend, and commits what it wrote', async () => {
    const backends = await pgTransaction(db, async (tx) => {
      expect(tx.isTransaction).toBe(true);
      await tx('parent').insert({ id: 'p1' });
      const one = (await tx.raw<{ rows: { pid: number }[] }>('select pg_backend_pid() as pid')).rows[0]?.pid;
      const two = (await tx.raw<{ rows: { pid: number }[] }>('select pg_backend_pid() as pid')).rows[0]?.pid;
      // Its own write is visible to it, and not to the pool's other connections until the commit.
      expect(await tx('parent').pluck('id')).toEqual(['p1']);
      expect(await ids()).toEqual([]);
      return [one, two];
    });
    expect(backends[0]).toBe(backends[1]);
    expect(await ids()).toEqual(['p1']);
    expect(used()).toBe(0);
  });

  it('rolls back what it wrote when its work fails, and throws the work\'s error', async () => {
    await expect(pgTransaction(db, async (tx) => {
      await tx('parent').insert({ id: 'p1' });
      throw new Error('refused');
    })).rejects.toThrow('refused');
    expect(await ids()).toEqual([]);
    expect(used()).toBe(0);
  });

  it('keeps nothing when its commit fails (a held insert breaking a foreign key), and its connection is clean after', async () => {
    await expect(transaction(db, async (tx) => {
      await tx('parent').insert({ id: 'p1' });
      await insertLater(tx, tx('item').insert({ id: 'i1', parent_id: 'nobody' }));
    })).rejects.toThrow(/foreign key/);
    expect(await ids()).toEqual([]);
    expect(used()).toBe(0);
    // Every connection of the pool still takes a transaction (none was left inside an aborted one).
    await Promise.all(Array.from({ length: 12 }, (_v, i) => transaction(db, async (tx) => { await tx('parent').insert({ id: `q${String(i)}` }); })));
    expect(await ids()).toHaveLength(12);
  });

  it('refuses statements on its handle once it has ended, committed or rolled back', async () => {
    let kept: Knex.Transaction | undefined;
    await pgTransaction(db, async (tx) => { kept = tx; await tx('parent').insert({ id: 'p1' }); });
    await expect(kept?.('parent').insert({ id: 'late' })).rejects.toThrow(/already complete/);
    await expect(kept?.raw('select 1')).rejects.toThrow(/already complete/);
    expect(kept?.isCompleted()).toBe(true);
    await pgTransaction(db, (tx) => { kept = tx; return Promise.reject(new Error('no')); }).catch(() => undefined);
    await expect(kept?.('parent').insert({ id: 'late2' })).rejects.toThrow(/already complete/);
    expect(await ids()).toEqual(['p1']);
    expect(used()).toBe(0);
  });

  it('undoes only a failed savepoint, nested ones too, and the transaction goes on', async () => {
    await transaction(db, async (tx) => {
      await tx('parent').insert({ id: 'p1' });
      await expect(inSavepoint(tx, async (sp) => {
        await sp('parent').insert({ id: 'gone' });
        throw new Error('savepoint refused');
      })).rejects.toThrow('savepoint refused');
      await inSavepoint(tx, async (sp) => {
        await sp('parent').insert({ id: 'p2' });
        await expect(inSavepoint(sp, async (inner) => { await inner('parent').insert({ id: 'p2' }); })).rejects.toThrow(/duplicate key/);
        await sp('parent').insert({ id: 'p3' });
      });
      // A savepoint that has ended refuses statements, its transaction does not.
      let ended: Knex.Transaction | undefined;
      await inSavepoint(tx, (sp) => { ended = sp; return Promise.resolve(); });
      await expect(ended?.raw('select 1')).rejects.toThrow(/already complete/);
      await tx('parent').insert({ id: 'p4' });
    });
    expect(await ids()).toEqual(['p1', 'p2', 'p3', 'p4']);
    expect(used()).toBe(0);
  });

  it('runs savepoints asked for at once one after another: one\'s rollback never undoes the other\'s work', async () => {
    const settled = await transaction(db, async (tx) => Promise.allSettled([
      inSavepoint(tx, async (sp) => {
        await sp('parent').insert({ id: 'A' });
        await new Promise((resolve) => setTimeout(resolve, 50));
        throw new Error('A refused');
      }),
      inSavepoint(tx, async (sp) => {
        await new Promise((resolve) => setTimeout(resolve, 10));
        await sp('parent').insert({ id: 'B' });
      }),
    ]));
    expect(settled.map((s) => s.status)).toEqual(['rejected', 'fulfilled']);
    expect(await ids()).toEqual(['B']);
    expect(used()).toBe(0);
  });

  it('takes no event listener of its own (it would stay on the database after the transaction)', async () => {
    const before = db.listenerCount('query');
    await expect(pgTransaction(db, (tx) => { tx.on('query', () => undefined); return Promise.resolve(); })).rejects.toThrow(/no event listeners/);
    expect(db.listenerCount('query')).toBe(before);
  });

  it('tells Knex\'s query listeners of the pool about its statements, BEGIN and COMMIT among them', async () => {
    const seen: string[] = [];
    const listen = (query: { sql: string }): void => { seen.push(query.sql); };
    db.on('query', listen);
    try {
      await pgTransaction(db, async (tx) => { await tx('parent').where({ id: 'x' }).first(); });
    } finally {
      db.off('query', listen);
    }
    expect(seen.map((sql) => sql.split(/[ ;]/)[0]?.toLowerCase())).toEqual(['begin', 'select', 'commit']);
  });
});
