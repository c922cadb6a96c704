// The invoice list (Knex only): the status filter (PastDue derived from the due date and the clock), the
// issue, due and payment date ranges, search, paging and the orders of listInvoices.
import type { Knex } from 'knex';
import { InvoiceStatus } from '@pgw/client/enums';
import { pageOf, type ListQuery, type ListSpec } from './paging.ts';
import { normalizeDateTime } from '../platform/time.ts';
import type { StoredStatus } from './invoices.ts';
import { type Cents, centsOfColumn } from '../platform/money.ts';

interface ListRow {
  id: string; number: string | null; customer_first_name: string; customer_last_name: string; issue_date: string | null;
  due_date: string | null; payment_date: string | null; total_cents: number | string; status_id: number;
}

export interface InvoiceListFilter {
  issueDateFrom?: string;
  issueDateTo?: string;
  dueDateFrom?: string;
  dueDateTo?: string;
  paymentDateFrom?: string;
  paymentDateTo?: string;
  /** InvoiceStatus, PastDue included. */
  status?: InvoiceStatus;
}

export interface InvoiceListRecord {
  id: string;
  number: string | null;
  customerName: string;
  issueDate: string | null;
  dueDate: string | null;
  paymentDate: string | null;
  totalCents: Cents;
  /** Stored status; the caller derives PastDue. */
  status: StoredStatus;
}

const CUSTOMER_NAME = "i.customer_first_name || ' ' || i.customer_last_name";
// Nulls (a draft's number and dates) sort after every value in ascending order (the spec), before them in
// descending order: a sentinel above every value, the same on both engines.
const LAST_DATE = "'9999-12-31T23:59:59.999Z'";
const ISO_INSTANT = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

function listSpec(now: string): ListSpec {
  // `now` goes into the SQL text of the status order: only an ISO instant of the server's clock.
  if (!ISO_INSTANT.test(now)) throw new Error(`not an ISO instant: ${now}`);
  return {
    orderable: {
      createdOn: 'i.created_on',
      number: `coalesce(i.number_seq, ${String(Number.MAX_SAFE_INTEGER)})`,
      customerName: `lower(${CUSTOMER_NAME})`,
      issueDate: `coalesce(i.issue_date, ${LAST_DATE})`,
      dueDate: `coalesce(i.due_date, ${LAST_DATE})`,
      paymentDate: `coalesce(i.payment_date, ${LAST_DATE})`,
      totalAmount: 'i.total_cents',
      status: `case when i.status_id = ${String(InvoiceStatus.Due)} and i.due_date < '${now}' then ${String(InvoiceStatus.PastDue)} else i.status_id end`,
    },
    defaultOrder: 'createdOn',
    searchable: ['i.number', 'i.customer_first_name', 'i.customer_last_name', 'i.customer_company_name', 'i.customer_email'],
    dateColumn: 'i.created_on',
    idColumn: 'i.id',
  };
}

function applyStatus(query: Knex.QueryBuilder, status: InvoiceListFilter['status'], now: string): void {
  if (status === undefined) return;
  // PastDue is not stored: a Due invoice whose due date has passed.
  if (status === InvoiceStatus.Due) void query.where('i.status_id', InvoiceStatus.Due).andWhere('i.due_date', '>=', now);
  else if (status === InvoiceStatus.PastDue) void query.where('i.status_id', InvoiceStatus.Due).andWhere('i.due_date', '<', now);
  else void query.where('i.status_id', status);
}

function applyRange(query: Knex.QueryBuilder, column: string, field: string, from: string | undefined, to: string | undefined): void {
  // A null date matches no range: the comparisons are false for null.
  if (from !== undefined) void query.where(column, '>=', normalizeDateTime(from, `${field}From`));
  if (to !== undefined) void query.where(column, '<=', normalizeDateTime(to, `${field}To`));
}

export async function listInvoices(db: Knex, merchantId: string, list: ListQuery, filter: InvoiceListFilter, now: string): Promise<{ items: InvoiceListRecord[]; total: number }> {
  const query = db('invoices as i').where('i.merchant_id', merchantId).select(
    'i.id', 'i.number', 'i.customer_first_name', 'i.customer_last_name', 'i.issue_date', 'i.due_date', 'i.payment_date', 'i.total_cents', 'i.status_id',
  );
  applyStatus(query, filter.status, now);
  applyRange(query, 'i.issue_date', 'issueDate', filter.issueDateFrom, filter.issueDateTo);
  applyRange(query, 'i.due_date', 'dueDate', filter.dueDateFrom, filter.dueDateTo);
  applyRange(query, 'i.payment_date', 'paymentDate', filter.paymentDateFrom, filter.paymentDateTo);
  // The date ranges are applied above; the common dateFrom/dateTo of the paging do not apply here.
  const { rows, total } = await pageOf(query, { ...list, dateFrom: undefined, dateTo: undefined }, listSpec(now));
  return {
    items: (rows as unknown as ListRow[]).map((row) => ({
      id: row.id,
      number: row.number,
      customerName: `${row.customer_first_name} ${row.customer_last_name}`,
      issueDate: row.issue_date,
      dueDate: row.due_date,
      paymentDate: row.payment_date,
      totalCents: centsOfColumn(row.total_cents),
      status: row.status_id as StoredStatus,
    })),
    total,
  };
}
