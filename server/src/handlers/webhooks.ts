// HTTP of the webhooks: event types, endpoints, the test ping, the delivery logs, their export and manual retry.
import type { WebhooksHandlers } from '@pgw/client/handlers';
import type * as op from '@pgw/client/operations';
import type { ServerContext } from '../platform/context.ts';
import * as endpoints from '../services/webhook-endpoints.ts';
import * as logs from '../services/webhook-logs.ts';

const stamp = (date: Date): string => date.toISOString().replace(/[-:]/g, '').replace(/\.\d{3}/, '');

/** CSV: the header row, then a line a delivery. JSON: an array, an entry at a time. */
async function* exportBody(entries: AsyncGenerator<Parameters<typeof logs.csvLine>[0]>, format: 'csv' | 'json'): AsyncGenerator<string> {
  if (format === 'csv') {
    yield logs.CSV_HEADER;
    for await (const entry of entries) yield logs.csvLine(entry);
    return;
  }
  yield '[';
  let first = true;
  for await (const entry of entries) {
    yield `${first ? '' : ','}${JSON.stringify(entry)}`;
    first = false;
  }
  yield ']';
}

export const webhooksHandlers = {
  async listWebhookEventTypes(input: op.ListWebhookEventTypesInput, context: ServerContext): Promise<op.ListWebhookEventTypesResult> {
    await endpoints.requirePermission(context.merchant());
    return { status: 200, body: endpoints.listEventTypes(input.query) };
  },
  async listWebhookEndpoints(input: op.ListWebhookEndpointsInput, context: ServerContext): Promise<op.ListWebhookEndpointsResult> {
    return { status: 200, body: await endpoints.listEndpoints(context.merchant(), input.query) };
  },
  async createWebhookEndpoint(input: op.CreateWebhookEndpointInput, context: ServerContext): Promise<op.CreateWebhookEndpointResult> {
    return { status: 200, body: await endpoints.createEndpoint(context.merchant(), input.body) };
  },
  async getWebhookEndpoint(input: op.GetWebhookEndpointInput, context: ServerContext): Promise<op.GetWebhookEndpointResult> {
    return { status: 200, body: await endpoints.getEndpoint(context.merchant(), input.path.webhookId) };
  },
  async updateWebhookEndpoint(input: op.UpdateWebhookEndpointInput, context: ServerContext): Promise<op.UpdateWebhookEndpointResult> {
    return { status: 200, body: await endpoints.updateEndpoint(context.merchant(), input.path.webhookId, input.body) };
  },
  async deleteWebhookEndpoint(input: op.DeleteWebhookEndpointInput, context: ServerContext): Promise<op.DeleteWebhookEndpointResult> {
    await endpoints.deleteEndpoint(context.merchant(), input.path.webhookId);
    return { status: 200 };
  },
  async pingWebhookEndpoint(input: op.PingWebhookEndpointInput, context: ServerContext): Promise<op.PingWebhookEndpointResult> {
    return { status: 200, body: await logs.ping(context.merchant(), input.path.webhookId) };
  },
  async listDeliveryLogs(input: op.ListDeliveryLogsInput, context: ServerContext): Promise<op.ListDeliveryLogsResult> {
    const { status, eventType, webhookId, ...list } = input.query;
    return { status: 200, body: await logs.listLogs(context.merchant(), { status, eventType, webhookId }, list) };
  },
  async listWebhookDeliveryLogs(input: op.ListWebhookDeliveryLogsInput, context: ServerContext): Promise<op.ListWebhookDeliveryLogsResult> {
    const { status, eventType, ...list } = input.query;
    return { status: 200, body: await logs.listWebhookLogs(context.merchant(), input.path.webhookId, { status, eventType }, list) };
  },
  async exportDeliveryLogs(input: op.ExportDeliveryLogsInput, context: ServerContext): Promise<op.ExportDeliveryLogsResult> {
    const { format = 'json', status, eventType, webhookId, ...list } = input.query;
    const entries = await logs.exportLogs(context.merchant(), { status, eventType, webhookId }, list);
    const file = `webhook-delivery-logs-${stamp(context.clock.now())}.${format}`;
    // The generated result types carry `body`; a streamed export carries `stream` (the router writes it as it comes).
    return {
      status: 200,
      contentType: format === 'csv' ? 'text/csv; charset=utf-8' : 'application/json',
      headers: { 'Content-Disposition': `attachment; filename="${file}"` },
      stream: exportBody(entries, format),
    } as unknown as op.ExportDeliveryLogsResult;
  },
  async retryDelivery(input: op.RetryDeliveryInput, context: ServerContext): Promise<op.RetryDeliveryResult> {
    return { status: 200, body: await logs.retryDelivery(context.merchant(), input.path.id, input.query.force === true) };
  },
} satisfies WebhooksHandlers<ServerContext>;
