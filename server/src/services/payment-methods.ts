// Stored payment methods of a customer: add a card or a bank account (the first of its kind becomes the
// default), list, update, delete (a deleted default leaves none), and make one the default of its kind.
import { newId } from '../platform/ids.ts';
import { AccountHolderType, AccountType } from '@pgw/client/enums';
import type { Deps } from '../platform/deps.ts';
import { type Scope, type Tx, within } from '../platform/scope.ts';
import { ApiError, notFound } from '../platform/errors.ts';
import type { ListQuery } from '../platform/paging.ts';
import { iso } from '../platform/time.ts';
import { withTransaction } from '../platform/transaction.ts';
import * as customers from '../repositories/customers.ts';
import * as methods from '../repositories/payment-methods.ts';
import type { PaymentMethodChanges, StoredPaymentMethod } from '../repositories/payment-methods.ts';
import { assertMethodNotInUse } from './subscription-guards.ts';

/** PaymentMethodType ids: 1 card, 2 bank account. */
export { BANK_ACCOUNT, CARD } from '../repositories/payment-methods.ts';
import { checkBankAccount, type BankAccountInput, type BankAccountToKeep } from './bank-accounts.ts';
import { checkCard, isExpired, type CardInput, type CardToKeep } from './cards.ts';

interface Placement {
  merchantId: string;
  customerId: string;
  position: number;
  createdOn: string;
}

export async function storeCard(deps: Deps, placement: Placement, card: CardToKeep): Promise<string> {
  const id = newId();
  await methods.insertCard(deps.db, { id, ...placement }, card);
  return id;
}

export async function storeBankAccount(deps: Deps, placement: Placement, account: BankAccountToKeep): Promise<string> {
  const id = newId();
  await methods.insertBankAccount(deps.db, { id, ...placement }, account);
  return id;
}

function failIfAny(errors: Record<string, string[]>): void {
  if (Object.keys(errors).length > 0) throw new ApiError('validation_failed', { errors });
}

/**
 * Runs a change of one customer's payment methods in a transaction that first locks the customer's row
 * (so that two changes of one customer do not interleave); 404 when the customer is not the merchant's.
 * A change that changes something marks the customer modified.
 */
async function changingCustomer<T>(scope: Scope, customerId: string,
  change: (trx: Tx, now: string, touch: () => Promise<void>) => Promise<T>): Promise<T> {
  const { merchantId } = scope;
  const now = iso(scope.clock.now());
  return withTransaction(scope.db, async (tx) => {
    if (!(await customers.lockCustomer(tx, merchantId, customerId))) throw notFound(customerId, 'customer');
    return change(tx, now, async () => { await customers.touchCustomer(tx, merchantId, customerId, now); });
  });
}

async function add(scope: Scope, customerId: string, kind: StoredPaymentMethod['kind'],
  store: (t: Deps, placement: Placement) => Promise<string>): Promise<string> {
  const { merchantId } = scope;
  return changingCustomer(scope, customerId, async (trx, now, touch) => {
    await touch();
    const existing = await methods.paymentMethodsOf(trx, customerId);
    const position = (existing.at(-1)?.position ?? -1) + 1;
    const id = await store(within(scope, trx), { merchantId, customerId, position, createdOn: now });
    // The customer's first card (bank account) becomes its default card (bank account).
    if (!existing.some((m) => m.kind === kind)) {
      await customers.setDefaults(trx, customerId, kind === 'card' ? { cardId: id } : { achId: id });
    }
    return id;
  });
}

export async function addCard(scope: Scope, customerId: string, input: CardInput): Promise<string> {
  const errors: Record<string, string[]> = {};
  const card = checkCard(input, scope.clock.now(), errors);
  await assertCustomer(scope, customerId);
  failIfAny(errors);
  if (!card) throw new ApiError('internal_error');
  return add(scope, customerId, 'card', (t, placement) => storeCard(t, placement, card));
}

export async function addBankAccount(scope: Scope, customerId: string, input: BankAccountInput): Promise<string> {
  const errors: Record<string, string[]> = {};
  const account = checkBankAccount(input, errors);
  await assertCustomer(scope, customerId);
  failIfAny(errors);
  if (!account) throw new ApiError('internal_error');
  return add(scope, customerId, 'bankAccount', (t, placement) => storeBankAccount(t, placement, account));
}

/** 404 for an unknown customer comes before any complaint about the body. */
async function assertCustomer(scope: Scope, customerId: string): Promise<void> {
  const { merchantId } = scope;
  if (!(await customers.findCustomer(scope.db, merchantId, customerId))) throw notFound(customerId, 'customer');
}

export async function listPaymentMethods(scope: Scope, customerId: string, query: ListQuery): Promise<{ items: (StoredPaymentMethod & { isDefault: boolean })[]; total: number }> {
  await assertCustomer(scope, customerId);
  return methods.pagePaymentMethods(scope.db, customerId, query);
}

export interface PaymentMethodUpdate {
  name?: string | null;
  expirationMonth?: number;
  expirationYear?: number;
  accountType?: number;
  accountHolderType?: number;
}

const CARD_ONLY = ['expirationMonth', 'expirationYear'] as const;
const BANK_ONLY = ['accountType', 'accountHolderType'] as const;

/** The changes an update may make to this payment method; problems go into `errors`. */
export function checkUpdate(method: StoredPaymentMethod, update: PaymentMethodUpdate, now: Date, errors: Record<string, string[]>): PaymentMethodChanges {
  const add = (field: string, message: string): void => { (errors[field] ??= []).push(message); };
  const changes: PaymentMethodChanges = {};
  if (update.name !== undefined) changes.name = update.name;
  if (method.kind === 'card') {
    for (const field of BANK_ONLY) if (update[field] !== undefined) add(field, 'applies to bank accounts only; this payment method is a card');
    const { expirationMonth: month, expirationYear: year } = update;
    if (month !== undefined || year !== undefined) {
      if (month === undefined || year === undefined) add(month === undefined ? 'expirationMonth' : 'expirationYear', 'expirationMonth and expirationYear are sent together');
      else if (month < 1 || month > 12) add('expirationMonth', 'must be 1 to 12');
      else if (isExpired(month, year, now)) add('expirationMonth', 'the expiry must not be in the past');
      else Object.assign(changes, { expirationMonth: month, expirationYear: year });
    }
  } else {
    for (const field of CARD_ONLY) if (update[field] !== undefined) add(field, 'applies to cards only; this payment method is a bank account');
    if (update.accountType !== undefined) {
      if (update.accountType === AccountType.Checking || update.accountType === AccountType.Savings) changes.accountTypeId = update.accountType;
      else add('accountType', 'must be 1 (Checking) or 2 (Savings)');
    }
    if (update.accountHolderType !== undefined) {
      if (update.accountHolderType === AccountHolderType.Business || update.accountHolderType === AccountHolderType.Personal) changes.accountHolderTypeId = update.accountHolderType;
      else add('accountHolderType', 'must be 1 (Business) or 2 (Personal)');
    }
  }
  if (Object.keys(update).length === 0) add('body', 'must change at least one field');
  return changes;
}

export async function updatePaymentMethod(scope: Scope, customerId: string, id: string, update: PaymentMethodUpdate): Promise<void> {
  await changingCustomer(scope, customerId, async (trx, now, touch) => {
    const method = await methods.findPaymentMethod(trx, customerId, id);
    if (!method) throw notFound(id, 'payment method');
    const errors: Record<string, string[]> = {};
    const changes = checkUpdate(method, update, scope.clock.now(), errors);
    failIfAny(errors);
    await methods.updatePaymentMethod(trx, id, changes, now);
    await touch();
  });
}

/**
 * Deletes a payment method; when it was a default, that default becomes null (no other takes its place). Refused
 * while a live subscription pays with it.
 */
export async function deletePaymentMethod(scope: Scope, customerId: string, id: string): Promise<void> {
  const { merchantId } = scope;
  await changingCustomer(scope, customerId, async (trx, _now, touch) => {
    const method = await methods.findPaymentMethod(trx, customerId, id);
    if (!method) throw notFound(id, 'payment method');
    await assertMethodNotInUse(trx, id);
    const customer = await customers.findCustomer(trx, merchantId, customerId);
    await methods.deletePaymentMethod(trx, id);
    await touch();
    if (customer?.defaultCardId === id) await customers.setDefaults(trx, customerId, { cardId: null });
    if (customer?.defaultAchId === id) await customers.setDefaults(trx, customerId, { achId: null });
  });
}

/** Makes the payment method the default of its kind (card or bank account). */
export async function makeDefault(scope: Scope, customerId: string, id: string): Promise<void> {
  const { merchantId } = scope;
  await changingCustomer(scope, customerId, async (trx, _now, touch) => {
    const method = await methods.findPaymentMethod(trx, customerId, id);
    if (!method) throw notFound(id, 'payment method');
    const customer = await customers.findCustomer(trx, merchantId, customerId);
    // Making the current default the default again changes nothing.
    if ((method.kind === 'card' ? customer?.defaultCardId : customer?.defaultAchId) === id) return;
    await customers.setDefaults(trx, customerId, method.kind === 'card' ? { cardId: id } : { achId: id });
    await touch();
  });
}
