// What the sandbox dashboard reads, for one merchant: its transactions (newest first, paged) and one with its
// status history; its events (newest first, paged) with their webhook deliveries attempt by attempt. Amounts
// stay integer cents here; the views format them. The clock, the retry and the invoices are the services the
// API calls (sandbox.ts, webhook-logs.ts, invoices.ts).
import { PaymentMethodType } from '@pgw/client/enums';
import { ApiError } from '../platform/errors.ts';
import * as events from '../repositories/event-log.ts';
import { listTransactions } from '../repositories/transaction-list.ts';
import { historyOf, type TransactionRecord } from '../repositories/transactions.ts';
import { endpointsById } from '../repositories/webhook-endpoints.ts';
import type { AttemptRecord, DeliveryRecord } from '../repositories/webhook-deliveries.ts';
import { findOwn } from './payments.ts';
import { statusName, typeName } from './transaction-view.ts';
import { requirePermission } from './webhook-endpoints.ts';
import type { Cents } from '../platform/money.ts';
import type { Scope } from '../platform/scope.ts';

export const PAGE_SIZE = 20;

export interface Paged<T> { items: T[]; total: number; page: number; pages: number }

export interface TransactionSummary {
  id: string; method: 'Card' | 'ACH'; type: string; status: string; amountCents: Cents; processedCents: Cents; refundedCents: Cents;
  account: string | null; createdOn: string; settledOn: string | null; responseCode: string | null; responseDescription: string | null; returnCode: string | null;
}

export interface HistoryStep { at: string; from: string | null; to: string; trigger: string; responseCode: string | null; returnCode: string | null }

export interface DeliveryView extends DeliveryRecord { webhookName: string; webhookUrl: string; attempts: AttemptRecord[] }

export interface EventView { id: string; type: string; occurredOn: string; deliveries: DeliveryView[] }

/** A page number from the query: 0-based, never negative or absurd. */
export const pageNumber = (value: unknown): number => {
  const n = typeof value === 'string' && /^\d{1,6}$/.test(value) ? Number(value) : 0;
  return n;
};

const pagesOf = (total: number): number => Math.max(1, Math.ceil(total / PAGE_SIZE));

function summaryOf(t: TransactionRecord): TransactionSummary {
  return {
    id: t.id, method: t.paymentMethodTypeId === PaymentMethodType.Card ? 'Card' : 'ACH', type: typeName(t.typeId), status: statusName(t),
    amountCents: t.amountCents, processedCents: t.processedAmountCents, refundedCents: t.refundedAmountCents,
    account: t.panMask ?? (t.accountLast4 === null ? null : `****${t.accountLast4}`), createdOn: t.createdOn, settledOn: t.settledOn,
    responseCode: t.responseCode, responseDescription: t.responseDescription, returnCode: t.returnCode,
  };
}

export async function transactionsPage(scope: Scope, page: number): Promise<Paged<TransactionSummary>> {
  const { merchantId } = scope;
  const { items, total } = await listTransactions(scope.db, merchantId, { page, pageSize: PAGE_SIZE, orderBy: 'createdOn', asc: false });
  return { items: items.map(summaryOf), total, page, pages: pagesOf(total) };
}

/** The merchant's transaction with its status history, oldest step first; 404 (ApiError) for another merchant's or none. */
export async function transactionDetail(scope: Scope, id: string): Promise<{ transaction: TransactionSummary; history: HistoryStep[] }> {
  const { merchantId } = scope;
  const record = await findOwn(scope.db, merchantId, id);
  const name = (statusId: number): string => statusName({ paymentMethodTypeId: record.paymentMethodTypeId, statusId });
  const history = (await historyOf(scope.db, record.id)).map((h) => ({
    at: h.createdOn, from: h.fromStatusId === null ? null : name(h.fromStatusId), to: name(h.toStatusId), trigger: h.trigger,
    responseCode: h.responseCode, returnCode: h.returnCode,
  }));
  return { transaction: summaryOf(record), history };
}

/** Whether the merchant may use webhooks (without it the events show no deliveries). */
async function webhooksAllowed(scope: Scope): Promise<boolean> {
  try {
    await requirePermission(scope);
    return true;
  } catch (error) {
    if (error instanceof ApiError && error.code === 'webhooks_permission_required') return false;
    throw error;
  }
}

export async function eventsPage(scope: Scope, page: number): Promise<Paged<EventView> & { webhooks: boolean }> {
  const { merchantId } = scope;
  const { items, total } = await events.listEvents(scope.db, merchantId, { page, pageSize: PAGE_SIZE, orderBy: 'occurredOn', asc: false });
  const webhooks = await webhooksAllowed(scope);
  const deliveries = webhooks ? await events.deliveriesOf(scope.db, merchantId, items.map((e) => e.id)) : [];
  const attempts = await events.attemptsOfAll(scope.db, deliveries.map((d) => d.id));
  const endpoints = await endpointsById(scope.db, [...new Set(deliveries.map((d) => d.endpointId))]);
  const views: DeliveryView[] = deliveries.map((d) => {
    const endpoint = endpoints.get(d.endpointId);
    return { ...d, webhookName: endpoint?.name ?? '', webhookUrl: endpoint?.endpointUrl ?? '', attempts: attempts.filter((a) => a.deliveryId === d.id) };
  });
  return {
    items: items.map((e) => ({ ...e, deliveries: views.filter((d) => d.eventId === e.id) })),
    total, page, pages: pagesOf(total), webhooks,
  };
}
