// One error registry (code -> status, category, message) and one class that renders every error body.
import type { components } from '@pgw/client/types';

export type ErrorBody = components['schemas']['ErrorResponse'];
export type AlternativeErrorBody = components['schemas']['ValidationProblemDetails'];

/** The name the error bodies give as their source. */
export const SOURCE = 'payment-gateway';

const registry = {
  validation_failed: { status: 400, exceptionType: 'ValidationException', message: 'One or more validation errors occurred.' },
  malformed_json: { status: 400, exceptionType: 'ValidationException', message: 'The request body is not valid JSON.' },
  invalid_api_version: { status: 400, exceptionType: 'ValidationException', message: 'The x-api-version header names no accepted version.' },
  payload_too_large: { status: 413, exceptionType: 'ValidationException', message: 'The request body is too large.' },
  headers_too_large: { status: 431, exceptionType: 'ValidationException', message: 'The request headers are too large.' },
  invalid_token: { status: 401, exceptionType: 'AuthenticationException', message: 'The access token is missing or not valid.' },
  webhooks_permission_required: { status: 403, exceptionType: 'AuthenticationException', message: 'The account lacks the Webhooks permission.' },
  partner_key_required: { status: 403, exceptionType: 'AuthenticationException', message: "Only a partner's key manages sandbox merchants." },
  not_found: { status: 404, exceptionType: 'NotFoundException', message: 'The record was not found.' },
  route_not_found: { status: 404, exceptionType: 'NotFoundException', message: 'No such endpoint.' },
  method_not_allowed: { status: 405, exceptionType: 'ValidationException', message: 'The endpoint does not accept this method.' },
  unsupported_media_type: { status: 415, exceptionType: 'ValidationException', message: 'Content-Type must be application/json.' },
  idempotency_in_progress: { status: 409, exceptionType: 'ConflictException', message: 'A request with this Idempotency-Key is still in progress.' },
  idempotency_key_reused: { status: 422, exceptionType: 'ConflictException', message: 'This Idempotency-Key was used with a different request.' },
  last_api_key: { status: 400, exceptionType: 'BusinessRuleException', message: "A merchant's last active API key cannot be deleted." },
  duplicate_category_name: { status: 400, exceptionType: 'BusinessRuleException', message: 'A category of this merchant already has this name.' },
  device_deactivated: { status: 400, exceptionType: 'BusinessRuleException', message: 'The tap-to-pay device is deactivated.' },
  duplicate_terminal_serial: { status: 400, exceptionType: 'BusinessRuleException', message: 'A terminal of this merchant already has this serial number.' },
  quick_payment_not_active: { status: 400, exceptionType: 'BusinessRuleException', message: 'The payment link is Paid, Expired or Cancelled: it can no longer be paid or cancelled.' },
  terminal_paper_change_not_allowed: { status: 400, exceptionType: 'BusinessRuleException', message: "The terminal's paper status cannot change to that status from its current one." },
  subscription_not_open: { status: 400, exceptionType: 'BusinessRuleException', message: 'Update and cancel need an Active, PastDue, Trialing or Paused subscription.' },
  subscription_proration_declined: { status: 400, exceptionType: 'BusinessRuleException', message: 'The prorated charge of the plan change was declined or failed; the subscription is unchanged.' },
  subscription_not_pausable: { status: 400, exceptionType: 'BusinessRuleException', message: 'Pause needs an Active or PastDue subscription.' },
  subscription_not_paused: { status: 400, exceptionType: 'BusinessRuleException', message: 'Resume needs a Paused subscription.' },
  customer_has_subscriptions: { status: 400, exceptionType: 'BusinessRuleException', message: 'The customer has an Active, PastDue, Trialing or Paused subscription; cancel it first.' },
  payment_method_in_use: { status: 400, exceptionType: 'BusinessRuleException', message: 'An Active, PastDue, Trialing or Paused subscription pays with this payment method; change or cancel it first.' },
  invoice_not_draft: { status: 400, exceptionType: 'BusinessRuleException', message: 'Update, delete and publish-with-id work only on drafts.' },
  invoice_not_open: { status: 400, exceptionType: 'BusinessRuleException', message: 'Cancel, mark as paid, payment and notifications need a Due or PastDue invoice.' },
  invoice_not_published: { status: 400, exceptionType: 'BusinessRuleException', message: 'The PDF of a draft does not exist.' },
  line_item_manual_entry_not_allowed: { status: 400, exceptionType: 'BusinessRuleException', message: 'The invoice settings do not allow manually entered lines.' },
  line_item_price_override_not_allowed: { status: 400, exceptionType: 'BusinessRuleException', message: "A catalogue line's price may not be overridden." },
  sandbox_limit_reached: { status: 400, exceptionType: 'BusinessRuleException', message: 'The partner already holds 20 sandbox merchants; delete one or wait until one expires.' },
  simulation_not_allowed: { status: 400, exceptionType: 'BusinessRuleException', message: "The simulated outcome does not fit the transaction's kind or status." },
  invoice_amount_mismatch: { status: 400, exceptionType: 'BusinessRuleException', message: "The paid total is not the invoice's total for that payment type." },
  ach_authorization_required: { status: 400, exceptionType: 'BusinessRuleException', message: 'An ACH payment needs authorizeBankWithdrawal: true.' },
  payment_method_not_available: { status: 400, exceptionType: 'BusinessRuleException', message: 'The merchant has no processor for that kind of payment.' },
  webhook_delivery_not_failed: { status: 400, exceptionType: 'BusinessRuleException', message: 'The delivery has Succeeded: it is resent only with force=true.' },
  webhook_delivery_in_flight: { status: 409, exceptionType: 'ConflictException', message: 'An attempt of the delivery is being made; its outcome is in the log within 15 seconds.' },
  webhook_endpoint_unavailable: { status: 400, exceptionType: 'BusinessRuleException', message: "The delivery's webhook is deleted or inactive." },
  consent_required: { status: 400, exceptionType: 'BusinessRuleException', message: 'A notification needs customerConsent: true.' },
  notification_target_missing: { status: 400, exceptionType: 'BusinessRuleException', message: "Neither the body nor the invoice's customer gives a phone number or e-mail address." },
  rate_limited: { status: 429, exceptionType: 'RateLimitException', message: 'Too many failed attempts: try again after the Retry-After interval.' },
  internal_error: { status: 500, exceptionType: 'InternalServerException', message: 'An unexpected error occurred.' },
} as const satisfies Record<string, { status: number; exceptionType: string; message: string }>;

export type ErrorCode = keyof typeof registry;

/** Every error code the server answers with. */
export const errorCodes = Object.keys(registry) as ErrorCode[];

export interface ErrorContext {
  /** Replaces the registry's message as `details`. */
  details?: string;
  /** Field name (dotted) -> messages, for validation errors. */
  errors?: Record<string, string[]>;
  entityId?: string;
  /** Extra response headers (Allow, WWW-Authenticate, Retry-After). */
  headers?: Record<string, string>;
}

export class ApiError extends Error {
  readonly status: number;
  constructor(
    readonly code: ErrorCode,
    readonly context: ErrorContext = {},
  ) {
    super(context.details ?? registry[code].message);
    this.name = 'ApiError';
    this.status = registry[code].status;
  }

  /** The standard error body; a server fault says nothing but its correlation id. */
  toResponse(correlationId: string): ErrorBody {
    const entry = registry[this.code];
    // A fault says nothing but its correlation id.
    const fault = entry.status >= 500;
    return {
      ...(this.context.errors ? { errors: this.context.errors } : {}),
      details: fault ? null : this.message,
      statusCode: entry.status,
      source: SOURCE,
      exceptionType: entry.exceptionType,
      correlationId,
      entityId: this.context.entityId ?? null,
      errorCode: this.code,
    };
  }
}

/** A 400 whose body is the alternative shape: JSON values of the wrong type, keyed by JSON path. */
export class WrongJsonTypeError extends Error {
  constructor(readonly errors: Record<string, string>) {
    super('One or more JSON values have the wrong type.');
    this.name = 'WrongJsonTypeError';
  }

  toResponse(traceId: string): AlternativeErrorBody {
    return {
      type: 'https://tools.ietf.org/html/rfc9110#section-15.5.1',
      title: 'One or more validation errors occurred.',
      status: 400,
      traceId,
      errors: this.errors,
    };
  }
}

export const notFound = (entityId: string, what = 'record'): ApiError =>
  new ApiError('not_found', { details: `The ${what} ${entityId} was not found.`, entityId });

export const invalid = (field: string, message: string): ApiError =>
  new ApiError('validation_failed', { errors: { [field]: [message] } });
