// What card and ACH payments share: the merchant's processor of the right kind, the transaction limit,
// the amount in cents, the customer's payment counters, and a refused command's answer (101, nothing
// changes).
import { randomInt } from 'node:crypto';
import type { Knex } from 'knex';
import { PaymentMethodType } from '@pgw/client/enums';
import type { Deps } from '../platform/deps.ts';
import { ApiError, invalid } from '../platform/errors.ts';
import { type Cents, minusCents, toCents } from '../platform/money.ts';
import { schemaMaximum } from '../platform/spec-data.ts';
import type { InTx, Scope } from '../platform/scope.ts';
import { processorsOf, type ProcessorRecord } from '../repositories/merchants.ts';
import * as repo from '../repositories/transactions.ts';
import type { TransactionRecord } from '../repositories/transactions.ts';
import { notFound } from '../platform/errors.ts';

/**
 * Card or ACH: a PaymentMethodType, whose ids are those of the PaymentProcessorType of the same kind
 * (Card = CardProcessor, ElectronicCheck = Eft).
 */
export type Kind = PaymentMethodType;

/** The merchant's processor of that kind: the one named (400 naming `field` otherwise), or its default. */
export async function processorFor(db: Knex, merchantId: string, kind: Kind, requested: string | null | undefined, field = 'paymentProcessorId'): Promise<ProcessorRecord> {
  return chooseProcessor(await processorsOf(db, merchantId), kind, requested, field);
}

/** processorFor among processors already read. */
export function chooseProcessor(all: readonly ProcessorRecord[], kind: Kind, requested: string | null | undefined, field = 'paymentProcessorId'): ProcessorRecord {
  const processors = all.filter((p) => p.typeId === kind);
  if (requested !== undefined && requested !== null) {
    const named = processors.find((p) => p.id === requested.toLowerCase());
    if (!named) throw invalid(field, `is not one of the merchant's ${kind === PaymentMethodType.Card ? 'card' : 'ACH (Eft)'} processors`);
    return named;
  }
  const chosen = processors.find((p) => p.isDefault) ?? processors[0];
  if (!chosen) throw new ApiError('payment_method_not_available', { details: `The merchant has no ${kind === PaymentMethodType.Card ? 'card' : 'ACH'} processor.` });
  return chosen;
}

/**
 * What a new payment reads of its merchant, in one statement: the processor of its kind (as processorFor; a
 * processor refused by name goes into `errors` with the request's other problems, and the processor is then
 * undefined) and the merchant's maxTransactionAmount in cents (null for none).
 */
export async function paymentSetup(scope: InTx<Scope>, kind: Kind, requested: string | null | undefined, errors: Record<string, string[]>): Promise<{ processor: ProcessorRecord | undefined; limitCents: Cents | null }> {
  const setup = await scope.instances.paymentSetups.of(scope.db, scope.merchantId);
  const limitCents = setup?.maxTransactionAmountCents ?? null;
  try {
    return { processor: chooseProcessor(setup?.processors ?? [], kind, requested), limitCents };
  } catch (error) {
    if (!(error instanceof ApiError) || error.code !== 'validation_failed') throw error;
    Object.assign(errors, error.context.errors);
    return { processor: undefined, limitCents };
  }
}

/** The largest amount one payment may take (the card payment's `amount` maximum), read from the contract. */
export const LARGEST_PAYMENT_CENTS = toCents(schemaMaximum('CardPaymentRequest', 'amount'));

/** A request amount in cents; 400 naming the field when it rounds to nothing. */
export function amountCents(amount: number, field = 'amount'): Cents {
  const cents = toCents(amount);
  if (cents <= 0) throw invalid(field, 'must be at least 0.01 once rounded to the cent');
  return cents;
}

/** Whether the sandbox's magic values act (they never do in production). */
export const sandboxed = (deps: Deps): boolean => deps.config.environment === 'sandbox';

/** The merchant's transaction of that kind, locked for this transaction; 404 when none (or another kind). */
export async function lockOwn(tx: Knex.Transaction, merchantId: string, id: string, kind: Kind): Promise<TransactionRecord> {
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
export async function countPayment(db: Knex, record: TransactionRecord, cents: Cents): Promise<void> {
  if (record.customerId !== null) await repo.countCustomerPayment(db, record.customerId, cents, record.modifiedOn);
}

/** A counted payment that is voided, cancelled, returned or failed stops counting. */
export async function uncountPayment(db: Knex, record: TransactionRecord, cents: Cents): Promise<void> {
  if (record.customerId !== null && cents > 0) await repo.uncountCustomerPayment(db, record.customerId, cents);
}

/** What a refund may still take: the processed amount less what earlier refunds took. */
export const refundableCents = (record: TransactionRecord): Cents => minusCents(record.processedAmountCents, record.refundedAmountCents);

/**
 * The status a permitted refund of `cents` leads to (its machine's row is picked by it): fully refunded when
 * it takes all that remains refundable, partially refunded while some remains.
 */
export const refundedStatus = (record: TransactionRecord, cents: Cents, statuses: { Refunded: number; PartiallyRefunded: number }): number =>
  (cents === refundableCents(record) ? statuses.Refunded : statuses.PartiallyRefunded);

/** Six letters and digits: an issuer's authorization code. */
export function authorizationCode(): string {
  const alphabet = 'ABCDEFGHJKLMNPQRSTUVWXYZ0123456789';
  let code = '';
  for (let i = 0; i < 6; i++) code += alphabet.charAt(randomInt(alphabet.length));
  return code;
}

export const refusalText = (verb: string, status: string): string => `The transaction cannot be ${verb} in status ${status}.`;
