// The customers table: rows in, records out (booleans, bigints and JSON addresses converted here). Amounts
// stay in integer cents (`…Cents`); the responses convert them to USD.
import type { Knex } from 'knex';
import { compiledSelect, insertRow } from './compiled.ts';
import { CUSTOMER_SEARCH_TEXT } from '../db/migrations/008_customer_search.ts';
import { likePattern, pageOf, unfiltered, type ListQuery, type ListSpec } from './paging.ts';
import { beforeCommit, lockRow } from '../platform/transaction.ts';
import { isPostgres } from '../db/knex.ts';
import { joinedColumns, joinedRecord, type StoredPaymentMethod } from './payment-methods.ts';
import { type Cents, centsOfColumn, centsOrNullOfColumn } from '../platform/money.ts';

export interface AddressValue {
  addressLine1: string | null;
  addressLine2: string | null;
  city: string | null;
  zip: string | null;
  stateName: string | null;
  stateId: number | null;
  countryId: number | null;
}

/** The fields a create or update sets. */
export interface CustomerFields {
  firstName: string | null;
  lastName: string;
  companyName: string | null;
  email: string | null;
  mobilePhoneNumber: string | null;
  smsNotificationsEnabled: boolean;
  useBillingAsShipping: boolean;
  billingAddress: AddressValue | null;
  /** Null when useBillingAsShipping (the record then shows the billing address). */
  shippingAddress: AddressValue | null;
}

export interface CustomerRecord extends CustomerFields {
  id: string;
  merchantId: string;
  defaultCardId: string | null;
  defaultAchId: string | null;
  createdOn: string;
  modifiedOn: string;
  transactionsCount: number;
  transactionsVolumeCents: Cents;
  lastTransactionDate: string | null;
  /** Null when there is no payment. */
  lastTransactionAmountCents: Cents | null;
  /** Live (Active, PastDue, Trialing or Paused) subscriptions, kept by the subscription machine's adapter. */
  subscriptionsCount: number;
  /** The sum of their payments' amounts. */
  activeSubscriptionsCents: Cents;
}

export interface CustomerListRecord extends CustomerRecord {
  paymentMethodsCount: number;
}

interface CustomerRow {
  id: string;
  merchant_id: string;
  first_name: string | null;
  last_name: string;
  company_name: string | null;
  email: string | null;
  mobile_phone_number: string | null;
  sms_notifications_enabled: boolean | number;
  use_billing_as_shipping: boolean | number;
  billing_address: string | null;
  shipping_address: string | null;
  default_payment_method_id: string | null;
  default_ach_payment_method_id: string | null;
  created_on: string;
  modified_on: string;
  transactions_count: number | string;
  transactions_volume_cents: number | string;
  last_transaction_on: string | null;
  last_transaction_amount_cents: number | string | null;
  subscriptions_count: number | string;
  active_subscriptions_cents: number | string;
  payment_methods_count?: number | string;
}

const TABLE = 'customers';

const parseAddress = (text: string | null): AddressValue | null => (text === null ? null : (JSON.parse(text) as AddressValue));

function toRecord(row: CustomerRow): CustomerRecord {
  return {
    id: row.id,
    merchantId: row.merchant_id,
    firstName: row.first_name,
    lastName: row.last_name,
    companyName: row.company_name,
    email: row.email,
    mobilePhoneNumber: row.mobile_phone_number,
    smsNotificationsEnabled: Boolean(row.sms_notifications_enabled),
    useBillingAsShipping: Boolean(row.use_billing_as_shipping),
    billingAddress: parseAddress(row.billing_address),
    shippingAddress: parseAddress(row.shipping_address),
    defaultCardId: row.default_payment_method_id,
    defaultAchId: row.default_ach_payment_method_id,
    createdOn: row.created_on,
    modifiedOn: row.modified_on,
    transactionsCount: Number(row.transactions_count),
    transactionsVolumeCents: centsOfColumn(row.transactions_volume_cents),
    lastTransactionDate: row.last_transaction_on,
    lastTransactionAmountCents: centsOrNullOfColumn(row.last_transaction_amount_cents),
    subscriptionsCount: Number(row.subscriptions_count),
    activeSubscriptionsCents: centsOfColumn(row.active_subscriptions_cents),
  };
}

function fieldColumns(fields: CustomerFields): Record<string, unknown> {
  return {
    first_name: fields.firstName,
    last_name: fields.lastName,
    company_name: fields.companyName,
    email: fields.email,
    mobile_phone_number: fields.mobilePhoneNumber,
    sms_notifications_enabled: fields.smsNotificationsEnabled,
    use_billing_as_shipping: fields.useBillingAsShipping,
    billing_address: fields.billingAddress === null ? null : JSON.stringify(fields.billingAddress),
    shipping_address: fields.shippingAddress === null ? null : JSON.stringify(fields.shippingAddress),
  };
}

/**
 * SQLite: indexes the search text of the customers noted since (migration 025's trigger notes each new row), in
 * one statement: run once a transaction, before it commits, FTS5 writes one segment for every customer of a
 * group commit. Profiled (issue 43): a segment per customer was ~65 us of each create's commit and merges.
 */
export async function indexPendingCustomers(db: Knex): Promise<void> {
  await db.raw(`insert into customers_search (rowid, text) select c.rowid, ${CUSTOMER_SEARCH_TEXT} from customers_search_pending p cross join customers c where c.rowid = p.id`);
  await db.raw('delete from customers_search_pending');
}

export async function insertCustomer(db: Knex, customer: { id: string; merchantId: string; fields: CustomerFields; createdOn: string; firstPayment?: { amountCents: Cents; on: string } }): Promise<void> {
  const first = customer.firstPayment;
  await insertRow(db, TABLE, {
    id: customer.id,
    merchant_id: customer.merchantId,
    ...fieldColumns(customer.fields),
    created_on: customer.createdOn,
    modified_on: customer.createdOn,
    // A customer made for a payment starts with that payment counted (as countCustomerPayment counts one).
    ...(first ? { transactions_count: 1, transactions_volume_cents: first.amountCents, last_transaction_on: first.on, last_transaction_amount_cents: first.amountCents } : {}),
  });
  if (!isPostgres(db)) await beforeCommit(db, indexPendingCustomers);
}

export async function findCustomer(db: Knex, merchantId: string, id: string): Promise<CustomerRecord | undefined> {
  const row = (await db(TABLE).where({ id, merchant_id: merchantId }).first()) as CustomerRow | undefined;
  return row ? toRecord(row) : undefined;
}

const PM = 'pm__';

/**
 * The customer with its payment methods (oldest position first) in one query: a read of one customer is
 * one round trip, not two (issue 13).
 */
const customerWithPaymentMethods = compiledSelect<{ id: string; merchantId: string }, CustomerRow & Record<string, unknown>>((db, v) => db(`${TABLE} as c`)
  .leftJoin('payment_methods as pm', 'pm.customer_id', 'c.id')
  .where({ 'c.id': v.id, 'c.merchant_id': v.merchantId })
  .orderBy('pm.position', 'asc')
  .select('c.*', ...joinedColumns('pm', PM)));

export async function findCustomerWithPaymentMethods(db: Knex, merchantId: string, id: string): Promise<{ customer: CustomerRecord; paymentMethods: StoredPaymentMethod[] } | undefined> {
  const rows = await customerWithPaymentMethods(db, { id, merchantId });
  const first = rows[0];
  if (first === undefined) return undefined;
  return { customer: toRecord(first), paymentMethods: rows.flatMap((row) => joinedRecord(row, PM) ?? []) };
}

/**
 * Whether the customer is the merchant's, and its stored payment method `paymentMethodId` (undefined when it has
 * none of that id), in one query: a payment with a stored card or bank account reads both.
 */
const customerPaymentMethod = compiledSelect<{ id: string; merchantId: string; paymentMethodId: string }, Record<string, unknown>>((db, v) => db(`${TABLE} as c`)
  .leftJoin('payment_methods as pm', function joinMethod() { this.on('pm.customer_id', '=', 'c.id').andOn('pm.id', '=', db.raw('?', [v.paymentMethodId])); })
  .where({ 'c.id': v.id, 'c.merchant_id': v.merchantId })
  .select('c.id', ...joinedColumns('pm', PM)));

export async function findCustomerPaymentMethod(db: Knex, merchantId: string, id: string, paymentMethodId: string): Promise<{ method: StoredPaymentMethod | undefined } | undefined> {
  const [row] = await customerPaymentMethod(db, { id, merchantId, paymentMethodId });
  return row === undefined ? undefined : { method: joinedRecord(row, PM) };
}

/**
 * Locks the customer's row until the end of the transaction, so that two changes of one customer do not
 * interleave; false when the customer is not the merchant's.
 */
export async function lockCustomer(tx: Knex.Transaction, merchantId: string, id: string): Promise<boolean> {
  return (await lockRow(tx, TABLE, { id, merchant_id: merchantId })) !== undefined;
}

/** Marks the customer changed; false when it is not the merchant's. */
export async function touchCustomer(db: Knex, merchantId: string, id: string, modifiedOn: string): Promise<boolean> {
  const count = await db(TABLE).where({ id, merchant_id: merchantId }).update({ modified_on: modifiedOn });
  return count > 0;
}

export async function updateCustomerFields(db: Knex, merchantId: string, id: string, fields: CustomerFields, modifiedOn: string): Promise<boolean> {
  const count = await db(TABLE).where({ id, merchant_id: merchantId }).update({ ...fieldColumns(fields), modified_on: modifiedOn });
  return count > 0;
}

/** Sets the default card and/or bank account (undefined leaves one as it is). */
export async function setDefaults(db: Knex, id: string, defaults: { cardId?: string | null; achId?: string | null }): Promise<void> {
  const changes: Record<string, string | null> = {};
  if (defaults.cardId !== undefined) changes.default_payment_method_id = defaults.cardId;
  if (defaults.achId !== undefined) changes.default_ach_payment_method_id = defaults.achId;
  if (Object.keys(changes).length > 0) await db(TABLE).where({ id }).update(changes);
}

/** Deletes the customer with its payment methods; false when it is not the merchant's. Run it in a transaction. */
export async function deleteCustomer(db: Knex, merchantId: string, id: string): Promise<boolean> {
  await db('payment_methods').where({ customer_id: id, merchant_id: merchantId }).delete();
  const count = await db(TABLE).where({ id, merchant_id: merchantId }).delete();
  return count > 0;
}

const CONTACT_NAME = "coalesce(c.first_name || ' ', '') || c.last_name";

/**
 * The most matches a search counts (and binds as a list of candidates: SQLite binds up to 32,766 values a
 * statement). A search matching more answers this as its total, marked not exact: counting every match of a
 * search that matches most of 100,000 customers took 120-370 ms a request, and no one pages that far.
 */
export const SEARCH_COUNT_LIMIT = 1000;

const SEARCH: ListSpec = {
  orderable: {
    createdOn: 'c.created_on',
    modifiedOn: 'c.modified_on',
    firstName: 'lower(c.first_name)',
    lastName: 'lower(c.last_name)',
    companyName: 'lower(c.company_name)',
    email: 'lower(c.email)',
    contactName: `lower(${CONTACT_NAME})`,
    lastTransactionDate: 'c.last_transaction_on',
    lastTransactionAmount: 'c.last_transaction_amount_cents',
  },
  defaultOrder: 'createdOn',
  searchable: ['c.first_name', 'c.last_name', 'c.company_name', 'c.email', 'c.mobile_phone_number'],
  dateColumn: 'c.created_on',
  idColumn: 'c.id',
  notNull: ['createdOn', 'modifiedOn', 'lastName'],
  // The trigram index of migration 008 finds the matches of a selective search; a search matching more than
  // SEARCH_COUNT_LIMIT customers is answered walking the page's order (matches are dense there) and not counted.
  searchIndex: {
    minLength: 3,
    where: async (query, search) => {
      // The searched columns as one text: every match of a column is a match of it (its index is the superset).
      const text = `${CUSTOMER_SEARCH_TEXT} like ? escape '\\'`;
      const postgres = (query.client as { config: { client: string } }).config.client === 'pg';
      // Knex types a client's raw as any; it is the builder's Raw.
      const raw = (sql: string, bindings: readonly Knex.RawBinding[] = []): Knex.Raw => query.client.raw(sql, bindings) as Knex.Raw;
      // The query's own matches (every other condition is on it already), at most one more than the limit.
      const upTo = query.clone().clearSelect().clearOrder().limit(SEARCH_COUNT_LIMIT + 1);
      if (postgres) {
        // PostgreSQL's planner picks the trigram index or a scan that stops early; autovacuum keeps its statistics.
        void upTo.select('c.id as key').whereRaw(text, [likePattern(search)]);
      } else {
        // SQLite walks its trigram table's matches (every merchant's), each joined to its row by rowid, and stops
        // at the limit. The join order is fixed (CROSS JOIN): statistics a long-lived connection read while the
        // table was small (a bulk import since) planned a scan of every customer instead, 80 ms at 100,000.
        // Customers noted and not indexed yet (migration 025; none outside a transaction writing them) are
        // candidates too: every candidate is checked against the searched columns (applyFilters' condition).
        const matches = `(select rowid as id from customers_search where customers_search match ? union all select id from customers_search_pending) as m`;
        void upTo.from(raw(`${matches} cross join customers as c`, [`"${search.toLowerCase().replaceAll('"', '""')}"`])).select('c.rowid as key')
          .whereRaw('c.rowid = m.id');
      }
      // Counted in the database, and the keys gathered only when they are used: one row back. A search matching
      // most customers made 1,001 rows of keys for the driver to read and discard, 0.8 of the 1.75 ms the probe
      // took on SQLite (100,000 customers); PostgreSQL's array of them, sent anyway, was slower still to parse.
      const many = `count(*) > ${String(SEARCH_COUNT_LIMIT)}`;
      const gathered = postgres ? `count(*)::int as n, case when ${many} then null else coalesce(array_agg(probe.key), '{}') end as keys`
        : `count(*) as n, case when ${many} then null else json_group_array(probe.key) end as keys`;
      const probe = (await query.client.queryBuilder().from(upTo.as('probe')).select(raw(gathered)).first()) as { n: number; keys: string | string[] | null };
      if (probe.n > SEARCH_COUNT_LIMIT) {
        void query.whereRaw(text, [likePattern(search)]);
        return { atLeast: SEARCH_COUNT_LIMIT };
      }
      // The matches are known: the total is their number, and the page is read from them by key (on SQLite from
      // the JSON list of keys, by rowid, whatever the statistics say; the rows are then sorted for the page).
      if (postgres) void query.whereIn('c.id', probe.keys as string[]);
      else void query.from(raw('json_each(?) as k cross join customers as c', [probe.keys as string])).whereRaw('c.rowid = k.value');
      return { exactly: probe.n };
    },
  },
};

/** A page of the customers of the given merchants, with their payment method counts. */
export async function searchCustomers(db: Knex, merchantIds: readonly string[], query: ListQuery & { customerId?: string }): Promise<{ items: CustomerListRecord[]; total: number; totalIsExact: boolean }> {
  const builder = db(`${TABLE} as c`)
    .whereIn('c.merchant_id', [...merchantIds])
    .select('c.*', db.raw('(select count(*) from payment_methods pm where pm.customer_id = c.id) as payment_methods_count'));
  if (query.customerId !== undefined) void builder.where('c.id', query.customerId);
  // The unfiltered list's total is the merchants' customer counts (migration 009's triggers keep them).
  const counts = async (): Promise<number> => {
    const row = (await db('customer_counts').whereIn('merchant_id', [...merchantIds]).sum({ total: 'total' }).first()) as { total: number | string | null } | undefined;
    return Number(row?.total ?? 0);
  };
  const { rows, total, totalIsExact } = await pageOf(builder, query, SEARCH, unfiltered(query) && query.customerId === undefined ? counts : undefined);
  return {
    items: (rows as unknown as CustomerRow[]).map((row) => ({ ...toRecord(row), paymentMethodsCount: Number(row.payment_methods_count ?? 0) })),
    total,
    totalIsExact,
  };
}
