// HTTP for the checks: calls by operationId, each exchange recorded, checked against the spec, and
// reproducible as a `curl` line that pastes into a shell, the run's real secrets replaced by variables.
import type { OperationId } from '@pgw/client/operations';
import { contractProblems } from './contract-problems.ts';
import { describeNetworkError } from './network-errors.ts';
import { registerHandedOut } from './reproduce.ts';
import type { OperationInfo, Spec } from './spec.ts';
import { send } from './transport.ts';

export interface ExchangeRequest {
  method: string;
  url: string;
  headers: Record<string, string>;
  /** The body as text (bytes that are not UTF-8 shown as U+FFFD; `bodyBytes` holds what was sent). */
  body?: string;
  /** The body's bytes when they are not the UTF-8 of `body` (a deliberately malformed body). */
  bodyBytes?: Uint8Array;
}

export interface Exchange {
  operationId: string | undefined;
  request: ExchangeRequest;
  response: { status: number; headers: Record<string, string>; body: unknown; text: string } | undefined;
  /** Conformance problems of the response (status, media type, schema, 5xx). */
  problems: string[];
  error?: string;
  durationMs: number;
}

/** A target that could not be reached, or gave no token: exit code 3. */
export class UnreachableError extends Error {}

export interface CallOptions {
  path?: Record<string, string>;
  query?: Record<string, string | number | boolean | undefined>;
  headers?: Record<string, string>;
  /** A JSON body (or raw text with `rawBody`). */
  body?: unknown;
  rawBody?: string;
  /** A body sent as these bytes exactly (bodies that are not UTF-8), with `contentType` (JSON by default). */
  rawBytes?: Uint8Array;
  contentType?: string;
  form?: Record<string, string>;
  /** Who calls: a named identity, or none. */
  as?: string;
}

/**
 * An operation to call: named in the code by its generated operationId (a misspelt one does not compile), or
 * as the spec describes one the suite found by reading the document (every operation, whatever its name).
 */
export type Operation = OperationId | OperationInfo;

/** The operationId of an operation to call, however it was given. */
export const operationIdOf = (operation: Operation): string => (typeof operation === 'string' ? operation : operation.operationId);

export interface Recorder {
  record(exchange: Exchange): void;
}

export { curlOf, redactBody, registerSecret, setupOf, variablesOf } from './reproduce.ts';

export class Http {
  constructor(
    private readonly baseUrl: string,
    private readonly spec: Spec,
    private readonly timeoutMs: number,
    private readonly tokens: (who: string) => Promise<string | undefined>,
    /** Headers sent with every request (`--header`), under the request's own. */
    private readonly extraHeaders: Readonly<Record<string, string>> = {},
    /** Told of every request to an operation of the spec and its answer (the clean-up ledger records what the run created). */
    private readonly observer?: (operationId: string, options: CallOptions, exchange: Exchange) => void,
  ) {}

  async request(recorder: Recorder, operationId: string | undefined, method: string, url: string, options: CallOptions): Promise<Exchange> {
    const headers: Record<string, string> = { accept: 'application/json', ...this.extraHeaders, ...options.headers };
    let body: string | undefined;
    let bytes: Uint8Array | undefined;
    if (options.rawBytes !== undefined) {
      bytes = options.rawBytes;
      body = Buffer.from(bytes).toString('utf8');
      headers['content-type'] = options.contentType ?? 'application/json';
    } else if (options.form) {
      body = new URLSearchParams(options.form).toString();
      headers['content-type'] = 'application/x-www-form-urlencoded';
    } else if (options.rawBody !== undefined) {
      body = options.rawBody;
      headers['content-type'] = options.contentType ?? 'application/json';
    } else if (options.body !== undefined) {
      body = JSON.stringify(options.body);
      headers['content-type'] = options.contentType ?? 'application/json';
    }
    if (options.as !== undefined && options.as !== 'none') {
      const token = await this.tokens(options.as);
      if (token !== undefined) headers.authorization = `Bearer ${token}`;
    }
    const exchange: Exchange = { operationId, request: { method: method.toUpperCase(), url, headers, ...(body === undefined ? {} : { body }), ...(bytes === undefined ? {} : { bodyBytes: bytes }) }, response: undefined, problems: [], durationMs: 0 };
    const started = performance.now();
    try {
      const payload = bytes ?? body;
      // An event stream's first message (or what came in its first seconds) stands for its body (transport.ts).
      const res = await send({ method: method.toUpperCase(), url, headers, ...(payload === undefined ? {} : { body: payload }), timeoutMs: this.timeoutMs });
      const { text } = res;
      const contentType = res.headers['content-type'] ?? null;
      let parsed: unknown = text === '' ? undefined : text;
      if (/json/.test(contentType ?? '')) {
        try { parsed = JSON.parse(text) as unknown; } catch { exchange.problems.push('content_type_conformance: the body is not valid JSON'); }
      }
      exchange.response = { status: res.status, headers: res.headers, body: parsed, text };
      registerHandedOut(parsed);
      if (res.status >= 500) exchange.problems.push(`not_a_server_error: ${String(res.status)}`);
      if (operationId !== undefined) exchange.problems.push(...this.spec.responseProblems(operationId, res.status, contentType, parsed));
      exchange.problems.push(...contractProblems(this.spec, operationId, res.status, { get: (name) => res.headers[name.toLowerCase()] ?? null }, parsed));
    } catch (error) {
      exchange.error = describeNetworkError(error, this.timeoutMs);
      exchange.problems.push(`the request failed: ${exchange.error}`);
    }
    exchange.durationMs = performance.now() - started;
    recorder.record(exchange);
    // Raw requests to an operation (hostile and negative cases) can create records too: they are observed alike.
    if (operationId !== undefined) this.observer?.(operationId, options, exchange);
    return exchange;
  }

  /** Calls an operation of the spec. */
  call(recorder: Recorder, operation: Operation, options: CallOptions = {}): Promise<Exchange> {
    const op = typeof operation === 'string' ? this.spec.operation(operation) : operation;
    const path = op.path.replace(/\{([^}]+)\}/g, (_m, name: string) => encodeURIComponent(options.path?.[name] ?? ''));
    const query = new URLSearchParams();
    for (const [k, v] of Object.entries(options.query ?? {})) if (v !== undefined) query.set(k, String(v));
    const qs = query.toString();
    return this.request(recorder, op.operationId, op.method, `${this.baseUrl}${path}${qs ? `?${qs}` : ''}`, options);
  }
}
