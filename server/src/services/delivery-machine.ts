// The webhook delivery family of the engine: the spec's delivery machine (x-state-machine on
// WebhookDeliveryStatus) over webhook_deliveries. A change is what an attempt leaves (the attempt number and
// the next due time) and the attempt itself, which is the delivery's history (webhook_attempts). No row of
// the machine emits an event: a delivery is how events leave, not an event of its own.
import { webhookDeliveryStateMachine, type WebhookDeliveryTransition } from '@pgw/client/state-machines';
import { ApiError } from '../platform/errors.ts';
import { iso } from '../platform/time.ts';
import * as repo from '../repositories/webhook-deliveries.ts';
import type { AttemptRecord, DeliveryRecord } from '../repositories/webhook-deliveries.ts';
import * as engine from './engine.ts';

/** A manual retry of a delivery: the same event to the same webhook, as a new delivery. */
export interface NewDelivery {
  readonly merchantId: string;
  readonly endpointId: string;
  readonly eventId: string;
  readonly eventType: string;
}

/** What a move of a delivery writes besides its status. */
export interface DeliveryChange {
  /** The attempt number after the move: the upcoming attempt (Pending), or the last one made (Failed). */
  readonly attemptNumber: number;
  /** When the next attempt falls due (business time of the merchant); null when none will. */
  readonly nextRetryAt: string | null;
  /**
   * The attempt the move records (the delivery's history); none when it fails without one. It carries its own
   * time: attempts recorded together were made at their own business times.
   */
  readonly attempt?: Omit<AttemptRecord, 'deliveryId'>;
}

const deliveries: engine.Adapter<DeliveryRecord, WebhookDeliveryTransition, DeliveryChange, engine.InTransaction, NewDelivery> = {
  table: 'webhook_deliveries',
  fromRow: (row) => repo.recordOf(row as unknown as repo.Row),
  status: (record) => record.status,
  type: () => null,
  merchantOf: (record) => record.merchantId,
  // The creation row a manual retry takes (retryDelivery). The outbox's fan-out (delivery.scheduled) inserts its
  // deliveries itself, many a statement in the events' transaction: the platform does not call services.
  initial: () => ({ type: null }),
  insert: async (db, fresh, _row, _change, at) => {
    const id = await repo.insertManual(db, { ...fresh, at: iso(at) });
    const stored = await repo.findDelivery(db, fresh.merchantId, id);
    if (!stored) throw new ApiError('internal_error', { details: `delivery ${id} is gone under its own creation` });
    return stored;
  },
  apply: async (db, moves) => {
    const afters = moves.map(({ record, row, change }): DeliveryRecord => {
      const made = change.attempt;
      return {
        ...record, status: row.to, attemptNumber: change.attemptNumber, nextRetryAt: change.nextRetryAt,
        ...(made ? { lastAttemptAt: made.attemptedOn, responseStatusCode: made.responseStatusCode, responseDurationMs: made.durationMs } : {}),
      };
    });
    // The records were locked when they were read, so only a caller that did not lock them gets here.
    const changed = await repo.changeDeliveries(db, afters);
    if (changed !== afters.length) throw new ApiError('internal_error', { details: `${String(afters.length - changed)} of ${String(afters.length)} deliveries changed under a transition` });
    return afters;
  },
  remove: () => Promise.reject(new ApiError('internal_error', { details: 'a delivery is never removed by a transition' })),
  history: async (db, moved) => {
    await repo.insertAttempts(db, moved.flatMap(({ after, change }) => (change.attempt ? [{ ...change.attempt, deliveryId: after.id }] : [])));
  },
  eventData: () => Promise.reject(new ApiError('internal_error', { details: 'a delivery emits no event' })),
};

/**
 * The change of a Pending delivery that fails without an attempt (its webhook inactive or deleted): a Pending
 * delivery's attemptNumber is the upcoming attempt; once Failed it is the last one made (1 when none was).
 */
export const failedUnattempted = (d: Pick<DeliveryRecord, 'attemptNumber'>): DeliveryChange => ({ attemptNumber: Math.max(1, d.attemptNumber - 1), nextRetryAt: null });

/** The webhook delivery machine over webhook_deliveries. */
export const deliveryFamily = engine.family(webhookDeliveryStateMachine, deliveries);
