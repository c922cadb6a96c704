// The delivery log: all deliveries or one webhook's, with filters and paging; the export (CSV, RFC 4180 with a
// header row, or JSON) of every matching entry, at most 10,000, streamed; a manual retry of a Failed
// delivery (one attempt now, same webhook-id and body); and the test ping (signed, not logged).
import { randomUUID } from 'node:crypto';
import { webhookDeliveryStateMachine } from '../../../generated/state-machines.ts';
import type { components } from '../../../generated/types.ts';
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

/** Retries a Failed delivery: a new Manual entry makes one attempt now and is returned with its outcome. */
export async function retryDelivery(scope: Scope, id: string): Promise<Entry> {
  const { merchantId } = scope;
  await requirePermission(scope);
  const now = scope.clock.now();
  // The Manual entry is made in a transaction that holds the failed one, so two retries at once make one each
  // in turn (both allowed: a Failed delivery stays Failed); the attempt itself waits on the receiver, after commit.
  const manual = await withTransaction(scope.db, async (tx) => {
    const failed = await engine.lock({ db: tx }, deliveryFamily, { merchant_id: merchantId, id: id.toLowerCase() });
    if (!failed) throw notFound(id, 'delivery');
    if (!engine.permits(deliveryFamily, failed, 'retryDelivery', now)) {
      throw new ApiError(webhookDeliveryStateMachine.refusal.errorCodes.retryDelivery, { details: `The delivery is ${failed.status}: only a Failed delivery can be retried.`, entityId: failed.id });
    }
    const endpoint = await endpointById(tx, failed.endpointId);
    if (!endpoint || endpoint.deleted || !endpoint.isActive) {
      throw new ApiError('webhook_endpoint_unavailable', { details: 'The webhook of this delivery is deleted or inactive.', entityId: failed.id });
    }
    return (await engine.create({ db: tx }, deliveryFamily, { merchantId, endpointId: endpoint.id, eventId: failed.eventId, eventType: failed.eventType },
      'retryDelivery', now, { attemptNumber: 1, nextRetryAt: null })).record;
  });
  await attemptDelivery(scope, manual, now);
  const done = await repo.findDelivery(scope.db, merchantId, manual.id);
  if (!done) throw new ApiError('internal_error');
  return entryOf(done);
}

/** Sends a signed webhook.ping to the webhook (active or not); not retried, not logged. */
export async function ping(scope: Scope, id: string): Promise<Schemas['WebhookPingResult']> {
  const { merchantId } = scope;
  await requirePermission(scope);
  const endpoint = await findEndpoint(scope.db, merchantId, id.toLowerCase());
  if (!endpoint) throw notFound(id, 'webhook');
  const deliveryId = randomUUID();
  const body = JSON.stringify({ id: deliveryId, type: 'webhook.ping', timestamp: iso(scope.clock.now()), merchantId, data: { webhookId: endpoint.id } });
  const outcome = await send(scope, endpoint.endpointUrl, endpoint.signingSecret, deliveryId, body);
  return { success: outcome.ok, responseStatusCode: outcome.statusCode, responseDurationMs: outcome.durationMs, deliveryId };
}
