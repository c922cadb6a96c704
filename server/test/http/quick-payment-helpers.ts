// Shared by the payment link suites: the API path, the link's shape, creating one, and a merchant's business time.
import request from 'supertest';
import { expect } from 'vitest';
import type { TestServer } from '../harness.ts';

export const LINKS = '/pay-api/v1/quick-payments';

export interface Link {
  id: string; url: string; amount: number; description: string | null; status: 'Active' | 'Paid' | 'Expired' | 'Cancelled';
  transactionId: string | null; paidOn: string | null; expiresOn: string | null; createdOn: string;
  maxPayments: number | null; paymentCount: number; totalCollected: number; quantity: number;
  adjustableQuantity: { minimum: number; maximum: number } | null; customAmount: { minimum: number; maximum: number } | null;
  redirectUrl: string | null; latestPayment: { transactionId: string; amount: number; quantity: number; paidOn: string } | null;
}

/** The merchant's business time now (its sandbox clock). */
export async function businessNow(s: TestServer, i: 0 | 1): Promise<Date> {
  const res = await request(s.app).get('/sandbox/v1/clock').set(await s.as(i));
  expect(res.status, res.text).toBe(200);
  return new Date((res.body as { now: string }).now);
}

export async function createLink(s: TestServer, i: 0 | 1, body: object = { amount: 49.5, description: 'Deposit for order 10482' }): Promise<Link> {
  const res = await request(s.app).post(LINKS).set(await s.as(i)).send(body);
  expect(res.status, res.text).toBe(200);
  return res.body as Link;
}
