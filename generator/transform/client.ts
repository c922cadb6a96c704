// The typed client -> client.ts: openapi-fetch bound to the document's paths, with token handling.
import type { GeneratedFile, Printer } from '../lib/ts.ts';
import type { ApiModel } from '../model.ts';
import { runtimeModule } from './runtime-module.ts';

export function transformClient(model: ApiModel, printer: Printer): GeneratedFile {
  return printer.file('client.ts', `The typed client of ${model.title} ${model.version}.`, [
    // The client is its own entry point, free of server code; \`.js\` specifiers let any TypeScript project
    // (NodeNext or bundler resolution) compile it without allowImportingTsExtensions.
    `import type { paths } from './types.js';`,
    `import { createAuthenticatedClient, type AuthenticatedClient } from '${runtimeModule.client}';`,
    `export { ClientCredentialsTokenProvider, TokenError, idempotencyKey } from '${runtimeModule.client}';`,
    `export type { paths, components, operations } from './types.js';`,
    `export interface ApiClientOptions {
  /** The API base URL. */
  baseUrl: string;
  /** The OAuth 2.0 token endpoint (client credentials); with clientId and clientSecret, every request carries a token. */
  tokenUrl?: string;
  clientId?: string;
  clientSecret?: string;
  /** Requested scope (default \`offline_access\`). */
  scope?: string;
  /** Renew the access token this many seconds before it expires (default 60). */
  refreshMarginSeconds?: number;
  /** Give every POST without one an Idempotency-Key (default false; or pass one per call in \`params.header\`). */
  idempotencyKeys?: boolean;
  /** Headers sent with every request. */
  headers?: Record<string, string>;
  fetch?: (input: Request) => Promise<Response>;
}`,
    `export type ApiClient = AuthenticatedClient<paths>;`,
    `/**
 * A typed client: \`client.api.GET('/path', { params })\` returns \`{ data, error, response }\` typed by the document.
 * With a token URL and client credentials it fetches a token, renews it before it expires, and after a 401
 * renews it and repeats the request once.
 */
export function createApiClient(options: ApiClientOptions): ApiClient {
  const { tokenUrl, clientId, clientSecret, scope, refreshMarginSeconds, ...rest } = options;
  const credentials =
    tokenUrl !== undefined && clientId !== undefined && clientSecret !== undefined
      ? { tokenUrl, clientId, clientSecret, ...(scope === undefined ? {} : { scope }), ...(refreshMarginSeconds === undefined ? {} : { refreshMarginSeconds }) }
      : undefined;
  return createAuthenticatedClient<paths>({ ...rest, ...(credentials ? { clientCredentials: credentials } : {}) });
}`,
  ]);
}
