// HTTP for the checks: calls by operationId, each exchange recorded, checked against the spec, and
// reproducible as a `curl` line that pastes into a shell, the run's real secrets replaced by variables.
import type { Spec } from './spec.ts';

export interface ExchangeRequest {
  method: string;
  url: string;
  headers: Record<string, string>;
  body?: string;
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
  contentType?: string;
  form?: Record<string, string>;
  /** Who calls: a named identity, or none. */
  as?: string;
}

export interface Recorder {
  record(exchange: Exchange): void;
}

/**
 * The real secrets and tokens of a run (value -> shell variable): the credentials the suite was given, the
 * tokens it was issued, and every secret or token a response handed out. Reproduction lines and reports show
 * these as variables; any other value (a deliberately bad credential a check made up) is shown as it is.
 */
const secrets = new Map<string, string>();
const SECRET_KEYS = /^(access_token|refresh_token|clientSecret|client_secret|signingSecret|jwtToken|password|userPassword)$/;

export function registerSecret(value: string, variable: string): void {
  if (value.length >= 8 && !secrets.has(value)) secrets.set(value, variable);
}

/** Registers the secrets and tokens a response body hands out (`ACCESS_TOKEN_3`, `CLIENT_SECRET_4`, ...). */
function registerHandedOut(body: unknown): void {
  if (Array.isArray(body)) { body.forEach(registerHandedOut); return; }
  if (typeof body !== 'object' || body === null) return;
  for (const [key, value] of Object.entries(body)) {
    if (typeof value === 'string' && SECRET_KEYS.test(key)) registerSecret(value, `${key.replace(/([a-z])([A-Z])/g, '$1_$2').toUpperCase()}_${String(secrets.size + 1)}`);
    else registerHandedOut(value);
  }
}

/** A text cut where registered secrets occur (plain or URL-encoded): literal pieces and variable names. */
function pieces(text: string): ({ literal: string } | { variable: string })[] {
  const found: ({ literal: string } | { variable: string })[] = [];
  const needles = [...secrets].flatMap(([value, variable]) => [[value, variable], [encodeURIComponent(value), variable]] as const)
    .filter(([needle]) => needle.length > 0).sort((a, b) => b[0].length - a[0].length);
  let rest = text;
  while (rest.length > 0) {
    let at = -1;
    let hit: readonly [string, string] | undefined;
    for (const candidate of needles) {
      const index = rest.indexOf(candidate[0]);
      if (index >= 0 && (at < 0 || index < at)) { at = index; hit = candidate; }
    }
    if (!hit) { found.push({ literal: rest }); break; }
    if (at > 0) found.push({ literal: rest.slice(0, at) });
    found.push({ variable: hit[1] });
    rest = rest.slice(at + hit[0].length);
  }
  return found;
}

/** One shell word: literal text single-quoted, secrets as "${VARIABLE}", concatenated. */
function shellWord(text: string): string {
  if (text === '') return "''";
  return pieces(text).map((p) => ('variable' in p ? `"\${${p.variable}}"` : `'${p.literal.replaceAll("'", `'\\''`)}'`)).join('');
}

/** The variables a request needs set to be reproduced. */
export function variablesOf(request: ExchangeRequest): string[] {
  const texts = [request.url, ...Object.values(request.headers), request.body ?? ''];
  return [...new Set(texts.flatMap((t) => pieces(t).flatMap((p) => ('variable' in p ? [p.variable] : []))))];
}

/** The request as a shell command that does what the check did; the run's secrets are variables. */
export function curlOf(request: ExchangeRequest): string {
  const parts = [`curl -sS -X ${request.method} ${shellWord(request.url)}`];
  for (const [name, value] of Object.entries(request.headers)) parts.push(`-H ${shellWord(`${name}: ${value}`)}`);
  if (request.body !== undefined) parts.push(`--data-raw ${shellWord(request.body)}`);
  return parts.join(' ');
}

/** A body for a report: the run's secrets as ${VARIABLE}, everything else as sent. */
export function redactBody(body: string): string {
  return pieces(body).map((p) => ('variable' in p ? `\${${p.variable}}` : p.literal)).join('');
}

export class Http {
  constructor(
    private readonly baseUrl: string,
    private readonly spec: Spec,
    private readonly timeoutMs: number,
    private readonly tokens: (who: string) => Promise<string | undefined>,
    /** Headers sent with every request (`--header`), under the request's own. */
    private readonly extraHeaders: Readonly<Record<string, string>> = {},
  ) {}

  async request(recorder: Recorder, operationId: string | undefined, method: string, url: string, options: CallOptions): Promise<Exchange> {
    const headers: Record<string, string> = { accept: 'application/json', ...this.extraHeaders, ...options.headers };
    let body: string | undefined;
    if (options.form) {
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
    const exchange: Exchange = { operationId, request: { method: method.toUpperCase(), url, headers, ...(body === undefined ? {} : { body }) }, response: undefined, problems: [], durationMs: 0 };
    const started = performance.now();
    try {
      const res = await fetch(url, { method: method.toUpperCase(), headers, ...(body === undefined ? {} : { body }), redirect: 'manual', signal: AbortSignal.timeout(this.timeoutMs) });
      const text = await res.text();
      let parsed: unknown = text === '' ? undefined : text;
      if (/json/.test(res.headers.get('content-type') ?? '')) {
        try { parsed = JSON.parse(text) as unknown; } catch { exchange.problems.push('content_type_conformance: the body is not valid JSON'); }
      }
      exchange.response = { status: res.status, headers: Object.fromEntries(res.headers), body: parsed, text };
      registerHandedOut(parsed);
      if (res.status >= 500) exchange.problems.push(`not_a_server_error: ${String(res.status)}`);
      if (operationId !== undefined) exchange.problems.push(...this.spec.responseProblems(operationId, res.status, res.headers.get('content-type'), parsed));
    } catch (error) {
      exchange.error = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
      exchange.problems.push(`the request failed: ${exchange.error}`);
    }
    exchange.durationMs = performance.now() - started;
    recorder.record(exchange);
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
