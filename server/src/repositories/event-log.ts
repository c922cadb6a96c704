// A merchant's events (the outbox) as a page of a list, with the webhook deliveries of those events and the
// attempts of those deliveries, each read in one query (Knex only).
import type { Knex } from 'knex';
import { pageOf, type ListQuery } from './paging.ts';
import { recordOf, type AttemptRecord, type DeliveryRecord, type Row as DeliveryRow } from './webhook-deliveries.ts';

export interface EventRecord { id: string; type: string; occurredOn: string }

export async function listEvents(db: Knex, merchantId: string, list: ListQuery): Promise<{ items: EventRecord[]; total: number }> {
  const { rows, total } = await pageOf(db('outbox_events').where({ merchant_id: merchantId }).select('id', 'type', 'occurred_on'), list, {
    orderable: { occurredOn: 'occurred_on' },
    defaultOrder: 'occurredOn',
    searchable: ['type'],
    dateColumn: 'occurred_on',
    idColumn: 'id',
    notNull: ['occurredOn'],
  });
  return { items: rows.map((r) => ({ id: String(r.id), type: String(r.type), occurredOn: String(r.occurred_on) })), total };
}

/** The merchant's deliveries of these events (a page of events: at most 100 ids), oldest first. */
export async function deliveriesOf(db: Knex, merchantId: string, eventIds: readonly string[]): Promise<DeliveryRecord[]> {
  if (eventIds.length === 0) return [];
  const rows = await db('webhook_deliveries').where({ merchant_id: merchantId }).whereIn('event_id', eventIds)
    .orderBy([{ column: 'created_on' }, { column: 'id' }]).select<DeliveryRow[]>('*');
  return rows.map(recordOf);
}

/** The attempts of these deliveries, in attempt order. */
export async function attemptsOfAll(db: Knex, deliveryIds: readonly string[]): Promise<AttemptRecord[]> {
  const found: AttemptRecord[] = [];
  // Chunks keep each statement well under SQLite's bound on parameters.
  for (let i = 0; i < deliveryIds.length; i += 200) {
    const rows = await db('webhook_attempts').whereIn('delivery_id', deliveryIds.slice(i, i + 200))
      .orderBy([{ column: 'delivery_id' }, { column: 'attempt_number' }]).select<Record<string, unknown>[]>('*');
    found.push(...rows.map((r) => ({
      deliveryId: String(r.delivery_id), attemptNumber: Number(r.attempt_number), attemptedOn: String(r.attempted_on),
      responseStatusCode: r.response_status_code === null ? null : Number(r.response_status_code), durationMs: Number(r.duration_ms),
      outcome: String(r.outcome), responseExcerpt: (r.response_excerpt as string | null) ?? null,
    })));
  }
  return found;
}
