// The payment setups an instance keeps: read once per merchant, answered as read, unknown merchants not kept, and
// no more merchants kept than the limit (the least recently used forgotten first).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDatabase, migrate, type Database } from '../db/knex.ts';
import { seedDemoData } from '../db/seed.ts';
import { systemClock } from '../platform/time.ts';
import { paymentSetupOf } from '../repositories/merchants.ts';
import { PaymentSetups } from './payment-setups.ts';

describe('PaymentSetups', () => {
  let db: Database;
  let merchants: string[];
  let statements = 0;
  beforeAll(async () => {
    db = createDatabase('sqlite::memory:');
    await migrate(db, 'sandbox');
    const secrets = await seedDemoData(db, systemClock, 'sandbox');
    merchants = (secrets?.merchants ?? []).map((m) => m.merchantId);
    db.on('query', () => { statements += 1; });
  });
  afterAll(async () => { await db.destroy(); });

  it('reads a merchant\'s setup once and answers what the database holds', async () => {
    const [a, b] = merchants;
    if (a === undefined || b === undefined) throw new Error('the demo data has two merchants');
    const setups = new PaymentSetups();
    const expected = await paymentSetupOf(db, a);
    expect(expected?.processors.length).toBeGreaterThan(0);
    statements = 0;
    for (let i = 0; i < 5; i++) expect(await setups.of(db, a)).toEqual(expected);
    expect(statements).toBe(1);
    expect(await setups.of(db, b)).toEqual(await paymentSetupOf(db, b));
    expect(setups.size).toBe(2);
  });

  it('keeps no unknown merchant: it is read again each time', async () => {
    const setups = new PaymentSetups();
    statements = 0;
    expect(await setups.of(db, '00000000-0000-4000-8000-000000000000')).toBeUndefined();
    expect(await setups.of(db, '00000000-0000-4000-8000-000000000000')).toBeUndefined();
    expect(statements).toBe(2);
    expect(setups.size).toBe(0);
  });

  it('keeps at most its limit, forgetting the least recently used', async () => {
    const [a, b] = merchants;
    if (a === undefined || b === undefined) throw new Error('the demo data has two merchants');
    const setups = new PaymentSetups(1);
    await setups.of(db, a);
    await setups.of(db, b);
    expect(setups.size).toBe(1);
    statements = 0;
    await setups.of(db, b);
    expect(statements).toBe(0);
    await setups.of(db, a);
    expect(statements).toBe(1);
  });
});
