// Arithmetic and documents: an invoice's amounts recomputed from its lines by the rules the spec states
// (InvoicePaymentTypeCalculation: cents, half away from zero at each step), the calculations endpoint equal to
// the record, and the PDF a PDF. Seeded invoices, so each run tries other numbers and can be repeated.
import { OperationId } from '@pgw/client/operations';
import { CheckFailure, bodyOf, createdId, expectStatus, expectThat, type Check, type CheckContext } from '../check.ts';

/** A decimal number as exact digits and scale: 12.345 -> 12345n, 3 (from its shortest text). */
function decimal(value: number): { digits: bigint; scale: number } {
  const text = String(value);
  if (/e/i.test(text)) throw new Error(`an amount in exponent notation: ${text}`);
  const [whole = '0', fraction = ''] = text.replace('-', '').split('.');
  const digits = BigInt(`${whole}${fraction}`);
  return { digits: value < 0 ? -digits : digits, scale: fraction.length };
}

/** round(a × b / 10^shift) with a in cents, half away from zero, exactly. */
function times(cents: bigint, factor: number, shift = 0): bigint {
  const d = decimal(factor);
  const product = cents * d.digits;
  const divisor = 10n ** BigInt(d.scale + shift);
  const quotient = product / divisor;
  const rest = product % divisor;
  const away = (rest < 0n ? -rest : rest) * 2n >= divisor ? (product < 0n ? -1n : 1n) : 0n;
  return quotient + away;
}

/** A USD amount in cents (amounts carry at most two decimals; more are rounded like any step). */
const cents = (amount: number): bigint => {
  const d = decimal(amount);
  return d.scale <= 2 ? d.digits * 10n ** BigInt(2 - d.scale) : times(100n, amount);
};
const usd = (c: bigint): number => Number(c) / 100;

interface Line { unitPrice: number; quantity: number; discountPercentage: number }
interface Terms { discountPercentage: number; taxPercentage: number; feesPercentage: number; shippingAmount: number }

/** The spec's formula for one payment type, given its surcharge and cash discount percentages. */
export function expectedAmounts(lines: readonly Line[], terms: Terms, surchargePercentage: number, cashDiscountPercentage: number): Record<string, number> {
  const lineTotals = lines.map((l) => {
    const gross = times(cents(l.unitPrice), l.quantity);
    return gross - times(gross, l.discountPercentage, 2);
  });
  const subTotal = lineTotals.reduce((a, b) => a + b, 0n);
  const discount = times(subTotal, terms.discountPercentage, 2);
  const tax = times(subTotal - discount, terms.taxPercentage, 2);
  const fees = times(subTotal - discount, terms.feesPercentage, 2);
  const base = subTotal - discount + tax + fees + cents(terms.shippingAmount);
  const surcharge = times(base, surchargePercentage, 2);
  const cashDiscount = times(base, cashDiscountPercentage, 2);
  return {
    subTotalAmount: usd(subTotal), discountAmount: usd(discount), taxAmount: usd(tax), feesAmount: usd(fees),
    shippingAmount: terms.shippingAmount, surchargeAmount: usd(surcharge), cashDiscountAmount: usd(cashDiscount),
    totalAmount: usd(base + surcharge - cashDiscount),
  };
}

/** Seeded lines and terms with the awkward numbers that find rounding faults (halves, thirds, fractions). */
function seededInvoice(ctx: CheckContext): { lines: Line[]; terms: Terms } {
  const pick = <T>(values: readonly T[]): T => values[Math.floor(ctx.random() * values.length)] as T;
  const lines = Array.from({ length: 2 + Math.floor(ctx.random() * 3) }, () => ({
    unitPrice: pick([0.05, 0.99, 2.5, 19.99, 33.33, 100, 1234.56, 7.5]),
    quantity: pick([1, 2, 3, 1.5, 0.25, 7]),
    discountPercentage: pick([0, 5, 12.5, 33.33, 50]),
  }));
  const terms = { discountPercentage: pick([0, 2.5, 5, 10]), taxPercentage: pick([0, 6.25, 8.25, 8.875]), feesPercentage: pick([0, 1.5, 2.9]), shippingAmount: pick([0, 4.99, 12.34]) };
  return { lines, terms };
}

const KINDS = ['debitCard', 'creditCard', 'ach'] as const;

export const arithmeticChecks: readonly Check[] = [{
  id: 'arithmetic/invoice_totals',
  group: 'resources',
  title: "an invoice's amounts are its lines' amounts by the spec's formula, per payment type; the calculations endpoint agrees; the PDF is a PDF",
  tags: ['Invoices', OperationId.createInvoice, OperationId.getInvoice, OperationId.listInvoices, OperationId.getInvoiceCalculations, OperationId.downloadInvoicePdf],
  designed: true,
  run: async (ctx) => {
    for (let round = 0; round < 3; round++) {
      const { lines, terms } = seededInvoice(ctx);
      const lastName = ctx.unique('sum');
      const created = await ctx.call(OperationId.publishInvoice, {
        body: {
          id: null, dueDate: ctx.daysAhead(30), ...terms,
          customer: { firstName: 'Arithmetic', lastName, email: 'sum@example.com' },
          lineItems: lines.map((l, i) => ({ lineItemId: null, productName: `Line ${String(i + 1)}`, unitTypeId: 1, ...l })),
        },
      });
      const invoiceId = createdId(created, 'an invoice to recompute');
      const read = await ctx.call(OperationId.getInvoice, { path: { invoiceId } });
      expectStatus(read, 200, OperationId.getInvoice);
      const record = bodyOf(read);
      const calculations = record.invoiceCalculations as Record<string, Record<string, number>> | undefined;
      expectThat(calculations !== undefined, 'the invoice carries invoiceCalculations', read);
      const where = `for lines ${JSON.stringify(lines)} and ${JSON.stringify(terms)}`;
      for (const kind of KINDS) {
        const got = calculations[kind] ?? {};
        const want = expectedAmounts(lines, terms, got.surchargePercentage ?? 0, got.cashDiscountPercentage ?? 0);
        for (const [field, value] of Object.entries(want)) {
          if (got[field] !== value) throw new CheckFailure(`invoiceCalculations.${kind}.${field} is ${String(got[field])}, the spec's formula gives ${String(value)} ${where}`, read);
        }
      }
      // The record's own top-level amounts: while unpaid, totalAmount is the base (no surcharge, no cash discount).
      const base = expectedAmounts(lines, terms, 0, 0);
      const top: Record<string, number> = { subTotalAmount: base.subTotalAmount ?? 0, totalAmount: base.totalAmount ?? 0, shippingAmount: terms.shippingAmount, surchargeAmount: 0, cashDiscountAmount: 0 };
      for (const [field, value] of Object.entries(top)) {
        if (record[field] !== value) throw new CheckFailure(`the unpaid invoice's ${field} is ${String(record[field])}, its lines give ${String(value)} ${where}`, read);
      }
      // The list shows the same total (found by a search on the invoice's unique customer name, not by position).
      const listed = await ctx.call(OperationId.listInvoices, { query: { search: lastName, pageSize: 100 } });
      expectStatus(listed, 200, OperationId.listInvoices);
      const item = (Array.isArray(bodyOf(listed).items) ? (bodyOf(listed).items as { id?: unknown; totalAmount?: unknown }[]) : []).find((i) => i.id === invoiceId);
      expectThat(item !== undefined, `the invoice ${invoiceId} is found in the list by a search on its customer's unique last name ${lastName}`, listed);
      expectThat(item.totalAmount === top.totalAmount, `the list's totalAmount of the invoice is ${String(top.totalAmount)}, as the record's (got ${String(item.totalAmount)})`, listed);
      const lineTotals = (Array.isArray(record.lineItems) ? record.lineItems : []).map((l) => (l as { totalAmount?: unknown }).totalAmount);
      const wantLines = lines.map((l) => expectedAmounts([l], { discountPercentage: 0, taxPercentage: 0, feesPercentage: 0, shippingAmount: 0 }, 0, 0).subTotalAmount);
      expectThat(JSON.stringify(lineTotals) === JSON.stringify(wantLines), `the lines' totalAmount are ${JSON.stringify(wantLines)} (got ${JSON.stringify(lineTotals)}) ${where}`, read);
      const endpoint = await ctx.call(OperationId.getInvoiceCalculations, { path: { invoiceId } });
      expectStatus(endpoint, 200, OperationId.getInvoiceCalculations);
      // The endpoint is the credit card figures of the record (its surchargePercentage null where the record says 0).
      const credit = calculations.creditCard ?? {};
      for (const [field, value] of Object.entries(bodyOf(endpoint))) {
        if (field === 'id') continue;
        const same = value === credit[field] || (field === 'surchargePercentage' && value === null && credit[field] === 0);
        expectThat(same, `getInvoiceCalculations.${field} (${JSON.stringify(value)}) equals the record's invoiceCalculations.creditCard.${field} (${String(credit[field])})`, endpoint);
      }
      if (round === 0) {
        const pdf = await ctx.call(OperationId.downloadInvoicePdf, { path: { invoiceId } });
        expectStatus(pdf, 200, OperationId.downloadInvoicePdf);
        // The interface sends the document as a base64 string in JSON; a raw application/pdf body is read as it is.
        const body = pdf.response?.body;
        const bytes = typeof body === 'string' && /json/.test(pdf.response?.headers['content-type'] ?? '') ? Buffer.from(body, 'base64').toString('latin1') : pdf.response?.text ?? '';
        expectThat(bytes.startsWith('%PDF-'), 'the PDF decodes and starts with %PDF-', pdf);
      }
    }
  },
}];
