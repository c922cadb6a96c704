// Statements run straight on SQLite's connection (sqlite-direct.ts): the answers Knex's raw gives, bindings bound
// as its dialect binds them, the pool's connection given back, a transaction's own connection used, and Knex's
// query event still emitted.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDatabase, type Database } from './knex.ts';
import { runOnConnection } from './sqlite-direct.ts';
import { transaction } from '../platform/transaction.ts';

describe('statements run on the SQLite connection', () => {
  let db: Database;
  beforeAll(async () => {
    db = createDatabase('sqlite::memory:');
    await db.schema.createTable('t', (t) => { t.string('id').primary(); t.integer('n'); t.boolean('b'); t.bigInteger('at'); });
  });
  afterAll(async () => { await db.destroy(); });

  it('answers rows for a read and changes for a write, binding booleans, dates and undefined as Knex does', async () => {
    const at = new Date('2026-01-02T03:04:05.000Z');
    expect(await runOnConnection(db, 'insert into `t` (`id`, `n`, `b`, `at`) values (?, ?, ?, ?)', ['a', 1, true, at])).toMatchObject({ changes: 1 });
    await runOnConnection(db, 'insert into `t` (`id`, `n`, `b`, `at`) values (?, ?, ?, ?)', ['b', undefined, false, null]);
    expect(await runOnConnection(db, 'select `id`, `n`, `b`, `at` from `t` order by `id`', [])).toEqual([{ id: 'a', n: 1, b: 1, at: at.valueOf() }, { id: 'b', n: null, b: 0, at: null }]);
    expect(await runOnConnection(db, 'select `id`, `n`, `b`, `at` from `t` order by `id`', [])).toEqual(await db.raw('select `id`, `n`, `b`, `at` from `t` order by `id`'));
  });

  it('gives the pool its connection back (the next Knex query runs), and runs in a transaction on its connection', async () => {
    for (let i = 0; i < 5; i++) await runOnConnection(db, 'select 1 as one', []);
    expect(await db('t').count({ n: '*' }).first()).toEqual({ n: 2 });
    await expect(transaction(db, async (tx) => {
      await runOnConnection(tx, 'insert into `t` (`id`) values (?)', ['in-tx']);
      expect(await tx('t').where({ id: 'in-tx' }).first('id')).toEqual({ id: 'in-tx' });
      throw new Error('rolled back');
    })).rejects.toThrow('rolled back');
    expect(await db('t').where({ id: 'in-tx' }).first()).toBeUndefined();
  });

  it('emits Knex\'s query event with the statement, and throws SQLite\'s error with its code', async () => {
    const seen: string[] = [];
    const listen = (q: { sql: string }): void => { seen.push(q.sql); };
    db.on('query', listen);
    try {
      await transaction(db, (tx) => runOnConnection(tx, 'select `id` from `t` where `id` = ?', ['a']));
    } finally {
      db.off('query', listen);
    }
    expect(seen).toContain('select `id` from `t` where `id` = ?');
    await expect(runOnConnection(db, 'insert into `t` (`id`) values (?)', ['a'])).rejects.toMatchObject({ code: 'SQLITE_CONSTRAINT_PRIMARYKEY' });
  });
});
