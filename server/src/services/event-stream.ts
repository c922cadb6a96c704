// The sandbox event stream: a merchant's outbox events (or those of all a partner's merchants) as they are committed, polled from the database (so
// any instance serves any client, and an event recorded by another instance arrives too), oldest first, each
// once, from now or after a given event (Last-Event-ID).
import { setTimeout as sleep } from 'node:timers/promises';
import { webhookEvents } from '@pgw/client/webhooks';
import { invalid } from '../platform/errors.ts';
import type { StoredEvent } from '../platform/outbox.ts';
import { eventsAfter, positionOf, streamStart, type StreamCursor, type StreamOwner, type StreamStart } from '../repositories/event-stream.ts';
import type { Deps } from '../platform/deps.ts';

export type { StreamOwner } from '../repositories/event-stream.ts';

/** What the stream reads with: the pool only (a stream holds no transaction). */
type Reader = Pick<Deps, 'db'>;

/** Events read a query; a full batch is followed at once by the next. */
const BATCH = 200;
/** Polling: soon after an event (more tend to follow), backing off to one indexed query a second when idle. */
const MIN_WAIT_MS = 100;
const MAX_WAIT_MS = 1000;
/** How long an opening waits for the newest event it saw to settle, and how often it asks. */
const START_SETTLE_MS = 2000;
const START_RETRY_MS = 20;
/** A comment line this often when nothing was sent, so proxies and load balancers keep the connection. */
export const HEARTBEAT_MS = 15_000;

/**
 * `start` comes first: the event the stream starts after (undefined when it starts at the merchant's very
 * first event), so that a client that drops before any event arrives can still resume without a gap.
 */
export type StreamItem = { kind: 'start'; afterId: string | undefined } | { kind: 'event'; event: StoredEvent } | { kind: 'heartbeat' };

export interface StreamOptions {
  /** The comma-separated `types` filter, as given. */
  types: string | undefined;
  lastEventId: string | undefined;
  /** Aborts when the client disconnects (or the server stops): the polling ends with it. */
  signal: AbortSignal;
}

const known = new Set<string>(webhookEvents.map((e) => e.name));

function typesOf(filter: string | undefined): string[] {
  if (filter === undefined) return [];
  const types = [...new Set(filter.split(',').map((t) => t.trim()))];
  const unknown = types.filter((t) => !known.has(t));
  if (unknown.length > 0) throw invalid('types', `unknown event type${unknown.length > 1 ? 's' : ''}: ${unknown.join(', ')} (GET /v2/webhooks/event-types lists them)`);
  return types;
}

/** Validates the request (400 before anything is sent) and returns the stream of the owner's events. */
export async function openEventStream(deps: Reader, owner: StreamOwner, options: StreamOptions): Promise<AsyncIterable<StreamItem>> {
  const types = typesOf(options.types);
  let start: { cursor: StreamCursor; afterId: string | undefined };
  if (options.lastEventId === undefined) {
    start = await settledStart(deps, owner, options.signal);
  } else {
    // Another merchant's (another partner's) event is unknown here, as it is everywhere else.
    const found = await positionOf(deps.db, owner, options.lastEventId);
    if (!found) throw invalid('Last-Event-ID', 'merchantId' in owner ? 'names no event of this merchant' : "names no event of this partner's merchants");
    start = { cursor: found, afterId: options.lastEventId };
  }
  return poll(deps, owner, start, types, options.signal);
}

/**
 * The stream's start, asked again for a moment while the newest event the opening saw is not yet settled
 * (PostgreSQL: an older transaction anywhere in the cluster still runs, usually for milliseconds), so that the
 * start it names is the merchant's newest event and a client resuming from it gets only what came after. Each
 * answer is a consistent pair of position and snapshot; past the wait the last one is taken as it is.
 */
async function settledStart(deps: Reader, owner: StreamOwner, signal: AbortSignal): Promise<StreamStart> {
  const deadline = performance.now() + START_SETTLE_MS;
  let start = await streamStart(deps.db, owner);
  while (!start.allSettled && performance.now() < deadline && !signal.aborted) {
    try {
      await sleep(START_RETRY_MS, undefined, { signal });
    } catch {
      break;
    }
    start = await streamStart(deps.db, owner);
  }
  return start;
}

async function* poll(deps: Reader, owner: StreamOwner, start: { cursor: StreamCursor; afterId: string | undefined }, types: readonly string[], signal: AbortSignal): AsyncGenerator<StreamItem> {
  yield { kind: 'start', afterId: start.afterId };
  let cursor = start.cursor;
  let wait = MIN_WAIT_MS;
  // Heartbeats are about the connection, so they run on the monotonic clock, not the business clock.
  let lastSent = performance.now();
  // A function, not the property: the signal aborts while this generator is suspended at a yield.
  const stopped = (): boolean => signal.aborted;
  while (!stopped()) {
    const batch = await eventsAfter(deps.db, owner, cursor, types, BATCH);
    for (const event of batch) {
      if (stopped()) return;
      yield { kind: 'event', event };
      cursor = event.cursor;
    }
    if (batch.length > 0) {
      lastSent = performance.now();
      wait = MIN_WAIT_MS;
      if (batch.length === BATCH) continue;
    } else {
      wait = Math.min(wait * 2, MAX_WAIT_MS);
    }
    if (performance.now() - lastSent >= HEARTBEAT_MS) {
      if (stopped()) return;
      yield { kind: 'heartbeat' };
      lastSent = performance.now();
    }
    try {
      await sleep(wait, undefined, { signal });
    } catch {
      return;
    }
  }
}
