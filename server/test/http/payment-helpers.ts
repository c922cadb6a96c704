// Calls and bodies shared by the payment HTTP tests: ACH debits and credits, card payments, the status
// check, the sandbox controls, and the outbox events of a transaction.
import request from 'supertest';
import { expect } from 'vitest';
import type { TestServer } from '../harness.ts';

export type Headers = Record<string, string>;

export const ACH = '/pay-api/v1/transactions/ach';
export const CARD = '/pay-api/v1/transactions/card';
export const UNKNOWN = '7c9e6679-7425-40de-944b-e07fc1f90ae7';

export interface Details {
  transactionId: string; merchantId: string; typeId: number; type: string; statusId: number; status: string; paymentMethodTypeId: number;
  paymentProcessorId: string; creatorTypeId: number; amount: number; approvedAmount: number | null; processedAmount: number;
  refundedAmount: number; responseCode: string | null; responseDescription: string | null; authorizationCode: string | null;
  returnCode: string | null; customerId: string | null; paymentMethodId: string | null; panMask: string | null; cardType: number | null;
  accountNumber: string | null; routingNumber: string | null; createdOn: string; modifiedOn: string; settledOn: string | null; expiresAt: string | null;
}

export interface Result {
  transactionId: string; typeId: number; type: string; statusId: number; status: string; responseCode: string; responseDescription: string;
  processedAmount?: number; approvedAmount?: number | null; requestedAmount?: number; authorizationCode?: string | null; panMask?: string;
  cardType?: number; avsResult?: string | null; cvvResult?: string | null; customerId?: string | null; paymentMethodId?: string | null;
  expiresAt?: string | null; createdOn?: string;
}

export interface ClockRun {
  merchantId: string; now: string; offsetSeconds: number;
  ran: { achSubmitted: number; achSettled: number; achReturned: number; achFailed: number; cardSettled: number; cardExpired: number;
    settlementBatches: number; invoicesPastDue: number; webhookAttempts: number };
}

/** A debit from new account details (the customer is generated). */
export const achDebitBody = (s: TestServer, merchant: 0 | 1 = 0, overrides: Record<string, unknown> = {}): Record<string, unknown> => ({
  amount: 125.5,
  paymentProcessorId: s.secrets.merchants[merchant]?.achProcessorId,
  secCode: 1,
  requesterIPaddress: '203.0.113.24',
  routingNumber: '021000021',
  accountNumber: '000123456789',
  accountType: 1,
  accountHolderType: 2,
  billingAddress: { city: 'Austin', countryId: 1, line1: '100 Congress Ave', postalCode: '78701', stateId: 44 },
  contactInfo: { firstName: 'Jane', lastName: 'Doe', email: 'jane.doe@example.com' },
  ...overrides,
});

export const achCreditBody = (s: TestServer, merchant: 0 | 1 = 0, overrides: Record<string, unknown> = {}): Record<string, unknown> =>
  achDebitBody(s, merchant, { paymentMethodId: null, amount: 80, ...overrides });

export const card = (pan = '4111111111111111', overrides: Record<string, unknown> = {}): Record<string, unknown> => ({
  pan, expirationMonth: 12, expirationYear: 2030, securityCode: pan.length === 15 ? '1234' : '123', cardholderName: 'Jane Doe', ...overrides,
});

export const cardBody = (pan = '4111111111111111', overrides: Record<string, unknown> = {}): Record<string, unknown> => ({
  amount: 54.25, card: card(pan), billingAddress: { line1: '100 Congress Ave', postalCode: '78701' }, ...overrides,
});

export function paymentCalls(server: () => TestServer) {
  const app = () => server().app;
  // The body of a 200 answer, typed by the caller's declared result.
  // eslint-disable-next-line @typescript-eslint/no-unnecessary-type-parameters
  const ok = <T>(res: request.Response): T => {
    expect(res.status, res.text).toBe(200);
    return res.body as T;
  };
  return {
    achDebit: async (h: Headers, body: Record<string, unknown>): Promise<Result> => ok(await request(app()).post(`${ACH}/payment`).set(h).send(body)),
    achCredit: async (h: Headers, body: Record<string, unknown>): Promise<Result> => ok(await request(app()).post(`${ACH}/payment/credit`).set(h).send(body)),
    achCommand: async (h: Headers, id: string, command: 'hold' | 'unhold' | 'void' | 'refund', body?: Record<string, unknown>): Promise<Result> => {
      const call = request(app()).post(`${ACH}/${id}/${command}`).set(h);
      return ok(await (body === undefined ? call : call.send(body)));
    },
    cardCreate: async (h: Headers, kind: 'authorization' | 'sale' | 'refund', body: Record<string, unknown>): Promise<Result> =>
      ok(await request(app()).post(`${CARD}/${kind}`).set(h).send(body)),
    cardCommand: async (h: Headers, id: string, command: 'capture' | 'void' | 'refund', body?: Record<string, unknown>): Promise<Result> => {
      const call = request(app()).post(`${CARD}/${id}/${command}`).set(h);
      return ok(await (body === undefined ? call : call.send(body)));
    },
    status: async (h: Headers, id: string): Promise<Details> => ok(await request(app()).post(`/pay-api/v1/transactions/${id}`).set(h)),
    simulate: async (h: Headers, id: string, body: Record<string, unknown>): Promise<Details> =>
      ok(await request(app()).post(`/sandbox/v1/transactions/${id}/simulate`).set(h).send(body)),
    advance: async (h: Headers, seconds: number): Promise<ClockRun> => ok(await request(app()).post('/sandbox/v1/clock/advance').set(h).send({ seconds })),
    clock: async (h: Headers): Promise<{ merchantId: string; now: string; offsetSeconds: number }> => ok(await request(app()).get('/sandbox/v1/clock').set(h)),
  };
}

export interface OutboxEntry { type: string; data: Record<string, unknown>; occurredOn: string }

/** The outbox events about one transaction (by data.transactionId), oldest first. */
export async function transactionEvents(s: TestServer, transactionId: string): Promise<OutboxEntry[]> {
  const rows = (await s.db('outbox_events').where('payload', 'like', `%${transactionId}%`).orderBy([{ column: 'occurred_on' }, { column: 'id' }])) as
    { type: string; payload: string; occurred_on: string }[];
  return rows
    .map((r) => ({ type: r.type, data: JSON.parse(r.payload) as Record<string, unknown>, occurredOn: r.occurred_on }))
    .filter((e) => e.data.transactionId === transactionId);
}
