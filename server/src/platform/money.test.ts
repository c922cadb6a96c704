// Money: the only ways to make Cents (wire, column, exact arithmetic, rounding), the arithmetic that keeps the
// type with its rounding, the one wire mapping and the one formatter for people.
import { describe, expect, it } from 'vitest';
import {
  centsOfColumn, centsOfExact, centsOrNullOfColumn, type Cents, formatUsd, fromCents, minCents, minusCents, percentOf, roundCents,
  sumCents, toCents, wireText, ZERO_CENTS,
} from './money.ts';

/** A table's amounts as cents. */
const cents = (value: number): Cents => value as Cents;

describe('constructors', () => {
  it.each([[12.34, 1234], [0.1, 10], [5, 500], [-2.5, -250], [1000000.01, 100000001]])('toCents(%d) is %i', (amount, want) => {
    expect(toCents(amount)).toBe(want);
  });

  it.each([[1.005], [Number.NaN], [1e21], [0.001]])('toCents(%d) refuses what is not whole cents', (amount) => {
    expect(() => toCents(amount)).toThrow(RangeError);
  });

  it('reads a column as PostgreSQL (bigint text) and SQLite (number) give it', () => {
    expect(centsOfColumn('9007199254740991')).toBe(Number.MAX_SAFE_INTEGER);
    expect(centsOfColumn(1234)).toBe(1234);
    expect(centsOrNullOfColumn(null)).toBeNull();
    expect(() => centsOfColumn('12.5')).toThrow(RangeError);
  });

  it('refuses exact results beyond a safe integer', () => {
    expect(centsOfExact(9_000_000_000_000_000n)).toBe(9_000_000_000_000_000);
    expect(() => centsOfExact(10n ** 16n)).toThrow(RangeError);
  });

  it('does not take a plain number where cents are expected', () => {
    // @ts-expect-error a number is not Cents without a constructor
    const unbranded: Cents = 5;
    expect(formatUsd(unbranded)).toBe('$0.05');
  });
});

describe('arithmetic', () => {
  it('sums, subtracts and takes the smaller amount', () => {
    expect(sumCents(cents(150), cents(250), cents(-100))).toBe(300);
    expect(sumCents()).toBe(ZERO_CENTS);
    expect(minusCents(cents(100), cents(250))).toBe(-150);
    expect(minCents(cents(100), cents(250))).toBe(100);
  });

  it.each([
    // [value, rounded]: halves go away from zero; the shortest decimal form counts (100 × 1.005).
    [100 * 1.005, 101], [0.5, 1], [1.5, 2], [2.5, 3], [-0.5, -1], [-2.5, -3], [2.4999, 2], [-2.4999, -2], [0, 0],
  ])('roundCents(%d) is %d', (value, rounded) => {
    expect(roundCents(value)).toBe(rounded);
  });

  it.each([
    // [cents, percentage, result]
    [1200, 0.125, 2], // 1.5 -> 2
    [1000, 0.125, 1], // 1.25 -> 1
    [3000, 1.15, 35], // 34.5 exactly (34.49999999999999 in doubles) -> 35
    [101270, 8.25, 8355], // 8354.775 -> 8355
    [1005, 50, 503], // 502.5 -> 503
    [-1005, 50, -503], // half away from zero below zero too
    [0, 8.25, 0],
    [12345, 0, 0],
  ])('percentOf(%d, %d) is %d', (amount, percentage, result) => {
    expect(percentOf(cents(amount), percentage)).toBe(result);
  });
});

describe('out', () => {
  it.each([[123450, 1234.5], [1, 0.01], [-250, -2.5], [0, 0]])('fromCents(%i) is the wire number %d', (amount, want) => {
    expect(fromCents(cents(amount))).toBe(want);
  });

  it.each([[5425, '54.25'], [123450, '1234.50'], [7, '0.07'], [-250, '-2.50']])('wireText(%i) is %s', (amount, want) => {
    expect(wireText(cents(amount))).toBe(want);
  });

  it.each([[0, '$0.00'], [5, '$0.05'], [100, '$1.00'], [123456, '$1,234.56'], [100000000, '$1,000,000.00'], [-2550, '-$25.50'], [29, '$0.29'],
    [-500, '-$5.00'], [112914, '$1,129.14']])('formatUsd(%i) is %s', (amount, text) => {
    expect(formatUsd(cents(amount))).toBe(text);
  });

  it('prints what the locale formatter it replaced printed, for every sign and size', () => {
    for (const amount of [0, 1, 99, 100, 101, 99999, 100000, 123456789, -1, -100, -123456789, 99_999_999_999_999]) {
      expect(formatUsd(cents(amount))).toBe((amount / 100).toLocaleString('en-US', { style: 'currency', currency: 'USD' }));
    }
  });

  it('keeps the cents where dollars as a double no longer can (the locale formatter printed .90 here)', () => {
    expect(formatUsd(cents(Number.MAX_SAFE_INTEGER))).toBe('$90,071,992,547,409.91');
  });
});
