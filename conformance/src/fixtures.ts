// Real records for the path parameters of the negative cases: rules the server checks after finding the
// record (a card number's Luhn check on a customer's card) need a record that exists, and "changes nothing"
// can only be seen on one. Made once per target and identity, by the operations the spec names.
import { OperationId } from '@pgw/client/operations';
import { PaymentProcessorType } from '@pgw/client/enums';
import { sandboxCardFor } from '@pgw/client/magic-values';
import { bodyOf, type CheckContext } from './check.ts';

/**
 * Per run (keyed by the run's credentials object, which each run makes anew): a second run in the same process
 * must not reuse records the first one's clean-up deleted, nor a sandbox's records once it is gone.
 */
const made = new WeakMap<object, Promise<Record<string, string>>>();

const approving = sandboxCardFor('000');
if (approving === undefined) throw new Error('the contract lists no sandbox card that approves (spec/data/magic-values.yaml)');
/** A card that approves (the first approving number of the contract's magic-value table). */
export const approvingCard: string = approving;
export const testCard = (pan = approvingCard): { pan: string; expirationMonth: number; expirationYear: number; securityCode: string } =>
  ({ pan, expirationMonth: 12, expirationYear: new Date().getUTCFullYear() + 3, securityCode: '123' });
const card = { name: 'Fixture card', ...testCard() };

/** The caller's card and ACH (Eft) processor ids, from its payment configuration ('' when it has none). */
export async function paymentProcessors(ctx: CheckContext): Promise<{ card: string; ach: string }> {
  const config = bodyOf(await ctx.call(OperationId.getPaymentConfiguration, {}));
  const listed = Array.isArray(config.availablePaymentProcessors) ? (config.availablePaymentProcessors as { id?: unknown; typeId?: unknown }[]) : [];
  const first = (typeId: number): string => {
    const id = listed.find((p) => p.typeId === typeId)?.id;
    return typeof id === 'string' ? id : '';
  };
  return { card: first(PaymentProcessorType.CardProcessor), ach: first(PaymentProcessorType.Eft) };
}

async function make(ctx: CheckContext): Promise<Record<string, string>> {
  const ids: Record<string, string> = {};
  const keep = (name: string, value: unknown): void => { if (typeof value === 'string' && value !== '') ids[name] = value; };
  // Expiring three years after the target's business now: a sandbox clock moved ahead (a fuzz run) must not expire it.
  const expirationYear = Math.min(2099, new Date(ctx.daysAhead(0)).getUTCFullYear() + 3);
  const customer = bodyOf(await ctx.call(OperationId.createCustomer, { body: { firstName: 'Fixture', lastName: ctx.unique('fixture'), paymentMethodsCards: [{ ...card, expirationYear }] } }));
  keep('customerId', customer.id);
  if (ids.customerId !== undefined) {
    const read = bodyOf(await ctx.call(OperationId.getCustomer, { path: { customerId: ids.customerId } }));
    keep('merchantId', read.merchantId);
    const methods = bodyOf(await ctx.call(OperationId.listPaymentMethods, { path: { customerId: ids.customerId } }));
    keep('paymentMethodId', (Array.isArray(methods.items) ? (methods.items as { id?: unknown }[]) : [])[0]?.id);
  }
  if (ids.customerId !== undefined && ids.paymentMethodId !== undefined && ctx.spec.operations.has(OperationId.createSubscription)) {
    const subscription = bodyOf(await ctx.call(OperationId.createSubscription, { body: { customerId: ids.customerId, paymentMethodId: ids.paymentMethodId, amount: 5, frequency: 'Monthly', startDate: ctx.daysAhead(30) } }));
    keep('subscriptionId', subscription.subscriptionId);
    // Cancelled at once: a live subscription would keep a clean-up run from deleting the customer.
    if (ids.subscriptionId !== undefined) await ctx.call(OperationId.cancelSubscription, { path: { subscriptionId: ids.subscriptionId }, body: {} });
  }
  const invoice = bodyOf(await ctx.call(OperationId.publishInvoice, {
    body: { id: null, dueDate: ctx.daysAhead(30), customer: { firstName: 'Fixture', lastName: 'Invoice', email: 'fixture@example.com' },
      lineItems: [{ lineItemId: null, productName: 'Fixture', unitTypeId: 1, unitPrice: 10, quantity: 1 }] },
  }));
  keep('invoiceId', invoice.id);
  const hook = bodyOf(await ctx.call(OperationId.createWebhookEndpoint, { body: { name: ctx.unique('fixture-hook'), endpointUrl: 'http://127.0.0.1:9/fixture', eventTypes: ['invoice.paid'] } }));
  keep('webhookId', hook.id);
  const category = bodyOf(await ctx.call(OperationId.createCategory, { body: { name: ctx.unique('fixture-cat'), defaultUnitTypeId: 1 } }));
  keep('categoryId', category.id);
  const item = bodyOf(await ctx.call(OperationId.createLineItem, { body: { productName: ctx.unique('fixture-item'), unitPrice: 5, unitTypeId: 1 } }));
  keep('lineItemId', item.id);
  return ids;
}

/** Ids of real records of the caller, by path parameter name (what could not be made is absent). */
export function fixtureIds(ctx: CheckContext): Promise<Record<string, string>> {
  let pending = made.get(ctx.credentials);
  if (!pending) {
    pending = make(ctx);
    made.set(ctx.credentials, pending);
  }
  return pending;
}

/**
 * A JSON body text whose references to records (`"customerId":"<uuid>"`, a line's `"lineItemId"`) name the
 * suite's records of those kinds, by the path parameter names the ids are kept under: the spec's examples name
 * records that no gateway holds, and a request naming them is refused before any rule under test is reached.
 */
export function withFixtureIds(text: string, ids: Readonly<Record<string, string>>): string {
  let filled = text;
  for (const [name, id] of Object.entries(ids)) {
    if (name === 'merchantId') continue;
    filled = filled.replace(new RegExp(`"${name}":"[0-9a-fA-F-]{36}"`, 'g'), `"${name}":${JSON.stringify(id)}`);
  }
  return filled;
}
