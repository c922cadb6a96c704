// Subscriptions over HTTP: create (subscription.created through the machine's creation row, a default payment
// method, an amount from a catalogue line), each validation refusal changing nothing, read and list with their
// filters, tenancy (merchant B gets 404 on A's subscriptions), update and cancel (at once and at period end),
// Completed after totalPayments, the customer's counts, the deletions a live subscription refuses, and every row
// of the spec's SubscriptionStatus table (each permitted move with exactly its event, each forbidden command
// refused with the table's errorCode).
import request from 'supertest';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { subscriptionStateMachine } from '@pgw/client/state-machines';
import { engines, fieldsOf, startServer, type ErrorBody, type TestServer } from '../harness.ts';
import { CUSTOMERS, DECLINING_CARD, plusDays, RETURNING_ACCOUNT, subscriptionCalls, subscriptionEvents, subscriptionPayments, UNKNOWN, type Subscription, eventTypesOf } from './subscription-helpers.ts';

const errorOf = (res: request.Response): [number, string | null] => [res.status, (res.body as ErrorBody).errorCode];
const STATUSES = ['Active', 'PastDue', 'Delinquent', 'Cancelled', 'Completed', 'Trialing', 'Paused'] as const;
type Status = (typeof STATUSES)[number];

describe.each(engines())('subscriptions (%s)', (engine) => {
  let s: TestServer;
  beforeAll(async () => { s = await startServer(engine); });
  afterAll(async () => { await s.close(); });
  const sub = subscriptionCalls(() => s);
  const types = (id: string): Promise<string[]> => eventTypesOf(s, id);
  /** The merchant's subscriptions and subscription events: what a refused request must leave as it was. */
  const state = async (): Promise<string> => JSON.stringify([
    await s.db('subscriptions').orderBy('id').select('*'),
    await s.db('outbox_events').where('type', 'like', 'subscription.%').orderBy('id').select('id'),
    await s.db('customers').orderBy('id').select('id', 'subscriptions_count', 'active_subscriptions_cents'),
  ]);
  const tomorrow = async (): Promise<string> => plusDays((await sub.now()).toISOString(), 1);

  describe('create, read and list', () => {
    it('creates an Active subscription due at startDate, emits subscription.created once with it, and counts it on the customer', async () => {
      const customerId = await sub.customer();
      const card = await sub.card(customerId);
      const startDate = await tomorrow();
      const made = await sub.created({ customerId, paymentMethodId: card, amount: 12.5, frequency: 'Weekly', startDate, totalPayments: 4, description: 'Weekly box' });
      expect(made).toEqual({
        subscriptionId: expect.stringMatching(/^[0-9a-f-]{36}$/) as string, customerId, paymentMethodId: card, amount: 12.5, currencyIsoCode: 'USD',
        frequency: 'Weekly', status: 'Active', startDate, nextPaymentDate: startDate, lastPaymentDate: null, failedPaymentCount: 0, transactionId: null,
        createdOn: expect.any(String) as string, description: 'Weekly box', totalPayments: 4, paymentsCount: 0, cancelAtPeriodEnd: false, cancelledOn: null,
        lineItemId: null, quantity: null, trialEnd: null, pausedOn: null, creditAmount: 0, latestChange: null, invoicePerPeriod: true, latestInvoiceId: null,
      });
      expect(await sub.read(made.subscriptionId)).toEqual(made);
      expect(await subscriptionEvents(s, made.subscriptionId)).toEqual([['subscription.created', made]]);
      expect(await sub.counts(customerId)).toEqual([1, 12.5]);
      // Nothing is charged before startDate.
      expect((await sub.advance(3600)).ran.subscriptionPayments).toBe(0);
      expect(await subscriptionPayments(s, customerId)).toEqual([]);
    });

    it("takes the customer's default card, else its default bank account, when no paymentMethodId is given", async () => {
      const withCard = await sub.customer();
      const card = await sub.card(withCard);
      await sub.bankAccount(withCard);
      expect((await sub.created({ customerId: withCard, amount: 5, frequency: 'Monthly' })).paymentMethodId).toBe(card);
      const withAccount = await sub.customer();
      const account = await sub.bankAccount(withAccount);
      expect((await sub.created({ customerId: withAccount, amount: 5, frequency: 'Monthly' })).paymentMethodId).toBe(account);
    });

    it("takes each payment's amount from a catalogue line item times quantity, fixed at creation", async () => {
      const h = await s.as(0);
      const item = await request(s.app).post('/pay-int-api/line-items').set(h).send({ productName: 'Coffee beans', unitPrice: 7.25, unitTypeId: 1 });
      expect(item.status, item.text).toBe(200);
      const lineItemId = (item.body as { id: string }).id;
      const customerId = await sub.customer();
      await sub.card(customerId);
      const made = await sub.created({ customerId, lineItemId, quantity: 3, frequency: 'BiWeekly' });
      expect([made.amount, made.lineItemId, made.quantity]).toEqual([21.75, lineItemId, 3]);
      expect((await sub.created({ customerId, lineItemId, frequency: 'BiWeekly' })).amount).toBe(7.25);
    });

    it('refuses each bad request naming the field, and changes nothing', async () => {
      const customerId = await sub.customer();
      const card = await sub.card(customerId);
      const other = await sub.customer();
      const othersCard = await sub.card(other);
      const bare = await sub.customer();
      const before = await state();
      const cases: [object, number, string[]][] = [
        [{ customerId, paymentMethodId: othersCard, amount: 5, frequency: 'Monthly' }, 400, ['paymentMethodId']],
        [{ customerId, paymentMethodId: UNKNOWN, amount: 5, frequency: 'Monthly' }, 400, ['paymentMethodId']],
        [{ customerId, paymentMethodId: card, frequency: 'Monthly' }, 400, ['amount']],
        [{ customerId, paymentMethodId: card, amount: 5, lineItemId: UNKNOWN, frequency: 'Monthly' }, 400, ['lineItemId']],
        [{ customerId, paymentMethodId: card, lineItemId: UNKNOWN, frequency: 'Monthly' }, 400, ['lineItemId']],
        [{ customerId, paymentMethodId: card, amount: 5, quantity: 2, frequency: 'Monthly' }, 400, ['quantity']],
        [{ customerId, paymentMethodId: card, amount: 5, frequency: 'Monthly', startDate: '2020-01-01T00:00:00Z' }, 400, ['startDate']],
        [{ customerId: bare, amount: 5, frequency: 'Monthly' }, 400, ['paymentMethodId']],
        [{ customerId, paymentMethodId: card, amount: 5, frequency: 'Daily' }, 400, []],
        [{ customerId, paymentMethodId: card, amount: 0, frequency: 'Monthly' }, 400, []],
        [{ customerId, paymentMethodId: card, amount: 5.001, frequency: 'Monthly' }, 400, []],
      ];
      for (const [body, status, fields] of cases) {
        const res = await sub.create(body);
        expect(res.status, `${JSON.stringify(body)}: ${res.text}`).toBe(status);
        if (fields.length > 0) expect(fieldsOf(res.body), JSON.stringify(body)).toEqual(fields);
      }
      expect(errorOf(await sub.create({ customerId: UNKNOWN, amount: 5, frequency: 'Monthly' }))).toEqual([404, 'not_found']);
      expect(await state()).toBe(before);
    });

    it("lists the merchant's subscriptions with the customer and status filters and paging", async () => {
      const customerId = await sub.customer();
      const card = await sub.card(customerId);
      const a = await sub.created({ customerId, paymentMethodId: card, amount: 1, frequency: 'Monthly', startDate: await tomorrow() });
      const b = await sub.created({ customerId, paymentMethodId: card, amount: 2, frequency: 'Monthly', startDate: await tomorrow() });
      expect((await sub.cancel(b.subscriptionId, undefined)).status).toBe(200);
      const all = await sub.list({ customerId });
      expect(all.status, all.text).toBe(200);
      expect((all.body as { items: Subscription[]; total: number }).total).toBe(2);
      const active = (await sub.list({ customerId, status: 'Active' })).body as { items: Subscription[]; total: number };
      expect([active.total, active.items.map((i) => i.subscriptionId)]).toEqual([1, [a.subscriptionId]]);
      const page = (await sub.list({ customerId, pageSize: 1, page: 1, orderBy: 'amount', asc: 'true' })).body as { items: Subscription[]; total: number };
      expect([page.total, page.items.map((i) => i.subscriptionId)]).toEqual([2, [b.subscriptionId]]);
      expect(((await sub.list({ customerId }, 1)).body as { total: number }).total).toBe(0);
      expect((await sub.list({ status: 'Sleeping' })).status).toBe(400);
    });
  });

  describe('tenancy', () => {
    it("answers 404 to another merchant reading, changing or cancelling a subscription, and to one for another merchant's customer", async () => {
      const customerId = await sub.customer();
      const card = await sub.card(customerId);
      const made = await sub.created({ customerId, paymentMethodId: card, amount: 3, frequency: 'Monthly', startDate: await tomorrow() });
      const before = await state();
      expect(errorOf(await sub.get(made.subscriptionId, 1))).toEqual([404, 'not_found']);
      expect(errorOf(await sub.update(made.subscriptionId, { amount: 9 }, 1))).toEqual([404, 'not_found']);
      expect(errorOf(await sub.cancel(made.subscriptionId, {}, 1))).toEqual([404, 'not_found']);
      expect(errorOf(await sub.create({ customerId, paymentMethodId: card, amount: 5, frequency: 'Monthly' }, 1))).toEqual([404, 'not_found']);
      expect(errorOf(await sub.get(UNKNOWN))).toEqual([404, 'not_found']);
      expect(await state()).toBe(before);
    });
  });

  describe('update, cancel and the customer', () => {
    it('changes the amount and the payment method from the next payment, keeping the counts true; a foreign payment method is refused', async () => {
      const customerId = await sub.customer();
      const card = await sub.card(customerId);
      const account = await sub.bankAccount(customerId);
      const made = await sub.created({ customerId, paymentMethodId: card, amount: 10, frequency: 'Monthly', startDate: await tomorrow() });
      const changed = await sub.update(made.subscriptionId, { amount: 15.5, paymentMethodId: account });
      expect(changed.status, changed.text).toBe(200);
      expect(changed.body).toMatchObject({ amount: 15.5, paymentMethodId: account, status: 'Active' });
      expect(await sub.counts(customerId)).toEqual([1, 15.5]);
      const othersCard = await sub.card(await sub.customer());
      const before = await state();
      const refused = await sub.update(made.subscriptionId, { paymentMethodId: othersCard });
      expect([refused.status, fieldsOf(refused.body)]).toEqual([400, ['paymentMethodId']]);
      expect((await sub.update(made.subscriptionId, {})).status).toBe(400);
      expect(await state()).toBe(before);
      // The next payment is an ACH debit of the new amount.
      await sub.advanceTo(made.startDate);
      const [debit] = await subscriptionPayments(s, customerId);
      expect([debit?.amount_cents, debit?.payment_method_type_id]).toEqual([1550, 2]);
      expect(await types(made.subscriptionId)).toEqual(['subscription.created', 'subscription.paid']);
    });

    it('cancels at once: Cancelled, no event, no more payments, uncounted; a second cancel or an update is refused', async () => {
      const customerId = await sub.customer();
      const card = await sub.card(customerId);
      const made = await sub.created({ customerId, paymentMethodId: card, amount: 8, frequency: 'Weekly', startDate: await tomorrow() });
      const res = await sub.cancel(made.subscriptionId, { atPeriodEnd: false });
      expect(res.status, res.text).toBe(200);
      expect(res.body).toMatchObject({ status: 'Cancelled', nextPaymentDate: null, cancelledOn: expect.any(String) as string });
      expect(await sub.counts(customerId)).toEqual([0, 0]);
      await sub.advance(30 * 86_400);
      expect(await subscriptionPayments(s, customerId)).toEqual([]);
      const before = await state();
      expect(errorOf(await sub.cancel(made.subscriptionId, undefined))).toEqual([400, subscriptionStateMachine.refusal.errorCodes.cancelSubscription]);
      expect(errorOf(await sub.update(made.subscriptionId, { amount: 1 }))).toEqual([400, subscriptionStateMachine.refusal.errorCodes.updateSubscription]);
      expect(await state()).toBe(before);
      expect(await types(made.subscriptionId)).toEqual(['subscription.created']);
    });

    it('cancels at period end: Active with cancelAtPeriodEnd until the next payment falls due, then Cancelled without a charge', async () => {
      const customerId = await sub.customer();
      const card = await sub.card(customerId);
      const made = await sub.created({ customerId, paymentMethodId: card, amount: 8, frequency: 'Monthly' });
      await sub.advance(1);
      const paid = await sub.read(made.subscriptionId);
      const res = await sub.cancel(made.subscriptionId, { atPeriodEnd: true });
      expect(res.body).toMatchObject({ status: 'Active', cancelAtPeriodEnd: true, nextPaymentDate: null, cancelledOn: null });
      expect(await sub.counts(customerId)).toEqual([1, 8]);
      await sub.advanceTo(paid.nextPaymentDate ?? '');
      expect(await sub.read(made.subscriptionId)).toMatchObject({ status: 'Cancelled', cancelledOn: paid.nextPaymentDate, paymentsCount: 1 });
      expect(await subscriptionPayments(s, customerId)).toHaveLength(1);
      expect(await sub.counts(customerId)).toEqual([0, 0]);
    });

    it('completes after totalPayments, with subscription.paid for the last, and stops counting', async () => {
      const customerId = await sub.customer();
      const card = await sub.card(customerId);
      const made = await sub.created({ customerId, paymentMethodId: card, amount: 4, frequency: 'Weekly', totalPayments: 2 });
      await sub.advance(1);
      await sub.advance(7 * 86_400);
      expect(await sub.read(made.subscriptionId)).toMatchObject({ status: 'Completed', paymentsCount: 2, nextPaymentDate: null });
      expect(await types(made.subscriptionId)).toEqual(['subscription.created', 'subscription.paid', 'subscription.paid']);
      expect(await sub.counts(customerId)).toEqual([0, 0]);
      await sub.advance(30 * 86_400);
      expect(await subscriptionPayments(s, customerId)).toHaveLength(2);
    });

    it('refuses to delete a customer or a payment method a live subscription uses, and allows it once cancelled', async () => {
      const customerId = await sub.customer();
      const card = await sub.card(customerId);
      const made = await sub.created({ customerId, paymentMethodId: card, amount: 4, frequency: 'Monthly', startDate: await tomorrow() });
      const h = await s.as(0);
      const before = await state();
      expect(errorOf(await request(s.app).delete(`${CUSTOMERS}/${customerId}/payment-methods/${card}`).set(h))).toEqual([400, 'payment_method_in_use']);
      expect(errorOf(await request(s.app).delete(`${CUSTOMERS}/${customerId}`).set(h))).toEqual([400, 'customer_has_subscriptions']);
      expect(await state()).toBe(before);
      expect((await sub.cancel(made.subscriptionId, undefined)).status).toBe(200);
      expect((await request(s.app).delete(`${CUSTOMERS}/${customerId}/payment-methods/${card}`).set(h)).status).toBe(200);
      expect((await request(s.app).delete(`${CUSTOMERS}/${customerId}`).set(h)).status).toBe(200);
    });
  });

  describe('the SubscriptionStatus table, row by row', () => {
    // Some rows need the merchant's dunning settings changed: each test leaves the initial ones.
    afterEach(async () => { expect((await sub.settings({ retryDays: [1, 2], afterLastFailure: 'Delinquent' })).status).toBe(200); });
    const dunning = async (body: object): Promise<void> => { expect((await sub.settings(body)).status).toBe(200); };
    /** A subscription brought to `status` by the API and the clock alone (declining: its card declines). */
    async function reach(status: Status, options: { totalPayments?: number } = {}): Promise<{ id: string; customerId: string; good: string }> {
      const customerId = await sub.customer();
      const good = await sub.card(customerId);
      const declining = await sub.card(customerId, DECLINING_CARD);
      const later = status === 'Active' || status === 'Cancelled' || status === 'Paused';
      const made = await sub.created({
        customerId, paymentMethodId: later || status === 'Trialing' ? good : declining, amount: 6, frequency: 'Monthly', ...(status === 'Completed' ? { totalPayments: 1 } : {}), ...options,
        ...(later ? { startDate: await tomorrow() } : {}), ...(status === 'Trialing' ? { trialPeriodDays: 3 } : {}),
      });
      const id = made.subscriptionId;
      if (status === 'Cancelled') expect((await sub.cancel(id, undefined)).status).toBe(200);
      if (status === 'Paused') expect((await sub.pause(id)).status).toBe(200);
      if (status === 'Completed') {
        expect((await sub.update(id, { paymentMethodId: good })).status).toBe(200);
        await sub.advance(1);
      }
      if (status === 'PastDue' || status === 'Delinquent') await sub.advance(1);
      if (status === 'Delinquent') {
        await sub.advanceTo(plusDays((await sub.read(id)).nextPaymentDate ?? '', 0));
        await sub.advanceTo((await sub.read(id)).nextPaymentDate ?? '');
      }
      const reached = await sub.read(id);
      expect(reached.status).toBe(status === 'Completed' ? 'Completed' : status);
      return { id, customerId, good };
    }

    /** Advances in steps of 6 hours until the subscription leaves `status` (the ACH network's days). */
    async function until(id: string, leave: (s: Subscription) => boolean): Promise<Subscription> {
      let now = await sub.read(id);
      for (let i = 0; i < 80 && !leave(now); i += 1) {
        await sub.advance(6 * 3600);
        now = await sub.read(id);
      }
      return now;
    }

    /** A subscription on the magic returning bank account whose first debit was accepted (Active, collected). */
    async function collectedByAch(): Promise<string> {
      const customerId = await sub.customer();
      const account = await sub.bankAccount(customerId, RETURNING_ACCOUNT);
      const made = await sub.created({ customerId, paymentMethodId: account, amount: 6, frequency: 'Monthly' });
      await sub.advance(1);
      expect((await sub.read(made.subscriptionId)).paymentsCount).toBe(1);
      return made.subscriptionId;
    }

    /** Each row: how to bring a subscription to the row's from status, and the call that fires its trigger; returns the id. */
    /** `then`: the events of the row that follows this one in the same run (a trial's end, then its first payment). */
    type Fire = () => Promise<{ id: string; fire: () => Promise<unknown>; then?: string[] }>;
    const SCENARIOS: Record<string, Fire> = {
      'initial createSubscription Active': async () => {
        const customerId = await sub.customer();
        const card = await sub.card(customerId);
        let id = '';
        return { get id() { return id; }, fire: async () => { id = (await sub.created({ customerId, paymentMethodId: card, amount: 6, frequency: 'Monthly' })).subscriptionId; } };
      },
      'initial createSubscription Trialing': async () => {
        const customerId = await sub.customer();
        const card = await sub.card(customerId);
        let id = '';
        return { get id() { return id; }, fire: async () => { id = (await sub.created({ customerId, paymentMethodId: card, amount: 6, frequency: 'Monthly', trialPeriodDays: 5 })).subscriptionId; } };
      },
      'Trialing updateSubscription Trialing': async () => { const { id } = await reach('Trialing'); return { id, fire: () => sub.update(id, { amount: 7 }) }; },
      'Trialing cancelSubscription Trialing': async () => { const { id } = await reach('Trialing'); return { id, fire: () => sub.cancel(id, { atPeriodEnd: true }) }; },
      'Trialing cancelSubscription Cancelled': async () => { const { id } = await reach('Trialing'); return { id, fire: () => sub.cancel(id, { atPeriodEnd: false }) }; },
      'Trialing time.trialEnded Active': async () => {
        const { id } = await reach('Trialing');
        return { id, fire: async () => sub.advanceTo((await sub.read(id)).trialEnd ?? ''), then: ['subscription.paid'] };
      },
      'Trialing time.periodEnded Cancelled': async () => {
        const { id } = await reach('Trialing');
        const end = (await sub.read(id)).trialEnd ?? '';
        expect((await sub.cancel(id, { atPeriodEnd: true })).status).toBe(200);
        return { id, fire: () => sub.advanceTo(end) };
      },
      'Active pauseSubscription Paused': async () => { const { id } = await reach('Active'); return { id, fire: () => sub.pause(id) }; },
      'PastDue pauseSubscription Paused': async () => { const { id } = await reach('PastDue'); return { id, fire: () => sub.pause(id) }; },
      'Paused resumeSubscription Active': async () => { const { id } = await reach('Paused'); return { id, fire: () => sub.resume(id) }; },
      'Paused updateSubscription Paused': async () => { const { id } = await reach('Paused'); return { id, fire: () => sub.update(id, { amount: 7 }) }; },
      'Paused cancelSubscription Cancelled': async () => { const { id } = await reach('Paused'); return { id, fire: () => sub.cancel(id, { atPeriodEnd: true }) }; },
      'Active updateSubscription Active': async () => { const { id } = await reach('Active'); return { id, fire: () => sub.update(id, { amount: 7 }) }; },
      'PastDue updateSubscription PastDue': async () => { const { id } = await reach('PastDue'); return { id, fire: () => sub.update(id, { amount: 7 }) }; },
      'Active cancelSubscription Active': async () => { const { id } = await reach('Active'); return { id, fire: () => sub.cancel(id, { atPeriodEnd: true }) }; },
      'Active cancelSubscription Cancelled': async () => { const { id } = await reach('Active'); return { id, fire: () => sub.cancel(id, { atPeriodEnd: false }) }; },
      'PastDue cancelSubscription Cancelled': async () => { const { id } = await reach('PastDue'); return { id, fire: () => sub.cancel(id, { atPeriodEnd: true }) }; },
      'Active payment.collected Active': async () => { const { id } = await reach('Active'); return { id, fire: async () => sub.advanceTo((await sub.read(id)).startDate) }; },
      'Active payment.collected Completed': async () => { const { id } = await reach('Active', { totalPayments: 1 }); return { id, fire: async () => sub.advanceTo((await sub.read(id)).startDate) }; },
      'PastDue payment.collected Active': async () => {
        const { id, good } = await reach('PastDue');
        expect((await sub.update(id, { paymentMethodId: good })).status).toBe(200);
        return { id, fire: async () => sub.advanceTo((await sub.read(id)).nextPaymentDate ?? '') };
      },
      'PastDue payment.collected Completed': async () => {
        const { id, good } = await reach('PastDue', { totalPayments: 1 });
        expect((await sub.update(id, { paymentMethodId: good })).status).toBe(200);
        return { id, fire: async () => sub.advanceTo((await sub.read(id)).nextPaymentDate ?? '') };
      },
      'Active payment.failed PastDue': async () => {
        const customerId = await sub.customer();
        const declining = await sub.card(customerId, DECLINING_CARD);
        const { subscriptionId: id } = await sub.created({ customerId, paymentMethodId: declining, amount: 6, frequency: 'Monthly', startDate: await tomorrow() });
        return { id, fire: async () => sub.advanceTo((await sub.read(id)).startDate) };
      },
      'PastDue payment.failed PastDue': async () => { const { id } = await reach('PastDue'); return { id, fire: async () => sub.advanceTo((await sub.read(id)).nextPaymentDate ?? '') }; },
      'PastDue payment.failed Delinquent': async () => {
        const { id } = await reach('PastDue');
        await sub.advanceTo((await sub.read(id)).nextPaymentDate ?? '');
        return { id, fire: async () => sub.advanceTo((await sub.read(id)).nextPaymentDate ?? '') };
      },
      'PastDue payment.failed Cancelled': async () => {
        const { id } = await reach('PastDue');
        await dunning({ retryDays: [1], afterLastFailure: 'Cancelled' });
        return { id, fire: async () => sub.advanceTo((await sub.read(id)).nextPaymentDate ?? '') };
      },
      'Active payment.failed Delinquent': async () => {
        const customerId = await sub.customer();
        const declining = await sub.card(customerId, DECLINING_CARD);
        const { subscriptionId: id } = await sub.created({ customerId, paymentMethodId: declining, amount: 6, frequency: 'Monthly', startDate: await tomorrow() });
        await dunning({ retryDays: [] });
        return { id, fire: async () => sub.advanceTo((await sub.read(id)).startDate) };
      },
      'Active payment.failed Cancelled': async () => {
        const customerId = await sub.customer();
        const declining = await sub.card(customerId, DECLINING_CARD);
        const { subscriptionId: id } = await sub.created({ customerId, paymentMethodId: declining, amount: 6, frequency: 'Monthly', startDate: await tomorrow() });
        await dunning({ retryDays: [], afterLastFailure: 'Cancelled' });
        return { id, fire: async () => sub.advanceTo((await sub.read(id)).startDate) };
      },
      'Active payment.returned Cancelled': async () => {
        const id = await collectedByAch();
        await dunning({ retryDays: [], afterLastFailure: 'Cancelled' });
        return { id, fire: () => until(id, (x) => x.status !== 'Active') };
      },
      'Active payment.returned PastDue': async () => { const id = await collectedByAch(); return { id, fire: () => until(id, (x) => x.status !== 'Active') }; },
      'Active payment.returned Delinquent': async () => {
        const id = await collectedByAch();
        // Two returned attempts (each retried and accepted again): the third debit's return is the last failure.
        await until(id, (x) => x.status === 'PastDue' && x.failedPaymentCount === 2);
        await until(id, (x) => x.status === 'Active');
        return { id, fire: () => until(id, (x) => x.status !== 'Active') };
      },
      'Active time.periodEnded Cancelled': async () => {
        const { id } = await reach('Active');
        expect((await sub.cancel(id, { atPeriodEnd: true })).status).toBe(200);
        return { id, fire: async () => sub.advanceTo((await sub.read(id)).startDate) };
      },
      'PastDue time.periodEnded Cancelled': async () => {
        // Cancelled at period end while its debit was out: the return makes it PastDue, its retry time ends it.
        const id = await collectedByAch();
        expect((await sub.cancel(id, { atPeriodEnd: true })).status).toBe(200);
        await until(id, (x) => x.status !== 'Active');
        expect(await sub.read(id)).toMatchObject({ status: 'PastDue', cancelAtPeriodEnd: true });
        return { id, fire: () => until(id, (x) => x.status !== 'PastDue') };
      },
    };
    const key = (row: (typeof subscriptionStateMachine.transitions)[number]): string => `${row.from ?? 'initial'} ${row.trigger} ${row.to}`;

    it('has a scenario for every row of the table (a new row needs one)', () => {
      expect(subscriptionStateMachine.transitions.map(key).sort()).toEqual(Object.keys(SCENARIOS).sort());
    });

    it.each(subscriptionStateMachine.transitions.map((row) => [key(row), row] as const))('%s: moves there with exactly its event', async (_name, row) => {
      const scenario = await (SCENARIOS[key(row)] ?? (() => { throw new Error(`no scenario for ${key(row)}`); }))();
      const before = row.from === null ? [] : await types(scenario.id);
      await scenario.fire();
      const after = await sub.read(scenario.id);
      expect(after.status).toBe(row.to);
      expect((await types(scenario.id)).slice(before.length)).toEqual([...(row.event === null ? [] : [row.event]), ...(scenario.then ?? [])]);
    }, 60_000);

    const COMMANDS = [
      ['updateSubscription', (id: string) => sub.update(id, { amount: 2 })],
      ['cancelSubscription', (id: string) => sub.cancel(id, { atPeriodEnd: false })],
      ['cancelSubscription', (id: string) => sub.cancel(id, { atPeriodEnd: true })],
      ['pauseSubscription', (id: string) => sub.pause(id)],
      ['resumeSubscription', (id: string) => sub.resume(id)],
    ] as const;
    const forbidden = STATUSES.flatMap((status) => COMMANDS.filter(([trigger]) => !subscriptionStateMachine.transitions.some((r) => r.from === status && r.trigger === trigger))
      .map(([trigger, call], i) => [`${status} ${trigger} #${String(i)}`, status, trigger, call] as const));

    it.each(forbidden)('%s: refused with the table\'s errorCode, nothing changed, no event', async (_name, status, trigger, call) => {
      const { id } = await reach(status);
      const before = await state();
      expect(errorOf(await call(id))).toEqual([400, subscriptionStateMachine.refusal.errorCodes[trigger]]);
      expect(await state()).toBe(before);
    }, 60_000);

    it.each(['Delinquent', 'Cancelled', 'Completed'] as const)('%s: the clock moves it no more (no worker trigger has a row from it)', async (status) => {
      const { id, customerId } = await reach(status);
      const payments = (await subscriptionPayments(s, customerId)).length;
      const events = await types(id);
      await sub.advance(70 * 86_400);
      expect((await sub.read(id)).status).toBe(status);
      expect(await types(id)).toEqual(events);
      expect(await subscriptionPayments(s, customerId)).toHaveLength(payments);
    }, 60_000);
  });
});
