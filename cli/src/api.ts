// The typed client of the API (generated), and what its failures mean to the CLI: the API's error answer
// (exit 1), refused credentials (exit 3), a server that cannot be reached (exit 4).
import { createApiClient, TokenError, type ApiClient } from '@pgw/client/client';
import type { Config } from './config.ts';
import { ApiError, ConfigError, UnreachableError } from './errors.ts';

export type Api = ApiClient['api'];

export interface Session {
  api: Api;
  config: Config;
  /** A valid access token (for the event stream, which the CLI reads itself). */
  token(): Promise<string>;
}

export function connect(config: Config): Session {
  const client = createApiClient({
    baseUrl: config.baseUrl,
    tokenUrl: `${config.authUrl}/oauth2/token`,
    clientId: config.clientId,
    clientSecret: config.clientSecret,
    idempotencyKeys: true,
  });
  const tokens = client.tokens;
  if (!tokens) throw new ConfigError('no client credentials');
  return { api: client.api, config, token: () => guard(config, () => tokens.token()) };
}

/** The connection failure's cause, in words (ECONNREFUSED, ENOTFOUND, ...). */
function causeOf(error: unknown): string {
  const cause = (error as { cause?: { code?: string; message?: string } }).cause;
  return cause?.code ?? cause?.message ?? (error instanceof Error ? error.message : String(error));
}

/** Runs a request, turning a thrown token or network failure into the CLI's errors. */
export async function guard<T>(config: Pick<Config, 'baseUrl' | 'authUrl'>, run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (error) {
    if (error instanceof TokenError) {
      throw new ConfigError(`the token service at ${config.authUrl}/oauth2/token refused the credentials: ${String(error.status)} ${error.error}${error.description ? ` (${error.description})` : ''}`);
    }
    if (error instanceof TypeError || (error as { name?: string }).name === 'TimeoutError') {
      throw new UnreachableError(`cannot reach ${config.baseUrl}: ${causeOf(error)} (is the server running? npm start)`);
    }
    throw error;
  }
}

/** The error body's words: details and each field's messages. */
export function describeError(body: unknown): string {
  if (typeof body !== 'object' || body === null) return typeof body === 'string' ? body : '';
  const b = body as { details?: string | null; errorCode?: string | null; errors?: Record<string, unknown> | null };
  // A field's messages are a list in the contract's shape; anything else is written as it came, not thrown on.
  const fields = Object.entries(b.errors ?? {}).map(([k, v]) => `${k}: ${Array.isArray(v) ? v.map(String).join('; ') : typeof v === 'string' ? v : JSON.stringify(v)}`);
  return [b.errorCode ? `[${b.errorCode}]` : '', b.details ?? '', ...fields].filter((s) => s !== '').join(' ');
}

/** The data of an answer, or an ApiError (exit 1) that says what the API said. */
export async function ok<T>(config: Config, what: string, call: () => Promise<{ data?: T; error?: unknown; response: Response }>): Promise<T> {
  const { data, error, response } = await guard(config, call);
  if (error !== undefined || data === undefined) {
    throw new ApiError(`${what} failed: ${String(response.status)} ${describeError(error)}`.trim(), response.status, error);
  }
  return data;
}

/** Like ok, for an answer whose body does not matter (a delete). */
export async function done(config: Config, what: string, call: () => Promise<{ error?: unknown; response: Response }>): Promise<void> {
  const { error, response } = await guard(config, call);
  if (error !== undefined || !response.ok) throw new ApiError(`${what} failed: ${String(response.status)} ${describeError(error)}`.trim(), response.status, error);
}
