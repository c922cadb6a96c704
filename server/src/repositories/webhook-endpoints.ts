// Webhook endpoints (Knex only): rows in, records out; a deleted endpoint is never found again.
import type { Knex } from 'knex';
import { compiledSelect } from './compiled.ts';
import { pageOf, type ListQuery, type ListSpec } from './paging.ts';

export interface EndpointRecord {
  id: string;
  merchantId: string;
  name: string;
  endpointUrl: string;
  eventTypes: string[];
  isActive: boolean;
  signingSecret: string;
  createdOn: string;
  modifiedOn: string;
}

interface Row {
  id: string; merchant_id: string; name: string; endpoint_url: string; event_types: string; is_active: boolean | number;
  signing_secret: string; created_on: string; modified_on: string;
}

const recordOf = (row: Row): EndpointRecord => ({
  id: row.id, merchantId: row.merchant_id, name: row.name, endpointUrl: row.endpoint_url,
  eventTypes: JSON.parse(row.event_types) as string[], isActive: Boolean(row.is_active), signingSecret: row.signing_secret,
  createdOn: row.created_on, modifiedOn: row.modified_on,
});

const LIST: ListSpec = {
  orderable: { createdOn: 'created_on', modifiedOn: 'modified_on', name: 'lower(name)', endpointUrl: 'lower(endpoint_url)' },
  defaultOrder: 'createdOn',
  searchable: ['name', 'endpoint_url'],
  dateColumn: 'created_on',
  idColumn: 'id',
};

export async function insertEndpoint(db: Knex, e: EndpointRecord): Promise<void> {
  await db('webhook_endpoints').insert({
    id: e.id, merchant_id: e.merchantId, name: e.name, endpoint_url: e.endpointUrl, event_types: JSON.stringify(e.eventTypes),
    is_active: e.isActive, signing_secret: e.signingSecret, created_on: e.createdOn, modified_on: e.modifiedOn,
  });
}

export async function findEndpoint(db: Knex, merchantId: string, id: string): Promise<EndpointRecord | undefined> {
  const row = await db('webhook_endpoints').where({ merchant_id: merchantId, id }).whereNull('deleted_on').first<Row | undefined>();
  return row ? recordOf(row) : undefined;
}

export async function updateEndpoint(db: Knex, merchantId: string, id: string, e: Pick<EndpointRecord, 'name' | 'endpointUrl' | 'eventTypes' | 'isActive' | 'modifiedOn'>): Promise<boolean> {
  const count = await db('webhook_endpoints').where({ merchant_id: merchantId, id }).whereNull('deleted_on').update({
    name: e.name, endpoint_url: e.endpointUrl, event_types: JSON.stringify(e.eventTypes), is_active: e.isActive, modified_on: e.modifiedOn,
  });
  return count === 1;
}

export async function deleteEndpoint(db: Knex, merchantId: string, id: string, deletedOn: string): Promise<boolean> {
  const count = await db('webhook_endpoints').where({ merchant_id: merchantId, id }).whereNull('deleted_on').update({ deleted_on: deletedOn, is_active: false, modified_on: deletedOn });
  return count === 1;
}

export async function listEndpoints(db: Knex, merchantId: string, list: ListQuery): Promise<{ items: EndpointRecord[]; total: number }> {
  const { rows, total } = await pageOf(db('webhook_endpoints').where({ merchant_id: merchantId }).whereNull('deleted_on'), list, LIST);
  return { items: (rows as unknown as Row[]).map(recordOf), total };
}

/** The merchant's active endpoints (the fan-out of its events). */
const activeByMerchant = compiledSelect<{ merchantId: string }, Row>((db, v) => db('webhook_endpoints').where({ merchant_id: v.merchantId, is_active: true }).whereNull('deleted_on').select('*'));

export async function activeEndpoints(db: Knex, merchantId: string): Promise<EndpointRecord[]> {
  const rows = await activeByMerchant(db, { merchantId });
  return rows.map(recordOf);
}

export type AnyEndpoint = EndpointRecord & { deleted: boolean };

/** Endpoints by id whatever their state, with whether each is deleted (a delivery's log stays after a delete). */
export async function endpointsById(db: Knex, ids: readonly string[]): Promise<Map<string, AnyEndpoint>> {
  const rows = await db('webhook_endpoints').whereIn('id', [...new Set(ids)]).select<(Row & { deleted_on: string | null })[]>('*');
  return new Map(rows.map((row) => [row.id, { ...recordOf(row), deleted: row.deleted_on !== null }]));
}

export async function endpointById(db: Knex, id: string): Promise<AnyEndpoint | undefined> {
  return (await endpointsById(db, [id])).get(id);
}

/** Whether the merchant's account has the Webhooks permission. */
export async function hasWebhooksPermission(db: Knex, merchantId: string): Promise<boolean> {
  const row = await db('merchants').where({ id: merchantId }).first<{ webhooks_permission: boolean | number } | undefined>('webhooks_permission');
  return Boolean(row?.webhooks_permission);
}
