// The authentication's per-request read (an API key, its merchant's sandbox clock offset) kept in memory,
// forgotten the moment a repository changes either: one query fewer per request.
// On SQLite the server is the database's only writer (one process, one connection: running several
// instances is what PostgreSQL is for), so a change this process does not see cannot happen. On PostgreSQL
// another instance may revoke a key: every instance listens for changes under a lease, and the request that
// changes a state answers only once every instance has forgotten it (key-state-pg.ts).
import type { Knex } from 'knex';
import { clientConfigOf, isPostgres } from '../db/knex.ts';
import { awaitInstances, publishChange } from './key-state-pg.ts';
import { afterCommit } from './transaction.ts';

/** What a repository changed: a key (revoked), or a merchant (its sandbox clock moved). */
export type KeyStateChange = { clientId: string } | { merchantId: string };

type Listener = (change: KeyStateChange) => void;

/** Listeners by the database's client configuration (a transaction's is its database's). */
const listeners = new WeakMap<object, Set<Listener>>();

function listenersOf(db: Knex): Set<Listener> | undefined {
  return listeners.get(clientConfigOf(db));
}

/**
 * Called by a repository with the handle it wrote through (in or out of a transaction). This process forgets
 * at once; on PostgreSQL the change is published with the transaction, and once it commits, the request waits
 * for every other instance to have forgotten it too.
 */
export async function keyStateChanged(db: Knex, change: KeyStateChange): Promise<void> {
  for (const listener of listenersOf(db) ?? []) listener(change);
  if (!isPostgres(db)) return;
  await publishChange(db, change);
  await afterCommit(db, awaitInstances);
}

/** Entries kept at most (the oldest is dropped first). */
const MAX_ENTRIES = 10_000;

export class KeyStateCache<State extends { merchantId: string | null }> {
  private readonly entries = new Map<string, State>();
  /** Counts changes: a state read before a change is not kept after it (the read may predate it). */
  private changes = 0;

  /** `usable`: whether kept states may be used now (on PostgreSQL: while the instance listens under a lease). */
  constructor(db: Knex, private readonly usable: () => boolean = () => true) {
    let set = listeners.get(clientConfigOf(db));
    if (!set) {
      set = new Set();
      listeners.set(clientConfigOf(db), set);
    }
    set.add((change) => { this.forget(change); });
  }

  /** Forgets what `change` makes stale; null forgets everything. Forgetting is always safe: the next request reads again. */
  forget(change: KeyStateChange | null): void {
    this.changes += 1;
    if (change === null) this.entries.clear();
    else if ('clientId' in change) this.entries.delete(change.clientId);
    else for (const [clientId, state] of this.entries) if (state.merchantId === change.merchantId) this.entries.delete(clientId);
  }

  get(clientId: string): State | undefined {
    return this.usable() ? this.entries.get(clientId) : undefined;
  }

  /** A mark to take before reading the state from the database, for `set`. */
  mark(): number {
    return this.changes;
  }

  /** Keeps a state read after `mark`, unless a change came in between. */
  set(clientId: string, state: State, mark: number): void {
    if (mark !== this.changes || !this.usable()) return;
    if (this.entries.size >= MAX_ENTRIES) {
      const oldest = this.entries.keys().next().value;
      if (oldest !== undefined) this.entries.delete(oldest);
    }
    this.entries.set(clientId, state);
  }
}
