// The one dependency shape of every service: the database (the pool, or the transaction the service runs
// in), the log, the configuration, the two clocks, what the server keeps from start to stop (instances) and
// (optionally) the resolver of outbound host names. The request context satisfies it, and so does the
// worker's context for one merchant.
import type { Knex } from 'knex';
import type { ServerConfig } from '../config.ts';
import type { Instances } from '../instances.ts';
import type { Logger } from './log.ts';
import type { HostResolver } from './outbound-http.ts';
import type { Clock } from './time.ts';

export interface Deps {
  /** The pool, or the transaction this work runs in (an idempotent request's, or the worker's). */
  readonly db: Knex;
  readonly log: Logger;
  readonly config: ServerConfig;
  /** The business clock of the merchant acted on: its sandbox time (real time in production). */
  readonly clock: Clock;
  /** Real time: tokens, idempotency expiry, leases. */
  readonly wall: Clock;
  /** What the server keeps from start to stop: caches, the notifier, the open streams, the kept key states. */
  readonly instances: Instances;
  /** How webhook hosts are resolved (the system resolver when absent; tests give their own answers). */
  readonly resolveHost?: HostResolver;
}
