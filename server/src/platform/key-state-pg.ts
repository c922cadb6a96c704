// API-key states kept in memory on PostgreSQL, with a revocation still immediate on every instance: each
// instance holds a lease and listens for changes; a change is published in its own transaction, and the
// request that made it answers only when every instance holding a lease has forgotten the old state, or has
// lost its lease (and with it the right to use what it kept).
//
// - Listening: one connection of its own per instance runs LISTEN, renews the lease every RENEW_MS (until
//   now + LEASE_MS, by the database's clock), and acknowledges. The instance uses its states only while that
//   connection is up and less than LEASE_MS - MARGIN_MS has passed (its own monotonic clock) since the last
//   renewal it sent: past that, the database may count the lease as expired.
// - Publishing: `pg_notify` in the changing transaction (delivered at commit, in commit order). After the
//   commit, the publisher takes a sync number and notifies it: an instance that sees the sync has handled
//   every notification committed before it, and records the number. The publisher waits until no unexpired
//   lease has a smaller one. A dead instance stops renewing, so the wait ends within LEASE_MS.
import { randomUUID } from 'node:crypto';
import type { Knex } from 'knex';
import type { KeyStateChange } from './key-state.ts';
import type { Logger } from './log.ts';
import { countBehind, dropLease, listen, nextSync, notify, notifyNow, poolClient, recordSynced, renewLease, takeLease, type PgClient } from '../repositories/key-state.ts';

export { channelOf } from '../repositories/key-state.ts';

/** A lease's length (database time). */
export const LEASE_MS = 3000;
/** How often the lease is renewed. */
export const RENEW_MS = 1000;
/** How much sooner than the database an instance counts its own lease as gone. */
export const MARGIN_MS = 500;
/** The longest a publisher waits for the instances (a lease ends sooner: past this, something is broken). */
const SYNC_LIMIT_MS = 2 * LEASE_MS + 1000;

/** The part of a pg client used here: the listener's own connection. */
interface Connection extends PgClient {
  on: (event: string, listener: (message: { channel?: string; payload?: string }) => void) => unknown;
  removeAllListeners: () => unknown;
}

interface RawConnections {
  acquireRawConnection: () => Promise<Connection>;
  destroyRawConnection: (connection: Connection) => Promise<void>;
}

type Message = { change: KeyStateChange } | { sync: string };

/**
 * The listener's connection as a client whose statements run one after another: a renewal, an acknowledgement
 * and a publisher's wait may overlap, and pg has deprecated queueing a statement on a busy client.
 */
function inTurn(connection: PgClient): PgClient {
  let last: Promise<unknown> = Promise.resolve();
  return {
    query: (sql, values) => {
      const next = last.then(() => connection.query(sql, values));
      last = next.catch(() => undefined);
      return next;
    },
  };
}

/** One instance's listening connection and lease. */
export class KeyStateListener {
  private readonly id = randomUUID();
  private connection: Connection | undefined;
  /** The connection's statements, one at a time (set and cleared with it). */
  private client: PgClient | undefined;
  private validUntil = 0;
  private timer: NodeJS.Timeout | undefined;
  private stopped = false;
  /** A renewal (or reconnection) under way: the next tick skips rather than start a second one. */
  private renewing = false;

  constructor(
    private readonly db: Knex,
    private readonly channel: string,
    private readonly log: Logger,
    /** Forgets states: called for each change, and with null when notifications may have been missed. */
    private readonly forget: (change: KeyStateChange | null) => void,
  ) {}

  /**
   * The connection a publisher waits for the instances on: the listener's own while it has one. The pool would
   * put the wait behind every request queued for a connection (a reset under load answered ~11 s late so).
   */
  syncConnection(): PgClient {
    return this.client ?? poolClient(this.db);
  }

  /** True while the kept states may be used. */
  usable(): boolean {
    return this.connection !== undefined && performance.now() < this.validUntil;
  }

  /** Connects, listens and takes the lease; tries again every RENEW_MS while the database is unreachable. */
  async start(): Promise<void> {
    await this.connect().catch((error: unknown) => { this.lost(error); });
    this.timer = setInterval(() => { void this.renew(); }, RENEW_MS);
    this.timer.unref();
  }

  /** Stops listening and gives the lease up (the publishers stop waiting for it at once). */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearInterval(this.timer);
    const connection = this.connection;
    const client = this.client;
    this.connection = undefined;
    this.client = undefined;
    if (!connection || !client) return;
    await dropLease(client, this.id).catch(() => undefined);
    connection.removeAllListeners();
    await (this.db.client as RawConnections).destroyRawConnection(connection).catch(() => undefined);
  }

  private async connect(): Promise<void> {
    const connection = await (this.db.client as RawConnections).acquireRawConnection();
    connection.on('error', (error) => { if (this.connection === connection) this.lost(error); });
    connection.on('end', () => { if (this.connection === connection) this.lost(new Error('the listening connection ended')); });
    const client = inTurn(connection);
    connection.on('notification', (message) => { if (message.channel === this.channel) this.handle(client, message.payload ?? ''); });
    await listen(client, this.channel);
    // Whatever changed while this instance was not listening is unknown: start from nothing. That also
    // answers every sync number taken so far (its change committed before it was taken, so before now), and
    // any number taken from here on is notified to this connection.
    this.forget(null);
    this.connection = connection;
    this.client = client;
    await this.lease(client, takeLease);
    if (this.stopped) await this.stop();
  }

  private async lease(client: PgClient, write: typeof takeLease): Promise<void> {
    const sent = performance.now();
    await write(client, this.id, LEASE_MS);
    if (this.client === client) this.validUntil = sent + LEASE_MS - MARGIN_MS;
  }

  private async renew(): Promise<void> {
    if (this.stopped || this.renewing) return;
    this.renewing = true;
    const client = this.client;
    try {
      if (!client) await this.connect();
      else await this.lease(client, renewLease);
    } catch (error) {
      this.lost(error);
    } finally {
      this.renewing = false;
    }
  }

  private handle(client: PgClient, payload: string): void {
    let message: Message;
    try {
      message = JSON.parse(payload) as Message;
    } catch {
      return;
    }
    if ('change' in message) {
      this.forget(message.change);
      return;
    }
    // Every change committed before the sync has been handled above (notifications come in commit order).
    recordSynced(client, this.id, message.sync)
      .catch((error: unknown) => { this.lost(error); });
  }

  private lost(error: unknown): void {
    const connection = this.connection;
    this.connection = undefined;
    this.client = undefined;
    this.validUntil = 0;
    this.forget(null);
    if (this.stopped) return;
    this.log.warn({ err: error }, 'API-key states: the listening connection failed; reading them from the database until it is back');
    if (connection) {
      connection.removeAllListeners();
      // A connection that failed may still be open: close it, so that it holds no lease renewal.
      void (this.db.client as RawConnections).destroyRawConnection(connection).catch(() => undefined);
    }
  }
}

/** Publishes a change in the transaction `db` (its notification is delivered when it commits). */
export async function publishChange(db: Knex, change: KeyStateChange): Promise<void> {
  await notify(db, { change });
}

/** After a change committed: returns once every instance with a lease has forgotten what the change made stale. */
export async function awaitInstances(connection: PgClient): Promise<void> {
  const seq = await nextSync(connection);
  // Taken after the commit, notified after it: an instance that sees it has seen the change.
  await notifyNow(connection, { sync: seq });
  const started = Date.now();
  for (let pause = 1; ; pause = Math.min(pause * 2, 25)) {
    if ((await countBehind(connection, seq)) === 0) return;
    if (Date.now() - started > SYNC_LIMIT_MS) throw new Error(`API-key states: instances did not confirm change ${seq} within ${String(SYNC_LIMIT_MS)} ms`);
    await new Promise((resolve) => setTimeout(resolve, pause));
  }
}
