// Payment links (quick payments): creation (the link machine's creation row, quick_payment.created) with the
// rules of a reusable link (its limit, the payer's choices, the largest payment it can take, its redirect), the
// list, the read, a link's payments and the cancellation, and the expiry on the merchant's business clock, each
// change through the one engine in one transaction with its event. The payment itself is in
// quick-payment-payments.ts.
import { randomUUID } from 'node:crypto';
import type { Knex } from 'knex';
import { quickPaymentStateMachine } from '@pgw/client/state-machines';
import type { components } from '@pgw/client/types';
import type { Deps } from '../platform/deps.ts';
import { ApiError, invalid, notFound } from '../platform/errors.ts';
import { type Cents, ZERO_CENTS, centsOfExact, fromCents } from '../platform/money.ts';
import { LARGEST_PAYMENT_CENTS, amountCents } from './payments.ts';
import { redirectUrlProblem } from './redirect-urls.ts';
import { MAX_PAGE_SIZE, type ListQuery } from '../platform/paging.ts';
import { within, type InTx, type Scope, type Tx } from '../platform/scope.ts';
import { iso, normalizeDateTime } from '../platform/time.ts';
import { withTransaction } from '../platform/transaction.ts';
import * as repo from '../repositories/quick-payments.ts';
import type { LinkPaymentRecord, LinkStatus, QuickPaymentRecord } from '../repositories/quick-payments.ts';
import { findMerchant } from '../repositories/merchants.ts';
import { findTransaction } from '../repositories/transactions.ts';
import * as engine from './engine.ts';
import { PAGE_ID } from './page-payments.ts';
import { isExpiryDue, quickPaymentFamily, quickPaymentView, type QuickPaymentView } from './quick-payment-machine.ts';

type Schemas = components['schemas'];
type Problems = Record<string, string[]>;
const add = (errors: Problems, field: string, message: string): void => { (errors[field] ??= []).push(message); };

/** What a link's request sets besides its amount and description, as stored. */
type LinkTerms = Pick<QuickPaymentRecord, 'maxPayments' | 'quantity' | 'quantityRange' | 'amountRange' | 'redirectUrl'>;

/**
 * The terms of a link's request, every broken rule named by its field (nothing is written): the payer's
 * choices within their bounds, never both, and the largest payment the link can take no more than the largest
 * payment and the merchant's maxTransactionAmount, computed in integer cents.
 */
async function termsOf(scope: Scope, body: Schemas['QuickPaymentRequest'], unit: Cents, errors: Problems): Promise<LinkTerms> {
  const quantity = body.quantity ?? 1;
  let quantityRange: LinkTerms['quantityRange'] = null;
  if (body.adjustableQuantity !== undefined) {
    const { minimum, maximum } = body.adjustableQuantity;
    if (minimum > maximum) add(errors, 'adjustableQuantity.minimum', `must be at most adjustableQuantity.maximum (${String(maximum)})`);
    else if (quantity < minimum || quantity > maximum) add(errors, 'quantity', `must be within adjustableQuantity (${String(minimum)} to ${String(maximum)}): it is the quantity the page suggests`);
    quantityRange = { min: minimum, max: maximum };
  }
  let amountRange: LinkTerms['amountRange'] = null;
  if (body.customAmount !== undefined) {
    if (quantity !== 1 || body.adjustableQuantity !== undefined) add(errors, 'customAmount', 'cannot be combined with a quantity above 1 or adjustableQuantity: the payer chooses the whole amount');
    const min = amountCents(body.customAmount.minimum, 'customAmount.minimum');
    const max = amountCents(body.customAmount.maximum, 'customAmount.maximum');
    if (min > max) add(errors, 'customAmount.minimum', `must be at most customAmount.maximum (${String(fromCents(max))})`);
    else if (unit < min || unit > max) add(errors, 'amount', `must be within customAmount (${String(fromCents(min))} to ${String(fromCents(max))}): it is the amount the page suggests`);
    amountRange = { min, max };
  }
  // The largest payment the link can take, in integer cents (never a product of doubles).
  const [largest, field] = amountRange !== null ? [amountRange.max, 'customAmount.maximum']
    : [centsOfExact(BigInt(unit) * BigInt(quantityRange?.max ?? quantity)), quantityRange !== null ? 'adjustableQuantity.maximum' : body.quantity !== undefined ? 'quantity' : 'amount'];
  const each = `makes a payment of up to ${String(fromCents(largest))} USD`;
  if (largest > LARGEST_PAYMENT_CENTS) add(errors, field, `${each}, above ${String(fromCents(LARGEST_PAYMENT_CENTS))} USD, the largest payment`);
  else {
    const limit = (await scope.instances.paymentSetups.of(scope.db, scope.merchantId))?.maxTransactionAmountCents ?? null;
    if (limit !== null && largest > limit) add(errors, field, `${each}, above the merchant's maxTransactionAmount (${String(fromCents(limit))} USD): such a payment would be declined`);
  }
  let redirectUrl: string | null = null;
  if (body.redirectUrl !== undefined) {
    const problem = redirectUrlProblem(body.redirectUrl, scope.config);
    if (problem) add(errors, 'redirectUrl', problem);
    redirectUrl = body.redirectUrl;
  }
  return { maxPayments: body.maxPayments === undefined ? 1 : body.maxPayments, quantity, quantityRange, amountRange, redirectUrl };
}

/** Creates an Active link (the machine's creation row) and emits quick_payment.created with it. */
export async function createQuickPayment(scope: Scope, body: Schemas['QuickPaymentRequest']): Promise<QuickPaymentView> {
  const now = scope.clock.now();
  const cents = amountCents(body.amount);
  let expiresOn: string | null = null;
  if (body.expiresOn !== undefined && body.expiresOn !== null) {
    expiresOn = normalizeDateTime(body.expiresOn, 'expiresOn');
    // The business clock: a sandbox merchant whose clock was advanced sets expiries in its own time.
    if (Date.parse(expiresOn) <= now.getTime()) throw invalid('expiresOn', `must be later than now on the merchant's clock (${iso(now)})`);
  }
  const errors: Problems = {};
  const terms = await termsOf(scope, body, cents, errors);
  if (Object.keys(errors).length > 0) throw new ApiError('validation_failed', { errors });
  const fresh = {
    // Wholly random, not a time-ordered row id (platform/ids.ts): the id is the address of the link's hosted page.
    id: randomUUID(), merchantId: scope.merchantId, amountCents: cents, description: body.description.trim(),
    transactionId: null, paidOn: null, expiresOn, createdOn: iso(now), ...terms, paymentCount: 0, collectedCents: ZERO_CENTS, latest: null,
  };
  const { record } = await withTransaction(scope.db, (tx) => engine.create(within(scope, tx), quickPaymentFamily, fresh, 'createQuickPayment', now, null));
  return quickPaymentView(scope.config.baseUrl, record);
}

/**
 * The link locked for a change, moved to Expired first when its expiry has come on the business clock (the
 * move commits with whatever the caller does next, or alone when the caller refuses nothing).
 */
export async function lockCurrent(t: InTx<Scope>, id: string): Promise<QuickPaymentRecord> {
  const link = await engine.lock(t, quickPaymentFamily, { merchant_id: t.merchantId, id: id.toLowerCase() });
  if (!link) throw notFound(id, 'payment link');
  if (!isExpiryDue(link, t.clock.now())) return link;
  const expired = await engine.transition(t, quickPaymentFamily, link, 'time.expiresOnPassed', t.clock.now(), null);
  return expired ?? link;
}

/** The link as it is now: an Active link past its expiry is moved to Expired (in its own transaction) and answered so. */
export async function currentLink(scope: Scope, id: string): Promise<QuickPaymentRecord> {
  const found = await repo.findQuickPayment(scope.db, scope.merchantId, id.toLowerCase());
  if (!found) throw notFound(id, 'payment link');
  if (!isExpiryDue(found, scope.clock.now())) return found;
  return withTransaction(scope.db, (tx) => lockCurrent(within(scope, tx), id));
}

export async function getQuickPayment(scope: Scope, id: string): Promise<QuickPaymentView> {
  return quickPaymentView(scope.config.baseUrl, await currentLink(scope, id));
}

export async function listQuickPayments(scope: Scope, list: ListQuery & { status?: LinkStatus }): Promise<{ items: QuickPaymentView[]; total: number }> {
  // What expired on the business clock is moved first, so that the status filter and the answers are true.
  await expireDue(scope.db, scope.merchantId, scope.clock.now());
  const { items, total } = await repo.listQuickPayments(scope.db, scope.merchantId, list);
  return { items: items.map((l) => quickPaymentView(scope.config.baseUrl, l)), total };
}

/** A page of the payments a link of the merchant took, oldest first; 404 for another merchant's link. */
export async function listQuickPaymentPayments(scope: Scope, id: string, page: { page?: number; pageSize?: number }): Promise<Schemas['QuickPaymentPaymentList']> {
  const link = await repo.findQuickPayment(scope.db, scope.merchantId, id.toLowerCase());
  if (!link) throw notFound(id, 'payment link');
  const { items, total } = await repo.listLinkPayments(scope.db, scope.merchantId, link.id, { page: page.page ?? 0, pageSize: Math.min(page.pageSize ?? 15, MAX_PAGE_SIZE) });
  return { items: items.map((p) => ({ transactionId: p.transactionId, amount: fromCents(p.amountCents), quantity: p.quantity, paidOn: p.paidOn })), total };
}

/** The refusal of a trigger the link's status has no row for (Paid, Expired, Cancelled). */
export const notActive = (link: QuickPaymentRecord, trigger: 'cancelQuickPayment' | 'paySandboxQuickPayment'): ApiError =>
  new ApiError(quickPaymentStateMachine.refusal.errorCodes[trigger], {
    details: `The payment link is ${link.status}: only an Active link can be ${trigger === 'cancelQuickPayment' ? 'cancelled' : 'paid'}.`,
    entityId: link.id,
  });

/** Withdraws an Active link (Cancelled, no event); any other status is refused and nothing changes. */
export async function cancelQuickPayment(scope: Scope, id: string): Promise<QuickPaymentView> {
  const link = await currentLink(scope, id);
  return withTransaction(scope.db, async (tx) => {
    const t = within(scope, tx);
    const locked = await lockCurrent(t, link.id);
    const after = await engine.transition(t, quickPaymentFamily, locked, 'cancelQuickPayment', t.clock.now(), null);
    if (!after) throw notActive(locked, 'cancelQuickPayment');
    return quickPaymentView(scope.config.baseUrl, after);
  });
}

/**
 * Moves the merchant's Active links whose expiry is at or before `until` (business time) to Expired, no event
 * (the interface has none), in one transaction; returns how many moved. `wait`: rows another transaction holds
 * are waited for (the clock advance answers once all that fell due has run), else left to it (the worker).
 */
export async function expireDue(db: Knex, merchantId: string, until: Date, wait = false): Promise<number> {
  return withTransaction(db, async (tx: Tx) => {
    const due = await repo.claimExpiring(tx, merchantId, iso(until), wait);
    if (due.length === 0) return 0;
    const moved = await engine.transitionAll({ db: tx }, quickPaymentFamily, due, 'time.expiresOnPassed', until, () => null);
    return moved.filter((m) => m !== undefined).length;
  });
}

/** A link for its public page, by id alone (the page names no merchant); undefined for an unknown id. */
export async function findPublicLink(deps: Pick<Deps, 'db'>, id: string): Promise<QuickPaymentRecord | undefined> {
  return PAGE_ID.test(id) ? repo.findPublicQuickPayment(deps.db, id.toLowerCase()) : undefined;
}

/** What the link's page shows: the link as it is now (expired when its time has come), its merchant, and how it was paid. */
export interface PublicLink {
  readonly link: QuickPaymentRecord;
  readonly merchantName: string;
  /** The payment's method (PaymentMethodType) once Paid; null before. */
  readonly paymentMethodTypeId: number | null;
  /** The payment the page was sent back with after paying (its receipt), when it is one of this link's; else null. */
  readonly receipt: LinkPaymentRecord | null;
}

/**
 * The page of a link; `scope` is its merchant's (the business clock decides expiry). `receipt`: the transaction
 * the page names after a payment, shown only when it is one of this link's payments (a made-up one shows nothing).
 */
export async function publicLink(scope: Scope, link: QuickPaymentRecord, receipt?: string): Promise<PublicLink> {
  const now = await currentLink(scope, link.id);
  const merchant = await findMerchant(scope.db, now.merchantId);
  const payment = now.transactionId === null ? undefined : await findTransaction(scope.db, now.merchantId, now.transactionId);
  const paid = receipt === undefined || !PAGE_ID.test(receipt) ? undefined : await repo.findLinkPayment(scope.db, now.merchantId, now.id, receipt.toLowerCase());
  return { link: now, merchantName: merchant?.company_name ?? '', paymentMethodTypeId: payment?.paymentMethodTypeId ?? null, receipt: paid ?? null };
}
