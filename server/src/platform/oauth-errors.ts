// OAuth 2.0 errors of the token services (RFC 6749 section 5.2), with their statuses and challenges.
import type { components } from '@pgw/client/types';

type OAuthErrorCode = components['schemas']['OAuthError']['error'];

const TOKEN_PATHS = new Set(['/oauth2/token', '/crm/oauth2/token']);
export const isTokenPath = (path: string): boolean => TOKEN_PATHS.has(path);

export class OAuthError extends Error {
  constructor(
    readonly error: OAuthErrorCode,
    readonly description: string,
    readonly status: 400 | 401 = 400,
    readonly headers: Record<string, string> = {},
  ) {
    super(description);
    this.name = 'OAuthError';
  }

  toResponse(): components['schemas']['OAuthError'] {
    return { error: this.error, error_description: this.description };
  }

  /** A failed client authentication: 401 with the Basic challenge. */
  static invalidClient(): OAuthError {
    return new OAuthError('invalid_client', 'Client authentication failed.', 401, { 'WWW-Authenticate': 'Basic realm="payment-gateway"' });
  }

  /** The error for a body the token endpoint's schema refuses (problems: the validation's, by JSON pointer). */
  static fromInvalidBody(body: unknown, problems: readonly { path: string; message: string }[] = []): OAuthError {
    // A control character in a parameter is named first: nothing was looked up with it.
    const control = problems.find((p) => p.message.includes('control character'));
    if (control) return new OAuthError('invalid_request', `${control.path.split('/').pop() ?? 'a parameter'} ${control.message}.`);
    const fields = typeof body === 'object' && body !== null ? (body as Record<string, unknown>) : {};
    const grant = fields.grant_type;
    if (typeof grant !== 'string' || grant === '') return new OAuthError('invalid_request', 'grant_type is required.');
    if (!['client_credentials', 'refresh_token', 'password'].includes(grant)) {
      return new OAuthError('unsupported_grant_type', `The grant type ${grant} is not supported here.`);
    }
    if (grant === 'client_credentials' && fields.scope !== 'offline_access') {
      return new OAuthError('invalid_scope', 'scope must be offline_access.');
    }
    return new OAuthError('invalid_request', 'A required parameter is missing or malformed.');
  }
}
