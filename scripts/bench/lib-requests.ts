// The requests of the HTTP benchmark: bodies, the measured operations with issue 13's goals, one-off calls.
import type { Gateway, Merchant } from './lib-servers.ts';
import type { RequestShape } from './lib-wrk.ts';

// The request bodies of the earlier autocannon benchmark, so that figures stay comparable across versions.
export const customerBody = JSON.stringify({
  firstName: 'Ada', lastName: 'Lovelace', companyName: 'Analytical Engines', email: 'ada@example.com', mobilePhoneNumber: '+15555550123',
  isMobileNumberSmsNotificationsEnabled: false, useBillingAsShippingAddress: true,
  billingAddress: { addressLine1: '1 Main St', addressLine2: '', city: 'Springfield', zip: '62701', stateName: 'Illinois', stateId: 15, countryId: 1 },
});
export const achBody = (merchant: Merchant): string => JSON.stringify({
  amount: 125.5, paymentProcessorId: merchant.achProcessorId, secCode: 1, requesterIPaddress: '203.0.113.24',
  routingNumber: '021000021', accountNumber: '000123456789', accountType: 1, accountHolderType: 2,
  billingAddress: { city: 'Austin', countryId: 1, line1: '100 Congress Ave', postalCode: '78701', stateId: 44 },
  contactInfo: { firstName: 'Jane', lastName: 'Doe', email: 'jane.doe@example.com' },
});
export const saleBody = JSON.stringify({
  amount: 54.25, card: { pan: '4111111111111111', expirationMonth: 12, expirationYear: 2030, securityCode: '123' },
  billingAddress: { line1: '100 Congress Ave', postalCode: '78701' },
});

export interface Operation {
  label: string;
  method: 'GET' | 'POST';
  path: (customerId: string) => string;
  body: (merchant: Merchant) => string | undefined;
  /** Issue 13's floors of gateway req/s over hello-world req/s. */
  goal: number;
  postgresGoal?: number;
  /** Prism answers these from the spec's examples; the others are measured on Prism only when it answers 2xx. */
  prismRequired: boolean;
}

export const operations: readonly Operation[] = [
  { label: 'customer read (GET)', method: 'GET', path: (id) => `/pay-api/v1/customers/${id}`, body: () => undefined, goal: 0.75, postgresGoal: 0.5, prismRequired: true },
  { label: 'customer create (POST)', method: 'POST', path: () => '/pay-api/v1/customers', body: () => customerBody, goal: 0.45, postgresGoal: 0.35, prismRequired: true },
  { label: 'ACH debit create (POST)', method: 'POST', path: () => '/pay-api/v1/transactions/ach/payment', body: achBody, goal: 0.35, postgresGoal: 0.25, prismRequired: false },
  { label: 'card sale (POST)', method: 'POST', path: () => '/pay-api/v1/transactions/card/sale', body: () => saleBody, goal: 0.35, postgresGoal: 0.25, prismRequired: false },
];
export const PRISM_GOAL = 4;

/** A published invoice for the mixed workload's invoice read and PDF (publish: Due, so the PDF is available). */
export const invoiceBody = (): string => JSON.stringify({
  id: null, dueDate: new Date(Date.now() + 30 * 86_400_000).toISOString(), customer: { firstName: 'Bench', lastName: 'Invoice', email: 'bench@example.com' },
  lineItems: [{ lineItemId: null, productName: 'Widget', unitTypeId: 1, unitPrice: 10, quantity: 2 }],
});

// The list's first page, a search matching about a dozen of the cloned customers, and one matching all.
export const LIST_QUERIES = [
  ['list, first page', '/pay-api/v1/customers?pageSize=20'],
  ['search, selective', '/pay-api/v1/customers?search=Name4242&pageSize=20'],
  ['search, matching all', '/pay-api/v1/customers?search=example&pageSize=20'],
] as const;

export async function call(base: string, shape: RequestShape): Promise<{ status: number; text: string }> {
  const res = await fetch(`${base}${shape.path}`, { method: shape.method, headers: shape.headers, ...(shape.body === undefined ? {} : { body: shape.body }) });
  return { status: res.status, text: await res.text() };
}

export async function createOne(gateway: Gateway, pathname: string, body: string): Promise<string> {
  const answer = await call(gateway.base, { method: 'POST', path: pathname, headers: await gateway.headers(), body });
  if (answer.status !== 200) throw new Error(`${gateway.label}: POST ${pathname} answered ${String(answer.status)}: ${answer.text.slice(0, 300)}`);
  return (JSON.parse(answer.text) as { id: string }).id;
}
