// The proration arithmetic to the cent: shares of a period by whole seconds, half-cent rounding away from zero
// on each term, the ends of the period, and a new period's whole price.
import { describe, expect, it } from 'vitest';
import { toCents } from '../platform/money.ts';
import { prorate } from './subscription-proration.ts';

const at = (iso: string): Date => new Date(iso);
const APRIL = [at('2025-04-14T00:00:00Z'), at('2025-05-14T00:00:00Z')] as const;

describe('prorate', () => {
  it.each([
    // [previous, next, at, remaining seconds, unused credit, remaining charge, net]
    ['the spec example: 20 of 30 days left, 29.99 -> 49.99', 29.99, 49.99, '2025-04-24T00:00:00Z', 1_728_000, 19.99, 33.33, 13.34],
    ['a downgrade is a negative net', 49.99, 29.99, '2025-04-24T00:00:00Z', 1_728_000, 33.33, 19.99, -13.34],
    ['at the period start: the whole difference', 10, 25, '2025-04-14T00:00:00Z', 2_592_000, 10, 25, 15],
    ['at the period end: nothing', 10, 25, '2025-05-14T00:00:00Z', 0, 0, 0, 0],
    ['after the period end: nothing (clamped)', 10, 25, '2025-05-20T00:00:00Z', 0, 0, 0, 0],
    ['before the period start: the whole period (clamped)', 10, 25, '2025-04-01T00:00:00Z', 2_592_000, 10, 25, 15],
    ['half a cent rounds away from zero: 0.01 x 1/2', 0.01, 0.03, '2025-04-29T00:00:00Z', 1_296_000, 0.01, 0.02, 0.01],
    ['a fraction of a second left is not counted', 30, 60, '2025-05-13T23:59:59.500Z', 0, 0, 0, 0],
  ] as const)('%s', (_name, previous, next, when, remaining, credit, charge, net) => {
    const [start, end] = APRIL;
    const p = prorate(toCents(previous), toCents(next), start, end, at(when), false);
    expect([p.periodSeconds, p.remainingSeconds, p.unusedCredit, p.remainingCharge, p.net]).toEqual([2_592_000, remaining, toCents(credit), toCents(charge), toCents(net)]);
  });

  it('a new period (new frequency) charges the whole new price less the unused credit', () => {
    const p = prorate(toCents(30), toCents(300), APRIL[0], APRIL[1], at('2025-04-29T00:00:00Z'), true);
    expect([p.unusedCredit, p.remainingCharge, p.net]).toEqual([toCents(15), toCents(300), toCents(285)]);
  });

  it('is exact where floating point is not: 999999.99 x 1/3 of a period', () => {
    const start = at('2025-01-01T00:00:00Z');
    const end = new Date(start.getTime() + 3_000);
    const p = prorate(toCents(0.01), toCents(999_999.99), start, end, new Date(start.getTime() + 2_000), false);
    // 99999999 cents / 3 = 33333333 exactly; 1 cent / 3 = 0.33 -> 0.
    expect([p.remainingCharge, p.unusedCredit]).toEqual([33_333_333, 0]);
  });
});
