// The payment pages' forms (an invoice's, a payment link's) as the API's requests: the posted fields become an
// InvoiceCardPaymentRequest or an InvoiceAchPaymentRequest, checked against the same schema the API router
// checks (the generated validators), and any refusal becomes the message the page shows. Nothing here restates
// a payment rule.
import { apiSpec, routerProblem, routes, type RouteDefinition } from '@pgw/client/server';
import { DocumentValidators, ValidationError } from '@pgw/runtime/validation';
import type { components } from '@pgw/client/types';
import { problemToError } from '../platform/error-handler.ts';
import { ApiError } from '../platform/errors.ts';
import { creditDebitTypeOf } from '../services/cards.ts';
import type { PagePayment } from '../services/page-payments.ts';
import type { PageMessage } from './payment-page-views.ts';

type Schemas = components['schemas'];
export type Fields = Record<string, string>;
export type FormKind = PagePayment['kind'];

/** What a payment link's payer chooses in either form (its amount, its quantity); no request field of an invoice's. */
const CHOICE_FIELDS = ['linkAmount', 'linkQuantity'] as const;

/**
 * The fields of each form (everything else posted is ignored), the form token aside. The ACH consent time is
 * not one: the server records it (achRequest), whatever a page or a payer posts.
 */
const FIELDS: Record<FormKind, readonly string[]> = {
  card: ['accountNumber', 'expirationMonth', 'expirationYear', 'securityCode', 'billingCountryId', 'billingPostalCode', 'creditTotal', 'debitTotal', ...CHOICE_FIELDS],
  ach: ['routingNumber', 'accountNumber', 'accountType', 'accountHolderType', 'firstName', 'lastName', 'companyName', 'email', 'addressLine1',
    'addressLine2', 'city', 'stateId', 'billingPostalCode', 'authorizeBankWithdrawal', ...CHOICE_FIELDS],
};

/** The form's own fields of a parsed urlencoded body, each as one string. */
export function fieldsOf(kind: FormKind, body: unknown): Fields {
  const posted = typeof body === 'object' && body !== null ? (body as Record<string, unknown>) : {};
  const fields: Fields = {};
  for (const name of FIELDS[kind]) {
    const value = posted[name];
    const first: unknown = Array.isArray(value) ? value[0] : value;
    if (typeof first === 'string') fields[name] = first;
  }
  return fields;
}

/** Text of an optional field: absent when blank. */
const text = (value: string | undefined): string | undefined => (value === undefined || value.trim() === '' ? undefined : value.trim());
/** A whole number as a number; anything else as given, for the schema to refuse by name. */
const whole = (value: string | undefined): number | string | undefined => {
  const t = text(value);
  return t !== undefined && /^[0-9]{1,9}$/.test(t) ? Number(t) : t;
};
const decimal = (value: string | undefined): number | string | undefined => {
  const t = text(value);
  return t !== undefined && /^[0-9]{1,12}(\.[0-9]{1,2})?$/.test(t) ? Number(t) : t;
};
const defined = (o: Record<string, unknown>): Record<string, unknown> => Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined));

/**
 * The card request. The payer agreed to the amounts the page showed; the one sent as totalAmount is the
 * one of the card's kind, told the way the service tells it (creditDebitTypeOf), so the service's amount
 * rule (invoice_amount_mismatch) still guards a page rendered before the amounts changed.
 */
export function cardRequest(fields: Fields): unknown {
  // People type card numbers in groups: spaces and hyphens are layout, not part of the number.
  const pan = (fields.accountNumber ?? '').replace(/[\s-]/g, '');
  const debit = pan !== '' && creditDebitTypeOf(pan) === 2;
  return defined({
    totalAmount: decimal(debit ? fields.debitTotal : fields.creditTotal),
    accountNumber: pan === '' ? null : pan,
    expirationYear: whole(fields.expirationYear),
    expirationMonth: whole(fields.expirationMonth),
    securityCode: text(fields.securityCode),
    billingCountryId: whole(fields.billingCountryId),
    billingPostalCode: text(fields.billingPostalCode),
  });
}

/**
 * The ACH request. Its authorizationConsentTimestamp is `consentAt`, the server's time when the ticked
 * authorization arrived: the merchant's business clock, as every time of the debit it authorizes (its createdOn,
 * its settlement), so a sandbox whose clock was moved keeps consent and debit on one timeline. A time the payer
 * posts is ignored: the payer's word for when they agreed (a 2001 or a 9999 once got stored) is no record of
 * it. An unticked box is refused by the service (ach_authorization_required) before any time is used.
 */
export function achRequest(fields: Fields, consentAt: Date): unknown {
  return defined({
    routingNumber: text(fields.routingNumber) ?? '',
    accountNumber: text(fields.accountNumber) ?? '',
    accountType: whole(fields.accountType),
    accountHolderType: whole(fields.accountHolderType),
    firstName: text(fields.firstName) ?? '',
    lastName: text(fields.lastName) ?? '',
    companyName: text(fields.companyName),
    email: text(fields.email),
    addressLine1: text(fields.addressLine1),
    addressLine2: text(fields.addressLine2),
    city: text(fields.city),
    stateId: whole(fields.stateId),
    billingPostalCode: text(fields.billingPostalCode),
    authorizeBankWithdrawal: fields.authorizeBankWithdrawal === 'true',
    authorizationConsentTimestamp: consentAt.toISOString(),
  });
}

const validators = new DocumentValidators(apiSpec);
const OPERATIONS: Record<FormKind, string> = { card: 'submitInvoiceCardPayment', ach: 'submitInvoiceAchPayment' };

function routeOf(operationId: string): RouteDefinition {
  const route = routes.find((r) => r.operationId === operationId);
  if (!route) throw new Error(`the spec has no operation ${operationId}`);
  return route;
}

/**
 * The request checked against the operation's schema as the API router checks it; a refusal is the API's
 * error. A payment link's page sends the same forms: its id stands in the invoice's path (a uuid both).
 */
export function validPayment(kind: FormKind, id: string, body: unknown): PagePayment {
  const route = routeOf(OPERATIONS[kind]);
  const checked = validators.request(route.operationId, route).validate({ params: { invoiceId: id }, query: {}, headers: {}, body }, 'application/json');
  if (checked instanceof ValidationError) {
    const problem = routerProblem(checked);
    const error = problem ? problemToError(problem) : undefined;
    if (error instanceof ApiError) throw error;
    throw new ApiError('validation_failed', { errors: Object.fromEntries(checked.errors.map((p) => [p.path.replace(/^\/body\/?/, '').replaceAll('/', '.'), [p.message]])) });
  }
  return kind === 'card'
    ? { kind, body: body as Schemas['InvoiceCardPaymentRequest'] }
    : { kind, body: body as Schemas['InvoiceAchPaymentRequest'] };
}

const LABELS: Record<FormKind, Record<string, string>> = {
  card: {
    totalAmount: 'Amount', amount: 'Amount', quantity: 'Quantity', accountNumber: 'Card number', pan: 'Card number', expirationYear: 'Expiry year', expirationMonth: 'Expiry month',
    securityCode: 'Security code', billingCountryId: 'Billing country', billingPostalCode: 'Billing postal code', card: 'Card',
  },
  ach: {
    routingNumber: 'Routing number', accountNumber: 'Account number', accountType: 'Account type', accountHolderType: 'Account holder',
    firstName: 'First name', lastName: 'Last name', companyName: 'Company', email: 'Email', addressLine1: 'Address', addressLine2: 'Address line 2',
    city: 'City', stateId: 'State', billingPostalCode: 'Postal code', authorizeBankWithdrawal: 'Authorization', amount: 'Amount', quantity: 'Quantity',
  },
};

const NOTHING_CHARGED = 'Nothing was charged.';

/** What the page says about a refused payment: the rule in the payer's words, and each field's problem. */
export function messageOf(kind: FormKind, error: ApiError): PageMessage {
  const label = (key: string): string => {
    const parts = key.split('.');
    return LABELS[kind][parts.at(-1) ?? ''] ?? LABELS[kind][parts[0] ?? ''] ?? key;
  };
  const fields = Object.entries(error.context.errors ?? {}).flatMap(([key, messages]) => messages.map((m) => `${label(key)}: ${m}`));
  const said: Partial<Record<ApiError['code'], string>> = {
    validation_failed: `Please correct the ${kind === 'card' ? 'card' : 'bank account'} details and try again. ${NOTHING_CHARGED}`,
    invoice_not_open: `This invoice is not open for payment (it is paid or cancelled). ${NOTHING_CHARGED}`,
    quick_payment_not_active: `This payment link can no longer be paid (it is paid, expired or cancelled). ${NOTHING_CHARGED}`,
    payment_method_not_available: `This payment cannot be made ${kind === 'card' ? 'by card' : 'by bank account'}. ${NOTHING_CHARGED}`,
    ach_authorization_required: `Please tick the box to authorize the debit of your bank account. ${NOTHING_CHARGED}`,
    invoice_amount_mismatch: `The amount to pay has changed since this page was shown; please check it and pay again. ${NOTHING_CHARGED}`,
    idempotency_key_reused: `This form was already sent with other details; please enter them again. ${NOTHING_CHARGED}`,
    idempotency_in_progress: 'This payment is still being processed; please reload the page in a moment.',
  };
  return { text: said[error.code] ?? `${error.message} ${NOTHING_CHARGED}`, fields: error.code === 'invoice_amount_mismatch' ? [] : fields };
}
