// Money is integer cents of USD, typed `Cents` so a plain number cannot pass for an amount. Cents are made only
// here: from a database column (repositories), from a wire amount (`toCents`), from exact arithmetic, and by the
// helpers below that keep the type. They leave as a JSON number by one mapping (`fromCents`, with `wireText` its
// text) and as text for people by one formatter (`formatUsd`).
import { product } from './decimal.ts';

declare const centsBrand: unique symbol;

/** An amount in integer cents of USD. */
export type Cents = number & { readonly [centsBrand]: 'Cents' };

const checked = (value: number, what: string): Cents => {
  if (!Number.isSafeInteger(value)) throw new RangeError(`not an amount of whole cents: ${what}`);
  return value as Cents;
};

/** No money. */
export const ZERO_CENTS = 0 as Cents;

// ---- constructors

/**
 * The cents of a wire amount of at most two decimal places; a RangeError for anything else (NaN, 1e21, 1.005).
 * A request's amounts are validated as plain decimals of at most two places (the spec's `multipleOf: 0.01`,
 * judged on the text the client wrote), so the conversion is exact: it reads the number's own decimal digits
 * and refuses, never rounds, anything else.
 */
export function toCents(amount: number): Cents {
  const text = String(amount);
  const plain = /^(-?)(\d+)(?:\.(\d{1,2}))?$/.exec(text);
  if (!plain) throw new RangeError(`not an amount of whole cents: ${text}`);
  const cents = Number(plain[2]) * 100 + Number((plain[3] ?? '').padEnd(2, '0'));
  return checked(plain[1] === '-' ? -cents : cents, text);
}

/** A money column as read (PostgreSQL returns bigint as text; SQLite a number). */
export const centsOfColumn = (value: number | string): Cents => checked(Number(value), String(value));

/** A nullable money column as read. */
export const centsOrNullOfColumn = (value: number | string | null | undefined): Cents | null =>
  (value === null || value === undefined ? null : centsOfColumn(value));

/** The result of exact integer arithmetic on cents (invoice calculations), refused beyond a safe integer. */
export function centsOfExact(value: bigint): Cents {
  if (value > BigInt(Number.MAX_SAFE_INTEGER) || value < -BigInt(Number.MAX_SAFE_INTEGER)) {
    throw new RangeError(`an amount of ${value.toString()} cents is beyond exact arithmetic`);
  }
  return Number(value) as Cents;
}

/** Rounds a cent amount with fractions to a whole cent, half away from zero. */
export function roundCents(value: number): Cents {
  // Decimal rounding on the value's shortest decimal form, so 100.49999999999999 (from 1.005 * 100) is 100.5.
  // Math.round of a non-negative number rounds halves up, that is away from zero.
  const result = Math.round(Number(Math.abs(value).toPrecision(15)));
  return checked(value < 0 ? -result : result, String(value));
}

// ---- arithmetic that keeps the type

/** The sum of amounts. */
export const sumCents = (...amounts: readonly Cents[]): Cents => checked(amounts.reduce((sum, a) => sum + a, 0), 'a sum');

/** a − b. */
export const minusCents = (a: Cents, b: Cents): Cents => checked(a - b, 'a difference');

/** The smaller amount. */
export const minCents = (a: Cents, b: Cents): Cents => (a <= b ? a : b);

/** A percentage of a cent amount, rounded to the cent, half away from zero (exactly: 1.5 cents is 2, whatever binary says). */
export const percentOf = (cents: Cents, percentage: number): Cents => centsOfExact(product(cents, percentage, 2));

/**
 * cents x numerator / denominator (whole numbers, denominator above 0), rounded to the cent half away from zero,
 * exactly in integers (a proration: an amount times the share of a period left).
 */
export function fractionOf(cents: Cents, numerator: number, denominator: number): Cents {
  if (!Number.isSafeInteger(numerator) || !Number.isSafeInteger(denominator) || denominator <= 0) throw new RangeError(`not a fraction: ${String(numerator)}/${String(denominator)}`);
  const n = BigInt(cents) * BigInt(numerator);
  const d = BigInt(denominator);
  const whole = n / d;
  const rest = n % d;
  const twice = (rest < 0n ? -rest : rest) * 2n;
  return centsOfExact(twice >= d ? whole + (n < 0n ? -1n : 1n) : whole);
}

// ---- out: the wire and people

/** The one wire mapping: cents as the JSON number of USD an answer carries (1234.5 for 123450). */
export const fromCents = (cents: Cents): number => cents / 100;

/** A wire amount as text, two places, as the spec's examples and the page's form values write it ("1234.50"). */
export const wireText = (cents: Cents): string => fromCents(cents).toFixed(2);

/** USD for people, with thousands separators: 123456789 -> $1,234,567.89, -500 -> -$5.00 (no floating point). */
export function formatUsd(cents: Cents): string {
  const sign = cents < 0 ? '-' : '';
  const abs = Math.abs(cents);
  const dollars = Math.floor(abs / 100).toString().replace(/\B(?=(\d{3})+(?!\d))/g, ',');
  return `${sign}$${dollars}.${String(abs % 100).padStart(2, '0')}`;
}
