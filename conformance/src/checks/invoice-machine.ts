// The invoice state machine walked from the spec's table (`x-state-machine` on InvoiceStatus): every status the
// operations and the sandbox clock reach (Draft, Due, PastDue, Paid, Cancelled), every command of the table tried
// there, and a payment by ACH returned through the sandbox's simulation (Paid to Due again). A permitted one
// succeeds, reaches its status (`same`: unchanged; `removed`: gone) and emits its event; a forbidden one answers
// 400 with the errorCode the table names for it, changes nothing and emits nothing.
import { OperationId } from '@pgw/client/operations';
import { CheckFailure, failWithAll, CheckSkipped, bodyOf, createdId, expectStatus, type Check, type CheckContext } from '../check.ts';
import { approvingCard } from '../fixtures.ts';
import type { CallOptions, Exchange } from '../http.ts';
import { SpecReader } from '../negative-cases.ts';
import type { Spec } from '../spec.ts';
import { machineOf, type Row } from './machine-tables.ts';
import { EventLog } from './event-log.ts';

type JsonObject = Record<string, unknown>;
const isObject = (v: unknown): v is JsonObject => typeof v === 'object' && v !== null && !Array.isArray(v);
const DUE_DATE_PASSED = 'time.dueDatePassed';
/** The table's trigger for the ACH debit that paid an invoice being returned (the sandbox's simulation does it). */
const PAYMENT_RETURNED = 'payment.returned';

/** The merchant's business now (the sandbox clock) plus some seconds, as a date-time; undefined without a sandbox. */
async function businessNowPlus(ctx: CheckContext, seconds: number): Promise<string | undefined> {
  const clock = await ctx.call(OperationId.getSandboxClock, {});
  const now = bodyOf(clock).now;
  if (clock.response?.status !== 200 || typeof now !== 'string') return undefined;
  return new Date(Date.parse(now) + seconds * 1000).toISOString();
}

const content = (ctx: CheckContext): JsonObject => ({
  dueDate: ctx.daysAhead(30), customer: { firstName: 'Machine', lastName: ctx.unique('inv'), email: 'machine@example.com', mobilePhoneNumber: '+15555550123' },
  lineItems: [{ lineItemId: null, productName: 'Machine walk', unitTypeId: 1, unitPrice: 25, quantity: 2 }],
});

/** A valid request of a command on an invoice (a payment pays the invoice's own total for its type). */
async function request(ctx: CheckContext, reader: SpecReader, command: string, invoiceId: string): Promise<CallOptions> {
  const path = { invoiceId };
  const calc = async (kind: 'creditCard' | 'ach'): Promise<number> => {
    const calcs = bodyOf(await ctx.call(OperationId.getInvoice, { path })).invoiceCalculations;
    const part = isObject(calcs) ? calcs[kind] : undefined;
    return isObject(part) && typeof part.totalAmount === 'number' ? part.totalAmount : 0;
  };
  const found = reader.operation(command);
  const example = found ? reader.jsonBody(found.op)?.example : undefined;
  switch (command) {
    case OperationId.publishInvoice: return { body: { ...content(ctx), id: invoiceId } };
    case OperationId.updateInvoice: return { path, body: content(ctx) };
    case OperationId.submitInvoiceCardPayment:
      return { path, body: { totalAmount: await calc('creditCard'), accountNumber: approvingCard, expirationMonth: 12, expirationYear: new Date().getUTCFullYear() + 3, securityCode: '123', billingCountryId: 1 } };
    case OperationId.submitInvoiceAchPayment:
      return { path, body: { ...(isObject(example) ? example : {}), authorizationConsentTimestamp: new Date().toISOString() } };
    default: return { path, ...(isObject(example) ? { body: example } : {}) };
  }
}

export function invoiceMachineChecks(spec: Spec): Check[] {
  const machine = machineOf(spec, 'InvoiceStatus');
  if (!machine || !spec.operations.has(OperationId.createInvoice)) return [];
  return [{
    id: 'machines/InvoiceStatus:Invoice',
    group: 'transitions',
    title: "Invoice: from every status the operations reach, each command of InvoiceStatus's table answers, moves and emits as the table says",
    tags: ['Invoices', OperationId.createInvoice, 'transitions'],
    designed: false,
    run: async (given) => {
      const events = await EventLog.open(given);
      if (!events) throw new CheckFailure('a webhook endpoint to watch the events could not be created');
      const ctx = events.watching(given);
      try {
        const reader = new SpecReader(ctx.spec.document);
        // Operations, and the clock's due date passing (the sandbox clock moves it).
        const operationRows = machine.rows.filter((r) => ctx.spec.operations.has(r.trigger) || r.trigger === DUE_DATE_PASSED);
        // The shortest way to each status by operations and the clock (a returned payment is walked after).
        const routes = new Map<string, Row[]>();
        const queue: string[] = [];
        for (const start of operationRows.filter((r) => r.from.includes('initial') && r.to !== 'same' && r.to !== 'removed')) {
          if (!routes.has(start.to)) { routes.set(start.to, [start]); queue.push(start.to); }
        }
        while (queue.length > 0) {
          const at = queue.shift() ?? '';
          for (const row of operationRows.filter((r) => r.from.includes(at) && r.to !== 'same' && r.to !== 'removed' && !routes.has(r.to))) {
            routes.set(row.to, [...(routes.get(at) ?? []), row]);
            queue.push(row.to);
          }
        }
        const commands = [...new Set(operationRows.filter((r) => !r.from.includes('initial') && ctx.spec.operations.has(r.trigger)).map((r) => r.trigger))];
        const status = async (invoiceId: string): Promise<string> => {
          const read = await ctx.call(OperationId.getInvoice, { path: { invoiceId } });
          if (read.response?.status === 404) return 'removed';
          expectStatus(read, 200, OperationId.getInvoice);
          return machine.names.get(Number(bodyOf(read).status)) ?? `unknown status ${String(bodyOf(read).status)}`;
        };
        /** A new invoice in `state`: create (or publish) one, then follow the route's commands. */
        const reach = async (state: string, route: Row[]): Promise<string> => {
          let invoiceId = '';
          // A route through the due date passing publishes an invoice due a minute from the merchant's business now.
          const passes = route.some((r) => r.trigger === DUE_DATE_PASSED);
          const dueSoon = passes ? await businessNowPlus(ctx, 60) : undefined;
          if (passes && dueSoon === undefined) throw new CheckSkipped('the target has no sandbox clock (designed): PastDue is not walked');
          for (const step of route) {
            const body = { ...content(ctx), ...(dueSoon === undefined ? {} : { dueDate: dueSoon }) };
            const exchange = step.trigger === DUE_DATE_PASSED
              ? await ctx.call(OperationId.advanceSandboxClock, { body: { seconds: 180 } })
              : step.from.includes('initial')
                ? await ctx.call(ctx.spec.operation(step.trigger), { body: step.trigger === OperationId.publishInvoice ? { ...body, id: null } : body })
                : await ctx.call(ctx.spec.operation(step.trigger), await request(ctx, reader, step.trigger, invoiceId));
            if (step.from.includes('initial')) invoiceId = createdId(exchange, `an invoice on the way to ${state}`);
            else expectStatus(exchange, [200, 204], `${step.trigger} on the way to ${state}`);
          }
          const reached = await status(invoiceId);
          if (reached !== state) throw new CheckFailure(`following the table to ${state} left the invoice ${reached}`);
          return invoiceId;
        };
        const failures: [string, Exchange | undefined][] = [];
        let tried = 0;
        for (const [state, route] of routes) {
          for (const command of commands) {
            const invoiceId = await reach(state, route);
            const row = machine.rows.find((r) => r.trigger === command && r.from.includes(state));
            const watched = row?.event ?? undefined;
            const before = await events.total(watched);
            const answer = await ctx.call(ctx.spec.operation(command), await request(ctx, reader, command, invoiceId));
            tried++;
            const now = await status(invoiceId);
            const code = answer.response?.status ?? 0;
            const emitted = (await events.total(watched)) - before;
            if (row) {
              const expected = row.to === 'same' ? state : row.to;
              if (code < 200 || code > 299 || now !== expected) failures.push([`${command} on a ${state} invoice (permitted): expected a 2xx and ${expected}; got ${String(code)} and ${now}`, answer]);
            } else {
              const wanted = machine.errorCodes[command];
              if (code !== 400 || bodyOf(answer).errorCode !== wanted || now !== state) {
                failures.push([`${command} on a ${state} invoice (forbidden): expected 400 ${String(wanted)} and ${state}; got ${String(code)} ${String(bodyOf(answer).errorCode)} and ${now}`, answer]);
              }
            }
            if (emitted !== (watched === undefined ? 0 : 1)) failures.push([`${command} on a ${state} invoice: ${watched === undefined ? 'no event' : `one ${watched}`} expected, ${String(emitted)} seen`, answer]);
          }
        }
        // A returned payment: the invoice paid by an ACH payment operation, whose debit the sandbox then returns.
        for (const row of machine.rows.filter((r) => r.trigger === PAYMENT_RETURNED)) {
          for (const from of row.from) {
            const paying = operationRows.find((r) => r.to === from && /Ach/.test(r.trigger) && r.from.some((f) => routes.has(f)));
            const start = paying?.from.find((f) => routes.has(f));
            if (!paying || start === undefined) continue;
            const invoiceId = await reach(from, [...(routes.get(start) ?? []), { ...paying, from: [start] }]);
            const transactionId = bodyOf(await ctx.call(OperationId.getInvoice, { path: { invoiceId } })).transactionId;
            if (typeof transactionId !== 'string') {
              failures.push([`an invoice paid by ${paying.trigger} names no transactionId`, undefined]);
              continue;
            }
            tried++;
            for (const outcome of [{ outcome: 'submit' }, { outcome: 'return', returnCode: 'R01' }]) {
              const simulated = await ctx.call(OperationId.simulateTransaction, { path: { transactionId }, body: outcome });
              if (simulated.response?.status === 404 && ctx.spec.operation(OperationId.simulateTransaction).designed) throw new CheckSkipped('the target has no sandbox network simulation (designed): a returned payment is not walked');
              expectStatus(simulated, 200, `simulating ${outcome.outcome} of the debit that paid the invoice`);
            }
            const now = await status(invoiceId);
            if (now !== row.to) failures.push([`${PAYMENT_RETURNED} on a ${from} invoice: expected ${row.to}, got ${now}`, undefined]);
          }
        }
        await events.settle();
        failures.push(...events.disagreements);
        if (tried === 0) throw new CheckSkipped('no invoice status could be reached');
        failWithAll(failures);
      } finally {
        await events.close();
      }
    },
  }];
}
