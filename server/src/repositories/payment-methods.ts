// The payment_methods table (a customer's stored cards and bank accounts): rows in, records out.
import type { Knex } from 'knex';
import { pageOf, type ListQuery, type ListSpec } from './paging.ts';
import { AccountHolderType, AccountType, CardType as CardTypes, CardTokenType, CreditDebitType, PaymentMethodType } from '@pgw/client/enums';

/** CardType ids of the spec that a card may have: 1 Visa, 2 Mastercard, 3 American Express, 4 Diners Club, 5 Discover, 6 JCB. */
export type CardType = Exclude<CardTypes, typeof CardTypes.Unknown>;

/** What is kept of a valid card. */
export interface CardToKeep {
  name: string | null;
  panMask: string;
  last4: string;
  cardType: CardType;
  creditDebitType: CreditDebitType;
  expirationMonth: number;
  expirationYear: number;
  token: string;
}

/** What is kept of a valid bank account: never the whole account number. */
export interface BankAccountToKeep {
  name: string | null;
  last4: string;
  routingNumber: string;
  accountTypeId: AccountType;
  accountHolderTypeId: AccountHolderType;
  taxId: string | null;
  magicCode: string | null;
}

export const CARD = PaymentMethodType.Card;
export const BANK_ACCOUNT = PaymentMethodType.ElectronicCheck;

interface StoredBase {
  id: string;
  merchantId: string;
  customerId: string;
  name: string | null;
  position: number;
  last4: string;
  createdOn: string;
  modifiedOn: string;
}

export interface StoredCard extends StoredBase {
  kind: 'card';
  panMask: string;
  cardType: CardType;
  creditDebitType: CreditDebitType;
  cardTokenType: CardTokenType;
  expirationMonth: number;
  expirationYear: number;
}

export interface StoredBankAccount extends StoredBase {
  kind: 'bankAccount';
  routingNumber: string;
  accountTypeId: AccountType;
  accountHolderTypeId: AccountHolderType;
  taxId: string | null;
  /** `NN` of a sandbox magic account number 9900000000NN, else null. */
  magicCode: string | null;
}

export type StoredPaymentMethod = StoredCard | StoredBankAccount;

// Integer columns come back as numbers on both engines (PostgreSQL returns only bigint as text).
interface PaymentMethodRow {
  id: string;
  merchant_id: string;
  customer_id: string;
  type_id: number;
  position: number;
  name: string | null;
  last4: string;
  pan_mask: string | null;
  card_type: number | null;
  credit_debit_type: number | null;
  card_token_type: number | null;
  expiration_month: number | null;
  expiration_year: number | null;
  routing_number: string | null;
  account_type_id: number | null;
  account_holder_type_id: number | null;
  tax_id: string | null;
  sandbox_magic_code: string | null;
  created_on: string;
  modified_on: string;
  is_default?: number | string | boolean;
}

const TABLE = 'payment_methods';

/** Every column a record is read from; a column added to the row type and not here does not compile. */
const READ_COLUMNS: Record<Exclude<keyof PaymentMethodRow, 'is_default'>, true> = {
  id: true, merchant_id: true, customer_id: true, type_id: true, position: true, name: true, last4: true, pan_mask: true,
  card_type: true, credit_debit_type: true, card_token_type: true, expiration_month: true, expiration_year: true,
  routing_number: true, account_type_id: true, account_holder_type_id: true, tax_id: true, sandbox_magic_code: true,
  created_on: true, modified_on: true,
};
const READ_COLUMN_NAMES = Object.keys(READ_COLUMNS) as (keyof typeof READ_COLUMNS)[];

/** The payment method columns of `alias`, each named `prefix + column`, for a query that joins them in. */
export const joinedColumns = (alias: string, prefix: string): string[] => READ_COLUMN_NAMES.map((c) => `${alias}.${c} as ${prefix}${c}`);

/** The payment method of a joined row (see joinedColumns); undefined when the join found none. */
export function joinedRecord(row: Record<string, unknown>, prefix: string): StoredPaymentMethod | undefined {
  if (row[`${prefix}id`] === null || row[`${prefix}id`] === undefined) return undefined;
  return toRecord(Object.fromEntries(READ_COLUMN_NAMES.map((c) => [c, row[`${prefix}${c}`]])) as unknown as PaymentMethodRow);
}

function toRecord(row: PaymentMethodRow): StoredPaymentMethod {
  const base: StoredBase = {
    id: row.id,
    merchantId: row.merchant_id,
    customerId: row.customer_id,
    name: row.name,
    position: row.position,
    last4: row.last4,
    createdOn: row.created_on,
    modifiedOn: row.modified_on,
  };
  if (row.type_id === CARD) {
    return {
      ...base,
      kind: 'card',
      panMask: row.pan_mask ?? '',
      cardType: (row.card_type ?? 0) as CardType,
      creditDebitType: (row.credit_debit_type ?? CreditDebitType.Unknown) as CreditDebitType,
      cardTokenType: (row.card_token_type ?? CardTokenType.GatewayToken) as CardTokenType,
      expirationMonth: row.expiration_month ?? 0,
      expirationYear: row.expiration_year ?? 0,
    };
  }
  return {
    ...base,
    kind: 'bankAccount',
    routingNumber: row.routing_number ?? '',
    accountTypeId: (row.account_type_id ?? AccountType.Checking) as AccountType,
    accountHolderTypeId: (row.account_holder_type_id ?? AccountHolderType.Business) as AccountHolderType,
    taxId: row.tax_id,
    magicCode: row.sandbox_magic_code,
  };
}

interface Placement {
  id: string;
  merchantId: string;
  customerId: string;
  position: number;
  createdOn: string;
}

const placementColumns = (p: Placement): Record<string, unknown> => ({
  id: p.id, merchant_id: p.merchantId, customer_id: p.customerId, position: p.position, created_on: p.createdOn, modified_on: p.createdOn,
});

/** Stores what may be kept of a card: never the number, never the security code. */
export async function insertCard(db: Knex, placement: Placement, card: CardToKeep): Promise<void> {
  await db(TABLE).insert({
    ...placementColumns(placement),
    type_id: CARD,
    name: card.name,
    last4: card.last4,
    pan_mask: card.panMask,
    card_type: card.cardType,
    credit_debit_type: card.creditDebitType,
    card_token_type: 1,
    card_token: card.token,
    expiration_month: card.expirationMonth,
    expiration_year: card.expirationYear,
  });
}

/** Stores what may be kept of a bank account: never the whole account number. */
export async function insertBankAccount(db: Knex, placement: Placement, account: BankAccountToKeep): Promise<void> {
  await db(TABLE).insert({
    ...placementColumns(placement),
    type_id: BANK_ACCOUNT,
    name: account.name,
    last4: account.last4,
    routing_number: account.routingNumber,
    account_type_id: account.accountTypeId,
    account_holder_type_id: account.accountHolderTypeId,
    tax_id: account.taxId,
    sandbox_magic_code: account.magicCode,
  });
}

/** The customer's payment methods, oldest first. */
export async function paymentMethodsOf(db: Knex, customerId: string): Promise<StoredPaymentMethod[]> {
  const rows = (await db(TABLE).where({ customer_id: customerId }).orderBy('position', 'asc')) as PaymentMethodRow[];
  return rows.map(toRecord);
}

export async function findPaymentMethod(db: Knex, customerId: string, id: string): Promise<StoredPaymentMethod | undefined> {
  const row = (await db(TABLE).where({ id, customer_id: customerId }).first()) as PaymentMethodRow | undefined;
  return row ? toRecord(row) : undefined;
}

export interface PaymentMethodChanges {
  name?: string | null;
  expirationMonth?: number;
  expirationYear?: number;
  accountTypeId?: AccountType;
  accountHolderTypeId?: AccountHolderType;
}

export async function updatePaymentMethod(db: Knex, id: string, changes: PaymentMethodChanges, modifiedOn: string): Promise<void> {
  const columns: Record<string, unknown> = { modified_on: modifiedOn };
  if (changes.name !== undefined) columns.name = changes.name;
  if (changes.expirationMonth !== undefined) columns.expiration_month = changes.expirationMonth;
  if (changes.expirationYear !== undefined) columns.expiration_year = changes.expirationYear;
  if (changes.accountTypeId !== undefined) columns.account_type_id = changes.accountTypeId;
  if (changes.accountHolderTypeId !== undefined) columns.account_holder_type_id = changes.accountHolderTypeId;
  await db(TABLE).where({ id }).update(columns);
}

export async function deletePaymentMethod(db: Knex, id: string): Promise<void> {
  await db(TABLE).where({ id }).delete();
}

const IS_DEFAULT = 'case when pm.id = c.default_payment_method_id or pm.id = c.default_ach_payment_method_id then 1 else 0 end';

const LIST: ListSpec = {
  orderable: {
    createdOn: 'pm.created_on',
    name: 'lower(pm.name)',
    paymentMethodTypeId: 'pm.type_id',
    isDefault: `(${IS_DEFAULT})`,
  },
  defaultOrder: 'createdOn',
  searchable: ['pm.name', 'pm.last4'],
  dateColumn: 'pm.created_on',
  // Unique within one customer's list, and in the order the methods were stored (ties of createdOn).
  idColumn: 'pm.position',
};

/** A page of the customer's payment methods, each with whether it is a default. */
export async function pagePaymentMethods(db: Knex, customerId: string, query: ListQuery): Promise<{ items: (StoredPaymentMethod & { isDefault: boolean })[]; total: number }> {
  const builder = db(`${TABLE} as pm`)
    .join('customers as c', 'c.id', 'pm.customer_id')
    .where('pm.customer_id', customerId)
    .select('pm.*', db.raw(`${IS_DEFAULT} as is_default`));
  const { rows, total } = await pageOf(builder, query, LIST);
  return {
    items: (rows as unknown as PaymentMethodRow[]).map((row) => ({ ...toRecord(row), isDefault: Number(row.is_default) === 1 })),
    total,
  };
}
