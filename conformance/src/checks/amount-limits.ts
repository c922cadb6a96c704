// The amount limits of every money command (capture, card refund, ACH refund) walked at, just above and just
// below the limit, and every documented amount field of a partial approval: the state-machine walk only ever
// sends an amount of 1, so a gateway accepting more than the transaction allows passed it unnoticed. A refund
// after a partial one is held to what remains (processed less refunded), not to the processed amount.
import { OperationId } from '@pgw/client/operations';
import { AccountHolderType, AccountType, CardTransactionStatus, SecCode } from '@pgw/client/enums';
import { sandboxCardFor, sandboxMagicValues } from '@pgw/client/magic-values';
import { CheckSkipped, bodyOf, expectStatus, failWithAll, type Check, type CheckContext } from '../check.ts';
import type { Exchange } from '../http.ts';
import { paymentProcessors, testCard } from '../fixtures.ts';

type Failures = [string, Exchange | undefined][];
/** Cents to the USD number the API speaks (amounts are exact to the cent in JSON). */
const usd = (cents: number): number => Math.round(cents) / 100;
/** Half away from zero, to the cent: the spec's rounding ("Amounts"). */
const halfCents = (cents: number): number => Math.floor(cents / 2) + (cents % 2);

/** The sandbox's partially approving card and amount (the contract's magic values, response code 010). */
const PARTIAL = '010';
const partialCard = sandboxCardFor(PARTIAL);
const partialAmount = sandboxMagicValues.amounts.values.find((a) => a.responseCode === PARTIAL);

const ACH_ACCOUNT = { routingNumber: '021000021', accountNumber: '000123456789', accountType: AccountType.Checking, accountHolderType: AccountHolderType.Personal };
const achDebit = (processor: string, amount: number): Record<string, unknown> => ({
  amount, paymentProcessorId: processor, secCode: SecCode.PPD, requesterIPaddress: '203.0.113.24', ...ACH_ACCOUNT,
  billingAddress: { city: 'Austin', countryId: 1, line1: '100 Congress Ave', line2: null, postalCode: '78701', stateName: 'Texas', stateId: 44 },
  shippingAddress: null, contactInfo: { firstName: 'Amount', lastName: 'Limits', companyName: '', email: 'limits@example.com', mobilePhoneNumber: '+15555550123', smsNotification: false },
  isFasterProcessing: false, taxId: null,
});

/** A seeded amount in cents between 10.00 and 60.00 (odd, so that halves round), away from the magic 90.xx values. */
const seededCents = (ctx: CheckContext): number => 1000 + 2 * Math.floor(ctx.random() * 2500) + 1;

class Limits {
  readonly failures: Failures = [];
  constructor(private readonly ctx: CheckContext) {}

  /** The transaction's status and amounts as the status read gives them. */
  async details(transactionId: string): Promise<Record<string, unknown>> {
    const read = await this.ctx.call(OperationId.getTransactionStatus, { path: { transactionId } });
    expectStatus(read, 200, OperationId.getTransactionStatus);
    return bodyOf(read);
  }

  /** A command over the limit: 103, nothing moved (its status and processed amount unchanged). */
  async refused(op: OperationId, transactionId: string, cents: number, limit: string): Promise<void> {
    const before = await this.details(transactionId);
    const sent = await this.ctx.call(op, { path: { transactionId }, body: { amount: usd(cents) } });
    expectStatus(sent, 200, op);
    const body = bodyOf(sent);
    if (body.responseCode !== '103') this.failures.push([`${op} of ${String(usd(cents))}, above ${limit}, answers responseCode 103 (got ${JSON.stringify(body.responseCode)})`, sent]);
    const after = await this.details(transactionId);
    for (const field of ['statusId', 'processedAmount', 'refundedAmount']) {
      if (JSON.stringify(after[field]) !== JSON.stringify(before[field])) this.failures.push([`${op} refused with 103 leaves ${field} unchanged (${JSON.stringify(before[field])}, now ${JSON.stringify(after[field])})`, sent]);
    }
  }

  /** A command at or below the limit: 000, and it moved exactly the amount asked. */
  async accepted(op: OperationId, transactionId: string, cents: number, limit: string): Promise<void> {
    const sent = await this.ctx.call(op, { path: { transactionId }, body: { amount: usd(cents) } });
    expectStatus(sent, 200, op);
    const body = bodyOf(sent);
    if (body.responseCode !== '000') this.failures.push([`${op} of ${String(usd(cents))}, ${limit}, answers responseCode 000 (got ${JSON.stringify(body.responseCode)})`, sent]);
    else if (body.processedAmount !== usd(cents)) this.failures.push([`${op} of ${String(usd(cents))} answers processedAmount ${String(usd(cents))} (got ${JSON.stringify(body.processedAmount)})`, sent]);
  }

  /** After a refund, what remains (`left` cents, when any): a cent more is refused (103), exactly it is accepted. */
  async remainder(op: OperationId, transactionId: string, left: number): Promise<void> {
    if (left <= 0) return;
    await this.refused(op, transactionId, left + 1, `what remains after a partial refund (${String(usd(left))})`);
    await this.accepted(op, transactionId, left, `at what remains after a partial refund (${String(usd(left))})`);
  }
}

const transactionIdOf = (exchange: Exchange, what: string, code = '000'): string => {
  expectStatus(exchange, 200, what);
  const body = bodyOf(exchange);
  if (body.responseCode !== code || typeof body.transactionId !== 'string') throw new CheckSkipped(`${what} did not answer ${code} (${JSON.stringify(body.responseCode)}): no transaction to walk the limits of`);
  return body.transactionId;
};

async function settle(ctx: CheckContext, transactionId: string): Promise<void> {
  const simulated = await ctx.call(OperationId.simulateTransaction, { path: { transactionId }, body: { outcome: 'settle' } });
  if (simulated.response?.status === 404 && ctx.spec.operation(OperationId.simulateTransaction).designed) throw new CheckSkipped('the target has no sandbox network simulation (designed): no settled transaction to refund');
  expectStatus(simulated, 200, 'simulateTransaction settle');
}

const cardBody = (processor: string, cents: number, pan?: string): Record<string, unknown> => ({ amount: usd(cents), paymentProcessorId: processor, card: testCard(pan) });

/** The contract's largest payment (a card payment's `amount` maximum), in cents. */
function largestPaymentCents(ctx: CheckContext): number {
  const schemas = (ctx.spec.document.components as { schemas?: Record<string, { properties?: Record<string, { maximum?: unknown }> }> } | undefined)?.schemas;
  const maximum = schemas?.CardPaymentRequest?.properties?.amount?.maximum;
  if (typeof maximum !== 'number') throw new CheckSkipped('the contract states no largest payment (CardPaymentRequest.amount has no maximum)');
  return Math.round(maximum * 100);
}

/** An invoice of one manual line at `unitPrice`, with the given tax and fees. */
const invoiceOf = (unitPrice: number, percent: number): Record<string, unknown> => ({
  customer: { firstName: 'Amount', lastName: 'Limits', email: 'limits@example.com' },
  shippingAmount: 0, discountPercentage: 0, taxPercentage: percent, feesPercentage: percent,
  lineItems: [{ lineItemId: null, productName: 'At the limit', unitTypeId: 1, unitPrice, quantity: 1, discountPercentage: 0 }],
});

export const amountLimitChecks: readonly Check[] = [
  {
    id: 'amounts/computed_totals',
    group: 'transitions',
    title: 'an amount the gateway computes stays payable: an invoice whose total passes the largest payment (100% tax and fees on one line at the limit), and a subscription of a line item times a quantity above it, are refused with 400; at the limit an invoice is taken',
    tags: ['Invoices', 'Subscriptions', OperationId.createInvoice, OperationId.createSubscription],
    designed: true,
    run: async (ctx) => {
      const failures: Failures = [];
      const largest = usd(largestPaymentCents(ctx));
      const over = await ctx.call(OperationId.createInvoice, { body: invoiceOf(largest, 100) });
      if (over.response?.status !== 400) failures.push([`createInvoice whose total is 4 x ${String(largest)} (100% tax and 100% fees) answers 400: no payment could pay it (got ${String(over.response?.status)})`, over]);
      const at = await ctx.call(OperationId.createInvoice, { body: invoiceOf(largest, 0) });
      if (at.response?.status !== 200) failures.push([`createInvoice whose total is the largest payment, ${String(largest)}, is taken (got ${String(at.response?.status)})`, at]);
      // A subscription priced by a line item at the limit, times 1,000.
      const item = await ctx.call(OperationId.createLineItem, { body: { productName: 'Subscribed at the limit', unitTypeId: 1, unitPrice: largest } });
      expectStatus(item, 200, OperationId.createLineItem);
      const customer = await ctx.call(OperationId.createCustomer, { body: { firstName: 'Amount', lastName: 'Limits' } });
      expectStatus(customer, 200, OperationId.createCustomer);
      const customerId = String(bodyOf(customer).id);
      const card = testCard();
      const method = await ctx.call(OperationId.addCardPaymentMethod, { path: { customerId }, body: { pan: card.pan, expirationMonth: card.expirationMonth, expirationYear: card.expirationYear, name: 'limits' } });
      expectStatus(method, 200, OperationId.addCardPaymentMethod);
      const subscription = await ctx.call(OperationId.createSubscription, { body: { customerId, paymentMethodId: String(bodyOf(method).id), lineItemId: String(bodyOf(item).id), quantity: 1000, frequency: 'Monthly' } });
      if (subscription.response?.status !== 400) failures.push([`createSubscription of a line item at ${String(largest)} times 1,000 answers 400: every payment would be above the largest payment (got ${String(subscription.response?.status)})`, subscription]);
      failWithAll(failures);
    },
  },
  {
    id: 'amounts/limits',
    group: 'transitions',
    title: 'capture, card refund and ACH refund at, just above and just below their limit: above answers 103 and moves nothing',
    tags: ['Card Payments', 'ACH Payments', OperationId.captureCardTransaction, OperationId.refundCardTransaction, OperationId.refundAchTransaction],
    designed: true,
    run: async (ctx) => {
      const processors = await paymentProcessors(ctx);
      if (processors.card === '') throw new CheckSkipped('the merchant has no card processor');
      const walk = new Limits(ctx);
      // Capture: at most the approved amount, of a full approval and of a partial one.
      const full = seededCents(ctx);
      for (const [label, take] of [['just below', full - 1], ['at', full]] as const) {
        const auth = transactionIdOf(await ctx.call(OperationId.authorizeCard, { body: cardBody(processors.card, full) }), OperationId.authorizeCard);
        await walk.refused(OperationId.captureCardTransaction, auth, full + 1, `the approved amount ${String(usd(full))}`);
        await walk.accepted(OperationId.captureCardTransaction, auth, take, `${label} the approved amount ${String(usd(full))}`);
      }
      const partial = transactionIdOf(await ctx.call(OperationId.authorizeCard, { body: cardBody(processors.card, full, partialCard) }), 'a partially approved authorizeCard', PARTIAL);
      const approved = halfCents(full);
      await walk.refused(OperationId.captureCardTransaction, partial, approved + 1, `the partially approved amount ${String(usd(approved))}`);
      await walk.accepted(OperationId.captureCardTransaction, partial, approved, `at the partially approved amount ${String(usd(approved))}`);
      // Card refund: at most the processed amount, above it refused; just below and at it accepted, each on a
      // settled sale of its own; after the part just below, at most what remains (a cent); and a capture below the
      // approval caps the refund at what moved.
      for (const [label, take] of [['just below', full - 1], ['at', full]] as const) {
        const sale = transactionIdOf(await ctx.call(OperationId.createCardSale, { body: cardBody(processors.card, full) }), OperationId.createCardSale);
        await settle(ctx, sale);
        await walk.refused(OperationId.refundCardTransaction, sale, full + 1, `the processed amount ${String(usd(full))}`);
        await walk.accepted(OperationId.refundCardTransaction, sale, take, `${label} the processed amount ${String(usd(full))}`);
        await walk.remainder(OperationId.refundCardTransaction, sale, full - take);
      }
      const captured = transactionIdOf(await ctx.call(OperationId.authorizeCard, { body: cardBody(processors.card, full) }), OperationId.authorizeCard);
      await walk.accepted(OperationId.captureCardTransaction, captured, full - 1, 'below the approved amount');
      await settle(ctx, captured);
      await walk.refused(OperationId.refundCardTransaction, captured, full, `the captured amount ${String(usd(full - 1))} (at the approved amount)`);
      // ACH refund: the same over settled debits.
      if (processors.ach !== '') {
        for (const [label, take] of [['just below', full - 1], ['at', full]] as const) {
          const debit = transactionIdOf(await ctx.call(OperationId.createAchDebit, { body: achDebit(processors.ach, usd(full)) }), OperationId.createAchDebit);
          await settle(ctx, debit);
          await walk.refused(OperationId.refundAchTransaction, debit, full + 1, `the processed amount ${String(usd(full))}`);
          await walk.accepted(OperationId.refundAchTransaction, debit, take, `${label} the processed amount ${String(usd(full))}`);
          await walk.remainder(OperationId.refundAchTransaction, debit, full - take);
        }
      }
      failWithAll(walk.failures);
    },
  },
  {
    id: 'amounts/partial_approval',
    group: 'transitions',
    title: "a partial approval (the sandbox's magic card and amount) reports the approved amount in every documented amount field",
    tags: ['Card Payments', OperationId.authorizeCard, OperationId.createCardSale, OperationId.getTransactionStatus],
    designed: true,
    run: async (ctx) => {
      const processors = await paymentProcessors(ctx);
      if (processors.card === '') throw new CheckSkipped('the merchant has no card processor');
      const failures: Failures = [];
      const requested = seededCents(ctx);
      // The magic card halves any amount (rounded half away from zero); the magic amount (90.10) approves what its table says (45.05).
      const { PartiallyAuthorized, Captured } = CardTransactionStatus;
      const cases = [
        { op: OperationId.authorizeCard, cents: requested, pan: partialCard, approved: halfCents(requested), status: PartiallyAuthorized },
        { op: OperationId.createCardSale, cents: requested, pan: partialCard, approved: halfCents(requested), status: Captured },
        ...(partialAmount === undefined ? [] : [
          { op: OperationId.authorizeCard, cents: partialAmount.cents, pan: undefined, approved: partialAmount.approvedCents, status: PartiallyAuthorized },
          { op: OperationId.createCardSale, cents: partialAmount.cents, pan: undefined, approved: partialAmount.approvedCents, status: Captured },
        ]),
      ];
      for (const c of cases) {
        const sent = await ctx.call(c.op, { body: cardBody(processors.card, c.cents, c.pan) });
        expectStatus(sent, 200, c.op);
        const body = bodyOf(sent);
        const what = `${c.op} of ${String(usd(c.cents))}${c.pan === undefined ? '' : ` with card ${c.pan}`}, partially approved`;
        const processed = c.op === OperationId.createCardSale ? usd(c.approved) : 0;
        const want: Record<string, unknown> = { responseCode: PARTIAL, statusId: c.status, requestedAmount: usd(c.cents), approvedAmount: usd(c.approved), processedAmount: processed };
        for (const [field, value] of Object.entries(want)) if (body[field] !== value) failures.push([`${what}: ${field} is ${JSON.stringify(value)} (got ${JSON.stringify(body[field])})`, sent]);
        if (typeof body.transactionId !== 'string') continue;
        const read = await ctx.call(OperationId.getTransactionStatus, { path: { transactionId: body.transactionId } });
        expectStatus(read, 200, OperationId.getTransactionStatus);
        const details = bodyOf(read);
        const stored: Record<string, unknown> = { statusId: c.status, amount: usd(c.cents), approvedAmount: usd(c.approved), processedAmount: processed };
        for (const [field, value] of Object.entries(stored)) if (details[field] !== value) failures.push([`${what}: the status read's ${field} is ${JSON.stringify(value)} (got ${JSON.stringify(details[field])})`, read]);
      }
      failWithAll(failures);
    },
  },
];
