// Webhook endpoints: the event types a webhook may select (the spec's list), create, read, list, update and
// delete (irreversible: the endpoint is gone, its delivery log stays and its pending deliveries fail), with
// the URL rules of the environment and the Webhooks permission of the account.
import { newId } from '../platform/ids.ts';
import type { components } from '@pgw/client/types';
import { generateWebhookSecret } from '@pgw/client/webhooks';
import type { Deps } from '../platform/deps.ts';
import { ApiError, invalid, notFound } from '../platform/errors.ts';
import type { ListQuery } from '../platform/paging.ts';
import { responseExample } from '../platform/spec-data.ts';
import { iso } from '../platform/time.ts';
import { withTransaction } from '../platform/transaction.ts';
import * as repo from '../repositories/webhook-endpoints.ts';
import { lockPendingOf } from '../repositories/webhook-deliveries.ts';
import { deliveryFamily, failedUnattempted } from './delivery-machine.ts';
import * as engine from './engine.ts';
import { checkTarget } from './webhook-urls.ts';
import { within, type Scope } from '../platform/scope.ts';

type Schemas = components['schemas'];
type EventTypeInfo = Schemas['WebhookEventTypeInfo'];

/** The event types, as the spec's event-type list gives them (id, name, description, category). */
const EVENT_TYPES: readonly EventTypeInfo[] = (responseExample('/v2/webhooks/event-types', 'get') as { items: EventTypeInfo[] }).items;

export const eventTypeNames = (): readonly string[] => EVENT_TYPES.map((t) => t.name);

/** 403 webhooks_permission_required unless the merchant's account has the Webhooks permission. */
export async function requirePermission(scope: Scope): Promise<void> {
  const { merchantId } = scope;
  if (!(await repo.hasWebhooksPermission(scope.db, merchantId))) throw new ApiError('webhooks_permission_required');
}

export function listEventTypes(query: ListQuery): { items: EventTypeInfo[]; total: number } {
  const search = query.search?.trim().toLowerCase() ?? '';
  const matching = EVENT_TYPES.filter((t) => search === '' || [t.name, t.description, t.category].some((v) => v.toLowerCase().includes(search)));
  const key = (query.orderBy ?? 'id') as 'id' | 'name' | 'category';
  const sorted = [...matching].sort((a, b) => {
    const order = key === 'id' ? a.id - b.id : a[key].localeCompare(b[key]) || a.id - b.id;
    return query.asc === false ? -order : order;
  });
  const size = query.pageSize ?? 15;
  const page = query.page ?? 0;
  return { items: sorted.slice(page * size, page * size + size), total: matching.length };
}

export const endpointView = (e: repo.EndpointRecord): Schemas['WebhookEndpoint'] => ({
  id: e.id, name: e.name, endpointUrl: e.endpointUrl, eventTypes: e.eventTypes as Schemas['WebhookEventType'][], isActive: e.isActive,
  signingSecret: e.signingSecret, createdOn: e.createdOn, modifiedOn: e.modifiedOn,
});

/**
 * The URL rules and address policy of the environment, as every attempt applies them; 400 naming endpointUrl.
 * The sandbox takes an https name that does not resolve yet (its attempts fail until it does); production does not.
 */
async function checkUrl(deps: Deps, url: string): Promise<void> {
  const target = await checkTarget(url, deps);
  if (target.ok) return;
  const pending = target.kind === 'dns' && deps.config.environment === 'sandbox' && target.url?.protocol === 'https:';
  if (!pending) throw invalid('endpointUrl', target.problem);
}

async function ownEndpoint(scope: Scope, id: string): Promise<repo.EndpointRecord> {
  const { merchantId } = scope;
  const endpoint = await repo.findEndpoint(scope.db, merchantId, id.toLowerCase());
  if (!endpoint) throw notFound(id, 'webhook');
  return endpoint;
}

export async function createEndpoint(scope: Scope, body: Schemas['WebhookEndpointCreateRequest']): Promise<Schemas['WebhookEndpoint']> {
  const { merchantId } = scope;
  await requirePermission(scope);
  await checkUrl(scope, body.endpointUrl);
  const now = iso(scope.clock.now());
  const endpoint: repo.EndpointRecord = {
    id: newId(), merchantId, name: body.name, endpointUrl: body.endpointUrl, eventTypes: [...body.eventTypes], isActive: true,
    signingSecret: generateWebhookSecret(), createdOn: now, modifiedOn: now,
  };
  await repo.insertEndpoint(scope.db, endpoint);
  return endpointView(endpoint);
}

export async function getEndpoint(scope: Scope, id: string): Promise<Schemas['WebhookEndpoint']> {
  await requirePermission(scope);
  return endpointView(await ownEndpoint(scope, id));
}

export async function listEndpoints(scope: Scope, query: ListQuery): Promise<Schemas['WebhookEndpointList']> {
  const { merchantId } = scope;
  await requirePermission(scope);
  const { items, total } = await repo.listEndpoints(scope.db, merchantId, query);
  return { items: items.map(endpointView), total };
}

export async function updateEndpoint(scope: Scope, id: string, body: Schemas['WebhookEndpointUpdateRequest']): Promise<Schemas['WebhookEndpoint']> {
  const { merchantId } = scope;
  await requirePermission(scope);
  await checkUrl(scope, body.endpointUrl);
  return withTransaction(scope.db, async (tx) => {
    const endpoint = await ownEndpoint(within(scope, tx), id);
    const changed = { name: body.name, endpointUrl: body.endpointUrl, eventTypes: [...body.eventTypes], isActive: body.isActive ?? endpoint.isActive, modifiedOn: iso(scope.clock.now()) };
    await repo.updateEndpoint(tx, merchantId, endpoint.id, changed);
    return endpointView({ ...endpoint, ...changed });
  });
}

/** Deletes a webhook for good: its log stays; its Pending deliveries fail (the delivery machine's webhook.deleted). */
export async function deleteEndpoint(scope: Scope, id: string): Promise<void> {
  const { merchantId } = scope;
  await requirePermission(scope);
  await withTransaction(scope.db, async (tx) => {
    const endpoint = await ownEndpoint(within(scope, tx), id);
    const now = scope.clock.now();
    await repo.deleteEndpoint(tx, merchantId, endpoint.id, iso(now));
    await engine.transitionAll({ db: tx }, deliveryFamily, await lockPendingOf(tx, endpoint.id), 'webhook.deleted', now, failedUnattempted);
  });
}
