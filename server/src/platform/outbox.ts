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

export async function recordEvent<T extends WebhookEventName>(trx: Knex, event: OutboxEvent<T>): Promise<string> {
  const id = randomUUID();
  await trx('outbox_events').insert({
    id,
    merchant_id: event.merchantId,
    type: event.type,
    payload: JSON.stringify(event.data),
    occurred_on: event.occurredOn,
  });
  return id;
}
