// What the public payment pages share (an invoice's, a payment link's): the payment a page's form makes (the
// API's card or ACH request of an invoice payment, checked against its schema), the checks made before anything
// is locked, and the form run once per form token (its nonce is the idempotency key: a double submit pays once
// and answers as the first did).
import type { components } from '@pgw/client/types';
import type { Deps } from '../platform/deps.ts';
import { ApiError, invalid } from '../platform/errors.ts';
import { once, requestHash } from '../platform/idempotency.ts';
import type { Tx } from '../platform/scope.ts';
import { cardTypeOf, panProblem, securityCodeProblem } from './cards.ts';

type Schemas = components['schemas'];

/** The form of a page's id in its path (a uuid): anything else is no page, answered 404 without a query. */
export const PAGE_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** A page's payment: the card form's request, or the bank-account form's. */
export type PagePayment =
  | { kind: 'card'; body: Schemas['InvoiceCardPaymentRequest'] }
  | { kind: 'ach'; body: Schemas['InvoiceAchPaymentRequest'] };

/** What the page shows after a payment that broke no rule: paid, or declined with the processor's words. */
export interface PageOutcome {
  paid: boolean;
  /** The decline as the processor gave it ("Insufficient funds (051)"); null when paid. */
  decline: string | null;
  /** The payment's transaction when paid, where the page shows a receipt of it (a reusable link's); else absent. */
  reference?: string;
}

/**
 * The card a payer typed on a page, checked before anything is locked: its number and security code, named by
 * the form's fields. The rest is the card sale's own checks.
 */
export function enteredCard(body: Pick<Schemas['InvoiceCardPaymentRequest'], 'accountNumber' | 'securityCode'>): { pan: string; code: string | undefined } {
  const pan = body.accountNumber;
  if (pan === null) throw invalid('accountNumber', 'is required: the card number');
  const problem = panProblem(pan);
  if (problem) throw invalid('accountNumber', problem);
  const code = body.securityCode ?? undefined;
  const codeProblem = code === undefined ? undefined : securityCodeProblem(code, cardTypeOf(pan));
  if (codeProblem) throw invalid('securityCode', codeProblem);
  return { pan, code };
}

/** A page's ACH payment needs the payer's ticked authorization (NACHA WEB debit) before anything is done. */
export function requireAuthorization(body: Pick<Schemas['InvoiceAchPaymentRequest'], 'authorizeBankWithdrawal'>): void {
  if (!body.authorizeBankWithdrawal) {
    throw new ApiError('ach_authorization_required', { errors: { authorizeBankWithdrawal: ['must be true: the payer authorizes the withdrawal'] } });
  }
}

/** Where a form's payment is kept once: the page's tenant, the operation its request is, and what it pays. */
export interface FormRun {
  /** The tenant of the form keys (`invoice-page:<merchant>`): a form token's nonce is unique within it. */
  readonly tenant: string;
  readonly operationId: string;
  /** The path of what the form pays (`{ invoiceId }`), part of the request's hash. */
  readonly path: Record<string, string>;
  readonly merchantId: string;
}

/**
 * Runs a page's payment once per form token. `formKey` is the token's nonce and `fields` what the form sent
 * (without the token): the same form sent twice replays the first outcome, a different one with the same token
 * is refused (idempotency_key_reused). A rule broken (ApiError) rolls everything back, the key included, so the
 * corrected form may be sent again.
 */
export async function payOncePerForm(
  deps: Pick<Deps, 'db' | 'wall'> & { hashKey: Buffer }, run: FormRun, formKey: string, fields: Record<string, string>,
  pay: (tx: Tx) => Promise<PageOutcome>,
): Promise<PageOutcome> {
  // Keyed (HMAC), never a plain hash: the fields hold a card or account number.
  const hash = requestHash(deps.hashKey, run.operationId, { path: run.path, query: {}, headers: {}, body: fields }, run.merchantId);
  const result = await once(deps, { tenant: run.tenant, key: formKey }, hash, async (tx) => ({ status: 200, body: await pay(tx) }));
  const body = result.body as Partial<PageOutcome> | undefined;
  if (typeof body?.paid !== 'boolean') throw new ApiError('internal_error');
  return { paid: body.paid, decline: typeof body.decline === 'string' ? body.decline : null, ...(typeof body.reference === 'string' ? { reference: body.reference } : {}) };
}
