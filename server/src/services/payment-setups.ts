// Each merchant's payment setup (its processors and maxTransactionAmount) kept by the instance: every payment
// read it, and on PostgreSQL that read was the first of a payment's two round trips (the held inserts and the
// commit are the other). The setup is written once, with the merchant (repositories/merchant-setup.ts), and no
// operation changes it; a reset keeps it and a deleted merchant's payments fail on its missing row. An
// operation that comes to change it must forget the merchant here on every instance (keyStates.changed's way).
import type { Knex } from 'knex';
import { paymentSetupOf, type PaymentSetupRecord } from '../repositories/merchants.ts';

/** Merchants kept at most (the least recently used is forgotten first). */
const MAX_KEPT = 10_000;

export class PaymentSetups {
  private readonly kept = new Map<string, PaymentSetupRecord>();

  constructor(private readonly limit = MAX_KEPT) {}

  /** The merchant's setup, read with `db` the first time; undefined (and not kept) for an unknown merchant. */
  async of(db: Knex, merchantId: string): Promise<PaymentSetupRecord | undefined> {
    const found = this.kept.get(merchantId);
    if (found !== undefined) {
      // Re-inserted: the map's order is the order of last use.
      this.kept.delete(merchantId);
      this.kept.set(merchantId, found);
      return found;
    }
    const read = await paymentSetupOf(db, merchantId);
    if (read === undefined) return undefined;
    if (this.kept.size >= this.limit) {
      const oldest = this.kept.keys().next();
      if (oldest.done !== true) this.kept.delete(oldest.value);
    }
    this.kept.set(merchantId, read);
    return read;
  }

  /** How many merchants are kept (for tests). */
  get size(): number {
    return this.kept.size;
  }
}
