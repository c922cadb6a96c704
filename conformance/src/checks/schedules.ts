// Time: every schedule the contract states, checked against the sandbox clock at each step: the next date is
// what the schedule says, and nothing happens before it. Subscription frequencies (the spec's x-intervals, from
// startDate, the day of the month clamped), the retries of a failed payment (the merchant's settings), a payment
// link's expiry, an invoice's due date, a sandbox merchant's expiry. The webhook retry schedule is
// webhooks/retry_schedule's. Each runs on a sandbox merchant of its own: a year of clock moves stays there.
import { OperationId } from '@pgw/client/operations';
import { sandboxCardFor } from '@pgw/client/magic-values';
import { CheckSkipped, bodyOf, createdId, expectStatus, failWithAll, type Check, type CheckContext } from '../check.ts';
import type { Exchange } from '../http.ts';
import { testCard } from '../fixtures.ts';
import type { Spec } from '../spec.ts';
import { advanceTo, businessNow } from './clock.ts';
import { machineOf } from './machine-tables.ts';
import { ownSandbox, type OwnSandbox } from './own-sandbox.ts';

type JsonObject = Record<string, unknown>;
type Failures = [string, Exchange | undefined][];
const isObject = (v: unknown): v is JsonObject => typeof v === 'object' && v !== null && !Array.isArray(v);

/** How long before a due time the check looks that nothing happened yet. */
const BEFORE = -60;
/** How far a due date may be from the schedule's (a worker stamps the time it ran, within the clock step). */
const SLACK_MS = 5_000;

/** An ISO 8601 duration of days or months (P7D, P1M, P12M), or undefined for another form. */
export function parseInterval(text: unknown): { days: number } | { months: number } | undefined {
  const match = /^P(\d+)([DM])$/.exec(String(text));
  if (!match) return undefined;
  const n = Number(match[1]);
  return match[2] === 'D' ? { days: n } : { months: n };
}

/** `start` plus `n` intervals, months counted from start with the day clamped to the month's last day. */
export function plusIntervals(start: number, interval: { days: number } | { months: number }, n: number): number {
  if ('days' in interval) return start + n * interval.days * 86_400_000;
  const date = new Date(start);
  const month = date.getUTCMonth() + n * interval.months;
  const lastDay = new Date(Date.UTC(date.getUTCFullYear(), month + 1, 0)).getUTCDate();
  return Date.UTC(date.getUTCFullYear(), month, Math.min(date.getUTCDate(), lastDay), date.getUTCHours(), date.getUTCMinutes(), date.getUTCSeconds(), date.getUTCMilliseconds());
}

const schemaOf = (spec: Spec, name: string): JsonObject => {
  const schemas = isObject(spec.document.components) && isObject(spec.document.components.schemas) ? spec.document.components.schemas : {};
  return isObject(schemas[name]) ? schemas[name] : {};
};

/** The first 31st of a month at noon (UTC) a day or more after `now`: month ends clamp, and every frequency shows it. */
function aThirtyFirst(now: number): number {
  const from = new Date(now + 86_400_000);
  for (let k = 0; ; k++) {
    const candidate = Date.UTC(from.getUTCFullYear(), from.getUTCMonth() + k, 31, 12);
    if (new Date(candidate).getUTCDate() === 31 && candidate > from.getTime()) return candidate;
  }
}

const same = (a: unknown, expected: number): boolean => typeof a === 'string' && Math.abs(Date.parse(a) - expected) <= SLACK_MS;
const iso = (ms: number): string => new Date(ms).toISOString();

async function customerWithCard(ctx: CheckContext, box: OwnSandbox, pan?: string): Promise<{ customerId: string; methodId: string }> {
  const customerId = createdId(await ctx.call(OperationId.createCustomer, { ...box.as, body: { firstName: 'Schedule', lastName: ctx.unique('schedule') } }), 'a customer');
  const methodId = createdId(await ctx.call(OperationId.addCardPaymentMethod, { ...box.as, path: { customerId }, body: { name: 'Schedule', ...testCard(pan) } }), 'a card');
  return { customerId, methodId };
}

async function withSandbox(ctx: CheckContext, purpose: string, body: (box: OwnSandbox, failures: Failures) => Promise<void>): Promise<void> {
  const box = await ownSandbox(ctx, purpose);
  const failures: Failures = [];
  try {
    await body(box, failures);
  } finally {
    await box.remove();
  }
  failWithAll(failures);
}

export function scheduleChecks(spec: Spec): Check[] {
  const intervals = schemaOf(spec, 'SubscriptionFrequency')['x-intervals'];
  const checks: Check[] = [];
  if (spec.operations.has(OperationId.createSubscription) && isObject(intervals)) {
    checks.push({
      id: 'schedules/subscription_frequencies', group: 'transitions', designed: true,
      tags: ['Subscriptions', OperationId.createSubscription, OperationId.advanceSandboxClock],
      title: "each frequency's payments fall due at startDate plus n intervals (SubscriptionFrequency's x-intervals; months clamped to the month's last day), none before its time, and nextPaymentDate says so after each",
      run: (ctx) => withSandbox(ctx, 'frequencies', async (box, failures) => {
        for (const [frequency, text] of Object.entries(intervals)) {
          const interval = parseInterval(text);
          if (!interval) { failures.push([`x-intervals of ${frequency} is not a duration of days or months: ${JSON.stringify(text)}`, undefined]); continue; }
          const { customerId, methodId } = await customerWithCard(ctx, box);
          const start = aThirtyFirst(await businessNow(ctx, box.as));
          const made = await ctx.call(OperationId.createSubscription, { ...box.as, body: { customerId, paymentMethodId: methodId, amount: 3, frequency, startDate: iso(start) } });
          expectStatus(made, 200, `${OperationId.createSubscription} ${frequency}`);
          const subscriptionId = String(bodyOf(made).subscriptionId);
          const read = async (): Promise<Exchange> => ctx.call(OperationId.getSubscription, { ...box.as, path: { subscriptionId } });
          for (let n = 0; n < 3; n++) {
            const due = plusIntervals(start, interval, n);
            const before = await read();
            if (!same(bodyOf(before).nextPaymentDate, due)) {
              failures.push([`a ${frequency} subscription started ${iso(start)}: payment ${String(n + 1)} falls due ${iso(due)}; nextPaymentDate reads ${JSON.stringify(bodyOf(before).nextPaymentDate)}`, before]);
              break;
            }
            await advanceTo(ctx, iso(due), BEFORE, box.as);
            const early = await read();
            if (bodyOf(early).paymentsCount !== n) {
              failures.push([`a ${frequency} subscription: a minute before payment ${String(n + 1)} falls due (${iso(due)}), paymentsCount is ${String(n)}; it reads ${JSON.stringify(bodyOf(early).paymentsCount)}`, early]);
              break;
            }
            if (n === 2) break;
            await advanceTo(ctx, iso(due), 1, box.as);
            const paid = await read();
            if (bodyOf(paid).paymentsCount !== n + 1 || !same(bodyOf(paid).lastPaymentDate, due)) {
              failures.push([`a ${frequency} subscription: payment ${String(n + 1)} is collected when it falls due (${iso(due)}): paymentsCount ${JSON.stringify(bodyOf(paid).paymentsCount)}, lastPaymentDate ${JSON.stringify(bodyOf(paid).lastPaymentDate)}`, paid]);
              break;
            }
          }
          await ctx.call(OperationId.cancelSubscription, { ...box.as, path: { subscriptionId }, body: { atPeriodEnd: false } });
        }
      }),
    });
  }
  if (spec.operations.has(OperationId.createSubscription) && spec.operations.has(OperationId.getSubscriptionSettings)) {
    checks.push({
      id: 'schedules/subscription_retries', group: 'transitions', designed: true,
      tags: ['Subscriptions', OperationId.createSubscription, OperationId.updateSubscriptionSettings, OperationId.advanceSandboxClock],
      title: "a failed payment is retried on the merchant's schedule (its subscription settings' retryDays, each after the attempt before), not before, and after the last retry fails the settings' afterLastFailure holds (nothing more due): the defaults, then a schedule of the check's own",
      run: (ctx) => withSandbox(ctx, 'retries', async (box, failures) => {
        const declining = sandboxCardFor('005');
        if (declining === undefined) throw new CheckSkipped('the contract lists no declining card');
        const defaults = bodyOf(await ctx.call(OperationId.getSubscriptionSettings, { ...box.as }));
        const own = { retryDays: [2, 3, 1], afterLastFailure: 'Cancelled' };
        for (const settings of [defaults, own]) {
          if (settings === own) expectStatus(await ctx.call(OperationId.updateSubscriptionSettings, { ...box.as, body: own }), 200, OperationId.updateSubscriptionSettings);
          const days = Array.isArray(settings.retryDays) ? settings.retryDays.map(Number) : [];
          const final = String(settings.afterLastFailure);
          const { customerId, methodId } = await customerWithCard(ctx, box, declining);
          const start = (await businessNow(ctx, box.as)) + 86_400_000;
          const made = await ctx.call(OperationId.createSubscription, { ...box.as, body: { customerId, paymentMethodId: methodId, amount: 3, frequency: 'Monthly', startDate: iso(start) } });
          expectStatus(made, 200, OperationId.createSubscription);
          const subscriptionId = String(bodyOf(made).subscriptionId);
          const read = async (): Promise<JsonObject> => bodyOf(await ctx.call(OperationId.getSubscription, { ...box.as, path: { subscriptionId } }));
          const what = `with retryDays ${JSON.stringify(days)} and afterLastFailure ${final}`;
          let attempt = start;
          for (let k = 0; k <= days.length; k++) {
            await advanceTo(ctx, iso(attempt), BEFORE, box.as);
            const early = await read();
            if (early.failedPaymentCount !== k) { failures.push([`${what}: a minute before attempt ${String(k + 1)} (${iso(attempt)}), failedPaymentCount is ${String(k)}; it reads ${JSON.stringify(early.failedPaymentCount)}`, undefined]); break; }
            await advanceTo(ctx, iso(attempt), 1, box.as);
            const failed = await read();
            const delay = days[k];
            const next = delay === undefined ? undefined : attempt + delay * 86_400_000;
            const status = next === undefined ? final : 'PastDue';
            if (failed.failedPaymentCount !== k + 1 || failed.status !== status || (next === undefined ? failed.nextPaymentDate !== null : !same(failed.nextPaymentDate, next))) {
              failures.push([`${what}: attempt ${String(k + 1)} of a payment (${iso(attempt)}) fails: failedPaymentCount ${String(k + 1)}, ${status}, nextPaymentDate ${next === undefined ? 'null' : iso(next)}; it reads ${JSON.stringify(failed.failedPaymentCount)}, ${JSON.stringify(failed.status)}, ${JSON.stringify(failed.nextPaymentDate)}`, undefined]);
              break;
            }
            if (next !== undefined) attempt = next;
          }
        }
      }),
    });
  }
  if (spec.operations.has(OperationId.createQuickPayment)) {
    checks.push({
      id: 'schedules/link_expiry', group: 'transitions', designed: true,
      tags: ['Quick Payments', OperationId.createQuickPayment, OperationId.advanceSandboxClock],
      title: 'a payment link stays Active until its expiresOn on the business clock, and is Expired right after',
      run: (ctx) => withSandbox(ctx, 'link-expiry', async (box, failures) => {
        const expires = (await businessNow(ctx, box.as)) + 2 * 86_400_000;
        const quickPaymentId = createdId(await ctx.call(OperationId.createQuickPayment, { ...box.as, body: { amount: 4, description: ctx.unique('expiring'), expiresOn: iso(expires) } }), 'a payment link');
        const status = async (): Promise<Exchange> => ctx.call(OperationId.getQuickPayment, { ...box.as, path: { quickPaymentId } });
        await advanceTo(ctx, iso(expires), BEFORE, box.as);
        const early = await status();
        if (bodyOf(early).status !== 'Active') failures.push([`a minute before its expiresOn (${iso(expires)}) the link is Active; it reads ${JSON.stringify(bodyOf(early).status)}`, early]);
        await advanceTo(ctx, iso(expires), 1, box.as);
        const late = await status();
        if (bodyOf(late).status !== 'Expired') failures.push([`right after its expiresOn (${iso(expires)}) the link is Expired; it reads ${JSON.stringify(bodyOf(late).status)}`, late]);
      }),
    });
  }
  const invoices = machineOf(spec, 'InvoiceStatus');
  if (spec.operations.has(OperationId.publishInvoice) && invoices) {
    checks.push({
      id: 'schedules/invoice_due_date', group: 'transitions', designed: true,
      tags: ['Invoices', OperationId.publishInvoice, OperationId.advanceSandboxClock],
      title: 'a published invoice stays Due until its dueDate passes on the business clock, and is PastDue right after',
      run: (ctx) => withSandbox(ctx, 'invoice-due', async (box, failures) => {
        const due = (await businessNow(ctx, box.as)) + 2 * 86_400_000;
        const published = await ctx.call(OperationId.publishInvoice, { ...box.as, body: {
          id: null, dueDate: iso(due), customer: { firstName: 'Due', lastName: ctx.unique('due'), email: 'due@example.com' },
          lineItems: [{ lineItemId: null, productName: 'Due', unitTypeId: 1, unitPrice: 5, quantity: 1 }],
        } });
        const invoiceId = createdId(published, 'a published invoice');
        const status = async (): Promise<{ name: string | undefined; exchange: Exchange }> => {
          const exchange = await ctx.call(OperationId.getInvoice, { ...box.as, path: { invoiceId } });
          return { name: invoices.names.get(Number(bodyOf(exchange).status)), exchange };
        };
        await advanceTo(ctx, iso(due), BEFORE, box.as);
        const early = await status();
        if (early.name !== 'Due') failures.push([`a minute before its dueDate (${iso(due)}) the invoice is Due; it reads ${String(early.name)}`, early.exchange]);
        await advanceTo(ctx, iso(due), 1, box.as);
        const late = await status();
        if (late.name !== 'PastDue') failures.push([`right after its dueDate (${iso(due)}) the invoice is PastDue; it reads ${String(late.name)}`, late.exchange]);
      }),
    });
  }
  if (spec.operations.has(OperationId.createSandboxMerchant)) {
    checks.push({
      id: 'schedules/sandbox_expiry', group: 'resources', designed: true,
      tags: ['Sandbox', OperationId.createSandboxMerchant],
      title: 'a sandbox merchant expires expiresInSeconds after it was made (wall clock), at an expiresAt given, or 7 days on when neither is given',
      async run(ctx) {
        const failures: Failures = [];
        const at = iso(Math.floor(Date.now() / 1000) * 1000 + 2 * 86_400_000);
        const cases: { body: JsonObject; expected: (createdOn: number) => number }[] = [
          { body: { expiresInSeconds: 3_600 }, expected: (made) => made + 3_600_000 },
          { body: { expiresAt: at }, expected: () => Date.parse(at) },
          { body: {}, expected: (made) => made + 7 * 86_400_000 },
        ];
        for (const c of cases) {
          const box = await ownSandbox(ctx, 'expiry', c.body);
          await box.remove();
          const expected = c.expected(Date.parse(box.createdOn));
          if (!same(box.expiresAt, expected)) failures.push([`a sandbox merchant made with ${JSON.stringify(c.body)} at ${box.createdOn} expires at ${iso(expected)}; expiresAt reads ${box.expiresAt}`, undefined]);
        }
        failWithAll(failures);
      },
    });
  }
  return checks;
}
