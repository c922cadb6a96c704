// The payment-link machine walked from the spec's table (`x-state-machine` on QuickPaymentStatus): a link created
// through the creation row (its event once), every status the table reaches (by its commands, and by time:
// an expiry passed on the sandbox clock), and from each, every command of the table (cancel, the sandbox's
// payment). A permitted command answers 200, leaves the row's status and emits the row's event exactly once; a
// forbidden one answers 400 with the errorCode the table names, changes nothing and emits nothing. A new row or
// status in the spec is a new case without new code.
import { OperationId } from '@pgw/client/operations';
import { CheckFailure, CheckSkipped, bodyOf, expectStatus, failWithAll, type Check, type CheckContext } from '../check.ts';
import type { Exchange } from '../http.ts';
import type { Spec } from '../spec.ts';
import { machineOf, type Row } from './machine-tables.ts';
import { EventLog } from './event-log.ts';

const SCHEMA = 'QuickPaymentStatus';
/** The trigger of the rows that time takes (an expiry passing); reached through the sandbox clock. */
const TIME = /^time\./;
/** How far ahead of the merchant's clock a link to expire is made to expire, and how far the clock then moves. */
const EXPIRES_IN_S = 60;

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
        const statuses = statusesOf(ctx.spec);
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
        const reach = async (route: { command: string; to: string }[]): Promise<string> => {
          const watched = creationChecked ? undefined : creation.event ?? undefined;
          const before = watched === undefined ? 0 : await events.total(watched);
          const expiring = route.some((s) => TIME.test(s.command));
          const now = expiring ? await clockNow(ctx) : undefined;
          if (expiring && now === undefined) throw new CheckSkipped('the target has no sandbox clock to pass an expiry on (designed)');
          const body = { amount: 10.5, description: ctx.unique('machine walk'), ...(now === undefined ? {} : { expiresOn: new Date(now.getTime() + EXPIRES_IN_S * 1000).toISOString() }) };
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
        for (const [from, route] of routes) {
          for (const trigger of commands) {
            const quickPaymentId = await reach(route);
            const reached = await status(quickPaymentId);
            if (reached !== from) {
              failures.push([`the way to ${from} (${route.map((s) => s.command).join(', ')}) left the link ${reached}`, undefined]);
              continue;
            }
            const row = rowOf(trigger, from);
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
  }];
}
