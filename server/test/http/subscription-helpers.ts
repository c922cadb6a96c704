// Calls shared by the subscription HTTP tests: a customer with stored payment methods, the subscription
// operations, the sandbox clock, and what a subscription left behind (its events, its payments' transactions,
// the customer's counts).
import request from 'supertest';
import { expect } from 'vitest';
import { sandboxMagicValues } from '@pgw/client/magic-values';
import type { TestServer } from '../harness.ts';

export const SUBSCRIPTIONS = '/pay-api/v1/subscriptions';
export const CUSTOMERS = '/pay-api/v1/customers';
export const UNKNOWN = '7c9e6679-7425-40de-944b-e07fc1f90ae7';

/** The magic numbers of the contract: a declining card (005) and a bank account returned R01 at clearing. */
export const DECLINING_CARD = sandboxMagicValues.cards.values.find((c) => c.responseCode === '005')?.number ?? '';
export const RETURNING_ACCOUNT = sandboxMagicValues.achAccounts.values.find((a) => a.returnCode === 'R01')?.accountNumber ?? '';
export const GOOD_CARD = '4111111111111111';

export interface Subscription {
  subscriptionId: string; customerId: string; paymentMethodId: string | null; amount: number; currencyIsoCode: string; frequency: string;
  status: string; startDate: string; nextPaymentDate: string | null; lastPaymentDate: string | null; failedPaymentCount: number;
  transactionId: string | null; createdOn: string; description: string | null; totalPayments: number | null; paymentsCount: number;
  cancelAtPeriodEnd: boolean; cancelledOn: string | null; lineItemId: string | null; quantity: number | null;
  trialEnd: string | null; pausedOn: string | null; invoicePerPeriod: boolean; latestInvoiceId: string | null;
}

export interface Ran { subscriptionPayments: number; achReturned: number; achSubmitted: number; cardSettled: number }

export const SUBSCRIPTION_EVENTS = ['subscription.created', 'subscription.paid', 'subscription.payment_failed', 'subscription.delinquent'];

export function subscriptionCalls(server: () => TestServer) {
  const app = () => server().app;
  const ok = (res: request.Response): unknown => {
    expect(res.status, res.text).toBe(200);
    return res.body;
  };
  const h = (who: 0 | 1) => server().as(who);
  return {
    async customer(who: 0 | 1 = 0): Promise<string> {
      return (ok(await request(app()).post(CUSTOMERS).set(await h(who)).send({ firstName: 'Sub', lastName: 'Scriber' })) as { id: string }).id;
    },
    async card(customerId: string, pan = GOOD_CARD, who: 0 | 1 = 0): Promise<string> {
      const body = { pan, expirationMonth: 12, expirationYear: 2040, name: 'Sub card' };
      return (ok(await request(app()).post(`${CUSTOMERS}/${customerId}/payment-methods/cards`).set(await h(who)).send(body)) as { id: string }).id;
    },
    async bankAccount(customerId: string, accountNumber = '000123456789', who: 0 | 1 = 0): Promise<string> {
      const body = { accountNumber, routingNumber: '021000021', accountType: 1, accountHolderType: 1, name: 'Checking' };
      return (ok(await request(app()).post(`${CUSTOMERS}/${customerId}/payment-methods/ach`).set(await h(who)).send(body)) as { id: string }).id;
    },
    create: async (body: object, who: 0 | 1 = 0): Promise<request.Response> => request(app()).post(SUBSCRIPTIONS).set(await h(who)).send(body),
    async created(body: object, who: 0 | 1 = 0): Promise<Subscription> {
      return ok(await request(app()).post(SUBSCRIPTIONS).set(await h(who)).send(body)) as Subscription;
    },
    get: async (id: string, who: 0 | 1 = 0): Promise<request.Response> => request(app()).get(`${SUBSCRIPTIONS}/${id}`).set(await h(who)),
    async read(id: string, who: 0 | 1 = 0): Promise<Subscription> {
      return ok(await request(app()).get(`${SUBSCRIPTIONS}/${id}`).set(await h(who))) as Subscription;
    },
    list: async (query: Record<string, string | number>, who: 0 | 1 = 0): Promise<request.Response> => request(app()).get(SUBSCRIPTIONS).query(query).set(await h(who)),
    update: async (id: string, body: object, who: 0 | 1 = 0): Promise<request.Response> => request(app()).put(`${SUBSCRIPTIONS}/${id}`).set(await h(who)).send(body),
    cancel: async (id: string, body: object | undefined, who: 0 | 1 = 0): Promise<request.Response> => {
      const call = request(app()).post(`${SUBSCRIPTIONS}/${id}/cancel`).set(await h(who));
      return body === undefined ? call : call.send(body);
    },
    pause: async (id: string, who: 0 | 1 = 0): Promise<request.Response> => request(app()).post(`${SUBSCRIPTIONS}/${id}/pause`).set(await h(who)),
    resume: async (id: string, who: 0 | 1 = 0): Promise<request.Response> => request(app()).post(`${SUBSCRIPTIONS}/${id}/resume`).set(await h(who)),
    settings: async (body: object, who: 0 | 1 = 0): Promise<request.Response> => request(app()).put('/pay-api/v1/configurations/subscriptions').set(await h(who)).send(body),
    readSettings: async (who: 0 | 1 = 0): Promise<request.Response> => request(app()).get('/pay-api/v1/configurations/subscriptions').set(await h(who)),
    async advance(seconds: number, who: 0 | 1 = 0): Promise<{ now: string; ran: Ran }> {
      return ok(await request(app()).post('/sandbox/v1/clock/advance').set(await h(who)).send({ seconds })) as { now: string; ran: Ran };
    },
    async now(who: 0 | 1 = 0): Promise<Date> {
      return new Date((ok(await request(app()).get('/sandbox/v1/clock').set(await h(who))) as { now: string }).now);
    },
    /** Moves the merchant's clock to just past `to` (business time). */
    async advanceTo(to: Date | string, who: 0 | 1 = 0): Promise<{ now: string; ran: Ran }> {
      const now = await this.now(who);
      const seconds = Math.max(1, Math.ceil((new Date(to).getTime() - now.getTime()) / 1000) + 1);
      return this.advance(seconds, who);
    },
    async counts(customerId: string, who: 0 | 1 = 0): Promise<[number, number]> {
      const one = ok(await request(app()).get(`${CUSTOMERS}/${customerId}`).set(await h(who))) as { numberOfSubscriptions: number };
      const page = ok(await request(app()).get(CUSTOMERS).query({ customerIds: customerId }).set(await h(who))) as { items: { activeSubscriptionsAmount: number }[] };
      return [one.numberOfSubscriptions, page.items[0]?.activeSubscriptionsAmount ?? -1];
    },
  };
}

/** The subscription events about one subscription, oldest first: [type, data]. */
/** The types of a subscription's events, in order. */
export async function eventTypesOf(s: TestServer, subscriptionId: string): Promise<string[]> {
  return (await subscriptionEvents(s, subscriptionId)).map(([type]) => type);
}

/** The subscriptions, the subscription events and the transactions: what a refused request must leave as it was. */
export async function chargesState(s: TestServer): Promise<string> {
  return JSON.stringify([
    await s.db('subscriptions').orderBy('id').select('*'),
    await s.db('outbox_events').where('type', 'like', 'subscription.%').orderBy('id').select('id'),
    await s.db('transactions').orderBy('id').select('id'),
  ]);
}

export async function subscriptionEvents(s: TestServer, subscriptionId: string): Promise<[string, Subscription][]> {
  const rows = (await s.db('outbox_events').whereIn('type', SUBSCRIPTION_EVENTS).where('payload', 'like', `%${subscriptionId}%`)
    .orderBy([{ column: 'occurred_on' }, { column: 'id' }])) as { type: string; payload: string; occurred_on: string }[];
  // The creation and the first payment may share an instant (startDate now): the creation comes first.
  const rank = (r: { type: string; occurred_on: string }): string => `${r.occurred_on} ${r.type === 'subscription.created' ? '0' : '1'}`;
  return [...rows].sort((a, b) => rank(a).localeCompare(rank(b)))
    .map((r) => [r.type, JSON.parse(r.payload) as Subscription] as [string, Subscription]).filter(([, d]) => d.subscriptionId === subscriptionId);
}

/** The transactions a subscription's customer was charged by subscriptions, oldest first. */
export async function subscriptionPayments(s: TestServer, customerId: string): Promise<{ id: string; creator_type_id: number; status_id: number; amount_cents: number; created_on: string; payment_method_type_id: number }[]> {
  type Row = { id: string; creator_type_id: number | string; status_id: number | string; amount_cents: number | string; created_on: string; payment_method_type_id: number | string };
  const rows = await s.db('transactions').where({ customer_id: customerId }).orderBy([{ column: 'created_on' }, { column: 'id' }])
    .select<Row[]>('id', 'creator_type_id', 'status_id', 'amount_cents', 'created_on', 'payment_method_type_id');
  return rows.map((r) => ({ ...r, creator_type_id: Number(r.creator_type_id), status_id: Number(r.status_id), amount_cents: Number(r.amount_cents), payment_method_type_id: Number(r.payment_method_type_id) }));
}

/** Month `n` after `start`, the day clamped to the month's last (the spec's schedule), as ISO text. */
export function monthsAfter(start: string, n: number): string {
  const d = new Date(start);
  const months = d.getUTCMonth() + n;
  const year = d.getUTCFullYear() + Math.floor(months / 12);
  const month = months % 12;
  const last = new Date(Date.UTC(year, month + 1, 0)).getUTCDate();
  return new Date(Date.UTC(year, month, Math.min(d.getUTCDate(), last), d.getUTCHours(), d.getUTCMinutes(), d.getUTCSeconds(), d.getUTCMilliseconds())).toISOString();
}

export const plusDays = (at: string, days: number): string => new Date(new Date(at).getTime() + days * 86_400_000).toISOString();
