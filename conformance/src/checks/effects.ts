// Effects, not answers: a change is checked where it shows, not by its answer or one read-back. A subscription's
// new amount and payment method are what its next payment charges; partial refunds add up in refundedAmount and
// leave exactly the rest refundable; a deleted sandbox merchant's credentials get no token and its records no
// read; a reset empties every list of the merchant and keeps its credentials. The events these changes emit are
// held against a read of their record (event-log.ts).
import { OperationId } from '@pgw/client/operations';
import { CardTransactionStatus, TransactionCreatorType } from '@pgw/client/enums';
import { CheckFailure, CheckSkipped, bodyOf, createdId, expectStatus, failWithAll, type Check, type CheckContext } from '../check.ts';
import type { CallOptions, Exchange } from '../http.ts';
import { paymentProcessors, testCard } from '../fixtures.ts';
import { findListed } from '../paging.ts';
import { advance, advanceTo, daysFromNow } from './clock.ts';
import { EventLog } from './event-log.ts';
import { machineOf } from './machine-tables.ts';
import { ownSandbox, requestToken, type OwnSandbox } from './own-sandbox.ts';

type Failures = [string, Exchange | undefined][];

/** Runs a check's body with an event log open, through the log's watching context, and fails with what disagreed. */
async function withEvents(given: CheckContext, body: (ctx: CheckContext, failures: Failures) => Promise<void>): Promise<void> {
  const events = await EventLog.open(given);
  if (!events) throw new CheckFailure('a webhook endpoint to watch the events could not be created');
  const failures: Failures = [];
  try {
    await body(events.watching(given), failures);
    await events.settle();
    failures.push(...events.disagreements);
  } finally {
    await events.close();
  }
  failWithAll(failures);
}

async function customerWithCards(ctx: CheckContext, count: number, as: CallOptions = {}): Promise<{ customerId: string; methods: string[] }> {
  const customerId = createdId(await ctx.call(OperationId.createCustomer, { ...as, body: { firstName: 'Effects', lastName: ctx.unique('effects') } }), 'a customer');
  const methods: string[] = [];
  for (let i = 0; i < count; i++) {
    methods.push(createdId(await ctx.call(OperationId.addCardPaymentMethod, { ...as, path: { customerId }, body: { name: `Card ${String(i + 1)}`, ...testCard() } }), 'a card payment method'));
  }
  return { customerId, methods };
}

const readSubscription = async (ctx: CheckContext, subscriptionId: string): Promise<Exchange> => {
  const read = await ctx.call(OperationId.getSubscription, { path: { subscriptionId } });
  expectStatus(read, 200, OperationId.getSubscription);
  return read;
};

/** What a list holds in all, or undefined when it does not answer 200 (the failure names the list). */
async function totalOf(ctx: CheckContext, operation: OperationId, options: CallOptions): Promise<{ total: number | undefined; exchange: Exchange }> {
  const exchange = await ctx.call(operation, { ...options, query: { pageSize: 1, ...(options.query ?? {}) } });
  const total = bodyOf(exchange).total;
  return { total: exchange.response?.status === 200 && typeof total === 'number' ? total : undefined, exchange };
}

/**
 * The records a sandbox reset removes, one family a row: how the check makes one (as the sandbox merchant), the
 * list that holds it and the read that finds it. After the reset each list is empty and each read answers 404.
 */
interface ResetRow {
  family: string;
  list?: OperationId;
  read?: { operation: OperationId; param: string };
  make: (ctx: CheckContext, box: OwnSandbox) => Promise<string>;
}
const RESET_TABLE: readonly ResetRow[] = [
  { family: 'customers', list: OperationId.searchCustomers, read: { operation: OperationId.getCustomer, param: 'customerId' },
    make: async (ctx, box) => (await customerWithCards(ctx, 1, box.as)).customerId },
  { family: 'categories', list: OperationId.listCategories,
    make: async (ctx, box) => createdId(await ctx.call(OperationId.createCategory, { ...box.as, body: { name: ctx.unique('reset-category'), defaultUnitTypeId: 1 } }), 'a category') },
  { family: 'webhook endpoints', list: OperationId.listWebhookEndpoints, read: { operation: OperationId.getWebhookEndpoint, param: 'webhookId' },
    make: async (ctx, box) => createdId(await ctx.call(OperationId.createWebhookEndpoint, { ...box.as, body: { name: ctx.unique('reset-hook'), endpointUrl: 'http://127.0.0.1:9/reset', eventTypes: ['invoice.paid'] } }), 'a webhook endpoint') },
  { family: 'payment links', list: OperationId.listQuickPayments, read: { operation: OperationId.getQuickPayment, param: 'quickPaymentId' },
    make: async (ctx, box) => createdId(await ctx.call(OperationId.createQuickPayment, { ...box.as, body: { amount: 4.5, description: ctx.unique('reset-link') } }), 'a payment link') },
  { family: 'subscriptions', list: OperationId.listSubscriptions, read: { operation: OperationId.getSubscription, param: 'subscriptionId' },
    make: async (ctx, box) => {
      const { customerId, methods } = await customerWithCards(ctx, 1, box.as);
      const made = await ctx.call(OperationId.createSubscription, { ...box.as, body: { customerId, paymentMethodId: methods[0], amount: 5, frequency: 'Monthly', startDate: await daysFromNow(ctx, 3, box.as) } });
      expectStatus(made, 200, OperationId.createSubscription);
      return String(bodyOf(made).subscriptionId);
    } },
  { family: 'invoices', list: OperationId.listInvoices, read: { operation: OperationId.getInvoice, param: 'invoiceId' },
    make: async (ctx, box) => createdId(await ctx.call(OperationId.createInvoice, { ...box.as, body: {
      dueDate: await daysFromNow(ctx, 30, box.as), customer: { firstName: 'Reset', lastName: ctx.unique('reset-invoice'), email: 'reset@example.com' },
      lineItems: [{ lineItemId: null, productName: 'Reset', unitTypeId: 1, unitPrice: 3, quantity: 1 }],
    } }), 'an invoice') },
  { family: 'transactions', read: { operation: OperationId.getTransactionStatus, param: 'transactionId' },
    make: async (ctx, box) => {
      const sale = await ctx.call(OperationId.createCardSale, { ...box.as, body: { amount: 2.75, paymentProcessorId: box.cardProcessorId, card: testCard() } });
      expectStatus(sale, 200, OperationId.createCardSale);
      return String(bodyOf(sale).transactionId);
    } },
];

export const effectChecks: readonly Check[] = [
  {
    id: 'effects/subscription_change', group: 'resources', designed: true,
    tags: ['Subscriptions', OperationId.updateSubscription, OperationId.advanceSandboxClock],
    title: "a subscription's new amount and payment method read back and are what its next payment charges (the transaction's amount, method and creator), and a second change the payment after",
    run: (given) => withEvents(given, async (ctx, failures) => {
      const { customerId, methods } = await customerWithCards(ctx, 3);
      const made = await ctx.call(OperationId.createSubscription, { body: { customerId, paymentMethodId: methods[0], amount: 6, frequency: 'Monthly', startDate: await daysFromNow(ctx, 1) } });
      expectStatus(made, 200, OperationId.createSubscription);
      const subscriptionId = String(bodyOf(made).subscriptionId);
      try {
        for (const [n, change] of [{ amount: 7.25, paymentMethodId: methods[1] }, { amount: 8.4, paymentMethodId: methods[2] }].entries()) {
          const answer = await ctx.call(OperationId.updateSubscription, { path: { subscriptionId }, body: change });
          expectStatus(answer, 200, OperationId.updateSubscription);
          const read = await readSubscription(ctx, subscriptionId);
          // What the request set reads back, field by field (the fields are the request's own).
          for (const [field, value] of Object.entries(change)) {
            if (bodyOf(read)[field] !== value) failures.push([`after ${OperationId.updateSubscription} ${JSON.stringify(change)}, ${field} reads ${JSON.stringify(bodyOf(read)[field])}`, read]);
          }
          await advanceTo(ctx, bodyOf(read).nextPaymentDate);
          const paid = await readSubscription(ctx, subscriptionId);
          const transactionId = bodyOf(paid).transactionId;
          if (bodyOf(paid).paymentsCount !== n + 1 || typeof transactionId !== 'string') {
            failures.push([`payment ${String(n + 1)} falls due at nextPaymentDate and is collected: paymentsCount ${JSON.stringify(bodyOf(paid).paymentsCount)}, transactionId ${JSON.stringify(transactionId)}`, paid]);
            continue;
          }
          const payment = await ctx.call(OperationId.getTransactionStatus, { path: { transactionId } });
          const charged = bodyOf(payment);
          if (charged.amount !== change.amount || charged.paymentMethodId !== change.paymentMethodId || charged.creatorTypeId !== TransactionCreatorType.Subscription) {
            failures.push([`the payment after changing the subscription to ${JSON.stringify(change)} charges that amount with that method (creator type Subscription): it charged ${JSON.stringify(charged.amount)} with ${JSON.stringify(charged.paymentMethodId)}, creator type ${JSON.stringify(charged.creatorTypeId)}`, payment]);
          }
        }
      } finally {
        await ctx.call(OperationId.cancelSubscription, { path: { subscriptionId }, body: { atPeriodEnd: false } });
      }
    }),
  },
  {
    id: 'effects/refund_remainder', group: 'resources', designed: true,
    tags: ['Card', OperationId.refundCardTransaction, OperationId.simulateTransaction],
    title: 'partial refunds of a settled sale add up in its refundedAmount (PartiallyRefunded), a refund above the rest is refused and changes nothing, and the refund of the rest makes it Refunded with refundedAmount its processed amount',
    run: (given) => withEvents(given, async (ctx, failures) => {
      const processor = (await paymentProcessors(ctx)).card;
      if (processor === '') throw new CheckSkipped('the merchant has no card processor');
      const sale = await ctx.call(OperationId.createCardSale, { body: { amount: 10, paymentProcessorId: processor, card: testCard() } });
      expectStatus(sale, 200, OperationId.createCardSale);
      const transactionId = String(bodyOf(sale).transactionId);
      const settled = await ctx.call(OperationId.simulateTransaction, { path: { transactionId }, body: { outcome: 'settle' } });
      if (settled.response?.status === 404) throw new CheckSkipped('the target has no sandbox network simulation (designed)');
      expectStatus(settled, 200, 'settling the sale');
      const steps: { amount?: number; code: string; refunded: number; status: number }[] = [
        { amount: 2.5, code: '000', refunded: 2.5, status: CardTransactionStatus.PartiallyRefunded },
        { amount: 3, code: '000', refunded: 5.5, status: CardTransactionStatus.PartiallyRefunded },
        { amount: 4.51, code: '103', refunded: 5.5, status: CardTransactionStatus.PartiallyRefunded },
        { code: '000', refunded: 10, status: CardTransactionStatus.Refunded },
        // Refunded is final: the machine's refusal, not a limit.
        { amount: 0.01, code: machineOf(ctx.spec, 'CardTransactionStatus')?.refusalCode ?? '', refunded: 10, status: CardTransactionStatus.Refunded },
      ];
      for (const step of steps) {
        const answer = await ctx.call(OperationId.refundCardTransaction, { path: { transactionId }, body: step.amount === undefined ? {} : { amount: step.amount } });
        const what = step.amount === undefined ? 'a refund of the rest (no amount)' : `a refund of ${String(step.amount)}`;
        if (answer.response?.status !== 200 || bodyOf(answer).responseCode !== step.code) {
          failures.push([`${what} answers 200 with responseCode ${step.code}; got ${String(answer.response?.status)} ${JSON.stringify(bodyOf(answer).responseCode)}`, answer]);
        }
        const read = bodyOf(await ctx.call(OperationId.getTransactionStatus, { path: { transactionId } }));
        if (read.refundedAmount !== step.refunded || read.statusId !== step.status) {
          failures.push([`after ${what}, the sale reads refundedAmount ${String(step.refunded)} and status ${String(step.status)}; it reads ${JSON.stringify(read.refundedAmount)} and ${JSON.stringify(read.statusId)}`, answer]);
        }
      }
    }),
  },
  {
    id: 'effects/sandbox_delete', group: 'auth', designed: true,
    tags: ['Sandbox', OperationId.deleteSandboxMerchant, OperationId.listSandboxMerchants],
    title: "a deleted sandbox merchant's credentials get no token, the token it held reads nothing (401), it leaves the partner's list, and a second delete answers 404",
    async run(ctx) {
      const box = await ownSandbox(ctx, 'deleted');
      const failures: Failures = [];
      let customerId: string;
      try {
        customerId = (await customerWithCards(ctx, 0, box.as)).customerId;
        const listed = await findListed(ctx, OperationId.listSandboxMerchants, { as: 'partner', query: { search: box.name } }, (i) => i.merchantId === box.merchantId);
        if (listed.item === undefined) failures.push(["the partner's list holds its new sandbox merchant", listed.exchange]);
      } finally {
        await box.remove();
      }
      const token = await requestToken(ctx, box.clientId, box.clientSecret);
      if (token.response?.status !== 401) failures.push([`a token request with a deleted sandbox merchant's credentials answers 401; got ${String(token.response?.status)}`, token]);
      const read = await ctx.call(OperationId.getCustomer, { ...box.as, path: { customerId } });
      if (read.response?.status !== 401) failures.push([`the deleted sandbox merchant's token reads its customer: expected 401, got ${String(read.response?.status)}`, read]);
      const list = await ctx.call(OperationId.searchCustomers, { ...box.as });
      if (list.response?.status !== 401) failures.push([`the deleted sandbox merchant's token lists customers: expected 401, got ${String(list.response?.status)}`, list]);
      const gone = await findListed(ctx, OperationId.listSandboxMerchants, { as: 'partner', query: { search: box.name } }, (i) => i.merchantId === box.merchantId);
      if (gone.item !== undefined) failures.push(["a deleted sandbox merchant leaves the partner's list", gone.exchange]);
      const again = await ctx.call(OperationId.deleteSandboxMerchant, { as: 'partner', path: { merchantId: box.merchantId } });
      if (again.response?.status !== 404) failures.push([`a second delete of the sandbox merchant answers 404; got ${String(again.response?.status)}`, again]);
      failWithAll(failures);
    },
  },
  {
    id: 'effects/sandbox_reset', group: 'resources', designed: true,
    tags: ['Sandbox', OperationId.resetSandbox],
    title: "a sandbox reset removes every record of the merchant (each family's list is empty, each read answers 404) and moves its clock back to the present; its credentials still get tokens",
    async run(ctx) {
      const box = await ownSandbox(ctx, 'reset');
      const failures: Failures = [];
      try {
        const made: { row: ResetRow; id: string }[] = [];
        for (const row of RESET_TABLE) made.push({ row, id: await row.make(ctx, box) });
        for (const list of new Set(RESET_TABLE.flatMap((r) => r.list ?? []))) {
          const { total, exchange } = await totalOf(ctx, list, box.as);
          if (total === undefined || total < 1) failures.push([`before the reset, ${list} holds what the check made (total ${String(total)})`, exchange]);
        }
        await advance(ctx, 86_400, box.as);
        const reset = await ctx.call(OperationId.resetSandbox, { ...box.as });
        expectStatus(reset, 200, OperationId.resetSandbox);
        for (const row of RESET_TABLE) {
          if (!row.list) continue;
          const { total, exchange } = await totalOf(ctx, row.list, box.as);
          if (total !== 0) failures.push([`after a reset, ${row.list} holds no ${row.family} (total ${String(total)})`, exchange]);
        }
        for (const { row, id } of made) {
          if (!row.read) continue;
          const read = await ctx.call(row.read.operation, { ...box.as, path: { [row.read.param]: id } });
          if (read.response?.status !== 404) failures.push([`after a reset, ${row.read.operation} of one of the ${row.family} made before answers 404; got ${String(read.response?.status)}`, read]);
        }
        const clock = await ctx.call(OperationId.getSandboxClock, { ...box.as });
        if (bodyOf(clock).offsetSeconds !== 0) failures.push([`a reset moves the clock back to the present (offsetSeconds 0; got ${JSON.stringify(bodyOf(clock).offsetSeconds)})`, clock]);
        const token = await requestToken(ctx, box.clientId, box.clientSecret);
        if (token.response?.status !== 200) failures.push([`a reset keeps the merchant's credentials: a token request answers 200, got ${String(token.response?.status)}`, token]);
        const after = await ctx.call(OperationId.createCustomer, { ...box.as, body: { firstName: 'After', lastName: ctx.unique('after-reset') } });
        if (after.response?.status !== 200) failures.push([`the merchant works after a reset (createCustomer answered ${String(after.response?.status)})`, after]);
      } finally {
        await box.remove();
      }
      failWithAll(failures);
    },
  },
];

