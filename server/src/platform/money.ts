// Amounts travel as JSON numbers in USD and live as integer cents. A request's amounts are validated as plain
// decimals of at most two places (the spec's `multipleOf: 0.01`, judged on the text the client wrote), so the
// conversion is exact: it reads the number's own decimal digits and refuses, never rounds, anything else.

/** The cents of an amount of at most two decimal places; a RangeError for anything else (NaN, 1e21, 1.005). */
export function toCents(amount: number): number {
  const text = String(amount);
  const plain = /^(-?)(\d+)(?:\.(\d{1,2}))?$/.exec(text);
  if (!plain) throw new RangeError(`not an amount of whole cents: ${text}`);
  const cents = Number(plain[2]) * 100 + Number((plain[3] ?? '').padEnd(2, '0'));
  if (!Number.isSafeInteger(cents)) throw new RangeError(`not an amount of whole cents: ${text}`);
  return plain[1] === '-' ? -cents : cents;
}

export const fromCents = (cents: number): number => cents / 100;
