// "Nothing changed", seen from outside the gateway: what a caller can read before and after a request that
// must change nothing. Three witnesses, each where the spec offers one: the total of the list a create adds to
// (GET on the create's path), the record a change rewrites (GET on the change's path), and the events the
// merchant's changes emit (every payment, invoice or key change records one: the outbox), counted as the
// deliveries of a webhook endpoint the witness subscribes to every event type for the check's duration.
import { OperationId } from '@pgw/client/operations';
import { bodyOf, type CheckContext } from './check.ts';
import { listOf, readOf } from './checks/negative.ts';
import type { CallOptions, Operation } from './http.ts';

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
  if (spec.operations.has(OperationId.createWebhookEndpoint) && spec.operations.has(OperationId.listDeliveryLogs) && spec.operations.has(OperationId.listWebhookEventTypes)) {
    const types = bodyOf(await ctx.call(OperationId.listWebhookEventTypes, {})).items;
    const names = (Array.isArray(types) ? (types as { name?: unknown }[]) : []).map((t) => t.name).filter((n): n is string => typeof n === 'string' && !SCHEDULED.test(n));
    if (names.length > 0) {
      // An address that refuses at once: deliveries are recorded (and retried), never received.
      const made = bodyOf(await ctx.call(OperationId.createWebhookEndpoint, { body: { name: ctx.unique('witness'), endpointUrl: 'http://127.0.0.1:9/conformance-witness', eventTypes: names } }));
      if (typeof made.id === 'string') endpoint = made.id;
    }
  }
  const totalOf = async (operation: Operation, options: CallOptions): Promise<string> => JSON.stringify(bodyOf(await ctx.call(operation, options)).total ?? null);
  // The record is read only where the suite has every id its path needs; an answer other than 2xx counts by
  // its status alone (an error body's correlationId differs on every call).
  const needs = read === undefined ? [] : [...read.path.matchAll(/\{([^}]+)\}/g)].map((m) => m[1] ?? '');
  const readable = read !== undefined && needs.every((name) => readPath[name] !== undefined && readPath[name] !== '');
  const recordOf = async (operation: Operation): Promise<string> => {
    const exchange = await ctx.call(operation, { path: readPath });
    const status = exchange.response?.status ?? 0;
    return status >= 200 && status < 300 ? JSON.stringify(bodyOf(exchange)) : `status ${String(status)}`;
  };
  return {
    async read() {
      // The three reads at once: reads change nothing, so their order does not matter (a hostile check reads the
      // witnesses after every case, most of its requests).
      const parts = await Promise.all([
        endpoint === undefined ? undefined : totalOf(OperationId.listDeliveryLogs, { query: { webhookId: endpoint, pageSize: 1 } }).then((t) => `events ${t}`),
        list === undefined ? undefined : totalOf(list, { query: { pageSize: 1 } }).then((t) => `${list.operationId} total ${t}`),
        read === undefined || !readable ? undefined : recordOf(read).then((r) => `${read.operationId}: ${r}`),
      ]);
      return parts.filter((p) => p !== undefined).join('; ');
    },
    async close() {
      if (endpoint !== undefined) await ctx.call(OperationId.deleteWebhookEndpoint, { path: { webhookId: endpoint } });
    },
  };
}
