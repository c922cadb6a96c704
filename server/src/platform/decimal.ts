// Exact decimal arithmetic for money: a number is taken at its shortest decimal form (1.005 is 1.005, as a
// person typed it), multiplied exactly as integers, and rounded once, half away from zero.

interface Decimal {
  /** value = digits / 10^scale */
  readonly digits: bigint;
  readonly scale: number;
}

function decimalOf(value: number): Decimal {
  if (!Number.isFinite(value)) throw new RangeError(`not a finite number: ${String(value)}`);
  // String() gives the shortest text that reads back as the same double, in exponent form when tiny or huge.
  const [mantissa = '0', exponent = '0'] = String(Math.abs(value)).split('e');
  const [whole = '0', fraction = ''] = mantissa.split('.');
  let digits = BigInt(whole + fraction);
  let scale = fraction.length - Number(exponent);
  if (scale < 0) {
    digits *= 10n ** BigInt(-scale);
    scale = 0;
  }
  return { digits: value < 0 ? -digits : digits, scale };
}

/** digits / 10^scale rounded to an integer, half away from zero. */
function roundScaled(digits: bigint, scale: number): bigint {
  if (scale === 0) return digits;
  const divisor = 10n ** BigInt(scale);
  const magnitude = digits < 0n ? -digits : digits;
  let quotient = magnitude / divisor;
  if ((magnitude % divisor) * 2n >= divisor) quotient += 1n;
  return digits < 0n ? -quotient : quotient;
}

/** round(a × b / 10^shift), exact: the product of two decimals, divided by a power of ten, rounded once. */
export function product(a: number | bigint, b: number, shift = 0): bigint {
  const x = typeof a === 'bigint' ? { digits: a, scale: 0 } : decimalOf(a);
  const y = decimalOf(b);
  return roundScaled(x.digits * y.digits, x.scale + y.scale + shift);
}
