// What card and ACH payments share: the merchant's processor of the right kind, the transaction limit,
// the amount in cents, the customer's payment counters, and a refused command's answer (101, nothing
// changes).
import { randomInt } from 'node:crypto';
import type { Knex } from 'knex';
import type { Deps } from '../platform/deps.ts';
import { ApiError, invalid } from '../platform/errors.ts';
import { toCents } from '../platform/money.ts';
import { findMerchant, processorsOf, type ProcessorRecord } from '../repositories/merchants.ts';
import * as repo from '../repositories/transactions.ts';
import type { TransactionRecord } from '../repositories/transactions.ts';
import { notFound } from '../platform/errors.ts';

/** PaymentProcessorType / PaymentMethodType: 1 card, 2 ACH (Eft / ElectronicCheck). */
export type Kind = 1 | 2;

/** TransactionCreatorType ids this server creates with. */
export const Creator = { ApiToken: 2, Invoice: 4 } as const;

/** TransactionType ids. */
export const Type = {
  Authorization: 1, Sale: 2, Capture: 3, Void: 4, Refund: 5, RefundWORef: 7,
  AchDebit: 11, AchRefund: 12, AchHold: 13, AchUnHold: 14, AchCancel: 15,
} as const;

/** The merchant's processor of that kind: the one named (400 naming `field` otherwise), or its default. */
export async function processorFor(db: Knex, merchantId: string, kind: Kind, requested: string | null | undefined, field = 'paymentProcessorId'): Promise<ProcessorRecord> {
  const processors = (await processorsOf(db, merchantId)).filter((p) => p.typeId === kind);
  if (requested !== undefined && requested !== null) {
    const named = processors.find((p) => p.id === requested.toLowerCase());
    if (!named) throw invalid(field, `is not one of the merchant's ${kind === 1 ? 'card' : 'ACH (Eft)'} processors`);
    return named;
  }
  const chosen = processors.find((p) => p.isDefault) ?? processors[0];
  if (!chosen) throw new ApiError('payment_method_not_available', { details: `The merchant has no ${kind === 1 ? 'card' : 'ACH'} processor.` });
  return chosen;
}

/** The merchant's maxTransactionAmount in cents, or null for none. */
export async function limitCents(db: Knex, merchantId: string): Promise<number | null> {
  const merchant = await findMerchant(db, merchantId);
  const limit = merchant?.max_transaction_amount_cents ?? null;
  return limit === null ? null : Number(limit);
}

/** A request amount in cents; 400 naming the field when it rounds to nothing. */
export function amountCents(amount: number, field = 'amount'): number {
  const cents = toCents(amount);
  if (cents <= 0) throw invalid(field, 'must be at least 0.01 once rounded to the cent');
  return cents;
}

/** Whether the sandbox's magic values act (they never do in production). */
export const sandboxed = (deps: Deps): boolean => deps.config.environment === 'sandbox';

/** The merchant's transaction of that kind, locked for this transaction; 404 when none (or another kind). */
export async function lockOwn(tx: Knex, merchantId: string, id: string, kind: Kind): Promise<TransactionRecord> {
  const record = await repo.lockTransaction(tx, merchantId, id.toLowerCase());
  if (!record || record.paymentMethodTypeId !== kind) throw notFound(id, 'transaction');
  return record;
}

/** The merchant's transaction, any kind; 404 when none. */
export async function findOwn(db: Knex, merchantId: string, id: string): Promise<TransactionRecord> {
  const record = await repo.findTransaction(db, merchantId, id.toLowerCase());
  if (!record) throw notFound(id, 'transaction');
  return record;
}

/** A payment that moves money to the merchant (sale, capture, ACH debit) counts on its customer's record. */
export async function countPayment(db: Knex, record: TransactionRecord, cents: number): Promise<void> {
  if (record.customerId !== null) await repo.countCustomerPayment(db, record.customerId, cents, record.modifiedOn);
}

/** A counted payment that is voided, cancelled, returned or failed stops counting. */
export async function uncountPayment(db: Knex, record: TransactionRecord, cents: number): Promise<void> {
  if (record.customerId !== null && cents > 0) await repo.uncountCustomerPayment(db, record.customerId, cents);
}

/** Six letters and digits: an issuer's authorization code. */
export function authorizationCode(): string {
  const alphabet = 'ABCDEFGHJKLMNPQRSTUVWXYZ0123456789';
  let code = '';
  for (let i = 0; i < 6; i++) code += alphabet.charAt(randomInt(alphabet.length));
  return code;
}

export const refusalText = (verb: string, status: string): string => `The transaction cannot be ${verb} in status ${status}.`;
