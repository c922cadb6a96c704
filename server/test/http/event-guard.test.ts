// The final guard of every change, on both engines: an event whose body breaks its webhook's schema (an amount
// that is not a finite number, a field missing or of the wrong type) is refused inside its transaction, so the
// change it reports rolls back with it instead of committing a record every later read answers with a 500.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EventContractError, recordEvent, type OutboxEvent } from '../../src/platform/outbox.ts';
import { transaction } from '../../src/platform/transaction.ts';
import { engines, startServer, type TestServer } from '../harness.ts';
import { snapshot } from '../../../scripts/lib/db-snapshot.ts';
import { cardBody, paymentCalls, transactionEvents } from './payment-helpers.ts';

describe.each(engines())('the event guard (%s)', (engine) => {
  let s: TestServer;
  let declined: OutboxEvent<'payment.card.declined'>;
  beforeAll(async () => {
    s = await startServer(engine);
    // A real declined payment's event, as the server recorded it (the do-not-honor magic card).
    const result = await paymentCalls(() => s).cardCreate(await s.as(0), 'sale', cardBody('4000000000000002'));
    const [event] = (await transactionEvents(s, result.transactionId)).filter((e) => e.type === 'payment.card.declined');
    if (!event) throw new Error('the declined card made no payment.card.declined event');
    declined = { merchantId: s.merchantId(0), type: 'payment.card.declined', data: event.data as never, occurredOn: event.occurredOn };
  });
  afterAll(async () => { await s.close(); });

  /** Renames merchant 0 and records `event` in the same transaction. */
  const change = (event: OutboxEvent<'payment.card.declined'>) => transaction(s.db, async (tx) => {
    await tx('merchants').where({ id: s.merchantId(0) }).update({ company_name: 'Renamed in the guarded transaction' });
    return recordEvent(tx, event);
  });

  it('lets a valid event commit with its change', async () => {
    await expect(change(declined)).resolves.toEqual(expect.any(String));
    const row = (await s.db('merchants').where({ id: s.merchantId(0) }).first()) as { company_name: string };
    expect(row.company_name).toBe('Renamed in the guarded transaction');
  });

  const broken: [string, (data: Record<string, unknown>) => Record<string, unknown>][] = [
    ['an infinite amount', (d) => ({ ...d, amount: Infinity })],
    ['a NaN amount', (d) => ({ ...d, amount: Number.NaN })],
    ['a null amount', (d) => ({ ...d, amount: null })],
    ['an amount as text', (d) => ({ ...d, amount: '4.99' })],
    ['a missing transaction id', (d) => Object.fromEntries(Object.entries(d).filter(([key]) => key !== 'transactionId'))],
    ['a status id of the wrong type', (d) => ({ ...d, statusId: 'Declined' })],
  ];
  it.each(broken)('refuses %s and rolls back the change with it', async (_name, breakIt) => {
    await s.db('merchants').where({ id: s.merchantId(0) }).update({ company_name: 'Before' });
    const before = await snapshot(s.db);
    await expect(change({ ...declined, data: breakIt(declined.data as Record<string, unknown>) as never })).rejects.toBeInstanceOf(EventContractError);
    expect((await snapshot(s.db)).changedSince(before)).toEqual([]);
  });
});
