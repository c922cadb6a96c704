// What a payment through the gateway changes on an invoice (Knex only): Paid with the amounts of the payment
// type, the customer record the payment created, and Due again when an ACH payment is returned.
import type { Knex } from 'knex';

export interface PaidChange {
  paymentDate: string;
  paymentMethodTypeId: 1 | 2;
  transactionId: string;
  totalCents: number;
  surchargeCents: number;
  surchargePercentage: number;
  cashDiscountCents: number;
  cashDiscountPercentage: number;
  /** True under dual pricing when the card price was charged; null otherwise. */
  useCardPrice: boolean | null;
}

/** Due (2) -> Paid (4) with the payment; false when the invoice was not Due (a concurrent change). */
export async function markPaid(db: Knex, merchantId: string, id: string, change: PaidChange, now: string): Promise<boolean> {
  const count = await db('invoices').where({ merchant_id: merchantId, id, status_id: 2 }).update({
    status_id: 4, payment_date: change.paymentDate, payment_method_type_id: change.paymentMethodTypeId, marked_as_paid: false,
    transaction_id: change.transactionId, total_cents: change.totalCents, surcharge_cents: change.surchargeCents,
    surcharge_percentage: change.surchargePercentage, cash_discount_cents: change.cashDiscountCents,
    cash_discount_percentage: change.cashDiscountPercentage, use_card_price: change.useCardPrice, modified_on: now,
  });
  return count === 1;
}

/** Paid (4) -> Due (2): the payment of transaction `transactionId` did not go through after all. */
export async function reopen(db: Knex, id: string, transactionId: string, now: string): Promise<boolean> {
  const count = await db('invoices').where({ id, status_id: 4, transaction_id: transactionId }).update({
    status_id: 2, payment_date: null, payment_method_type_id: null, marked_as_paid: null, transaction_id: null, use_card_price: null, modified_on: now,
  });
  return count === 1;
}

export async function setCustomer(db: Knex, id: string, customerId: string): Promise<void> {
  await db('invoices').where({ id }).update({ customer_id: customerId });
}
