// Invoice calculations: line totals, subtotal, discount, tax, fees, shipping, and per payment type
// (debit card, credit card, ACH) surcharge or cash discount. Integer cents inside; every step rounds to
// the cent, half away from zero, as the spec states. A pure module: no database, no HTTP.

/** One line: price in cents, quantity (may be fractional), line discount in percent (0..100). */
export interface CalcLine {
  readonly unitPriceCents: number;
  readonly quantity: number;
  readonly discountPercentage: number;
}

export interface CalcInput {
  readonly lines: readonly CalcLine[];
  readonly shippingCents: number;
  /** Percentages of the invoice, 0..100. */
  readonly taxPercentage: number;
  readonly feesPercentage: number;
  readonly discountPercentage: number;
  /** The merchant's zero cost processing option: 0 None, 1 Surcharge, 2 CashDiscount, 3 DualPricing. */
  readonly zeroCostProcessingOptionId: 0 | 1 | 2 | 3;
  /** The merchant's rates in percent (payment configuration); null counts as 0. */
  readonly surchargeRate: number | null;
  readonly cashDiscountRate: number | null;
  readonly dualPricingRate: number | null;
}

/** The figures of one payment type, in cents and percent (the spec's InvoicePaymentTypeCalculation). */
export interface PaymentTypeCalc {
  readonly subTotalCents: number;
  readonly discountPercentage: number;
  readonly discountCents: number;
  readonly taxPercentage: number;
  readonly taxCents: number;
  readonly feesPercentage: number;
  readonly feesCents: number;
  readonly shippingCents: number;
  readonly surchargePercentage: number;
  readonly surchargeCents: number;
  readonly cashDiscountPercentage: number;
  readonly cashDiscountCents: number;
  readonly totalCents: number;
}

export interface CalcResult {
  /** Each line's total, in the order of the input. */
  readonly lineTotalsCents: readonly number[];
  readonly debitCard: PaymentTypeCalc;
  readonly creditCard: PaymentTypeCalc;
  readonly ach: PaymentTypeCalc;
}

/** Rounds a cent amount with fractions to a whole cent, half away from zero. */
export function roundCents(value: number): number {
  // Decimal rounding on the value's shortest decimal form, so 100.49999999999999 (from 1.005 * 100) is 100.5.
  // Math.round of a non-negative number rounds halves up, that is away from zero.
  const result = Math.round(Number(Math.abs(value).toPrecision(15)));
  return value < 0 ? -result : result;
}

// ---- exact decimal arithmetic: a number is taken at its shortest decimal form (1.005 is 1.005, as a
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
function product(a: number | bigint, b: number, shift = 0): bigint {
  const x = typeof a === 'bigint' ? { digits: a, scale: 0 } : decimalOf(a);
  const y = decimalOf(b);
  return roundScaled(x.digits * y.digits, x.scale + y.scale + shift);
}

/** A percentage of a cent amount, rounded to the cent (exactly: 1.5 cents is 2, whatever binary says). */
export const percentOf = (cents: number, percentage: number): number => toNumber(product(cents, percentage, 2));

function toNumber(cents: bigint): number {
  if (cents > BigInt(Number.MAX_SAFE_INTEGER) || cents < -BigInt(Number.MAX_SAFE_INTEGER)) {
    throw new RangeError(`an amount of ${cents.toString()} cents is beyond exact arithmetic`);
  }
  return Number(cents);
}

/** The surcharge and cash discount percentages of each payment type under a zero cost processing option. */
function optionPercentages(input: CalcInput): Record<'debitCard' | 'creditCard' | 'ach', { surcharge: number; cashDiscount: number }> {
  const none = { surcharge: 0, cashDiscount: 0 };
  switch (input.zeroCostProcessingOptionId) {
    case 1: // Surcharge: a credit card pays it; debit cards and ACH do not.
      return { debitCard: none, creditCard: { surcharge: input.surchargeRate ?? 0, cashDiscount: 0 }, ach: none };
    case 2: // CashDiscount: ACH (cash) gets it; cards pay the listed price.
      return { debitCard: none, creditCard: none, ach: { surcharge: 0, cashDiscount: input.cashDiscountRate ?? 0 } };
    case 3: { // DualPricing: both cards pay the card price; ACH is the cash price.
      const card = { surcharge: input.dualPricingRate ?? 0, cashDiscount: 0 };
      return { debitCard: card, creditCard: card, ach: none };
    }
    case 0:
      return { debitCard: none, creditCard: none, ach: none };
  }
}

/**
 * The invoice's figures for each payment type (spec: InvoicePaymentTypeCalculation):
 * line total = round(price × quantity) − round(that × line discount / 100); subtotal = sum of line totals;
 * discount = round(subtotal × discount%); tax and fees = round((subtotal − discount) × %);
 * base = subtotal − discount + tax + fees + shipping; surcharge and cash discount = round(base × %);
 * total = base + surcharge − cash discount. Every step rounds to the cent, half away from zero.
 */
export function calculateInvoice(input: CalcInput): CalcResult {
  const lineTotals = input.lines.map((line) => {
    const gross = product(line.unitPriceCents, line.quantity);
    return gross - product(gross, line.discountPercentage, 2);
  });
  const subTotal = lineTotals.reduce((sum, total) => sum + total, 0n);
  const discount = product(subTotal, input.discountPercentage, 2);
  const net = subTotal - discount;
  const tax = product(net, input.taxPercentage, 2);
  const fees = product(net, input.feesPercentage, 2);
  const shipping = product(input.shippingCents, 1);
  const base = net + tax + fees + shipping;
  const percentages = optionPercentages(input);

  const forType = (type: 'debitCard' | 'creditCard' | 'ach'): PaymentTypeCalc => {
    const { surcharge: surchargePercentage, cashDiscount: cashDiscountPercentage } = percentages[type];
    const surcharge = product(base, surchargePercentage, 2);
    const cashDiscount = product(base, cashDiscountPercentage, 2);
    return {
      subTotalCents: toNumber(subTotal),
      discountPercentage: input.discountPercentage,
      discountCents: toNumber(discount),
      taxPercentage: input.taxPercentage,
      taxCents: toNumber(tax),
      feesPercentage: input.feesPercentage,
      feesCents: toNumber(fees),
      shippingCents: toNumber(shipping),
      surchargePercentage,
      surchargeCents: toNumber(surcharge),
      cashDiscountPercentage,
      cashDiscountCents: toNumber(cashDiscount),
      totalCents: toNumber(base + surcharge - cashDiscount),
    };
  };

  return {
    lineTotalsCents: lineTotals.map(toNumber),
    debitCard: forType('debitCard'),
    creditCard: forType('creditCard'),
    ach: forType('ach'),
  };
}
