// Unit tests of the invoice calculations: a table of hand-checked invoices (the arithmetic of each is in its
// comment, in cents), rounding edges, and each zero cost processing option.
import { describe, expect, it } from 'vitest';
import type { Cents } from '../platform/money.ts';
import { calculateInvoice, type CalcInput, type CalcLine, type PaymentTypeCalc } from './invoice-calculations.ts';

/** The table's hand-checked amounts as cents. */
const cents = (value: number): Cents => value as Cents;

/** [unitPriceCents, quantity, line discount %] */
type Line = [number, number, number];
/** What one payment type adds: [surcharge %, surcharge, cash discount %, cash discount, total] (cents). */
type Extra = [number, number, number, number, number];

interface Case {
  name: string;
  lines: Line[];
  shipping?: number;
  tax?: number;
  fees?: number;
  discount?: number;
  option?: CalcInput['zeroCostProcessingOptionId'];
  rates?: { surcharge?: number | null; cashDiscount?: number | null; dualPricing?: number | null };
  want: {
    lines: number[];
    subTotal: number;
    discount: number;
    tax: number;
    fees: number;
    base: number;
    debitCard: Extra;
    creditCard: Extra;
    ach: Extra;
  };
}

const none = (base: number): Extra => [0, 0, 0, 0, base];

const cases: Case[] = [
  {
    // The spec's example (InvoicePaymentTypeCalculation, InvoiceCalculationsResponse).
    // lines: 8500 × 10 = 85000; 24000 × 1 = 24000, less round(24000 × 10%) = 2400 -> 21600
    // subtotal 85000 + 21600 = 106600; discount 5% = 5330; net 101270
    // tax 8.25% of 101270 = 8354.775 -> 8355; base 101270 + 8355 = 109625
    // Surcharge 3%: credit 109625 × 3% = 3288.75 -> 3289, total 112914 (1129.14); debit and ACH 109625
    name: 'the spec example, surcharge on credit cards only',
    lines: [[8500, 10, 0], [24000, 1, 10]],
    tax: 8.25, discount: 5, option: 1, rates: { surcharge: 3, cashDiscount: 2, dualPricing: 4 },
    want: {
      lines: [85000, 21600], subTotal: 106600, discount: 5330, tax: 8355, fees: 0, base: 109625,
      debitCard: none(109625), creditCard: [3, 3289, 0, 0, 112914], ach: none(109625),
    },
  },
  {
    // Half cents in lines.
    // 100 × 1.005 = 100.5 -> 101 (in binary 100 × 1.005 is 100.49999999999999: the exact decimal counts)
    // 67 × 1.5 = 100.5 -> 101
    // 1005 × 1 = 1005, less round(1005 × 50%) = round(502.5) = 503 -> 502
    // subtotal 101 + 101 + 502 = 704; no discount, tax or fees; shipping 99; base 803
    name: 'half-cent line amounts round away from zero',
    lines: [[100, 1.005, 0], [67, 1.5, 0], [1005, 1, 50]],
    shipping: 99,
    want: {
      lines: [101, 101, 502], subTotal: 704, discount: 0, tax: 0, fees: 0, base: 803,
      debitCard: none(803), creditCard: none(803), ach: none(803),
    },
  },
  {
    // .125 percentages. subtotal 1200; discount 0.125% = 1.5 -> 2; net 1198
    // tax 0.125% of 1198 = 1.4975 -> 1; fees 12.5% of 1198 = 149.75 -> 150; base 1198 + 1 + 150 = 1349
    // CashDiscount 0.125%: ACH 1349 × 0.125% = 1.68625 -> 2, total 1347; cards 1349
    name: '.125 percent discount, tax, fees and cash discount',
    lines: [[1200, 1, 0]],
    tax: 0.125, fees: 12.5, discount: 0.125, option: 2, rates: { cashDiscount: 0.125 },
    want: {
      lines: [1200], subTotal: 1200, discount: 2, tax: 1, fees: 150, base: 1349,
      debitCard: none(1349), creditCard: none(1349), ach: [0, 0, 0.125, 2, 1347],
    },
  },
  {
    // Exact halves from .125 and .375 percent. subtotal 400; tax 0.125% = 0.5 -> 1; fees 0.375% = 1.5 -> 2
    // base 403; CashDiscount 0.125%: 403 × 0.125% = 0.50375 -> 1; ACH total 402
    name: 'half cents from small percentages',
    lines: [[400, 1, 0]],
    tax: 0.125, fees: 0.375, option: 2, rates: { cashDiscount: 0.125, surcharge: 3 },
    want: {
      lines: [400], subTotal: 400, discount: 0, tax: 1, fees: 2, base: 403,
      debitCard: none(403), creditCard: none(403), ach: [0, 0, 0.125, 1, 402],
    },
  },
  {
    // Fractional quantities.
    // 1999 × 0.333 = 665.667 -> 666; 1250 × 2.5 = 3125; 33 × 0.1 = 3.3 -> 3; 1 × 0.5 = 0.5 -> 1
    // subtotal 666 + 3125 + 3 + 1 = 3795; discount 10% = 379.5 -> 380; net 3415
    // tax 8.875% of 3415 = 303.08125 -> 303; fees 2% of 3415 = 68.3 -> 68; shipping 500
    // base 3415 + 303 + 68 + 500 = 4286
    // DualPricing 3.5%: both cards 4286 × 3.5% = 150.01 -> 150, total 4436; ACH (cash price) 4286
    name: 'fractional quantities, dual pricing on both card types',
    lines: [[1999, 0.333, 0], [1250, 2.5, 0], [33, 0.1, 0], [1, 0.5, 0]],
    shipping: 500, tax: 8.875, fees: 2, discount: 10, option: 3, rates: { dualPricing: 3.5, surcharge: 3 },
    want: {
      lines: [666, 3125, 3, 1], subTotal: 3795, discount: 380, tax: 303, fees: 68, base: 4286,
      debitCard: [3.5, 150, 0, 0, 4436], creditCard: [3.5, 150, 0, 0, 4436], ach: none(4286),
    },
  },
  {
    // 100% line discount: 5000 × 2 = 10000, less round(10000 × 100%) = 10000 -> 0; 2500 × 1 = 2500
    // subtotal 2500; tax 10% = 250; base 2750; Surcharge 2.99%: 2750 × 2.99% = 82.225 -> 82, total 2832
    name: 'a line discounted by 100%',
    lines: [[5000, 2, 100], [2500, 1, 0]],
    tax: 10, option: 1, rates: { surcharge: 2.99 },
    want: {
      lines: [0, 2500], subTotal: 2500, discount: 0, tax: 250, fees: 0, base: 2750,
      debitCard: none(2750), creditCard: [2.99, 82, 0, 0, 2832], ach: none(2750),
    },
  },
  {
    // No lines: subtotal 0, discount, tax and fees 0; shipping 1500; base 1500
    // Surcharge 3% applies to the shipping too: 1500 × 3% = 45, credit total 1545
    name: 'no lines, shipping only',
    lines: [],
    shipping: 1500, tax: 8.25, fees: 1, discount: 5, option: 1, rates: { surcharge: 3 },
    want: {
      lines: [], subTotal: 0, discount: 0, tax: 0, fees: 0, base: 1500,
      debitCard: none(1500), creditCard: [3, 45, 0, 0, 1545], ach: none(1500),
    },
  },
  {
    // Large amounts (the request's maximums: price 1,000,000 USD, quantity 1,000,000, shipping 1,000,000 USD).
    // 99999999 × 999999.99 = 99999999000000 − 999999.99 = 99999998000000.01 -> 99999998000000
    // 99999999 × 0.5 = 49999999.5 -> 50000000
    // subtotal 99999998000000 + 50000000 = 100000048000000
    // discount 1.5% = 1500000720000; net 98500047280000
    // tax 8.875% of 98500047280000 = 7880003782400 (8%) + 788000378240 (0.8%) + 73875035460 (0.075%) = 8741879196100
    // shipping 100000000; base 98500047280000 + 8741879196100 + 100000000 = 107242026476100
    // Surcharge 3%: 3217260794283, credit total 110459287270383
    name: 'large amounts stay exact to the cent',
    lines: [[99_999_999, 999_999.99, 0], [99_999_999, 0.5, 0]],
    shipping: 100_000_000, tax: 8.875, discount: 1.5, option: 1, rates: { surcharge: 3 },
    want: {
      lines: [99_999_998_000_000, 50_000_000], subTotal: 100_000_048_000_000, discount: 1_500_000_720_000, tax: 8_741_879_196_100,
      fees: 0, base: 107_242_026_476_100,
      debitCard: none(107_242_026_476_100), creditCard: [3, 3_217_260_794_283, 0, 0, 110_459_287_270_383], ach: none(107_242_026_476_100),
    },
  },
  {
    // Option 0 None: the merchant's rates are ignored. 1234 × 3 = 3702
    // tax 6.25% = 231.375 -> 231; fees 1% = 37.02 -> 37; base 3702 + 231 + 37 = 3970 for every type
    name: 'option None carries no surcharge or cash discount whatever the rates',
    lines: [[1234, 3, 0]],
    tax: 6.25, fees: 1, option: 0, rates: { surcharge: 3, cashDiscount: 2, dualPricing: 4 },
    want: {
      lines: [3702], subTotal: 3702, discount: 0, tax: 231, fees: 37, base: 3970,
      debitCard: none(3970), creditCard: none(3970), ach: none(3970),
    },
  },
  {
    // Surcharge option with a null rate: null counts as 0. base 999 for every type, percentages 0.
    name: 'a null surcharge rate counts as 0',
    lines: [[999, 1, 0]],
    option: 1, rates: { surcharge: null, cashDiscount: 2 },
    want: {
      lines: [999], subTotal: 999, discount: 0, tax: 0, fees: 0, base: 999,
      debitCard: none(999), creditCard: none(999), ach: none(999),
    },
  },
  {
    // CashDiscount: 10000; tax 8.25% = 825; shipping 1000; base 11825
    // ACH 11825 × 3.5% = 413.875 -> 414, total 11411; cards pay 11825
    name: 'cash discount on ACH only',
    lines: [[10000, 1, 0]],
    shipping: 1000, tax: 8.25, option: 2, rates: { cashDiscount: 3.5, surcharge: 3, dualPricing: 4 },
    want: {
      lines: [10000], subTotal: 10000, discount: 0, tax: 825, fees: 0, base: 11825,
      debitCard: none(11825), creditCard: none(11825), ach: [0, 0, 3.5, 414, 11411],
    },
  },
  {
    // Line and invoice discounts with dual pricing.
    // 2999 × 3 = 8997, less round(8997 × 15%) = round(1349.55) = 1350 -> 7647
    // 4550 × 1 = 4550, less round(455) = 455 -> 4095
    // subtotal 11742; discount 5% = 587.1 -> 587; net 11155; tax 7% = 780.85 -> 781; base 11936
    // DualPricing 4%: 11936 × 4% = 477.44 -> 477, card total 12413; ACH 11936
    name: 'line and invoice discounts under dual pricing',
    lines: [[2999, 3, 15], [4550, 1, 10]],
    tax: 7, discount: 5, option: 3, rates: { dualPricing: 4 },
    want: {
      lines: [7647, 4095], subTotal: 11742, discount: 587, tax: 781, fees: 0, base: 11936,
      debitCard: [4, 477, 0, 0, 12413], creditCard: [4, 477, 0, 0, 12413], ach: none(11936),
    },
  },
  {
    // Half cents at the invoice level: subtotal 1010; discount 5% = 50.5 -> 51; net 959; shipping 91
    // base 1050; Surcharge 3%: 1050 × 3% = 31.5 -> 32, credit total 1082
    name: 'half-cent invoice discount and surcharge',
    lines: [[1010, 1, 0]],
    shipping: 91, discount: 5, option: 1, rates: { surcharge: 3 },
    want: {
      lines: [1010], subTotal: 1010, discount: 51, tax: 0, fees: 0, base: 1050,
      debitCard: none(1050), creditCard: [3, 32, 0, 0, 1082], ach: none(1050),
    },
  },
  {
    // Halves that binary floating point misses: 3000 × 1.15% is 34.49999999999999 in doubles, exactly 34.5 -> 35;
    // 3000 × 4.35% is 130.49999999999997, exactly 130.5 -> 131; base 3000 + 35 + 131 = 3166
    // Surcharge 1.15%: 3166 × 1.15% = 36.409 -> 36, credit total 3202
    name: 'exact decimal halves that doubles round down',
    lines: [[3000, 1, 0]],
    tax: 1.15, fees: 4.35, option: 1, rates: { surcharge: 1.15 },
    want: {
      lines: [3000], subTotal: 3000, discount: 0, tax: 35, fees: 131, base: 3166,
      debitCard: none(3166), creditCard: [1.15, 36, 0, 0, 3202], ach: none(3166),
    },
  },
  {
    // 100% invoice discount: subtotal 5000; discount 5000; net 0; tax 8.25% of 0 = 0; shipping 500; base 500
    // Surcharge 3%: 15, credit total 515
    name: 'an invoice discounted by 100% still pays shipping',
    lines: [[5000, 1, 0]],
    shipping: 500, tax: 8.25, discount: 100, option: 1, rates: { surcharge: 3 },
    want: {
      lines: [5000], subTotal: 5000, discount: 5000, tax: 0, fees: 0, base: 500,
      debitCard: none(500), creditCard: [3, 15, 0, 0, 515], ach: none(500),
    },
  },
];

function inputOf(c: Case): CalcInput {
  return {
    lines: c.lines.map(([unitPriceCents, quantity, discountPercentage]): CalcLine => ({ unitPriceCents: cents(unitPriceCents), quantity, discountPercentage })),
    shippingCents: cents(c.shipping ?? 0),
    taxPercentage: c.tax ?? 0,
    feesPercentage: c.fees ?? 0,
    discountPercentage: c.discount ?? 0,
    zeroCostProcessingOptionId: c.option ?? 0,
    surchargeRate: c.rates?.surcharge ?? null,
    cashDiscountRate: c.rates?.cashDiscount ?? null,
    dualPricingRate: c.rates?.dualPricing ?? null,
  };
}

function expected(c: Case, [surchargePercentage, surchargeCents, cashDiscountPercentage, cashDiscountCents, totalCents]: Extra): PaymentTypeCalc {
  return {
    subTotalCents: cents(c.want.subTotal),
    discountPercentage: c.discount ?? 0,
    discountCents: cents(c.want.discount),
    taxPercentage: c.tax ?? 0,
    taxCents: cents(c.want.tax),
    feesPercentage: c.fees ?? 0,
    feesCents: cents(c.want.fees),
    shippingCents: cents(c.shipping ?? 0),
    surchargePercentage,
    surchargeCents: cents(surchargeCents),
    cashDiscountPercentage,
    cashDiscountCents: cents(cashDiscountCents),
    totalCents: cents(totalCents),
  };
}

describe('calculateInvoice', () => {
  it.each(cases.map((c) => [c.name, c] as const))('%s', (_name, c) => {
    const result = calculateInvoice(inputOf(c));
    expect(result).toEqual({
      lineTotalsCents: c.want.lines,
      debitCard: expected(c, c.want.debitCard),
      creditCard: expected(c, c.want.creditCard),
      ach: expected(c, c.want.ach),
    });
    // The table's own consistency: base = subtotal − discount + tax + fees + shipping, and each total is
    // base + surcharge − cash discount (so a typo in a hand-checked row cannot pass unnoticed).
    expect(c.want.subTotal).toBe(c.want.lines.reduce((sum, v) => sum + v, 0));
    expect(c.want.base).toBe(c.want.subTotal - c.want.discount + c.want.tax + c.want.fees + (c.shipping ?? 0));
    for (const [, surcharge, , cashDiscount, total] of [c.want.debitCard, c.want.creditCard, c.want.ach]) {
      expect(total).toBe(c.want.base + surcharge - cashDiscount);
    }
  });

  it('covers at least twelve invoices and every zero cost processing option', () => {
    expect(cases.length).toBeGreaterThanOrEqual(12);
    expect(new Set(cases.map((c) => c.option ?? 0))).toEqual(new Set([0, 1, 2, 3]));
  });

  it('gives every amount in whole cents', () => {
    for (const c of cases) {
      const result = calculateInvoice(inputOf(c));
      for (const calc of [result.debitCard, result.creditCard, result.ach]) {
        for (const key of ['subTotalCents', 'discountCents', 'taxCents', 'feesCents', 'shippingCents', 'surchargeCents', 'cashDiscountCents', 'totalCents'] as const) {
          expect(Number.isSafeInteger(calc[key]), `${c.name}: ${key}`).toBe(true);
        }
      }
    }
  });

  it('refuses amounts beyond exact arithmetic rather than return a wrong total', () => {
    // 100 lines of 1,000,000 USD × 1,000,000: 100 × 10^14 cents = 10^16 > Number.MAX_SAFE_INTEGER (about 9.007 × 10^15).
    const line: CalcLine = { unitPriceCents: cents(100_000_000), quantity: 1_000_000, discountPercentage: 0 };
    const input: CalcInput = {
      lines: Array.from({ length: 100 }, () => line), shippingCents: cents(0), taxPercentage: 0, feesPercentage: 0, discountPercentage: 0,
      zeroCostProcessingOptionId: 0, surchargeRate: null, cashDiscountRate: null, dualPricingRate: null,
    };
    expect(() => calculateInvoice(input)).toThrow(RangeError);
    // 90 such lines (9 × 10^15 cents) are still exact.
    expect(calculateInvoice({ ...input, lines: input.lines.slice(0, 90) }).ach.totalCents).toBe(9_000_000_000_000_000);
  });
});
