// The invoice as a document: one view model, every text formatted once, that the PDF and the invoice page
// both render, so the two cannot disagree (the bill-to and ship-to addresses with their state, the lines
// with their descriptions, discounts as "0%", the same totals).
import { InvoiceStatus as InvoiceStatuses } from '@pgw/client/enums';
import type { components } from '@pgw/client/types';
import { formatUsd, toCents } from '../platform/money.ts';
import { countryRef, stateRef } from './customers.ts';

type Invoice = components['schemas']['Invoice'];
type Address = components['schemas']['InvoiceCustomerAddress'];

export interface DocumentLine {
  product: string;
  description: string | null;
  quantity: string;
  unitPrice: string;
  discount: string;
  amount: string;
}

export interface InvoiceDocument {
  title: string;
  merchant: string[];
  /** Status and dates, as label and value. */
  facts: [string, string][];
  billTo: string[];
  /** Null when the goods ship to the billing address. */
  shipTo: string[] | null;
  columns: readonly ['Item', 'Qty', 'Unit price', 'Discount', 'Amount'];
  lines: DocumentLine[];
  totals: [string, string][];
  total: [string, string];
  /** What each payment type charges, while the invoice can be paid. */
  toPay: [string, string][] | null;
  notes: string | null;
  payOnline: string | null;
}

const STATUS_NAMES: Record<Invoice['status'], string> = { 1: 'Draft', 2: 'Due', 3: 'Past due', 4: 'Paid', 5: 'Cancelled' };

/** A wire amount of the invoice as printed by the one formatter: $1,129.14 (a negative amount as -$5.00). */
const usd = (amount: number): string => formatUsd(toCents(amount));
const percent = (value: number): string => `${value.toLocaleString('en-US', { maximumFractionDigits: 4 })}%`;
const day = (date: string | null): string => (date === null ? '-' : date.slice(0, 10));
const present = (lines: readonly (string | null | undefined)[]): string[] => lines.filter((l): l is string => typeof l === 'string' && l.trim() !== '');

/** "City, State ZIP", leaving out what is missing. */
const cityLine = (city: string | null | undefined, state: string | null | undefined, zip: string | null | undefined): string =>
  present([city, present([state, zip]).join(' ')]).join(', ');

/** An address as printed: street lines, "City, State ZIP" (the state's name from its id when not given), country. */
function addressLines(address: Address): string[] {
  if (address === null) return [];
  const state = address.stateName ?? (address.stateId === undefined ? undefined : stateRef(address.stateId)?.name);
  const country = address.countryId === undefined || address.countryId === 1 ? undefined : countryRef(address.countryId)?.name;
  return present([address.line1, address.line2, cityLine(address.city, state, address.zip), country]);
}

export function invoiceDocument(invoice: Invoice, merchantName: string): InvoiceDocument {
  const contact = invoice.merchantContactInfo;
  const c = invoice.customer;
  const calc = invoice.invoiceCalculations;
  // Discount, tax and fees are the same for every payment type; the surcharge and cash discount are not.
  const base = calc.creditCard;
  const open = invoice.status === InvoiceStatuses.Due || invoice.status === InvoiceStatuses.PastDue;
  return {
    title: `Invoice ${invoice.number ?? ''}`.trim(),
    merchant: present([merchantName, contact.addressLine1, contact.addressLine2, cityLine(contact.city, contact.stateName, contact.zip), contact.email, contact.businessPhoneNumber]),
    facts: [['Status', STATUS_NAMES[invoice.status]], ['Issued', day(invoice.issueDate)], ['Due', day(invoice.dueDate)], ...(invoice.paymentDate === null ? [] : [['Paid', day(invoice.paymentDate)] as [string, string]])],
    billTo: present([`${c.firstName} ${c.lastName}`, c.companyName, ...addressLines(c.billingAddress), c.email, c.mobilePhoneNumber]),
    shipTo: c.useBillingAsShippingAddress || c.shippingAddress === null ? null : present([`${c.firstName} ${c.lastName}`, ...addressLines(c.shippingAddress)]),
    columns: ['Item', 'Qty', 'Unit price', 'Discount', 'Amount'],
    lines: invoice.lineItems.map((l) => ({
      product: l.productName,
      description: l.description === null || l.description === '' ? null : l.description,
      quantity: l.quantity.toLocaleString('en-US', { maximumFractionDigits: 4 }),
      unitPrice: usd(l.unitPrice),
      discount: percent(l.discountPercentage),
      amount: usd(l.totalAmount),
    })),
    totals: [
      ['Subtotal', usd(invoice.subTotalAmount)],
      [`Discount (${percent(invoice.discountPercentage)})`, usd(0 - base.discountAmount)],
      [`Tax (${percent(invoice.taxPercentage)})`, usd(base.taxAmount)],
      [`Fees (${percent(invoice.feesPercentage)})`, usd(base.feesAmount)],
      ['Shipping', usd(invoice.shippingAmount)],
      ...(invoice.surchargeAmount === 0 ? [] : [[`Surcharge (${percent(invoice.surchargePercentage)})`, usd(invoice.surchargeAmount)] as [string, string]]),
      ...(invoice.cashDiscountAmount === 0 ? [] : [[`Cash discount (${percent(invoice.cashDiscountPercentage)})`, usd(0 - invoice.cashDiscountAmount)] as [string, string]]),
    ],
    total: ['Total', usd(invoice.totalAmount)],
    toPay: open ? [['Credit card', usd(calc.creditCard.totalAmount)], ['Debit card', usd(calc.debitCard.totalAmount)], ['Bank account (ACH)', usd(calc.ach.totalAmount)]] : null,
    notes: invoice.additionalNotes === '' ? null : invoice.additionalNotes,
    payOnline: open ? invoice.fullUrl : null,
  };
}

/** Every text of the document, in reading order: what both renderings must show. */
export function documentTexts(d: InvoiceDocument): string[] {
  return [
    d.title, ...d.merchant, ...d.facts.flat(), ...d.billTo, ...(d.shipTo ?? []), ...d.columns,
    ...d.lines.flatMap((l) => present([l.product, l.description, l.quantity, l.unitPrice, l.discount, l.amount])),
    ...d.totals.flat(), ...d.total, ...(d.toPay ?? []).flat(), ...present([d.notes, d.payOnline]),
  ];
}
