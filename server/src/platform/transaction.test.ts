// The transaction helper on SQLite: concurrent transactions share a commit, each in its own savepoint, and
// every caller is answered only once its work is committed.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDatabase, type Database } from '../db/knex.ts';
import { afterCommit, GROUP_LIMIT, inSavepoint, transaction, withTransaction } from './transaction.ts';

const dir = mkdtempSync(path.join(tmpdir(), 'pgw-tx-'));
const file = path.join(dir, 'db.sqlite');
let db: Database;
/** A second connection to the same file: it sees only what is committed. */
let other: Database;
const statements: string[] = [];

beforeAll(async () => {
  db = createDatabase(`sqlite:${file}`);
  await db.schema.createTable('parent', (t) => { t.integer('id').primary(); });
  await db.schema.createTable('item', (t) => { t.string('id').primary(); t.integer('parent_id').references('parent.id'); });
  await db('parent').insert({ id: 1 });
  other = createDatabase(`sqlite:${file}`);
  db.on('query', (q: { sql: string }) => { statements.push(q.sql.toLowerCase()); });
});
afterAll(async () => {
  await db.destroy();
  await other.destroy();
  rmSync(dir, { recursive: true, force: true });
});

const commits = (): number => statements.filter((sql) => sql.startsWith('commit')).length;
const committed = async (id: string): Promise<boolean> => (await other('item').where({ id }).first()) !== undefined;

describe('transaction on SQLite', () => {
  it('lets concurrent callers share a commit, each answered with its own result after the commit', async () => {
    statements.length = 0;
    const ids = Array.from({ length: 20 }, (_, i) => `share-${String(i)}`);
    const seen: boolean[] = [];
    await Promise.all(ids.map(async (id) => {
      const result = await transaction(db, async (tx) => {
        await tx('item').insert({ id, parent_id: 1 });
        return id.toUpperCase();
      });
      expect(result).toBe(id.toUpperCase());
      seen.push(await committed(id));
    }));
    expect(seen).toEqual(ids.map(() => true));
    expect(commits()).toBeGreaterThanOrEqual(1);
    expect(commits()).toBeLessThan(ids.length);
  });

  it('rolls back only the failing caller\'s work, which alone is refused', async () => {
    const results = await Promise.allSettled(['ok-1', 'bad', 'ok-2'].map((id) => transaction(db, async (tx) => {
      await tx('item').insert({ id, parent_id: 1 });
      if (id === 'bad') throw new Error('refused');
      return id;
    })));
    expect(results.map((r) => r.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    expect([await committed('ok-1'), await committed('bad'), await committed('ok-2')]).toEqual([true, false, true]);
  });

  it('runs the after-commit work of the callers that succeeded only, and a savepoint inside a caller fails alone', async () => {
    const ran: string[] = [];
    const results = await Promise.allSettled(['member-1', 'member-bad', 'member-2'].map((id) => transaction(db, async (tx) => {
      await tx('item').insert({ id, parent_id: 1 });
      await afterCommit(tx, () => { ran.push(id); return Promise.resolve(); });
      // A batch refused inside the caller: undone alone, the caller goes on.
      await inSavepoint(tx, async (savepoint) => {
        await savepoint('item').insert({ id: `${id}-inner`, parent_id: 1 });
        throw new Error('inner refused');
      }).catch(() => undefined);
      if (id === 'member-bad') throw new Error('refused');
      return id;
    })));
    expect(results.map((r) => r.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    expect(ran.sort()).toEqual(['member-1', 'member-2']);
    expect(await Promise.all(['member-1', 'member-bad', 'member-2', 'member-1-inner', 'member-2-inner'].map(committed))).toEqual([true, false, true, false, false]);
  });

  it(`serves at most ${String(GROUP_LIMIT)} callers a commit`, async () => {
    statements.length = 0;
    const count = GROUP_LIMIT * 3;
    await Promise.all(Array.from({ length: count }, (_, i) => transaction(db, (tx) => tx('item').insert({ id: `limit-${String(i)}`, parent_id: 1 }))));
    expect(commits()).toBeGreaterThanOrEqual(3);
    expect(Number((await other('item').where('id', 'like', 'limit-%').count({ n: '*' }).first())?.n)).toBe(count);
  });

  it('refuses every caller of a group that cannot begin (no connection), none left waiting', async () => {
    const closed = createDatabase(`sqlite:${file}`);
    await closed.destroy();
    const results = await Promise.allSettled(['x', 'y', 'z'].map((id) => transaction(closed, (tx) => tx('item').insert({ id, parent_id: 1 }))));
    expect(results.map((r) => r.status)).toEqual(['rejected', 'rejected', 'rejected']);
  });

  it('runs after-commit work once the commit is done, and joins a caller\'s transaction rather than nesting', async () => {
    const visible: boolean[] = [];
    await transaction(db, async (tx) => {
      await withTransaction(tx, async (joined) => {
        expect(joined).toBe(tx);
        await tx('item').insert({ id: 'after', parent_id: 1 });
      });
      await afterCommit(tx, async () => { visible.push(await committed('after')); });
      expect(visible).toEqual([]);
    });
    expect(visible).toEqual([true]);
  });
  it('refuses every caller of a group whose commit fails, and keeps nothing of it', async () => {
    const results = await Promise.allSettled(['late-1', 'late-2', 'late-3'].map((id, i) => transaction(db, async (tx) => {
      // The first defers its foreign key check to the commit, which then fails for the whole group.
      if (i === 0) await tx.raw('pragma defer_foreign_keys = on');
      await tx('item').insert({ id, parent_id: i === 0 ? 99 : 1 });
      return id;
    })));
    expect(results.map((r) => r.status)).toEqual(['rejected', 'rejected', 'rejected']);
    // SQLite leaves the transaction open after a deferred constraint fails its COMMIT (the server defers none;
    // this is the test's way to make a commit fail): end it as the next statement.
    await db.raw('rollback');
    expect(await other('item').whereIn('id', ['late-1', 'late-2', 'late-3'])).toEqual([]);
    expect(await transaction(db, async (tx) => { await tx('item').insert({ id: 'late-ok', parent_id: 1 }); return 'ok'; })).toBe('ok');
  });

});
