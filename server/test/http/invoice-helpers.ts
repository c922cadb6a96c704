// Shared by the invoice suites: paths, bodies, response shapes, calls that assert their own success, and a
// reader of the text of an uncompressed PDF.
import request from 'supertest';
import { expect } from 'vitest';
import type { ErrorBody, TestServer } from '../harness.ts';

export const INVOICES = '/pay-int-api/invoices';
export const UNKNOWN = '7c9e6679-7425-40de-944b-e07fc1f90ae7';

type Headers = Record<string, string>;

export interface HistoryItem {
  id: string; invoiceId: string; typeId: number; typeName: string; errorCode: string | null; errorMessage: string | null;
  notificationId: string | null; notificationType: string | null; notificationTypeId: number | null; notificationTemplateType: string | null;
  notificationTemplateTypeId: number | null; notificationTarget: string | null; transactionId: string | null; paymentMethodTypeId: number | null;
  createdOn: string;
}
export interface PaymentTypeCalc {
  subTotalAmount: number; totalAmount: number; shippingAmount: number; taxAmount: number; taxPercentage: number; feesAmount: number;
  feesPercentage: number; discountAmount: number; discountPercentage: number; surchargeAmount: number; surchargePercentage: number;
  cashDiscountAmount: number; cashDiscountPercentage: number;
}
export interface Invoice {
  id: string; number: string | null; status: number; issueDate: string | null; dueDate: string | null; paymentDate: string | null;
  cardPaymentProcessorId: string | null; achPaymentProcessorId: string | null; additionalNotes: string; subTotalAmount: number;
  shippingAmount: number; totalAmount: number; taxPercentage: number; feesPercentage: number; discountPercentage: number;
  surchargeAmount: number; surchargePercentage: number; cashDiscountAmount: number; cashDiscountPercentage: number;
  paymentMethodTypeId: number | null; merchantId: string; merchantContactInfoId: string; merchantContactInfo: Record<string, unknown>;
  customerId: string | null; customer: Record<string, unknown>; lineItems: Record<string, unknown>[]; isCustomerUpdated: boolean;
  isLineItemsUpdated: boolean; fullUrl: string; shortUrl: string; markedAsPaid: boolean | null; transactionId: string | null;
  achAllowFasterProcessing: boolean | null; history: HistoryItem[]; zeroCostProcessingOptionId: number | null;
  zeroCostProcessingOption: string | null; useCardPrice: boolean | null;
  invoiceCalculations: { debitCard: PaymentTypeCalc; creditCard: PaymentTypeCalc; ach: PaymentTypeCalc };
}
export interface ListItem {
  id: string; number: string | null; customerName: string; issueDate: string | null; dueDate: string | null; paymentDate: string | null;
  totalAmount: number; status: number;
}
export interface Page<T> { items: T[]; total: number }

export const customer = (overrides: Record<string, unknown> = {}): Record<string, unknown> => ({
  firstName: 'Jane',
  lastName: 'Doe',
  companyName: 'Doe Design LLC',
  email: 'jane.doe@example.com',
  mobilePhoneNumber: '+15555550123',
  isMobileNumberSmsNotificationsEnabled: true,
  useBillingAsShippingAddress: true,
  billingAddress: { line1: '100 Congress Ave', line2: 'Suite 200', city: 'Austin', zip: '78701', countryId: 1, stateId: 44, stateName: 'Texas' },
  shippingAddress: null,
  ...overrides,
});

/** The same person as a customer of the customers API, whose address names its lines addressLine1 and addressLine2. */
export const apiCustomer = (overrides: Record<string, unknown> = {}): Record<string, unknown> => customer({
  billingAddress: { addressLine1: '100 Congress Ave', addressLine2: 'Suite 200', city: 'Austin', zip: '78701', countryId: 1, stateId: 44, stateName: 'Texas' },
  ...overrides,
});

/** A manual line: 2 × $50.00. */
export const manualLine = (overrides: Record<string, unknown> = {}): Record<string, unknown> => ({
  lineItemId: null, unitTypeId: 1, productName: 'Consulting', description: null, sku: null, unitPrice: 50, quantity: 2, discountPercentage: 0, ...overrides,
});

/** An invoice request: one manual line of $100.00, no tax, fees, discount or shipping (total $100.00). */
export const invoiceBody = (overrides: Record<string, unknown> = {}): Record<string, unknown> => ({
  shippingAmount: 0, taxPercentage: 0, feesPercentage: 0, discountPercentage: 0,
  customer: customer(),
  lineItems: [manualLine()],
  canPriceBeForceOverrided: false,
  ...overrides,
});

/** A due date `days` from the server's clock. */
export const daysFrom = (s: TestServer, days: number): string => new Date(s.clock.now().getTime() + days * 86_400_000).toISOString();

/** Invoice calls on the server the suite has started (read when called, after beforeAll). */
export function invoiceCalls(server: () => TestServer) {
  const app = () => server().app;
  return {
    create: async (h: Headers, body: Record<string, unknown> = invoiceBody()): Promise<string> => {
      const res = await request(app()).post(INVOICES).set(h).send(body);
      expect(res.status, res.text).toBe(200);
      return (res.body as { id: string }).id;
    },
    publish: async (h: Headers, body: Record<string, unknown> = invoiceBody()): Promise<string> => {
      const res = await request(app()).post(`${INVOICES}/publish`).set(h).send(body);
      expect(res.status, res.text).toBe(200);
      return (res.body as { id: string }).id;
    },
    get: async (h: Headers, id: string): Promise<Invoice> => {
      const res = await request(app()).get(`${INVOICES}/${id}`).set(h);
      expect(res.status, res.text).toBe(200);
      return res.body as Invoice;
    },
    list: async (h: Headers, query: Record<string, string | number | boolean> = {}): Promise<Page<ListItem>> => {
      const res = await request(app()).get(INVOICES).set(h).query(query);
      expect(res.status, res.text).toBe(200);
      return res.body as Page<ListItem>;
    },
    createItem: async (h: Headers, body: Record<string, unknown>): Promise<string> => {
      const res = await request(app()).post('/pay-int-api/line-items').set(h).send({ unitTypeId: 1, ...body });
      expect(res.status, res.text).toBe(200);
      return (res.body as { id: string }).id;
    },
    settings: async (h: Headers, merchant: 0 | 1, body: Record<string, unknown>): Promise<void> => {
      const res = await request(app()).put(`/pay-int-api/merchants/${server().merchantId(merchant)}/invoices/settings`).set(h).send(body);
      expect(res.status, res.text).toBe(200);
    },
  };
}

/**
 * The text shown by an uncompressed PDF, one entry per text-showing operator: pdfkit writes text as hex
 * strings in TJ arrays (split where it kerns), so each array's strings are decoded and joined.
 */
export function pdfText(pdf: Buffer): string[] {
  const content = pdf.toString('latin1');
  const shown: string[] = [];
  for (const match of content.matchAll(/\[((?:<[0-9a-fA-F]*>|\s|-?[0-9.]+)*)\]\s*TJ/g)) {
    const hex = [...(match[1] ?? '').matchAll(/<([0-9a-fA-F]*)>/g)].map((m) => m[1] ?? '').join('');
    shown.push(Buffer.from(hex, 'hex').toString('latin1'));
  }
  return shown;
}

/** The outbox events of a type whose data is the record with this id. */
export async function eventsOf(s: TestServer, type: string, id: string): Promise<unknown[]> {
  const rows = (await s.db('outbox_events').where({ type }).orderBy('occurred_on')) as { payload: string }[];
  return rows.map((r) => JSON.parse(r.payload) as { id: string }).filter((data) => data.id === id);
}

/** A response's status and errorCode, for one assertion. */
export const errorOf = (res: request.Response): [number, string | null] => [res.status, (res.body as ErrorBody).errorCode];
