// The authentication's per-request read (an API key, its merchant's sandbox clock offset) kept in memory on
// embedded SQLite, forgotten the moment a repository changes either: one query fewer per request.
// On SQLite the server is the database's only writer (one process, one connection: running several
// instances is what PostgreSQL is for), so a change this process does not see cannot happen. On PostgreSQL
// another instance may revoke a key, so the state is read on every request there (immediate revocation).
import type { Knex } from 'knex';

/** What a repository changed: a key (revoked), or a merchant (its sandbox clock moved). */
export type KeyStateChange = { clientId: string } | { merchantId: string };

type Listener = (change: KeyStateChange) => void;

/**
 * Listeners by the database's client configuration: a transaction gets a client of its own, but Knex gives it
 * the pool client's configuration object itself, so both find the same listeners.
 */
const listeners = new WeakMap<object, Set<Listener>>();
const keyOf = (db: Knex): object => (db.client as { config: object }).config;

function listenersOf(db: Knex): Set<Listener> | undefined {
  return listeners.get(keyOf(db));
}

/** Called by a repository with the handle it wrote through (in or out of a transaction). */
export function keyStateChanged(db: Knex, change: KeyStateChange): void {
  for (const listener of listenersOf(db) ?? []) listener(change);
}

/** Entries kept at most (the oldest is dropped first). */
const MAX_ENTRIES = 10_000;

export class KeyStateCache<State extends { merchantId: string | null }> {
  private readonly entries = new Map<string, State>();
  /** Counts changes: a state read before a change is not kept after it (the read may predate it). */
  private changes = 0;

  constructor(db: Knex) {
    let set = listeners.get(keyOf(db));
    if (!set) {
      set = new Set();
      listeners.set(keyOf(db), set);
    }
    set.add((change) => {
      this.changes += 1;
      // Forgetting is always safe: the next request reads the state again.
      if ('clientId' in change) this.entries.delete(change.clientId);
      else for (const [clientId, state] of this.entries) if (state.merchantId === change.merchantId) this.entries.delete(clientId);
    });
  }

  get(clientId: string): State | undefined {
    return this.entries.get(clientId);
  }

  /** A mark to take before reading the state from the database, for `set`. */
  mark(): number {
    return this.changes;
  }

  /** Keeps a state read after `mark`, unless a change came in between. */
  set(clientId: string, state: State, mark: number): void {
    if (mark !== this.changes) return;
    if (this.entries.size >= MAX_ENTRIES) {
      const oldest = this.entries.keys().next().value;
      if (oldest !== undefined) this.entries.delete(oldest);
    }
    this.entries.set(clientId, state);
  }
}
