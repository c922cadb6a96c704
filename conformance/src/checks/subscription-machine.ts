// The subscription machine walked from the spec's table (`x-state-machine` on SubscriptionStatus) with the sandbox
// clock and the contract's magic values: every row is reached and fired (an operation's, or the business clock's
// payment, retry, return or period end), leaving the row's status with its event exactly once; from every status
// each command the table does not permit answers 400 with the table's errorCode, changes nothing and emits nothing.
// A row the walk has no way to fire fails the check, so a new row in the spec asks for its scenario here.
import { OperationId } from '@pgw/client/operations';
import { sandboxCardFor, sandboxMagicValues } from '@pgw/client/magic-values';
import { CheckFailure, CheckSkipped, bodyOf, expectStatus, failWithAll, type Check, type CheckContext } from '../check.ts';
import type { Exchange } from '../http.ts';
import type { Spec } from '../spec.ts';
import { testCard } from '../fixtures.ts';
import { machineOf, type Row } from './machine-tables.ts';
import { EventLog } from './event-log.ts';

const SCHEMA = 'SubscriptionStatus';
const DAY = 86_400;
const EVENTS = ['subscription.created', 'subscription.paid', 'subscription.payment_failed', 'subscription.delinquent'];

/** The contract's magic values the walk needs: a card that declines, a bank account returned at clearing. */
const DECLINING = sandboxCardFor('005');
const RETURNING = sandboxMagicValues.achAccounts.values.find((a) => a.returnCode !== null && a.statusName === 'Failed')?.accountNumber;

type Sub = Record<string, unknown>;

/** What the walk does on one target: customers with a stored method, subscriptions, the clock, the events. */
class Walker {
  constructor(readonly ctx: CheckContext, readonly events: EventLog) {}

  async customerWith(kind: 'card' | 'declining' | 'returning'): Promise<{ customerId: string; methodId: string }> {
    const made = await this.ctx.call(OperationId.createCustomer, { body: { firstName: 'Machine', lastName: this.ctx.unique('subscription') } });
    expectStatus(made, 200, OperationId.createCustomer);
    const customerId = String(bodyOf(made).id);
    const added = kind === 'returning'
      ? await this.ctx.call(OperationId.addAchPaymentMethod, { path: { customerId }, body: { accountNumber: RETURNING ?? '', routingNumber: '021000021', accountType: 1, accountHolderType: 1, name: 'Returning' } })
      : await this.ctx.call(OperationId.addCardPaymentMethod, { path: { customerId }, body: { name: 'Machine', ...testCard(kind === 'declining' ? DECLINING : undefined) } });
    expectStatus(added, 200, kind === 'returning' ? OperationId.addAchPaymentMethod : OperationId.addCardPaymentMethod);
    return { customerId, methodId: String(bodyOf(added).id) };
  }

  async create(kind: 'card' | 'declining' | 'returning', extra: Sub = {}): Promise<{ id: string; customerId: string; exchange: Exchange }> {
    const { customerId, methodId } = await this.customerWith(kind);
    const exchange = await this.ctx.call(OperationId.createSubscription, { body: { customerId, paymentMethodId: methodId, amount: 6, frequency: 'Monthly', ...extra } });
    expectStatus(exchange, 200, OperationId.createSubscription);
    return { id: String(bodyOf(exchange).subscriptionId), customerId, exchange };
  }

  async read(id: string): Promise<Sub> {
    const read = await this.ctx.call(OperationId.getSubscription, { path: { subscriptionId: id } });
    expectStatus(read, 200, OperationId.getSubscription);
    return bodyOf(read);
  }

  /** A day after the target's business now as its clock reads now (the walk moves it; ctx.daysAhead reads it once). */
  async tomorrow(): Promise<string> {
    const clock = bodyOf(await this.ctx.call(OperationId.getSandboxClock, {}));
    const now = Date.parse(String(clock.now));
    return new Date((Number.isNaN(now) ? Date.now() : now) + DAY * 1000).toISOString();
  }

  async advance(seconds: number): Promise<void> {
    const moved = await this.ctx.call(OperationId.advanceSandboxClock, { body: { seconds } });
    if (moved.response?.status === 404) throw new CheckSkipped('the target has no sandbox clock (designed)');
    expectStatus(moved, 200, OperationId.advanceSandboxClock);
  }

  /** The clock moved just past a business time the subscription names (its next payment, retry or period end). */
  async advanceTo(at: unknown): Promise<void> {
    const clock = bodyOf(await this.ctx.call(OperationId.getSandboxClock, {}));
    const seconds = Math.ceil((Date.parse(String(at)) - Date.parse(String(clock.now))) / 1000) + 1;
    await this.advance(Math.max(1, seconds));
  }

  /** Advances 6 hours at a time (the ACH network's submission and clearing) until `done`. */
  async until(id: string, done: (s: Sub) => boolean): Promise<Sub> {
    let now = await this.read(id);
    for (let i = 0; i < 80 && !done(now); i += 1) {
      await this.advance(DAY / 4);
      now = await this.read(id);
    }
    return now;
  }

  /** The subscription events of the merchant so far, by type. */
  async counts(): Promise<number[]> {
    return Promise.all(EVENTS.map((type) => this.events.total(type)));
  }

  /** The merchant's dunning settings as the walk found them, put back by restore(). */
  private original: Sub | undefined;

  /** Changes the merchant's dunning settings for one row (the first change keeps the original to restore). */
  async dunning(body: Sub): Promise<void> {
    if (this.original === undefined) {
      const read = await this.ctx.call(OperationId.getSubscriptionSettings, {});
      expectStatus(read, 200, OperationId.getSubscriptionSettings);
      const { retryDays, afterLastFailure } = bodyOf(read);
      this.original = { retryDays, afterLastFailure };
    }
    expectStatus(await this.ctx.call(OperationId.updateSubscriptionSettings, { body }), 200, OperationId.updateSubscriptionSettings);
  }

  /** Puts the merchant's dunning settings back as the walk found them. */
  async restore(): Promise<void> {
    if (this.original !== undefined) expectStatus(await this.ctx.call(OperationId.updateSubscriptionSettings, { body: this.original }), 200, OperationId.updateSubscriptionSettings);
  }

  /** Cancels a subscription that still collects, so that the next scenario's clock moves charge nothing else. */
  async retire(id: string): Promise<void> {
    const status = (await this.read(id)).status;
    if (status === 'Active' || status === 'PastDue' || status === 'Trialing' || status === 'Paused') await this.ctx.call(OperationId.cancelSubscription, { path: { subscriptionId: id }, body: { atPeriodEnd: false } });
  }
}

/** A subscription brought to `status` (its first payment not yet due when Active or Cancelled). */
async function reach(w: Walker, status: string): Promise<string> {
  const later = { startDate: await w.tomorrow() };
  switch (status) {
    case 'Active': return (await w.create('card', later)).id;
    case 'Trialing': return (await w.create('card', { trialPeriodDays: 3 })).id;
    case 'Paused': {
      const { id } = await w.create('card', later);
      expectStatus(await pause(w, id), 200, OperationId.pauseSubscription);
      return id;
    }
    case 'Cancelled': {
      const { id } = await w.create('card', later);
      expectStatus(await w.ctx.call(OperationId.cancelSubscription, { path: { subscriptionId: id }, body: {} }), 200, OperationId.cancelSubscription);
      return id;
    }
    case 'Completed': {
      const { id } = await w.create('card', { totalPayments: 1 });
      await w.advance(1);
      return id;
    }
    default: {
      const { id } = await w.create('declining');
      await w.advance(1);
      if (status === 'Delinquent') {
        await w.advanceTo((await w.read(id)).nextPaymentDate);
        await w.advanceTo((await w.read(id)).nextPaymentDate);
      }
      return id;
    }
  }
}

/** A subscription on the returning bank account whose first debit was accepted (Active, collected). */
async function collectedByAch(w: Walker): Promise<string> {
  const { id } = await w.create('returning');
  await w.advance(1);
  return id;
}

/** How each row is fired: the subscription at the row's from status, and the call or clock move that fires it. */
/** `then`: the event of the row that follows in the same run (a trial's end is its first payment's). */
type Scenario = (w: Walker) => Promise<{ id: () => string; fire: () => Promise<Exchange | undefined>; then?: string }>;
const fixed = (id: string, fire: () => Promise<Exchange | undefined>, then?: string) => ({ id: () => id, fire, ...(then === undefined ? {} : { then }) });
const update = (w: Walker, id: string, body: Sub) => w.ctx.call(OperationId.updateSubscription, { path: { subscriptionId: id }, body });
const pause = (w: Walker, id: string) => w.ctx.call(OperationId.pauseSubscription, { path: { subscriptionId: id } });
const resume = (w: Walker, id: string) => w.ctx.call(OperationId.resumeSubscription, { path: { subscriptionId: id } });
const cancel = (w: Walker, id: string, atPeriodEnd: boolean) => w.ctx.call(OperationId.cancelSubscription, { path: { subscriptionId: id }, body: { atPeriodEnd } });
const dueNext = (w: Walker, id: string) => async (): Promise<undefined> => { await w.advanceTo((await w.read(id)).nextPaymentDate ?? (await w.read(id)).startDate); return undefined; };
const trialEndOf = (w: Walker, id: string) => async (): Promise<undefined> => { await w.advanceTo((await w.read(id)).trialEnd); return undefined; };
const startAt = (w: Walker, id: string) => async (): Promise<undefined> => { await w.advanceTo((await w.read(id)).startDate); return undefined; };
const toCard = async (w: Walker, id: string): Promise<void> => {
  const customerId = String((await w.read(id)).customerId);
  const added = await w.ctx.call(OperationId.addCardPaymentMethod, { path: { customerId }, body: { name: 'Recovery', ...testCard() } });
  expectStatus(await update(w, id, { paymentMethodId: String(bodyOf(added).id) }), 200, `${OperationId.updateSubscription} to a card that approves`);
};

const SCENARIOS: Record<string, Scenario> = {
  'initial createSubscription Active': async (w) => {
    const { customerId, methodId } = await w.customerWith('card');
    let id = '';
    return { id: () => id, fire: async () => {
      const made = await w.ctx.call(OperationId.createSubscription, { body: { customerId, paymentMethodId: methodId, amount: 6, frequency: 'Monthly', startDate: await w.tomorrow() } });
      id = String(bodyOf(made).subscriptionId);
      return made;
    } };
  },
  'initial createSubscription Trialing': async (w) => {
    const { customerId, methodId } = await w.customerWith('card');
    let id = '';
    return { id: () => id, fire: async () => {
      const made = await w.ctx.call(OperationId.createSubscription, { body: { customerId, paymentMethodId: methodId, amount: 6, frequency: 'Monthly', trialPeriodDays: 5 } });
      id = String(bodyOf(made).subscriptionId);
      return made;
    } };
  },
  'Trialing updateSubscription Trialing': async (w) => { const id = await reach(w, 'Trialing'); return fixed(id, () => update(w, id, { amount: 7 })); },
  'Trialing cancelSubscription Trialing': async (w) => { const id = await reach(w, 'Trialing'); return fixed(id, () => cancel(w, id, true)); },
  'Trialing cancelSubscription Cancelled': async (w) => { const id = await reach(w, 'Trialing'); return fixed(id, () => cancel(w, id, false)); },
  'Trialing time.trialEnded Active': async (w) => { const id = await reach(w, 'Trialing'); return fixed(id, trialEndOf(w, id), 'subscription.paid'); },
  'Trialing time.periodEnded Cancelled': async (w) => {
    const id = await reach(w, 'Trialing');
    const end = (await w.read(id)).trialEnd;
    expectStatus(await cancel(w, id, true), 200, 'cancel at the trial\'s end');
    return fixed(id, async () => { await w.advanceTo(end); return undefined; });
  },
  'Active pauseSubscription Paused': async (w) => { const id = await reach(w, 'Active'); return fixed(id, () => pause(w, id)); },
  'PastDue pauseSubscription Paused': async (w) => { const id = await reach(w, 'PastDue'); return fixed(id, () => pause(w, id)); },
  'Paused resumeSubscription Active': async (w) => { const id = await reach(w, 'Paused'); return fixed(id, () => resume(w, id)); },
  'Paused updateSubscription Paused': async (w) => { const id = await reach(w, 'Paused'); return fixed(id, () => update(w, id, { amount: 7 })); },
  'Paused cancelSubscription Cancelled': async (w) => { const id = await reach(w, 'Paused'); return fixed(id, () => cancel(w, id, true)); },
  'Active updateSubscription Active': async (w) => { const id = await reach(w, 'Active'); return fixed(id, () => update(w, id, { amount: 7 })); },
  'PastDue updateSubscription PastDue': async (w) => { const id = await reach(w, 'PastDue'); return fixed(id, () => update(w, id, { amount: 7 })); },
  'Active cancelSubscription Active': async (w) => { const id = await reach(w, 'Active'); return fixed(id, () => cancel(w, id, true)); },
  'Active cancelSubscription Cancelled': async (w) => { const id = await reach(w, 'Active'); return fixed(id, () => cancel(w, id, false)); },
  'PastDue cancelSubscription Cancelled': async (w) => { const id = await reach(w, 'PastDue'); return fixed(id, () => cancel(w, id, true)); },
  'Active payment.collected Active': async (w) => { const id = await reach(w, 'Active'); return fixed(id, startAt(w, id)); },
  'Active payment.collected Completed': async (w) => { const { id } = await w.create('card', { startDate: await w.tomorrow(), totalPayments: 1 }); return fixed(id, startAt(w, id)); },
  'PastDue payment.collected Active': async (w) => { const id = await reach(w, 'PastDue'); await toCard(w, id); return fixed(id, dueNext(w, id)); },
  'PastDue payment.collected Completed': async (w) => {
    const { id } = await w.create('declining', { totalPayments: 1 });
    await w.advance(1);
    await toCard(w, id);
    return fixed(id, dueNext(w, id));
  },
  'Active payment.failed PastDue': async (w) => { const { id } = await w.create('declining', { startDate: await w.tomorrow() }); return fixed(id, startAt(w, id)); },
  'PastDue payment.failed PastDue': async (w) => { const id = await reach(w, 'PastDue'); return fixed(id, dueNext(w, id)); },
  'PastDue payment.failed Delinquent': async (w) => { const id = await reach(w, 'PastDue'); await dueNext(w, id)(); return fixed(id, dueNext(w, id)); },
  'PastDue payment.failed Cancelled': async (w) => { const id = await reach(w, 'PastDue'); await w.dunning({ retryDays: [1], afterLastFailure: 'Cancelled' }); return fixed(id, dueNext(w, id)); },
  'Active payment.failed Delinquent': async (w) => {
    const { id } = await w.create('declining', { startDate: await w.tomorrow() });
    await w.dunning({ retryDays: [] });
    return fixed(id, startAt(w, id));
  },
  'Active payment.failed Cancelled': async (w) => {
    const { id } = await w.create('declining', { startDate: await w.tomorrow() });
    await w.dunning({ retryDays: [], afterLastFailure: 'Cancelled' });
    return fixed(id, startAt(w, id));
  },
  'Active payment.returned Cancelled': async (w) => {
    const id = await collectedByAch(w);
    await w.dunning({ retryDays: [], afterLastFailure: 'Cancelled' });
    return fixed(id, async () => { await w.until(id, (s) => s.status !== 'Active'); return undefined; });
  },
  'Active payment.returned PastDue': async (w) => {
    const id = await collectedByAch(w);
    return fixed(id, async () => { await w.until(id, (s) => s.status !== 'Active'); return undefined; });
  },
  'Active payment.returned Delinquent': async (w) => {
    const id = await collectedByAch(w);
    await w.until(id, (s) => s.status === 'PastDue' && s.failedPaymentCount === 2);
    await w.until(id, (s) => s.status === 'Active');
    return fixed(id, async () => { await w.until(id, (s) => s.status !== 'Active'); return undefined; });
  },
  'Active time.periodEnded Cancelled': async (w) => { const id = await reach(w, 'Active'); expectStatus(await cancel(w, id, true), 200, 'cancel at period end'); return fixed(id, startAt(w, id)); },
  'PastDue time.periodEnded Cancelled': async (w) => {
    const id = await collectedByAch(w);
    expectStatus(await cancel(w, id, true), 200, 'cancel at period end');
    await w.until(id, (s) => s.status !== 'Active');
    return fixed(id, async () => { await w.until(id, (s) => s.status !== 'PastDue'); return undefined; });
  },
};

const keyOf = (row: Row, from: string): string => `${from} ${row.trigger} ${row.to === 'same' ? from : row.to}`;

/** The commands on a subscription, with the bodies that pick each of their rows. */
const COMMANDS: [string, Sub | undefined][] = [['updateSubscription', { amount: 2 }], ['cancelSubscription', { atPeriodEnd: false }], ['cancelSubscription', { atPeriodEnd: true }],
  ['pauseSubscription', undefined], ['resumeSubscription', undefined]];

export function subscriptionMachineChecks(spec: Spec): Check[] {
  const machine = machineOf(spec, SCHEMA);
  if (!machine || !spec.operations.has(OperationId.createSubscription)) return [];
  const statuses = ((spec.document.components as { schemas?: Record<string, { enum?: unknown[] }> } | undefined)?.schemas?.[SCHEMA]?.enum ?? []).map(String);
  return [{
    id: `machines/${SCHEMA}:Subscription`,
    group: 'transitions',
    title: `Subscription: every row of ${SCHEMA}'s table fired (operations and the business clock's payments, retries, returns and period ends) moves there with its event once; every command the table forbids answers its errorCode and changes nothing`,
    tags: ['Subscriptions', OperationId.createSubscription, 'transitions'],
    // The payments are run by the sandbox clock with the sandbox's magic values (designed).
    designed: true,
    run: async (ctx) => {
      if (DECLINING === undefined || RETURNING === undefined) throw new CheckSkipped('the contract lists no declining card or returning bank account');
      const events = await EventLog.open(ctx);
      if (!events) throw new CheckFailure('a webhook endpoint to watch the events could not be created');
      const w = new Walker(events.watching(ctx), events);
      const failures: [string, Exchange | undefined][] = [];
      try {
        for (const row of machine.rows) {
          for (const from of row.from) {
            const key = keyOf(row, from);
            const scenario = SCENARIOS[key];
            if (!scenario) {
              failures.push([`no way to fire the row ${key}`, undefined]);
              continue;
            }
            const { id, fire, then } = await scenario(w);
            const before = await w.counts();
            const answer = await fire();
            if (answer !== undefined && answer.response?.status !== 200) failures.push([`${key}: the command answered ${String(answer.response?.status)}, not 200`, answer]);
            const after = await w.read(id());
            const expected = row.to === 'same' ? from : row.to;
            if (after.status !== expected) failures.push([`${key}: the subscription is ${String(after.status)}, not ${expected}`, answer]);
            const emitted = (await w.counts()).map((n, i) => n - (before[i] ?? 0));
            const wanted = EVENTS.map((type) => (type === row.event ? 1 : 0) + (type === then ? 1 : 0));
            const expectedEvents = [row.event, then].filter((e) => e !== null && e !== undefined).join(' and ');
            if (emitted.join() !== wanted.join()) failures.push([`${key}: events ${EVENTS.map((t, i) => `${t} ${String(emitted[i])}`).join(', ')}; expected ${expectedEvents === '' ? 'none' : expectedEvents} once`, answer]);
            await w.retire(id());
            await w.restore();
          }
        }
        for (const status of statuses) {
          for (const [command, body] of COMMANDS) {
            const permitted = machine.rows.some((r) => r.trigger === command && r.from.includes(status));
            if (permitted) continue;
            const id = await reach(w, status);
            const was = await w.read(id);
            const before = await w.counts();
            const answer = await ctx.call(ctx.spec.operation(command), { path: { subscriptionId: id }, ...(body === undefined ? {} : { body }) });
            const now = await w.read(id);
            const emitted = (await w.counts()).some((n, i) => n !== before[i]);
            const wanted = machine.errorCodes[command];
            if (answer.response?.status !== 400 || bodyOf(answer).errorCode !== wanted || JSON.stringify(now) !== JSON.stringify(was) || emitted) {
              failures.push([`${command} ${JSON.stringify(body)} on a ${status} subscription (forbidden): expected 400 ${String(wanted)}, unchanged, no event; got ${String(answer.response?.status)} ${String(bodyOf(answer).errorCode)}${emitted ? ', an event' : ''}`, answer]);
            }
            await w.retire(id);
          }
        }
        await events.settle();
        failures.push(...events.disagreements);
      } finally {
        // A scenario that failed half-way leaves the merchant's settings as they were.
        await w.restore();
        await events.close();
      }
      failWithAll(failures);
    },
  }];
}
