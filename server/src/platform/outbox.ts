// The transactional outbox: an event is written in the same transaction as the change it reports, and a
// dispatcher (the webhooks issue) delivers it later. Nothing is lost if the process stops in between. The
// payload is the generated type of the event's `data`, so a wrong record for an event type does not compile.
import { randomUUID } from 'node:crypto';
import type { Knex } from 'knex';
import type { WebhookEvent, WebhookEventName } from '../../../generated/webhooks.ts';

/** The `data` of an event type, as the spec's payload schema types it. */
export type EventData<T extends WebhookEventName> = Extract<WebhookEvent, { type: T }>['data'];

export interface OutboxEvent<T extends WebhookEventName> {
  merchantId: string;
  type: T;
  /** The resource as the API returns it (the event's `data`). */
  data: EventData<T>;
  occurredOn: string;
}

const rowOf = <T extends WebhookEventName>(event: OutboxEvent<T>): { id: string; merchant_id: string; type: T; payload: string; occurred_on: string } => ({
  id: randomUUID(), merchant_id: event.merchantId, type: event.type, payload: JSON.stringify(event.data), occurred_on: event.occurredOn,
});

export async function recordEvent<T extends WebhookEventName>(trx: Knex, event: OutboxEvent<T>): Promise<string> {
  const row = rowOf(event);
  await trx('outbox_events').insert(row);
  return row.id;
}

/** Records many events, many rows a statement (a clock advance that settles thousands of transactions). */
export async function recordEvents<T extends WebhookEventName>(trx: Knex, events: readonly OutboxEvent<T>[]): Promise<void> {
  for (let i = 0; i < events.length; i += 200) await trx('outbox_events').insert(events.slice(i, i + 200).map(rowOf));
}
