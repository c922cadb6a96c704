// Removing a merchant's records in bounded batches (Knex only), children before parents so that no foreign
// key is ever broken: the sandbox reset removes what the merchant made, the deletion of a sandbox merchant
// that and the merchant itself. Each batch is one call, run by the caller in a transaction of its own.
import type { Knex } from 'knex';

/** One kind of record: how to pick a batch of its keys, and how to delete the rows with those keys. */
interface Step {
  /** The name the reset's answer counts it under (undefined: counted under no name). */
  readonly kind?: string;
  readonly table: string;
  readonly key: string;
  /** The keys of at most `limit` of the merchant's rows. */
  readonly pick: (db: Knex, merchantId: string, limit: number) => Knex.QueryBuilder;
  /** What to keep of the rows with these keys before they are deleted, in the same transaction. */
  readonly keep?: (db: Knex, keys: readonly string[]) => Promise<unknown>;
}

const own = (table: string, key: string, kind?: string): Step => ({
  ...(kind === undefined ? {} : { kind }), table, key,
  pick: (db, merchantId, limit) => db(table).where({ merchant_id: merchantId }).limit(limit).select(key),
});

/** Rows owned through a parent row of the merchant (an invoice's lines, a delivery's attempts). */
const through = (table: string, column: string, parent: string): Step => ({
  table, key: 'id',
  pick: (db, merchantId, limit) => db(table).whereIn(column, db(parent).where({ merchant_id: merchantId }).select('id')).limit(limit).select('id'),
});

/** What the reset removes: everything the merchant made; its credentials, processors and addresses stay. */
export const RESET_STEPS: readonly Step[] = [
  through('webhook_attempts', 'delivery_id', 'webhook_deliveries'),
  own('webhook_deliveries', 'id', 'webhookDeliveries'),
  own('webhook_endpoints', 'id', 'webhookEndpoints'),
  own('notifications', 'id', 'notifications'),
  through('invoice_history', 'invoice_id', 'invoices'),
  through('invoice_line_items', 'invoice_id', 'invoices'),
  // A link's payments name the link and their transactions, and a link its latest transaction: payments, then links.
  own('quick_payment_payments', 'id'),
  own('quick_payments', 'id', 'quickPayments'),
  through('transaction_history', 'transaction_id', 'transactions'),
  own('transactions', 'id', 'transactions'),
  own('settlement_batches', 'id', 'settlementBatches'),
  own('invoices', 'id', 'invoices'),
  own('invoice_number_sequences', 'merchant_id'),
  own('invoice_settings', 'merchant_id'),
  own('payment_methods', 'id', 'paymentMethods'),
  // Deleting customers keeps customer_counts right by trigger; its row goes after them.
  own('customers', 'id', 'customers'),
  own('customer_counts', 'merchant_id'),
  own('line_items', 'id', 'lineItems'),
  own('categories', 'id', 'categories'),
  own('devices', 'device_id', 'devices'),
  own('terminals', 'id', 'terminals'),
  own('subscriptions', 'id', 'subscriptions'),
  own('subscription_settings', 'merchant_id'),
  {
    // Each event's stream position outlives it: a stream resumes after a Last-Event-ID whose event is gone.
    ...own('outbox_events', 'id', 'events'),
    keep: (db, keys) => db.raw(`insert into stream_tombstones (event_id, merchant_id, partner_id, stream_xid, stream_seq)
        select e.id, e.merchant_id, m.partner_id, e.stream_xid, e.stream_seq from outbox_events e join merchants m on m.id = e.merchant_id
         where e.id in (${keys.map(() => '?').join(', ')})`, [...keys]),
  },
  {
    // The Idempotency-Keys of the merchant's own key (a partner's are the partner's). A key still running is
    // a request in flight (perhaps this reset's own): it is left to finish.
    kind: 'idempotencyKeys', table: 'idempotency_keys', key: 'key',
    pick: (db, merchantId, limit) => db('idempotency_keys').where({ tenant: `merchant:${merchantId}`, state: 'done' }).limit(limit).select('key'),
  },
];

/** What deleting the merchant removes besides: its credentials and configuration (the merchant row last). */
export const DELETE_STEPS: readonly Step[] = [
  ...RESET_STEPS.slice(0, -1),
  {
    table: 'idempotency_keys', key: 'key',
    pick: (db, merchantId, limit) => db('idempotency_keys').where({ tenant: `merchant:${merchantId}` }).limit(limit).select('key'),
  },
  own('dashboard_sessions', 'id_hash'),
  own('api_keys', 'client_id'),
  own('users', 'id'),
  own('payment_processors', 'id'),
  own('contact_infos', 'id'),
];

/** Deletes one batch of the step's rows of the merchant; returns how many went (0: none left). */
export async function removeBatch(db: Knex, step: Step, merchantId: string, limit: number): Promise<number> {
  const keys = (await step.pick(db, merchantId, limit) as Record<string, unknown>[]).map((row) => row[step.key]);
  if (keys.length === 0) return 0;
  await step.keep?.(db, keys as string[]);
  let query = db(step.table).whereIn(step.key, keys as string[]);
  // A key column that is not unique alone is narrowed to the merchant (or its tenant).
  if (step.table === 'devices') query = query.where({ merchant_id: merchantId });
  if (step.table === 'idempotency_keys') query = query.where({ tenant: `merchant:${merchantId}` });
  return query.delete();
}

/** Deletes the merchant's own row, once nothing refers to it any more; false when it is already gone. */
export async function removeMerchantRow(db: Knex, merchantId: string): Promise<boolean> {
  return (await db('merchants').where({ id: merchantId }).whereNotNull('deleting_on').delete()) > 0;
}
