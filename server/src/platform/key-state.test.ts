// The kept API-key states: forgotten when a service announces a change, by key or by merchant, only once the
// change's transaction commits (never after a rollback), and never kept when the change came after the read.
import { afterAll, describe, expect, it } from 'vitest';
import { createDatabase } from '../db/knex.ts';
import { createLogger } from './log.ts';
import { KeyStateCache, KeyStates } from './key-state.ts';
import { transaction } from './transaction.ts';

const db = createDatabase('sqlite::memory:');
afterAll(async () => { await db.destroy(); });

type State = { clientId: string; merchantId: string | null };
const state = (clientId: string, merchantId: string | null): State => ({ clientId, merchantId });
const started = (): Promise<KeyStates<State>> => KeyStates.start<State>(db, createLogger('silent'));

describe('KeyStates', () => {
  it('forgets a key announced in a transaction once it commits, and only that key', async () => {
    const states = await started();
    states.cache.set('a', state('a', 'm1'), states.cache.mark());
    states.cache.set('b', state('b', 'm1'), states.cache.mark());
    await transaction(db, async (tx) => {
      await states.changed(tx, { clientId: 'a' });
      // Not before the commit: a request answered from the kept state meanwhile ran before the change.
      expect(states.cache.get('a')).toEqual(state('a', 'm1'));
    });
    expect(states.cache.get('a')).toBeUndefined();
    expect(states.cache.get('b')).toEqual(state('b', 'm1'));
  });

  it('forgets nothing when the transaction rolls back', async () => {
    const states = await started();
    states.cache.set('a', state('a', 'm1'), states.cache.mark());
    await expect(transaction(db, async (tx) => {
      await states.changed(tx, { clientId: 'a' });
      throw new Error('rolled back');
    })).rejects.toThrow('rolled back');
    expect(states.cache.get('a')).toEqual(state('a', 'm1'));
  });

  it("forgets every key of a merchant whose clock moved, and nobody else's", async () => {
    const states = await started();
    states.cache.set('a', state('a', 'm1'), states.cache.mark());
    states.cache.set('b', state('b', 'm2'), states.cache.mark());
    states.cache.set('p', state('p', null), states.cache.mark());
    await states.changed(db, { merchantId: 'm1' });
    expect([states.cache.get('a'), states.cache.get('b'), states.cache.get('p')]).toEqual([undefined, state('b', 'm2'), state('p', null)]);
  });

  it('does not keep a state read before a change (the read may predate it)', async () => {
    const states = await started();
    const mark = states.cache.mark();
    await states.changed(db, { clientId: 'a' });
    states.cache.set('a', state('a', 'm1'), mark);
    expect(states.cache.get('a')).toBeUndefined();
  });

  it("hears nothing of another server's announcements (each server its own instances)", async () => {
    const [one, other] = [await started(), await started()];
    one.cache.set('a', state('a', 'm1'), one.cache.mark());
    await other.changed(db, { clientId: 'a' });
    expect(one.cache.get('a')).toEqual(state('a', 'm1'));
  });
});

describe('KeyStateCache', () => {
  it('neither gives nor keeps states while it may not use them (on PostgreSQL: no lease), and forgets all on null', () => {
    let usable = true;
    const cache = new KeyStateCache<State>(() => usable);
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
