// Customer rules: the fields of a create or update, addresses checked against the states lookup, the
// atomic create with cards and bank accounts, search, read, update and delete.
import { newId } from '../platform/ids.ts';
import type { Deps } from '../platform/deps.ts';
import { type Scope, within } from '../platform/scope.ts';
import { ApiError, notFound } from '../platform/errors.ts';
import type { ListQuery } from '../platform/paging.ts';
import { responseExample } from '../platform/spec-data.ts';
import { iso } from '../platform/time.ts';
import { withTransaction } from '../platform/transaction.ts';
import * as customers from '../repositories/customers.ts';
import type { AddressValue, CustomerFields, CustomerListRecord, CustomerRecord } from '../repositories/customers.ts';
import type { StoredPaymentMethod } from '../repositories/payment-methods.ts';
import { assertNoLiveSubscriptions } from './subscription-guards.ts';
import { checkBankAccount, type BankAccountInput, type BankAccountToKeep } from './bank-accounts.ts';
import { checkCard, type CardInput, type CardToKeep } from './cards.ts';
import { storeBankAccount, storeCard } from './payment-methods.ts';

export interface StateRef { id: number; code: string; name: string }
export interface CountryRef { id: number; isoCode: string; name: string }

const states = new Map(
  (responseExample('/pay-api/v1/lookups/states', 'get') as (StateRef & { countryId: number })[]).map((s) => [s.id, s]),
);
const countries = new Map(
  (responseExample('/pay-api/v1/lookups/countries', 'get') as CountryRef[]).map((c) => [c.id, c]),
);

export function stateRef(id: number | null): StateRef | null {
  const state = id === null ? undefined : states.get(id);
  return state ? { id: state.id, code: state.code, name: state.name } : null;
}

export const countryRef = (id: number | null): CountryRef | null => (id === null ? null : countries.get(id) ?? null);

export interface AddressInput {
  addressLine1?: string;
  addressLine2?: string;
  city?: string;
  zip?: string;
  stateName?: string | null;
  stateId?: number;
  countryId?: number;
}

export interface CustomerInput {
  firstName: string;
  lastName: string;
  companyName?: string | null;
  email?: string | null;
  mobilePhoneNumber?: string | null;
  isMobileNumberSmsNotificationsEnabled?: boolean;
  useBillingAsShippingAddress?: boolean;
  billingAddress?: AddressInput | null;
  shippingAddress?: AddressInput | null;
}

export interface CustomerCreateInput extends CustomerInput {
  paymentMethodsCards?: CardInput[] | null;
  paymentMethodsAchAccounts?: BankAccountInput[] | null;
}

function addError(errors: Record<string, string[]>, field: string, message: string): void {
  (errors[field] ??= []).push(message);
}

function checkAddress(address: AddressInput | null | undefined, field: string, errors: Record<string, string[]>): AddressValue | null {
  if (address === null || address === undefined) return null;
  const countryId = address.countryId ?? null;
  const stateId = address.stateId ?? null;
  if (countryId !== null && !countries.has(countryId)) addError(errors, `${field}.countryId`, 'names no country (see the countries lookup)');
  if (stateId !== null) {
    const state = states.get(stateId);
    if (!state) addError(errors, `${field}.stateId`, 'names no state (see the states lookup)');
    else if (state.countryId !== countryId) addError(errors, `${field}.stateId`, `must be a state of countryId (the state is of country ${state.countryId})`);
  }
  return {
    addressLine1: address.addressLine1 ?? null,
    addressLine2: address.addressLine2 ?? null,
    city: address.city ?? null,
    zip: address.zip ?? null,
    stateName: address.stateName ?? null,
    stateId,
    countryId,
  };
}

/** The stored fields of a create or update body; problems go into `errors`. */
export function checkCustomerFields(input: CustomerInput, errors: Record<string, string[]>): CustomerFields {
  // The phone pattern of the interface admits the text `null`: it means no number.
  const phone = input.mobilePhoneNumber === 'null' ? null : (input.mobilePhoneNumber ?? null);
  const sms = input.isMobileNumberSmsNotificationsEnabled ?? false;
  if (input.lastName === '') addError(errors, 'lastName', 'must not be empty');
  if (sms && phone === null) addError(errors, 'isMobileNumberSmsNotificationsEnabled', 'requires mobilePhoneNumber');
  const useBilling = input.useBillingAsShippingAddress ?? false;
  const billingAddress = checkAddress(input.billingAddress, 'billingAddress', errors);
  // With useBillingAsShippingAddress the shipping address is ignored (the record shows the billing one).
  const shippingAddress = useBilling ? null : checkAddress(input.shippingAddress, 'shippingAddress', errors);
  return {
    firstName: input.firstName === '' ? null : input.firstName,
    lastName: input.lastName,
    companyName: input.companyName ?? null,
    email: input.email ?? null,
    mobilePhoneNumber: phone,
    smsNotificationsEnabled: sms,
    useBillingAsShipping: useBilling,
    billingAddress,
    shippingAddress,
  };
}

const failIfAny = (errors: Record<string, string[]>): void => {
  if (Object.keys(errors).length > 0) throw new ApiError('validation_failed', { errors });
};

/**
 * Creates a customer with its cards and bank accounts, all or nothing: every field, card and bank account
 * is checked first, and the rows are written in one transaction. The first card and the first bank account
 * become the defaults.
 */
export async function createCustomer(scope: Scope, input: CustomerCreateInput): Promise<string> {
  const { merchantId } = scope;
  const errors: Record<string, string[]> = {};
  const fields = checkCustomerFields(input, errors);
  const now = scope.clock.now();
  const cards: CardToKeep[] = [];
  (input.paymentMethodsCards ?? []).forEach((card, i) => {
    const kept = checkCard(card, now, errors, `paymentMethodsCards[${i}].`);
    if (kept) cards.push(kept);
  });
  const accounts: BankAccountToKeep[] = [];
  (input.paymentMethodsAchAccounts ?? []).forEach((account, i) => {
    const kept = checkBankAccount(account, errors, `paymentMethodsAchAccounts[${i}].`);
    if (kept) accounts.push(kept);
  });
  failIfAny(errors);
  const id = newId();
  const createdOn = iso(now);
  await withTransaction(scope.db, async (tx) => {
    const t = within(scope, tx);
    await customers.insertCustomer(tx, { id, merchantId, fields, createdOn });
    let position = 0;
    const cardIds: string[] = [];
    for (const card of cards) cardIds.push(await storeCard(t, { merchantId, customerId: id, position: position++, createdOn }, card));
    const accountIds: string[] = [];
    for (const account of accounts) accountIds.push(await storeBankAccount(t, { merchantId, customerId: id, position: position++, createdOn }, account));
    // The first of each kind is the default; a customer inserted without any has none already (no statement).
    await customers.setDefaults(tx, id, { cardId: cardIds[0], achId: accountIds[0] });
  });
  return id;
}

/** The customer with its payment methods (oldest first). */
export async function getCustomer(scope: Scope, id: string): Promise<{ customer: CustomerRecord; paymentMethods: StoredPaymentMethod[] }> {
  const { merchantId } = scope;
  const found = await customers.findCustomerWithPaymentMethods(scope.db, merchantId, id);
  if (!found) throw notFound(id, 'customer');
  return found;
}

/** Replaces the customer's fields; payment methods and defaults do not change. */
export async function updateCustomer(scope: Scope, id: string, input: CustomerInput): Promise<void> {
  const { merchantId } = scope;
  const errors: Record<string, string[]> = {};
  const fields = checkCustomerFields(input, errors);
  // An unknown customer is a 404 whatever the body says.
  if (!(await customers.findCustomer(scope.db, merchantId, id))) throw notFound(id, 'customer');
  failIfAny(errors);
  if (!(await customers.updateCustomerFields(scope.db, merchantId, id, fields, iso(scope.clock.now())))) throw notFound(id, 'customer');
}

/** Deletes the customer with its payment methods; refused while one of its subscriptions is live. */
export async function deleteCustomer(scope: Scope, id: string): Promise<void> {
  const { merchantId } = scope;
  await withTransaction(scope.db, async (tx) => {
    if (await customers.lockCustomer(tx, merchantId, id)) await assertNoLiveSubscriptions(tx, scope, id);
    if (!(await customers.deleteCustomer(tx, merchantId, id))) throw notFound(id, 'customer');
  });
}

/** Customers of the given merchants (one, or all of a partner's). */
export function searchCustomers(deps: Deps, merchantIds: readonly string[], query: ListQuery & { customerId?: string }): Promise<{ items: CustomerListRecord[]; total: number; totalIsExact: boolean }> {
  return customers.searchCustomers(deps.db, merchantIds, query);
}

/** contactName of the search: the first and last names joined, or the last name alone. */
export const contactName = (customer: { firstName: string | null; lastName: string }): string =>
  customer.firstName === null ? customer.lastName : `${customer.firstName} ${customer.lastName}`;
