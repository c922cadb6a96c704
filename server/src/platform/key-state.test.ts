// The kept API-key states: forgotten when a repository reports a change through any handle of the database
// (the pool or a transaction), by key or by merchant, and never kept when the change came after the read.
import { afterAll, describe, expect, it } from 'vitest';
import { createDatabase } from '../db/knex.ts';
import { KeyStateCache, keyStateChanged } from './key-state.ts';

const db = createDatabase('sqlite::memory:');
const other = createDatabase('sqlite::memory:');
afterAll(async () => { await db.destroy(); await other.destroy(); });

const state = (clientId: string, merchantId: string | null) => ({ clientId, merchantId });

describe('KeyStateCache', () => {
  it('forgets a key changed through a transaction of the same database, and only that key', async () => {
    const cache = new KeyStateCache<{ clientId: string; merchantId: string | null }>(db);
    cache.set('a', state('a', 'm1'), cache.mark());
    cache.set('b', state('b', 'm1'), cache.mark());
    await db.transaction((tx) => keyStateChanged(tx, { clientId: 'a' }));
    expect(cache.get('a')).toBeUndefined();
    expect(cache.get('b')).toEqual(state('b', 'm1'));
  });

  it("forgets every key of a merchant whose clock moved, and nobody else's", async () => {
    const cache = new KeyStateCache<{ clientId: string; merchantId: string | null }>(db);
    cache.set('a', state('a', 'm1'), cache.mark());
    cache.set('b', state('b', 'm2'), cache.mark());
    cache.set('p', state('p', null), cache.mark());
    await keyStateChanged(db, { merchantId: 'm1' });
    expect([cache.get('a'), cache.get('b'), cache.get('p')]).toEqual([undefined, state('b', 'm2'), state('p', null)]);
  });

  it('does not keep a state read before a change (the read may predate it)', async () => {
    const cache = new KeyStateCache<{ clientId: string; merchantId: string | null }>(db);
    const mark = cache.mark();
    await keyStateChanged(db, { clientId: 'a' });
    cache.set('a', state('a', 'm1'), mark);
    expect(cache.get('a')).toBeUndefined();
  });

  it('hears nothing of another database', async () => {
    const cache = new KeyStateCache<{ clientId: string; merchantId: string | null }>(db);
    cache.set('a', state('a', 'm1'), cache.mark());
    await keyStateChanged(other, { clientId: 'a' });
    expect(cache.get('a')).toEqual(state('a', 'm1'));
  });

  it('neither gives nor keeps states while it may not use them (on PostgreSQL: no lease), and forgets all on null', () => {
    let usable = true;
    const cache = new KeyStateCache<{ clientId: string; merchantId: string | null }>(db, () => usable);
    cache.set('a', state('a', 'm1'), cache.mark());
    usable = false;
    expect(cache.get('a')).toBeUndefined();
    cache.set('b', state('b', 'm1'), cache.mark());
    usable = true;
    expect(cache.get('b')).toBeUndefined();
    expect(cache.get('a')).toEqual(state('a', 'm1'));
    cache.forget(null);
    expect(cache.get('a')).toBeUndefined();
  });
});
