// The payment-link machine walked from the spec's table (`x-state-machine` on QuickPaymentStatus): a link created
// through the creation row (its event once), every status the table reaches (by its commands, and by time:
// an expiry passed on the sandbox clock), and from each, every command of the table (cancel, the sandbox's
// payment), once per row where a command has several (a payment that leaves payments, and the last one of a
// reusable link: the link's terms pick the row). A permitted command answers 200, leaves the row's status and
// emits the row's event exactly once; a forbidden one answers 400 with the errorCode the table names, changes
// nothing and emits nothing. A second check pays a reusable link up to its limit and holds its count and total
// to the payments actually made. A new row or status in the spec is a new case without new code.
import { TransactionCreatorType } from '@pgw/client/enums';
import { OperationId } from '@pgw/client/operations';
import { CheckFailure, CheckSkipped, bodyOf, expectStatus, failWithAll, type Check, type CheckContext } from '../check.ts';
import type { Exchange } from '../http.ts';
import type { Spec } from '../spec.ts';
import { machineOf, type Machine, type Row } from './machine-tables.ts';
import { EventLog } from './event-log.ts';

const SCHEMA = 'QuickPaymentStatus';
/** The trigger of the rows that time takes (an expiry passing); reached through the sandbox clock. */
const TIME = /^time\./;
/** How far ahead of the merchant's clock a link to expire is made to expire, and how far the clock then moves. */
const EXPIRES_IN_S = 60;

/**
 * The terms of a link that picks a row among its trigger's rows (designed: the spec says in each row's note
 * what picks it): a payment that leaves payments is one of two, the last one of maxPayments (one, the default)
 * the only one. Keyed `from trigger to`.
 */
const TERMS: Record<string, Record<string, unknown>> = {
  'Active paySandboxQuickPayment Active': { maxPayments: 2 },
  'Active paySandboxQuickPayment Paid': { maxPayments: 1 },
};

/** The statuses of a string enumeration, in the document's order. */
function statusesOf(spec: Spec): string[] {
  const schemas = spec.document.components as { schemas?: Record<string, { enum?: unknown[] }> } | undefined;
  return (schemas?.schemas?.[SCHEMA]?.enum ?? []).map(String);
}

/** The merchant's sandbox time now, or undefined when the target has no sandbox clock. */
async function clockNow(ctx: CheckContext): Promise<Date | undefined> {
  const read = await ctx.call(OperationId.getSandboxClock, {});
  const now = bodyOf(read).now;
  return read.response?.status === 200 && typeof now === 'string' ? new Date(now) : undefined;
}

export function quickPaymentMachineChecks(spec: Spec): Check[] {
  const machine = machineOf(spec, SCHEMA);
  const creation = machine?.rows.find((r) => r.from.includes('initial') && spec.operations.has(r.trigger));
  if (!machine || !creation) return [];
  return [{
    id: `machines/${SCHEMA}:QuickPayment`,
    group: 'transitions',
    title: `Payment link: created through ${creation.trigger}, and from every status the table reaches (by its commands and by time), each command answers, moves and emits as ${SCHEMA}'s table says`,
    tags: ['Quick Payments', creation.trigger, 'transitions'],
    // The payment and the expiry are reached through sandbox controls (designed).
    designed: true,
    run: async (given) => {
      const events = await EventLog.open(given);
      if (!events) throw new CheckFailure('a webhook endpoint to watch the events could not be created');
      const ctx = events.watching(given);
      try {
      const statuses   = statusesOf(ctx.spec);
        const commands = [...new Set(machine.rows.filter((r) => !r.from.includes('initial') && ctx.spec.operations.has(r.trigger)).map((r) => r.trigger))];
        const rowOf = (trigger: string, from: string): Row | undefined => machine.rows.find((r) => r.trigger === trigger && r.from.includes(from));
        const timeRow = machine.rows.find((r) => TIME.test(r.trigger) && r.from.includes(creation.to));
        // The shortest way to each status: by commands from the creation status, and the time row's status by the clock.
        const routes = new Map<string, { command: string; to: string }[]>([[creation.to, []]]);
        const queue = [creation.to];
        while (queue.length > 0) {
          const at = queue.shift() ?? '';
          for (const command of commands) {
            const to = rowOf(command, at)?.to;
            if (to !== undefined && to !== 'same' && !routes.has(to)) {
              routes.set(to, [...(routes.get(at) ?? []), { command, to }]);
              queue.push(to);
            }
          }
        }
        if (timeRow && !routes.has(timeRow.to)) routes.set(timeRow.to, [{ command: timeRow.trigger, to: timeRow.to }]);
        const failures: [string, Exchange | undefined][] = [];
        const status = async (quickPaymentId: string): Promise<string> => {
          const read = await ctx.call(OperationId.getQuickPayment, { path: { quickPaymentId } });
          expectStatus(read, 200, OperationId.getQuickPayment);
          return String(bodyOf(read).status);
        };
        const command = (trigger: string, quickPaymentId: string): Promise<Exchange> => ctx.call(ctx.spec.operation(trigger), { path: { quickPaymentId } });
        const skipIfNotServed = (answer: Exchange, trigger: string): void => {
          if (answer.response?.status === 404 && ctx.spec.operation(trigger).designed) throw new CheckSkipped('the target has no sandbox payment-link control (designed)');
        };
        /** A new link (its creation row's event checked once), then the route's commands or the clock. */
        let creationChecked = false;
        const reach = async (route: { command: string; to: string }[], terms: Record<string, unknown> = {}): Promise<string> => {
          const watched = creationChecked ? undefined : creation.event ?? undefined;
          const before = watched === undefined ? 0 : await events.total(watched);
          const expiring = route.some((s) => TIME.test(s.command));
          const now = expiring ? await clockNow(ctx) : undefined;
          if (expiring && now === undefined) throw new CheckSkipped('the target has no sandbox clock to pass an expiry on (designed)');
          const body = { amount: 10.5, description: ctx.unique('machine walk'), ...terms, ...(now === undefined ? {} : { expiresOn: new Date(now.getTime() + EXPIRES_IN_S * 1000).toISOString() }) };
          const made = await ctx.call(ctx.spec.operation(creation.trigger), { body });
          expectStatus(made, 200, creation.trigger);
          const quickPaymentId = String(bodyOf(made).id);
          if (watched !== undefined) {
            const emitted = (await events.total(watched)) - before;
            if (emitted !== 1) failures.push([`${creation.trigger}: one ${watched} event expected, ${String(emitted)} seen`, made]);
            creationChecked = true;
          }
          const created = await status(quickPaymentId);
          if (created !== creation.to) failures.push([`${creation.trigger} left the link ${created}, not ${creation.to}`, made]);
          for (const step of route) {
            if (TIME.test(step.command)) {
              const moved = await ctx.call(OperationId.advanceSandboxClock, { body: { seconds: EXPIRES_IN_S + 1 } });
              expectStatus(moved, 200, 'the sandbox clock advanced past the expiry');
              continue;
            }
            const moved = await command(step.command, quickPaymentId);
            skipIfNotServed(moved, step.command);
            expectStatus(moved, 200, `${step.command} on the way to ${step.to}`);
          }
          return quickPaymentId;
        };
        let tried = 0;
        // Each command from each status: once per row it has there (the row's terms pick it), or once, forbidden.
        const cases = [...routes].flatMap(([from, route]) => commands.flatMap((trigger): { from: string; route: { command: string; to: string }[]; trigger: string; row: Row | undefined }[] => {
          const rows = machine.rows.filter((r) => r.trigger === trigger && r.from.includes(from));
          return rows.length === 0 ? [{ from, route, trigger, row: undefined }] : rows.map((row) => ({ from, route, trigger, row }));
        }));
        for (const { from, route, trigger, row } of cases) {
          const terms = row === undefined ? {} : TERMS[`${from} ${trigger} ${row.to === 'same' ? from : row.to}`] ?? {};
          const quickPaymentId = await reach(route, terms);
          const reached = await status(quickPaymentId);
          if (reached !== from) {
            failures.push([`the way to ${from} (${route.map((s) => s.command).join(', ')}) left the link ${reached}`, undefined]);
            continue;
          }
          const watched = row?.event ?? undefined;
          const before = await events.total(watched);
          const answer = await command(trigger, quickPaymentId);
          skipIfNotServed(answer, trigger);
          tried++;
          const now = await status(quickPaymentId);
          const emitted = (await events.total(watched)) - before;
          if (row) {
            const to = row.to === 'same' ? from : row.to;
            if (answer.response?.status !== 200 || now !== to) failures.push([`${trigger} on a ${from} link (permitted): expected 200 and ${to}; got ${String(answer.response?.status)} and ${now}`, answer]);
          } else {
            const wanted = machine.errorCodes[trigger];
            if (answer.response?.status !== 400 || bodyOf(answer).errorCode !== wanted || now !== from) {
              failures.push([`${trigger} on a ${from} link (forbidden): expected 400 ${String(wanted)} and ${from}; got ${String(answer.response?.status)} ${String(bodyOf(answer).errorCode)} and ${now}`, answer]);
            }
          }
          if (emitted !== (watched === undefined ? 0 : 1)) failures.push([`${trigger} on a ${from} link: ${watched === undefined ? 'no event' : `one ${watched}`} expected, ${String(emitted)} seen`, answer]);
        }
        await events.settle();
        failures.push(...events.disagreements);
        if (tried === 0) throw new CheckSkipped('no payment-link status could be reached');
        const unreached = statuses.filter((s) => !routes.has(s));
        if (unreached.length > 0) failures.push([`the table reaches no way to ${unreached.join(', ')}`, undefined]);
        failWithAll(failures);
      } finally {
        await events.close();
      }
    },
  }, reusableLinkCheck(machine)];
}

/** Whole cents of a wire amount (the suite's own arithmetic: never a sum of doubles). */
const centsOf = (amount: unknown): number => Math.round(Number(amount) * 100);

/**
 * A reusable link paid up to its limit by the sandbox's payment, the payer's quantity and amount chosen: after
 * each payment the link's paymentCount, totalCollected, latestPayment and status are what the payments actually
 * made say (each transaction read back: its amount to the cent, creator type QuickPayment), one quick_payment.paid
 * each; past the limit the payment is refused and nothing changes; the link's payment list is those payments.
 */
function reusableLinkCheck(machine: Machine): Check {
  return {
    id: `machines/${SCHEMA}:ReusableQuickPayment`,
    group: 'transitions',
    title: 'Reusable payment link: paid up to maxPayments with the payer\'s quantity or amount, its count and total are the payments actually made, and the next payment is refused',
    tags: ['Quick Payments', OperationId.createQuickPayment, OperationId.paySandboxQuickPayment, OperationId.listQuickPaymentPayments, 'transitions'],
    designed: true,
    run: async (given) => {
      const events = await EventLog.open(given);
      if (!events) throw new CheckFailure('a webhook endpoint to watch the events could not be created');
      const ctx = events.watching(given);
      try {
        const failures: [string, Exchange | undefined][] = [];
        const paidEvents = (): Promise<number> => events.total('quick_payment.paid');
        /** Pays the link as the query chooses; the payment's transaction read back. */
        const payments: { transactionId: string; cents: number; quantity: number }[] = [];
        const payAndCheck = async (quickPaymentId: string, query: Record<string, string>, expected: { cents: number; quantity: number; status: string; count: number }): Promise<void> => {
          const before = await paidEvents();
          const paid = await ctx.call(OperationId.paySandboxQuickPayment, { path: { quickPaymentId }, query });
          if (paid.response?.status === 404 && ctx.spec.operation(OperationId.paySandboxQuickPayment).designed) throw new CheckSkipped('the target has no sandbox payment-link control (designed)');
          expectStatus(paid, 200, `${OperationId.paySandboxQuickPayment} ${JSON.stringify(query)}`);
          const link = bodyOf(paid);
          const latest = (link.latestPayment ?? {}) as Record<string, unknown>;
          const transactionId = String(latest.transactionId);
          const sale = await ctx.call(OperationId.getTransactionStatus, { path: { transactionId } });
          const charged = centsOf(bodyOf(sale).amount);
          if (sale.response?.status !== 200 || charged !== expected.cents || bodyOf(sale).creatorTypeId !== TransactionCreatorType.QuickPayment) {
            failures.push([`payment ${String(expected.count)}: its transaction ${transactionId} is for ${String(charged)} cents (creator type ${String(bodyOf(sale).creatorTypeId)}), not ${String(expected.cents)} cents of creator type QuickPayment (5)`, sale]);
          }
          payments.push({ transactionId, cents: charged, quantity: expected.quantity });
          const total = payments.reduce((sum, p) => sum + p.cents, 0);
          if (link.paymentCount !== payments.length || centsOf(link.totalCollected) !== total || link.status !== expected.status
            || link.transactionId !== transactionId || centsOf(latest.amount) !== charged || latest.quantity !== expected.quantity) {
            failures.push([`after payment ${String(payments.length)}: expected ${expected.status}, paymentCount ${String(payments.length)}, totalCollected ${String(total / 100)}, latestPayment ${transactionId} of ${String(charged / 100)} x ${String(expected.quantity)}; got ${String(link.status)}, ${String(link.paymentCount)}, ${String(link.totalCollected)}, ${JSON.stringify(link.latestPayment)}`, paid]);
          }
          const emitted = (await paidEvents()) - before;
          if (emitted !== 1) failures.push([`payment ${String(payments.length)}: one quick_payment.paid expected, ${String(emitted)} seen`, paid]);
        };
        // 7.30 a unit, up to 3 payments of 1 to 3 units: 7.30 x 3 is 21.90 to the cent.
        const made = await ctx.call(OperationId.createQuickPayment, { body: { amount: 7.3, description: ctx.unique('reusable link'), maxPayments: 3, adjustableQuantity: { minimum: 1, maximum: 3 } } });
        expectStatus(made, 200, OperationId.createQuickPayment);
        const quickPaymentId = String(bodyOf(made).id);
        if (bodyOf(made).maxPayments !== 3 || bodyOf(made).paymentCount !== 0) failures.push(['the new link does not read back maxPayments 3 and paymentCount 0', made]);
        const last = machine.rows.find((r) => r.trigger === OperationId.paySandboxQuickPayment && r.from.includes('Active') && r.to !== 'Active' && r.to !== 'same')?.to ?? 'Paid';
        await payAndCheck(quickPaymentId, {}, { cents: 730, quantity: 1, status: 'Active', count: 1 });
        await payAndCheck(quickPaymentId, { quantity: '3' }, { cents: 2190, quantity: 3, status: 'Active', count: 2 });
        await payAndCheck(quickPaymentId, { quantity: '2' }, { cents: 1460, quantity: 2, status: last, count: 3 });
        const before = await paidEvents();
        const refused = await ctx.call(OperationId.paySandboxQuickPayment, { path: { quickPaymentId } });
        const wanted = machine.errorCodes[OperationId.paySandboxQuickPayment];
        if (refused.response?.status !== 400 || bodyOf(refused).errorCode !== wanted) failures.push([`a fourth payment of a link of 3: expected 400 ${String(wanted)}, got ${String(refused.response?.status)} ${String(bodyOf(refused).errorCode)}`, refused]);
        const read = await ctx.call(OperationId.getQuickPayment, { path: { quickPaymentId } });
        if (bodyOf(read).paymentCount !== 3 || (await paidEvents()) !== before) failures.push(['the refused fourth payment changed the link or emitted an event', read]);
        const list = await ctx.call(OperationId.listQuickPaymentPayments, { path: { quickPaymentId }, query: { pageSize: 100 } });
        expectStatus(list, 200, OperationId.listQuickPaymentPayments);
        const items = (Array.isArray(bodyOf(list).items) ? bodyOf(list).items : []) as Record<string, unknown>[];
        const listed = items.map((p) => `${String(p.transactionId)} ${String(centsOf(p.amount))} x${String(p.quantity)}`);
        const made3 = payments.map((p) => `${p.transactionId} ${String(p.cents)} x${String(p.quantity)}`);
        if (bodyOf(list).total !== 3 || JSON.stringify(listed) !== JSON.stringify(made3)) failures.push([`the link's payments list ${JSON.stringify(listed)}, not the payments made ${JSON.stringify(made3)}`, list]);
        // A payer-chosen amount: charged as chosen, to the cent.
        const custom = await ctx.call(OperationId.createQuickPayment, { body: { amount: 25, description: ctx.unique('donation link'), maxPayments: null, customAmount: { minimum: 5, maximum: 500 } } });
        expectStatus(custom, 200, OperationId.createQuickPayment);
        payments.length = 0;
        await payAndCheck(String(bodyOf(custom).id), { amount: '33.33' }, { cents: 3333, quantity: 1, status: 'Active', count: 1 });
        await payAndCheck(String(bodyOf(custom).id), {}, { cents: 2500, quantity: 1, status: 'Active', count: 2 });
        await events.settle();
        failures.push(...events.disagreements);
        failWithAll(failures);
      } finally {
        await events.close();
      }
    },
  };
}
