// "Nothing changed", seen from outside the gateway: what a caller can read before and after a request that
// must change nothing. Three witnesses, each where the spec offers one: the total of the list a create adds to
// (GET on the create's path), the record a change rewrites (GET on the change's path), and the events the
// merchant's changes emit (every payment, invoice or key change records one: the outbox), counted as the
// deliveries of a webhook endpoint the witness subscribes to every event type for the check's duration.
import { bodyOf, type CheckContext } from './check.ts';
import { listOf, readOf } from './checks/negative.ts';
import type { CallOptions } from './http.ts';

/** Event types a gateway emits on its own schedule (a settlement batch closes on the business clock, not on a request). */
const SCHEDULED = /^settlement\./;

export interface Witness {
  /** What the witnesses read now: equal texts before and after mean nothing visible changed. */
  read(): Promise<string>;
  /** Removes the webhook endpoint it made. */
  close(): Promise<void>;
}

/** A witness for the requests of one operation, reading as `ctx.call` calls (merchant A). */
export async function witnessFor(ctx: CheckContext, operationId: string, readPath: Record<string, string>): Promise<Witness> {
  const spec = ctx.spec;
  const list = listOf(spec, operationId);
  const read = readOf(spec, operationId);
  let endpoint: string | undefined;
  if (spec.operations.has('createWebhookEndpoint') && spec.operations.has('listDeliveryLogs') && spec.operations.has('listWebhookEventTypes')) {
    const types = bodyOf(await ctx.call('listWebhookEventTypes', {})).items;
    const names = (Array.isArray(types) ? (types as { name?: unknown }[]) : []).map((t) => t.name).filter((n): n is string => typeof n === 'string' && !SCHEDULED.test(n));
    if (names.length > 0) {
      // An address that refuses at once: deliveries are recorded (and retried), never received.
      const made = bodyOf(await ctx.call('createWebhookEndpoint', { body: { name: ctx.unique('witness'), endpointUrl: 'http://127.0.0.1:9/conformance-witness', eventTypes: names } }));
      if (typeof made.id === 'string') endpoint = made.id;
    }
  }
  const totalOf = async (operation: string, options: CallOptions): Promise<string> => JSON.stringify(bodyOf(await ctx.call(operation, options)).total ?? null);
  // The record is read only where the suite has every id its path needs; an answer other than 2xx counts by
  // its status alone (an error body's correlationId differs on every call).
  const needs = read === undefined ? [] : [...spec.operation(read).path.matchAll(/\{([^}]+)\}/g)].map((m) => m[1] ?? '');
  const readable = read !== undefined && needs.every((name) => readPath[name] !== undefined && readPath[name] !== '');
  const recordOf = async (operation: string): Promise<string> => {
    const exchange = await ctx.call(operation, { path: readPath });
    const status = exchange.response?.status ?? 0;
    return status >= 200 && status < 300 ? JSON.stringify(bodyOf(exchange)) : `status ${String(status)}`;
  };
  return {
    async read() {
      const parts: string[] = [];
      if (endpoint !== undefined) parts.push(`events ${await totalOf('listDeliveryLogs', { query: { webhookId: endpoint, pageSize: 1 } })}`);
      if (list !== undefined) parts.push(`${list} total ${await totalOf(list, { query: { pageSize: 1 } })}`);
      if (read !== undefined && readable) parts.push(`${read}: ${await recordOf(read)}`);
      return parts.join('; ');
    },
    async close() {
      if (endpoint !== undefined) await ctx.call('deleteWebhookEndpoint', { path: { webhookId: endpoint } });
    },
  };
}
