// HTTP for the checks: calls by operationId, each exchange recorded, checked against the spec, and
// reproducible as a `curl` line that pastes into a shell, the run's real secrets replaced by variables.
import { contractProblems } from './contract-problems.ts';
import { describeNetworkError } from './network-errors.ts';
import { registerHandedOut } from './reproduce.ts';
import type { Spec } from './spec.ts';

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

export interface Recorder {
  record(exchange: Exchange): void;
}

export { curlOf, redactBody, registerSecret, setupOf, variablesOf } from './reproduce.ts';

/** The text of a server-sent event stream up to its first blank line (the end of a message), at most 3 s of it. */
async function firstEvents(res: Response): Promise<string> {
  const reader = res.body?.pipeThrough(new TextDecoderStream()).getReader();
  if (!reader) return '';
  // Cancelling the reader ends the read in progress (done) and closes the connection.
  const timer = setTimeout(() => { void reader.cancel().catch(() => undefined); }, 3000);
  let text = '';
  try {
    while (!text.includes('\n\n')) {
      const { value, done } = await reader.read();
      if (done) break;
      text += value;
    }
  } catch {
    // Cut off after 3 s: what came is the body.
  } finally {
    clearTimeout(timer);
    await reader.cancel().catch(() => undefined);
  }
  return text;
}

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
      const res = await fetch(url, { method: method.toUpperCase(), headers, ...(payload === undefined ? {} : { body: payload }), redirect: 'manual', signal: AbortSignal.timeout(this.timeoutMs) });
      // An event stream never ends: its first message (or what came in the first seconds) stands for the body.
      const text = /^text\/event-stream/.test(res.headers.get('content-type') ?? '') ? await firstEvents(res) : await res.text();
      let parsed: unknown = text === '' ? undefined : text;
      if (/json/.test(res.headers.get('content-type') ?? '')) {
        try { parsed = JSON.parse(text) as unknown; } catch { exchange.problems.push('content_type_conformance: the body is not valid JSON'); }
      }
      exchange.response = { status: res.status, headers: Object.fromEntries(res.headers), body: parsed, text };
      registerHandedOut(parsed);
      if (res.status >= 500) exchange.problems.push(`not_a_server_error: ${String(res.status)}`);
      if (operationId !== undefined) exchange.problems.push(...this.spec.responseProblems(operationId, res.status, res.headers.get('content-type'), parsed));
      exchange.problems.push(...contractProblems(this.spec, operationId, res.status, res.headers, parsed));
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

  /** Calls an operation of the spec by its operationId. */
  call(recorder: Recorder, operationId: string, options: CallOptions = {}): Promise<Exchange> {
    const op = this.spec.operation(operationId);
    const path = op.path.replace(/\{([^}]+)\}/g, (_m, name: string) => encodeURIComponent(options.path?.[name] ?? ''));
    const query = new URLSearchParams();
    for (const [k, v] of Object.entries(options.query ?? {})) if (v !== undefined) query.set(k, String(v));
    const qs = query.toString();
    return this.request(recorder, operationId, op.method, `${this.baseUrl}${path}${qs ? `?${qs}` : ''}`, options);
  }
}
