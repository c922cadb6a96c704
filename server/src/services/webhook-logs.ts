// The delivery log: all deliveries or one webhook's, with filters and paging; the export (CSV, RFC 4180 with a
// header row, or JSON) of every matching entry, at most 10,000, streamed; a manual retry of a delivery that has
// not succeeded, or of a Succeeded one with force (one attempt now, same webhook-id and body); and the test ping
// (signed, not logged).
import { newId } from '../platform/ids.ts';
import { webhookDeliveryStateMachine } from '@pgw/client/state-machines';
import type { components } from '@pgw/client/types';
import { ApiError, notFound } from '../platform/errors.ts';
import type { ListQuery } from '../platform/paging.ts';
import { iso } from '../platform/time.ts';
import { withTransaction } from '../platform/transaction.ts';
import * as repo from '../repositories/webhook-deliveries.ts';
import type { DeliveryRecord, LogFilter } from '../repositories/webhook-deliveries.ts';
import { endpointById, findEndpoint } from '../repositories/webhook-endpoints.ts';
import { deliveryFamily } from './delivery-machine.ts';
import * as engine from './engine.ts';
import { attemptDelivery, send } from './webhook-delivery.ts';
import { requirePermission } from './webhook-endpoints.ts';
import type { Scope } from '../platform/scope.ts';

type Schemas = components['schemas'];
type Entry = Schemas['WebhookDeliveryLogEntry'];

export const EXPORT_LIMIT = 10_000;

export const entryOf = (d: DeliveryRecord): Entry => ({
  id: d.id, webhookId: d.endpointId, eventId: d.eventId, eventType: d.eventType as Schemas['WebhookEventType'], status: d.status,
  attemptNumber: d.attemptNumber, nextRetryAt: d.nextRetryAt, lastAttemptAt: d.lastAttemptAt, responseStatusCode: d.responseStatusCode,
  responseDurationMs: d.responseDurationMs, triggerType: d.triggerType, createdOn: d.createdOn,
});

/** The columns of the CSV export, in the order of the log entry's fields. */
export const CSV_COLUMNS = ['id', 'webhookId', 'eventId', 'eventType', 'status', 'attemptNumber', 'nextRetryAt', 'lastAttemptAt', 'responseStatusCode', 'responseDurationMs', 'triggerType', 'createdOn'] as const;

/** One RFC 4180 field: quoted when it holds a comma, a quote or a line break (quotes doubled). */
const csvField = (value: string | number | null): string => {
  const text = value === null ? '' : String(value);
  return /[",\r\n]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
};

export const csvLine = (entry: Entry): string => `${CSV_COLUMNS.map((c) => csvField(entry[c])).join(',')}\r\n`;
export const CSV_HEADER = `${CSV_COLUMNS.join(',')}\r\n`;

export async function listLogs(scope: Scope, filter: LogFilter, query: ListQuery): Promise<Schemas['WebhookDeliveryLogList']> {
  const { merchantId } = scope;
  await requirePermission(scope);
  const { items, total } = await repo.listDeliveries(scope.db, merchantId, filter, query);
  return { items: items.map(entryOf), total };
}

/** One webhook's log (a deleted webhook's stays readable); 404 for an id that never was the merchant's. */
export async function listWebhookLogs(scope: Scope, webhookId: string, filter: LogFilter, query: ListQuery): Promise<Schemas['WebhookDeliveryLogList']> {
  const { merchantId } = scope;
  await requirePermission(scope);
  const endpoint = await endpointById(scope.db, webhookId.toLowerCase());
  if (endpoint?.merchantId !== merchantId) throw notFound(webhookId, 'webhook');
  return listLogs(scope, { ...filter, webhookId: endpoint.id }, query);
}

/** The matching entries, oldest first, at most EXPORT_LIMIT, as they are read. */
export async function exportLogs(scope: Scope, filter: LogFilter, query: ListQuery): Promise<AsyncGenerator<Entry>> {
  const { merchantId } = scope;
  await requirePermission(scope);
  const rows = repo.exportDeliveries(scope.db, merchantId, filter, query, EXPORT_LIMIT);
  return (async function* entries() {
    for await (const row of rows) yield entryOf(row);
  })();
}

/**
 * Retries a delivery that has not succeeded (or, with `force`, a Succeeded one): a new Manual entry makes one
 * attempt now and is returned with its outcome. The retried delivery keeps its schedule: the manual attempt is
 * none of its attempts. A Pending one is leased meanwhile, so the delivery engine does not attempt it at the
 * same time (and one whose attempt is in flight is refused, 409); if the manual attempt succeeds, it becomes
 * Succeeded (manual.succeeded) and its scheduled attempts stop.
 */
export async function retryDelivery(scope: Scope, id: string, force = false): Promise<Entry> {
  const { merchantId } = scope;
  await requirePermission(scope);
  const now = scope.clock.now();
  const lease = iso(new Date(scope.wall.now().getTime() + scope.config.webhookLeaseMs));
  // The Manual entry is made in a transaction that holds the retried one, so two retries at once are taken in
  // turn: of a Failed or Succeeded one, each makes its own; of a Pending one, the second finds it leased (409).
  // The attempt itself waits on the receiver, after commit.
  const { manual, retried, leased } = await withTransaction(scope.db, async (tx) => {
    const retried = await engine.lock({ db: tx }, deliveryFamily, { merchant_id: merchantId, id: id.toLowerCase() });
    if (!retried) throw notFound(id, 'delivery');
    if (!engine.permits(deliveryFamily, retried, 'retryDelivery', now) && !(force && engine.permits(deliveryFamily, retried, 'resend.forced', now))) {
      throw new ApiError(webhookDeliveryStateMachine.refusal.errorCodes.retryDelivery, { details: `The delivery has ${retried.status}: it is resent only with force=true.`, entityId: retried.id });
    }
    const endpoint = await endpointById(tx, retried.endpointId);
    if (!endpoint || endpoint.deleted || !endpoint.isActive) {
      throw new ApiError('webhook_endpoint_unavailable', { details: 'The webhook of this delivery is deleted or inactive.', entityId: retried.id });
    }
    const leased = retried.status === 'Pending';
    // A Pending Manual entry is one whose own attempt is being made; a Scheduled one whose lease is held is
    // claimed by the delivery engine, its attempt in flight.
    if (leased && (retried.triggerType === 'Manual' || !(await repo.holdLease(tx, retried.id, iso(scope.wall.now()), lease)))) {
      throw new ApiError('webhook_delivery_in_flight', { details: 'An attempt of this delivery is being made; its outcome is in the log within 15 seconds.', entityId: retried.id });
    }
    const manual = (await engine.create({ db: tx }, deliveryFamily, { merchantId, endpointId: endpoint.id, eventId: retried.eventId, eventType: retried.eventType },
      'retryDelivery', now, { attemptNumber: 1, nextRetryAt: null })).record;
    return { manual, retried, leased };
  });
  try {
    await attemptDelivery(scope, manual, now);
  } finally {
    if (leased) await settleRetried(scope, retried.id, manual.id, lease, now);
  }
  const done = await repo.findDelivery(scope.db, merchantId, manual.id);
  if (!done) throw new ApiError('internal_error');
  return entryOf(done);
}

/**
 * After the manual attempt of a retried Pending delivery: Succeeded when the attempt succeeded (its attempt
 * number the last of its own made, 1 when none was), else its lease freed and its schedule as it was.
 */
async function settleRetried(scope: Scope, retriedId: string, manualId: string, lease: string, at: Date): Promise<void> {
  await withTransaction(scope.db, async (tx) => {
    const retried = await engine.lock({ db: tx }, deliveryFamily, { merchant_id: scope.merchantId, id: retriedId });
    if (!retried) return;
    const manual = await repo.findDelivery(tx, scope.merchantId, manualId);
    if (manual?.status === 'Succeeded' && engine.permits(deliveryFamily, retried, 'manual.succeeded', at)) {
      await engine.transition({ db: tx }, deliveryFamily, retried, 'manual.succeeded', at, { attemptNumber: Math.max(1, retried.attemptNumber - 1), nextRetryAt: null });
    } else {
      await repo.releaseLease(tx, retried.id, lease);
    }
  });
}

/** Sends a signed webhook.ping to the webhook (active or not); not retried, not logged. */
export async function ping(scope: Scope, id: string): Promise<Schemas['WebhookPingResult']> {
  const { merchantId } = scope;
  await requirePermission(scope);
  const endpoint = await findEndpoint(scope.db, merchantId, id.toLowerCase());
  if (!endpoint) throw notFound(id, 'webhook');
  const deliveryId = newId();
  const body = JSON.stringify({ id: deliveryId, type: 'webhook.ping', timestamp: iso(scope.clock.now()), merchantId, data: { webhookId: endpoint.id } });
  const outcome = await send(scope, endpoint.endpointUrl, endpoint.signingSecret, deliveryId, body);
  return { success: outcome.ok, responseStatusCode: outcome.statusCode, responseDurationMs: outcome.durationMs, deliveryId };
}
