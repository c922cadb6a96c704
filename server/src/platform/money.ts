// Amounts travel as JSON numbers in USD and live as integer cents; conversions round to the cent, half
// away from zero, on the decimal digits (not on the binary value: 1.005 is 1.01, not 1.00).

export function toCents(amount: number): number {
  if (!Number.isFinite(amount)) throw new RangeError(`not an amount: ${String(amount)}`);
  const [whole = '0', fraction = ''] = Math.abs(amount).toFixed(10).split('.');
  const digits = `${fraction}000`;
  let cents = Number(whole) * 100 + Number(digits.slice(0, 2));
  if (Number(digits[2]) >= 5) cents += 1;
  return amount < 0 ? -cents : cents;
}

export const fromCents = (cents: number): number => cents / 100;
