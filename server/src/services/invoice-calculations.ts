// Invoice calculations: line totals, subtotal, discount, tax, fees, shipping, and per payment type
// (debit card, credit card, ACH) surcharge or cash discount. Integer cents inside; every step rounds to
// the cent, half away from zero, as the spec states (exact decimal products, platform/decimal.ts). A pure module:
// no database, no HTTP.
import { ZeroCostProcessingOption } from '@pgw/client/enums';
import { product } from '../platform/decimal.ts';
import { centsOfExact, type Cents } from '../platform/money.ts';

/** One line: price in cents, quantity (may be fractional), line discount in percent (0..100). */
export interface CalcLine {
  readonly unitPriceCents: Cents;
  readonly quantity: number;
  readonly discountPercentage: number;
}

export interface CalcInput {
  readonly lines: readonly CalcLine[];
  readonly shippingCents: Cents;
  /** Percentages of the invoice, 0..100. */
  readonly taxPercentage: number;
  readonly feesPercentage: number;
  readonly discountPercentage: number;
  /** The merchant's zero cost processing option. */
  readonly zeroCostProcessingOptionId: ZeroCostProcessingOption;
  /** The merchant's rates in percent (payment configuration); null counts as 0. */
  readonly surchargeRate: number | null;
  readonly cashDiscountRate: number | null;
  readonly dualPricingRate: number | null;
}

/** The figures of one payment type, in cents and percent (the spec's InvoicePaymentTypeCalculation). */
export interface PaymentTypeCalc {
  readonly subTotalCents: Cents;
  readonly discountPercentage: number;
  readonly discountCents: Cents;
  readonly taxPercentage: number;
  readonly taxCents: Cents;
  readonly feesPercentage: number;
  readonly feesCents: Cents;
  readonly shippingCents: Cents;
  readonly surchargePercentage: number;
  readonly surchargeCents: Cents;
  readonly cashDiscountPercentage: number;
  readonly cashDiscountCents: Cents;
  readonly totalCents: Cents;
}

export interface CalcResult {
  /** Each line's total, in the order of the input. */
  readonly lineTotalsCents: readonly Cents[];
  readonly debitCard: PaymentTypeCalc;
  readonly creditCard: PaymentTypeCalc;
  readonly ach: PaymentTypeCalc;
}

/** The surcharge and cash discount percentages of each payment type under a zero cost processing option. */
function optionPercentages(input: CalcInput): Record<'debitCard' | 'creditCard' | 'ach', { surcharge: number; cashDiscount: number }> {
  const none = { surcharge: 0, cashDiscount: 0 };
  switch (input.zeroCostProcessingOptionId) {
    case ZeroCostProcessingOption.Surcharge: // Surcharge: a credit card pays it; debit cards and ACH do not.
      return { debitCard: none, creditCard: { surcharge: input.surchargeRate ?? 0, cashDiscount: 0 }, ach: none };
    case ZeroCostProcessingOption.CashDiscount: // CashDiscount: ACH (cash) gets it; cards pay the listed price.
      return { debitCard: none, creditCard: none, ach: { surcharge: 0, cashDiscount: input.cashDiscountRate ?? 0 } };
    case ZeroCostProcessingOption.DualPricing: { // DualPricing: both cards pay the card price; ACH is the cash price.
      const card = { surcharge: input.dualPricingRate ?? 0, cashDiscount: 0 };
      return { debitCard: card, creditCard: card, ach: none };
    }
    case ZeroCostProcessingOption.None:
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
      subTotalCents: centsOfExact(subTotal),
      discountPercentage: input.discountPercentage,
      discountCents: centsOfExact(discount),
      taxPercentage: input.taxPercentage,
      taxCents: centsOfExact(tax),
      feesPercentage: input.feesPercentage,
      feesCents: centsOfExact(fees),
      shippingCents: centsOfExact(shipping),
      surchargePercentage,
      surchargeCents: centsOfExact(surcharge),
      cashDiscountPercentage,
      cashDiscountCents: centsOfExact(cashDiscount),
      totalCents: centsOfExact(base + surcharge - cashDiscount),
    };
  };

  return {
    lineTotalsCents: lineTotals.map(centsOfExact),
    debitCard: forType('debitCard'),
    creditCard: forType('creditCard'),
    ach: forType('ach'),
  };
}
