// Shared by the payment page suites (invoices, payment links): reading the page's forms (tokens, amounts) and
// posting them as a browser on the page would (urlencoded, with the page's Origin).
import request from 'supertest';
import { expect } from 'vitest';
import type { TestServer } from '../harness.ts';

/** The page path of an invoice. */
export const pagePath = (id: string): string => `/pay/invoices/${id}`;
/** The page path of a payment link. */
export const linkPagePath = (id: string): string => `/pay/links/${id}`;

/** The value of a hidden input of a form on the page (undefined when the page has no such form). */
export function hiddenOf(html: string, form: 'card-form' | 'ach-form', name: string): string | undefined {
  const start = html.indexOf(`id="${form}"`);
  if (start < 0) return undefined;
  const end = html.indexOf('</form>', start);
  const match = new RegExp(`name="${name}" value="([^"]*)"`).exec(html.slice(start, end));
  return match?.[1];
}

/** The page now, and the tokens of its forms. */
export async function openPage(s: TestServer, id: string, pageOf = pagePath): Promise<{ html: string; cardToken: string; achToken: string }> {
  const res = await request(s.app).get(pageOf(id));
  expect(res.status, res.text).toBe(200);
  const cardToken = hiddenOf(res.text, 'card-form', 'formToken');
  const achToken = hiddenOf(res.text, 'ach-form', 'formToken');
  if (cardToken === undefined || achToken === undefined) throw new Error('the page has no payment forms');
  return { html: res.text, cardToken, achToken };
}

export const cardFields = (overrides: Record<string, string> = {}): Record<string, string> => ({
  accountNumber: '4111 1111 1111 1111', expirationMonth: '12', expirationYear: '2030', securityCode: '123', billingCountryId: '1',
  billingPostalCode: '78701', creditTotal: '100.00', debitTotal: '100.00', ...overrides,
});

export const achFields = (overrides: Record<string, string> = {}): Record<string, string> => ({
  routingNumber: '021000021', accountNumber: '1234567890', accountType: '1', accountHolderType: '2', firstName: 'Jane', lastName: 'Doe',
  email: 'jane.doe@example.com', addressLine1: '100 Congress Ave', city: 'Austin', stateId: '44', billingPostalCode: '78701',
  authorizeBankWithdrawal: 'true', authorizationConsentTimestamp: '2026-01-02T03:04:05.000Z', ...overrides,
});

/** Posts a form of the page as the browser does; `origin` null sends neither Origin nor Referer. */
export function postForm(s: TestServer, id: string, kind: 'card' | 'ach', fields: Record<string, string>, origin: string | null = new URL(s.config.baseUrl).origin, pageOf = pagePath) {
  const req = request(s.app).post(`${pageOf(id)}/${kind}`).type('form');
  if (origin !== null) void req.set('Origin', origin);
  return req.send(fields);
}

/** The text of the page's alert (empty when it has none). */
export const alertOf = (html: string): string => /<div class="alert" role="alert" id="message">([\s\S]*?)<\/div>/.exec(html)?.[1] ?? '';

/** The payments made for an invoice. */
export const transactionsOf = async (s: TestServer, id: string): Promise<unknown[]> => s.db('transactions').where({ invoice_id: id });
