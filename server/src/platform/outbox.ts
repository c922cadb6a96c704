// The transactional outbox: an event is written in the same transaction as the change it reports, and a
// dispatcher (the webhooks issue) delivers it later. Nothing is lost if the process stops in between.
import { randomUUID } from 'node:crypto';
import type { Knex } from 'knex';

export interface OutboxEvent {
  merchantId: string;
  type: string;
  /** The resource as the API returns it (the event's `data`). */
  data: unknown;
  occurredOn: string;
}

export async function recordEvent(trx: Knex, event: OutboxEvent): Promise<string> {
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
