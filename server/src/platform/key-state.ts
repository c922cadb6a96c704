// The authentication's per-request read (an API key, its merchant's sandbox clock offset) kept in memory,
// forgotten when a service announces a change of either: one query fewer per request.
// On SQLite the server is the database's only writer (one process, one connection: running several
// instances is what PostgreSQL is for), so a change this process does not see cannot happen. On PostgreSQL
// another instance may revoke a key: every instance listens for changes under a lease, and the request that
// changes a state answers only once every instance has forgotten it (key-state-pg.ts).
import type { Knex } from 'knex';
import { isPostgres } from '../db/knex.ts';
import type { Logger } from './log.ts';
import { awaitInstances, channelOf, KeyStateListener, publishChange } from './key-state-pg.ts';
import { afterCommit } from './transaction.ts';

/** What a service changed: a key (revoked), or a merchant (its sandbox clock moved, its deletion began). */
export type KeyStateChange = { clientId: string } | { merchantId: string };

/** The state of one authenticated key kept between requests: who calls, and its merchant's sandbox clock offset. */
export interface KeyState {
  readonly clientId: string;
  readonly partnerId: string;
  /** The merchant of a merchant's key; null for a partner's own key. */
  readonly merchantId: string | null;
  readonly keyName: string;
  readonly offsetMs: number;
  /**
   * When the key's merchant expires, if it is a sandbox merchant (ms, wall clock): its tokens are refused from
   * then on, a kept state too, without waiting for the sweep that deletes it. Null: it does not expire.
   */
  readonly expiresAtMs: number | null;
}

/** Entries kept at most (the oldest is dropped first). */
const MAX_ENTRIES = 10_000;

export class KeyStateCache<State extends { merchantId: string | null }> {
  private readonly entries = new Map<string, State>();
  /** Counts changes: a state read before a change is not kept after it (the read may predate it). */
  private changes = 0;

  /** `usable`: whether kept states may be used now (on PostgreSQL: while the instance listens under a lease). */
  constructor(private readonly usable: () => boolean = () => true) {}

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

/**
 * This process's kept states and how a change of one is announced: made once at start (on PostgreSQL with its
 * listener, which `stop` ends), shared by the app and the worker.
 */
export class KeyStates<State extends { merchantId: string | null }> {
  private constructor(readonly cache: KeyStateCache<State>, private readonly listener: KeyStateListener | undefined) {}

  /** The states of one database: on PostgreSQL, used while this instance listens for changes under a lease. */
  static async start<State extends { merchantId: string | null }>(db: Knex, log: Logger): Promise<KeyStates<State>> {
    if (!isPostgres(db)) return new KeyStates<State>(new KeyStateCache<State>(), undefined);
    const cache: KeyStateCache<State> = new KeyStateCache<State>(() => listener.usable());
    const listener = new KeyStateListener(db, await channelOf(db), log, (change) => { cache.forget(change); });
    await listener.start();
    return new KeyStates(cache, listener);
  }

  /**
   * Announces a change the caller made in `tx`: on PostgreSQL it is published with the transaction (delivered
   * when it commits, in commit order, to every instance). Once it has committed, this process forgets, and on
   * PostgreSQL the caller waits until every other instance has too: the request that revoked a key answers
   * only when no instance still honours it. A rolled-back change announces nothing.
   */
  async changed(tx: Knex, change: KeyStateChange): Promise<void> {
    if (isPostgres(tx)) await publishChange(tx, change);
    await afterCommit(tx, async () => {
      this.cache.forget(change);
      if (this.listener) await awaitInstances(this.listener.syncConnection());
    });
  }

  /** Stops listening (before the database closes). */
  async stop(): Promise<void> {
    await this.listener?.stop();
  }
}
