// What a live subscription protects: its customer and its payment method are not deleted while it still collects
// (refused with the spec's error codes; the caller holds the customer's row lock).
import { ApiError } from '../platform/errors.ts';
import type { Scope, Tx } from '../platform/scope.ts';
import * as customers from '../repositories/customers.ts';
import * as repo from '../repositories/subscriptions.ts';

/** Refuses (400 customer_has_subscriptions) to delete a customer while one of its subscriptions is live. */
export async function assertNoLiveSubscriptions(tx: Tx, scope: Scope, customerId: string): Promise<void> {
  const customer = await customers.findCustomer(tx, scope.merchantId, customerId);
  if (customer && customer.subscriptionsCount > 0) {
    throw new ApiError('customer_has_subscriptions', { details: `The customer has ${String(customer.subscriptionsCount)} live (Active, PastDue, Trialing or Paused) subscription(s); cancel them first.`, entityId: customerId });
  }
}

/** Refuses (400 payment_method_in_use) to delete a payment method a live subscription pays with. */
export async function assertMethodNotInUse(tx: Tx, paymentMethodId: string): Promise<void> {
  if (await repo.paymentMethodInUse(tx, paymentMethodId)) {
    throw new ApiError('payment_method_in_use', { details: 'A live (Active, PastDue, Trialing or Paused) subscription pays with this payment method; change its payment method or cancel it first.', entityId: paymentMethodId });
  }
}
