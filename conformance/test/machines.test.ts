// The machine walk reaches, from the spec's tables alone, every status an operation, the sandbox's network
// simulation, its clock or a magic card (read from the spec's magic-value table) leads to.
import { describe, expect, it } from 'vitest';
import { decliningRoutes, reachableStatuses } from '../src/checks/machine-tables.ts';
import { Spec } from '../src/spec.ts';

describe('the machine walk', () => {
  it('reaches the statuses of declining first rows through magic cards, and the network ones through simulation', () => {
    const reached = reachableStatuses(Spec.load());
    expect(reached['CardTransactionStatus:Authorization']).toEqual(expect.arrayContaining(['Authorized', 'PartiallyAuthorized', 'Declined', 'Failed', 'Captured', 'Settled', 'Voided', 'Refunded', 'PartiallyRefunded', 'Expired']));
    expect(reached['CardTransactionStatus:Sale']).toEqual(expect.arrayContaining(['Captured', 'Declined', 'Failed', 'Settled', 'Voided', 'Refunded', 'PartiallyRefunded']));
    expect(reached['AchTransactionStatus:AchDebit']).toEqual(expect.arrayContaining(['Scheduled', 'Held', 'Cancelled', 'InProgress', 'Settled', 'ChargedBack', 'Failed', 'Refunded', 'PartiallyRefunded']));
  });

  it('produces a declining first row by a magic card for one of its codes, else by an amount over maxTransactionAmount', () => {
    const declining = decliningRoutes(Spec.load());
    // ACH has no magic card: its Failed (102) row comes from the code the spec explains by maxTransactionAmount.
    expect(declining['AchTransactionStatus:AchDebit']).toEqual(['Failed 102 by an amount over the limit']);
    expect(declining['CardTransactionStatus:Sale']?.some((r) => /^Declined .* by card \d+$/.test(r))).toBe(true);
  });
});
