// The transactional outbox: an event is written in the same transaction as the change it reports, with one
// Pending delivery for each active webhook of the merchant that selects its type at that moment (the
// fan-out); the delivery engine sends them later. Nothing is lost if the process stops in between. The
// payload is the generated type of the event's `data`, so a wrong record for an event type does not compile.
import { newId } from './ids.ts';
import type { Knex } from 'knex';
import { findEventRows, insertEvent, insertEvents } from '../repositories/outbox.ts';
import { apiSpec, webhookEventProblems } from '@pgw/client/server';
import type { WebhookEvent, WebhookEventName } from '@pgw/client/webhooks';
import { insertFanOut } from '../repositories/webhook-deliveries.ts';
import { groupBy } from './group.ts';
import { whenCommitted } from './transaction.ts';
import { deliveriesDue } from './wakeups.ts';

/** The `data` of an event type, as the spec's payload schema types it. */
export type EventData<T extends WebhookEventName> = Extract<WebhookEvent, { type: T }>['data'];

export interface OutboxEvent<T extends WebhookEventName> {
  merchantId: string;
  type: T;
  /** The resource as the API returns it (the event's `data`). */
  data: EventData<T>;
  occurredOn: string;
}

/** An event whose body breaks its webhook's schema: thrown inside the change's transaction, so nothing commits. */
export class EventContractError extends Error {
  constructor(type: string, problems: readonly { path: string; message: string }[]) {
    super(`The ${type} event does not match its schema: ${problems.slice(0, 5).map((p) => `${p.path} ${p.message}`).join('; ')}`);
    this.name = 'EventContractError';
  }
}

/**
 * The event's row, after the final guard: the body a receiver would be sent is checked against the spec's
 * webhook. A change whose record cannot be represented (an amount that is not a finite number, a field of the
 * wrong type) fails here, inside its transaction, and rolls back instead of committing a record that every
 * later read would answer with a 500.
 */
function rowOf<T extends WebhookEventName>(event: OutboxEvent<T>): { id: string; merchant_id: string; type: T; payload: string; occurred_on: string } {
  const id = newId();
  const problems = webhookEventProblems(apiSpec, event.type, { id, type: event.type, timestamp: event.occurredOn, merchantId: event.merchantId, data: event.data });
  if (problems.length > 0) throw new EventContractError(event.type, problems);
  return { id, merchant_id: event.merchantId, type: event.type, payload: JSON.stringify(event.data), occurred_on: event.occurredOn };
}

type Row = ReturnType<typeof rowOf>;

/** One delivery per (event, subscribed active webhook of its merchant), in the events' transaction. */
async function fanOut(trx: Knex, rows: readonly Row[]): Promise<void> {
  let scheduled = false;
  for (const [merchantId, events] of groupBy(rows, (row) => row.merchant_id)) {
    if (await insertFanOut(trx, merchantId, events.map((e) => ({ eventId: e.id, eventType: e.type, at: e.occurred_on })))) scheduled = true;
  }
  // Deliveries due now start once they are committed, not at the worker's next poll.
  if (scheduled) whenCommitted(trx, deliveriesDue);
}

export async function recordEvent<T extends WebhookEventName>(trx: Knex, event: OutboxEvent<T>): Promise<string> {
  const row = rowOf(event);
  await insertEvent(trx, row);
  await fanOut(trx, [row]);
  return row.id;
}

/** Records many events, many rows a statement (a clock advance that settles thousands of transactions). */
export async function recordEvents<T extends WebhookEventName>(trx: Knex, events: readonly OutboxEvent<T>[]): Promise<void> {
  const rows = events.map(rowOf);
  await insertEvents(trx, rows);
  await fanOut(trx, rows);
}

export interface StoredEvent { id: string; merchantId: string; type: string; data: unknown; occurredOn: string }

/** Events as recorded (what deliveries send), by id, in one query. */
export async function findEvents(db: Knex, ids: readonly string[]): Promise<Map<string, StoredEvent>> {
  const rows = await findEventRows(db, ids);
  return new Map(rows.map((row) => [row.id, { id: row.id, merchantId: row.merchant_id, type: row.type, data: JSON.parse(row.payload) as unknown, occurredOn: row.occurred_on }]));
}
