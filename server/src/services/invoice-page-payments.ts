// Paying an invoice from its public page: the API's own card and ACH payments of an invoice
// (invoice-payments.ts, so every rule of submit and ach/submit holds here too), run once per form token
// (its nonce is the idempotency key: a double submit pays once and answers as the first did), and what
// the page shows afterwards (paid, or the processor's decline).
import { InvoiceHistoryType } from '../../../generated/enums.ts';
import type { components } from '../../../generated/types.ts';
import type { Deps } from '../platform/deps.ts';
import { within, type Scope } from '../platform/scope.ts';
import { ApiError } from '../platform/errors.ts';
import { once, requestHash } from '../platform/idempotency.ts';
import { historyOf, type InvoiceRecord } from '../repositories/invoices.ts';
import { payByAch, payByCard } from './invoice-payments.ts';

type Schemas = components['schemas'];

export type PagePayment =
  | { kind: 'card'; body: Schemas['InvoiceCardPaymentRequest'] }
  | { kind: 'ach'; body: Schemas['InvoiceAchPaymentRequest'] };

/** What the page shows after a payment that broke no rule: paid, or declined with the processor's words. */
export interface PageOutcome {
  paid: boolean;
  /** The decline as the processor gave it ("Insufficient funds (051)"); null when paid. */
  decline: string | null;
}

const OPERATION = { card: 'submitInvoiceCardPayment', ach: 'submitInvoiceAchPayment' } as const;

/** The decline the payment just recorded: the invoice's last PaymentFailed entry, read in the same transaction. */
async function lastDecline(deps: Deps, invoiceId: string): Promise<string> {
  const failed = (await historyOf(deps.db, invoiceId)).filter((e) => e.typeId === InvoiceHistoryType.PaymentFailed).at(-1);
  if (!failed) return 'The payment was not accepted.';
  const code = failed.errorCode === null ? '' : ` (${failed.errorCode})`;
  return `${failed.errorMessage ?? 'The payment was not accepted.'}${code}`;
}

/**
 * Pays the invoice as its page's form asks. `formKey` is the form token's nonce and `fields` what the form
 * sent (without the token): the same form sent twice replays the first outcome, a different one with the
 * same token is refused (idempotency_key_reused). A rule broken (ApiError) rolls everything back, the key
 * included, so the corrected form may be sent again.
 */
export async function payFromPage(
  deps: Scope & { hashKey: Buffer }, invoice: InvoiceRecord, payment: PagePayment, formKey: string, fields: Record<string, string>,
): Promise<PageOutcome> {
  const operationId = OPERATION[payment.kind];
  // Keyed (HMAC), never a plain hash: the fields hold a card or account number.
  const hash = requestHash(deps.hashKey, operationId, { path: { invoiceId: invoice.id }, query: {}, headers: {}, body: fields }, invoice.merchantId);
  const result = await once(deps, { tenant: `invoice-page:${invoice.merchantId}`, key: formKey }, hash, async (tx) => {
    const t = within(deps, tx);
    const answer = payment.kind === 'card'
      ? await payByCard(t, invoice.id, payment.body)
      : await payByAch(t, invoice.id, payment.body);
    const outcome: PageOutcome = { paid: answer.success, decline: answer.success ? null : await lastDecline(t, invoice.id) };
    return { status: 200, body: outcome };
  });
  const body = result.body as Partial<PageOutcome> | undefined;
  if (typeof body?.paid !== 'boolean') throw new ApiError('internal_error');
  return { paid: body.paid, decline: typeof body.decline === 'string' ? body.decline : null };
}
