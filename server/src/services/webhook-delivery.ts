// The delivery engine: claims due deliveries under a lease longer than the request time-out, POSTs each
// event signed with Standard Webhooks headers (webhook-id = the event id on every attempt; a fresh
// webhook-timestamp, on the wall clock, and signature per attempt), records every attempt, and schedules the
// next on the merchant's business clock (1 min, 5 min, 30 min, 2 h, 8 h, 24 h; Failed after the 7th).
// Attempts run concurrently, so a slow receiver holds up only its own deliveries.
import type { WebhookDeliveryTrigger } from '@pgw/client/state-machines';
import { signWebhook } from '@pgw/client/webhooks';
import type { Deps } from '../platform/deps.ts';
import { ApiError } from '../platform/errors.ts';
import { groupBy } from '../platform/group.ts';
import { postPinned } from '../platform/outbound-http.ts';
import { findEvents, type StoredEvent } from '../platform/outbox.ts';
import { iso } from '../platform/time.ts';
import { withTransaction } from '../platform/transaction.ts';
import * as repo from '../repositories/webhook-deliveries.ts';
import type { DeliveryRecord } from '../repositories/webhook-deliveries.ts';
import { endpointsById, type AnyEndpoint } from '../repositories/webhook-endpoints.ts';
import { deliveryFamily, failedUnattempted, type DeliveryChange } from './delivery-machine.ts';
import * as engine from './engine.ts';
import { checkTarget } from './webhook-urls.ts';
import type { Scope } from '../platform/scope.ts';

/** The delay before attempt n+1 after attempt n failed (n = 1..6), as the spec's retry table gives it. */
export const RETRY_DELAYS_MS = [60_000, 5 * 60_000, 30 * 60_000, 2 * 3600_000, 8 * 3600_000, 24 * 3600_000] as const;
export const MAX_ATTEMPTS = RETRY_DELAYS_MS.length + 1;
/** The receiver's time to answer (designed, in the spec). */
export const TIMEOUT_MS = 15_000;
const EXCERPT = 1024;

export interface Outcome {
  ok: boolean;
  statusCode: number | null;
  durationMs: number;
  /** ok, timeout, refused, dns, tls, blocked, network, http_3xx, http_4xx, http_5xx. */
  kind: string;
  excerpt: string | null;
}

type Sender = Pick<Deps, 'config' | 'wall' | 'resolveHost'>;

/** The first error code of a failed connection (Happy Eyeballs gives one per address tried). */
function codeOf(error: unknown): string {
  const e = error as { code?: unknown; cause?: { code?: unknown }; errors?: { code?: unknown }[] } | null;
  const code = e?.code ?? e?.cause?.code ?? e?.errors?.[0]?.code;
  return typeof code === 'string' ? code : '';
}

function failureKind(error: unknown, signal: AbortSignal): string {
  if (signal.aborted) return 'timeout';
  const code = codeOf(error);
  if (code === 'ECONNREFUSED') return 'refused';
  if (code === 'ETIMEDOUT') return 'timeout';
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN') return 'dns';
  if (code.startsWith('ERR_TLS') || code.startsWith('ERR_SSL') || code.includes('CERT') || code.startsWith('UNABLE_TO_')) return 'tls';
  return 'network';
}

/**
 * One signed POST of an envelope to a URL: what came back, and how long it took. The host is resolved and
 * checked here, at every attempt (a name that resolved to a public address at creation may not now), and
 * the connection goes to the checked address; a refused one is not connected to, and the reason is kept as
 * the attempt's excerpt. A redirect is an answer like any other (a failed attempt), never followed.
 */
export async function send(deps: Sender, url: string, secret: string, messageId: string, body: string): Promise<Outcome> {
  const started = performance.now();
  const elapsed = (): number => Math.round(performance.now() - started);
  const target = await checkTarget(url, deps);
  if (!target.ok) return { ok: false, statusCode: null, durationMs: elapsed(), kind: target.kind, excerpt: `not sent: the URL ${target.problem}` };
  const timestamp = Math.floor(deps.wall.now().getTime() / 1000);
  const signal = AbortSignal.timeout(TIMEOUT_MS);
  try {
    const res = await postPinned({
      url: target.url,
      addresses: target.addresses,
      signal,
      // Enough bytes for EXCERPT characters of any UTF-8 text; the rest of a long answer is not read.
      maxBytes: EXCERPT * 4,
      headers: {
        'content-type': 'application/json',
        'user-agent': 'payment-gateway-webhooks/1',
        'webhook-id': messageId,
        'webhook-timestamp': String(timestamp),
        'webhook-signature': signWebhook(secret, messageId, timestamp, body),
      },
      body,
    });
    const text = res.text.slice(0, EXCERPT);
    const ok = res.status >= 200 && res.status < 300;
    return { ok, statusCode: res.status, durationMs: elapsed(), kind: ok ? 'ok' : `http_${String(Math.floor(res.status / 100))}xx`, excerpt: text };
  } catch (error) {
    return { ok: false, statusCode: null, durationMs: elapsed(), kind: failureKind(error, signal), excerpt: null };
  }
}

/** The Standard Webhooks body of an event: id, type, timestamp (when it occurred), merchantId, data. */
export const envelope = (event: StoredEvent): string =>
  JSON.stringify({ id: event.id, type: event.type, timestamp: event.occurredOn, merchantId: event.merchantId, data: event.data });

/** The trigger of the delivery machine an attempt at business time `at` is, and what it leaves the delivery with. */
export function afterAttempt(delivery: Pick<DeliveryRecord, 'attemptNumber' | 'triggerType'>, ok: boolean, at: Date): { trigger: WebhookDeliveryTrigger } & DeliveryChange {
  if (ok) return { trigger: 'attempt.succeeded', attemptNumber: delivery.attemptNumber, nextRetryAt: null };
  const delay = RETRY_DELAYS_MS[delivery.attemptNumber - 1];
  // A manual retry makes one attempt; a scheduled delivery fails for good after the last of the table.
  if (delivery.triggerType === 'Manual' || delay === undefined) return { trigger: 'attempt.exhausted', attemptNumber: delivery.attemptNumber, nextRetryAt: null };
  return { trigger: 'attempt.failed', attemptNumber: delivery.attemptNumber + 1, nextRetryAt: iso(new Date(at.getTime() + delay)) };
}

/** What a claimed delivery's attempt (or its failure without one) leaves to record: its move at its time. */
export interface Attempted {
  readonly delivery: DeliveryRecord;
  readonly trigger: WebhookDeliveryTrigger;
  /** The business time the attempt was made at (or found there was none to make). */
  readonly at: Date;
  readonly change: DeliveryChange;
  /** The attempt's outcome; none when the delivery failed without one (its webhook inactive or deleted). */
  readonly outcome?: Outcome;
}

/**
 * Records attempts in one transaction: their deliveries locked in one statement, then moved through their
 * machine a trigger at a time (the adapter writes each trigger's deliveries in one statement, their attempts in
 * another). A delivery removed meanwhile (its sandbox merchant deleted or reset while the attempt was in
 * flight) changes nothing, and its attempt is dropped.
 */
export async function recordAttempts(db: Deps['db'], attempts: readonly Attempted[]): Promise<void> {
  if (attempts.length === 0) return;
  await withTransaction(db, async (tx) => {
    const locked = new Map((await engine.lockAll({ db: tx }, deliveryFamily, attempts.map((a) => a.delivery.id))).map((d) => [d.id, d]));
    for (const [trigger, group] of groupBy(attempts, (attempt) => attempt.trigger)) {
      const moves = new Map(group.flatMap((a) => { const record = locked.get(a.delivery.id); return record ? [[record, a.change] as const] : []; }));
      // Each change carries its attempt's own time; the move's time is the group's latest (no delivery row reads it).
      const at = new Date(Math.max(...group.map((a) => a.at.getTime())));
      await engine.transitionAll({ db: tx }, deliveryFamily, [...moves.keys()], trigger, at, (record) => changeOf(moves, record));
    }
  });
}

/** The change recorded for a locked delivery (every record given to transitionAll has one). */
function changeOf(moves: ReadonlyMap<DeliveryRecord, DeliveryChange>, record: DeliveryRecord): DeliveryChange {
  const change = moves.get(record);
  if (!change) throw new ApiError('internal_error', { details: `no recorded attempt for delivery ${record.id}` });
  return change;
}

/** What claimed deliveries need for their attempts, read in two queries for the whole batch. */
export async function attemptsOf(db: Deps['db'], deliveries: readonly DeliveryRecord[]): Promise<{ endpoints: Map<string, AnyEndpoint>; events: Map<string, StoredEvent> }> {
  return {
    endpoints: await endpointsById(db, deliveries.map((d) => d.endpointId)),
    events: await findEvents(db, deliveries.map((d) => d.eventId)),
  };
}

/**
 * Makes the attempt of a claimed delivery at business time `at` (nothing is written): what to record. Its
 * webhook inactive or deleted when the attempt falls due, it fails without an attempt (its number the last one
 * made, 1 when none was), and nothing is sent.
 */
export async function makeAttempt(
  deps: Pick<Deps, 'db' | 'config' | 'wall' | 'resolveHost'>, delivery: DeliveryRecord, at: Date, loaded?: { endpoints: Map<string, AnyEndpoint>; events: Map<string, StoredEvent> },
): Promise<Attempted> {
  const { endpoints, events } = loaded ?? (await attemptsOf(deps.db, [delivery]));
  const target = endpoints.get(delivery.endpointId);
  const event = events.get(delivery.eventId);
  if (!target || target.deleted || !target.isActive || !event) return { delivery, trigger: 'webhook.unavailable', at, change: failedUnattempted(delivery) };
  const outcome = await send(deps, target.endpointUrl, target.signingSecret, event.id, envelope(event));
  const { trigger, ...next } = afterAttempt(delivery, outcome.ok, at);
  return {
    delivery, trigger, at, outcome,
    change: { ...next, attempt: { attemptNumber: delivery.attemptNumber, attemptedOn: iso(at), responseStatusCode: outcome.statusCode, durationMs: outcome.durationMs, outcome: outcome.kind, responseExcerpt: outcome.excerpt } },
  };
}

/** Makes the attempt of a claimed delivery at business time `at` and records it. Returns its outcome, if one was made. */
export async function attemptDelivery(
  deps: Pick<Deps, 'db' | 'config' | 'wall' | 'resolveHost'>, delivery: DeliveryRecord, at: Date, loaded?: { endpoints: Map<string, AnyEndpoint>; events: Map<string, StoredEvent> },
): Promise<Outcome | undefined> {
  const attempted = await makeAttempt(deps, delivery, at, loaded);
  await recordAttempts(deps.db, [attempted]);
  return attempted.outcome;
}

/**
 * The business time an attempt of a claimed delivery is made at. In the sandbox, its due time: a clock
 * advance only queues what fell due, and the delivery engine makes each attempt afterwards at the time it
 * fell due, so the retries it schedules inside the advanced span fall due in turn (the retry table holds on
 * the sandbox clock whatever the receivers do). In production (no clock advance), the time it is made.
 */
export const attemptTimeOf = (deps: Pick<Deps, 'config'>, delivery: Pick<DeliveryRecord, 'nextRetryAt'>, now: Date): Date =>
  deps.config.environment === 'sandbox' && delivery.nextRetryAt !== null ? new Date(Math.min(Date.parse(delivery.nextRetryAt), now.getTime())) : now;

/** Claims up to `limit` of the merchant's deliveries due at or before `until` under a lease from `wallNow` (one transaction). */
export function claimDeliveries(scope: Scope, until: Date, wallNow: Date, limit: number): Promise<DeliveryRecord[]> {
  const { merchantId } = scope;
  const lease = iso(new Date(wallNow.getTime() + scope.config.webhookLeaseMs));
  return withTransaction(scope.db, (tx) => repo.claimDue(tx, merchantId, iso(until), iso(wallNow), lease, limit));
}

/**
 * Attempts the merchant's deliveries due at or before `until` (its business time now), and the retries
 * they schedule that fall due too, waiting on the receivers. Returns the number of attempts made. The
 * deterministic entry for tests (runDue); the worker's delivery pump makes the same attempts without
 * waiting on receivers.
 */
export async function deliverDue(scope: Scope, until: Date): Promise<number> {
  let attempts = 0;
  for (;;) {
    const wallNow = scope.wall.now();
    const claimed = await claimDeliveries(scope, until, wallNow, 50);
    if (claimed.length === 0) return attempts;
    const loaded = await attemptsOf(scope.db, claimed);
    const made = await Promise.all(claimed.map((d) => makeAttempt(scope, d, attemptTimeOf(scope, d, until), loaded)));
    await recordAttempts(scope.db, made);
    attempts += made.filter((m) => m.outcome !== undefined).length;
  }
}
