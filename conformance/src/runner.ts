// Runs the selected checks against a target, one after another, recording every exchange.
import { createHash, randomBytes } from 'node:crypto';
import { OperationId } from '@pgw/client/operations';
import { CheckFailure, CheckSkipped, type Check, type CheckContext } from './check.ts';
import { authChecks } from './checks/auth.ts';
import { resourceChecks } from './checks/resources.ts';
import { tenancyChecks } from './checks/tenancy.ts';
import { transitionChecks } from './checks/transitions.ts';
import { amountLimitChecks } from './checks/amount-limits.ts';
import { arithmeticChecks } from './checks/arithmetic.ts';
import { prorationChecks } from './checks/proration.ts';
import { contractDetailChecks } from './checks/contract-details.ts';
import { eventTimingChecks } from './checks/event-timing.ts';
import { familyChecks } from './checks/families.ts';
import { effectChecks } from './checks/effects.ts';
import { scheduleChecks } from './checks/schedules.ts';
import { identityChecks } from './checks/identities.ts';
import { invoiceMachineChecks } from './checks/invoice-machine.ts';
import { machineChecks } from './checks/machines.ts';
import { quickPaymentMachineChecks } from './checks/quick-payment-machine.ts';
import { subscriptionMachineChecks } from './checks/subscription-machine.ts';
import { terminalMachineChecks } from './checks/terminal-machine.ts';
import { negativeChecks } from './checks/negative.ts';
import { hostileChecks } from './checks/hostile.ts';
import { throttleChecks } from './checks/throttle.ts';
import { walkChecks } from './checks/walk.ts';
import { webhookChecks } from './checks/webhooks.ts';
import { CleanupLedger, clockMoved, type CleanupOutcome } from './cleanup.ts';
import { Http, UnreachableError, curlOf, registerSecret, type Exchange } from './http.ts';
import { describeNetworkError } from './network-errors.ts';
import { probeBaseUrl } from './probe.ts';
import type { Spec } from './spec.ts';
import { send, type TransportResponse } from './transport.ts';

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

export const allChecks: readonly Check[] = [...authChecks, ...resourceChecks, ...tenancyChecks, ...transitionChecks];

/** Every check for a spec: the hand-written ones, and those derived from the spec (walk, machines, negatives). */
export function checksFor(spec: Spec): Check[] {
  return [...allChecks, ...walkChecks, ...familyChecks, ...effectChecks, ...scheduleChecks(spec), ...identityChecks, ...arithmeticChecks, ...prorationChecks, ...amountLimitChecks, ...contractDetailChecks, ...eventTimingChecks, ...machineChecks(spec), ...invoiceMachineChecks(spec), ...terminalMachineChecks(spec), ...quickPaymentMachineChecks(spec), ...subscriptionMachineChecks(spec), ...webhookChecks, ...negativeChecks(spec), ...hostileChecks(spec), ...throttleChecks(spec)];
}

export interface Target {
  baseUrl: string;
  authUrl: string;
  crmAuthUrl: string | undefined;
  credentials: Record<string, { clientId: string; clientSecret: string }>;
  /** Headers sent with every request, token requests included (`--header 'Name: value'`). */
  headers?: Record<string, string>;
}

export interface Selection {
  only: string[];
  skip: string[];
  strictSeed: boolean;
}

export interface CheckResult {
  id: string;
  group: string;
  title: string;
  status: 'passed' | 'failed' | 'skipped';
  durationMs: number;
  message?: string;
  /** The failing exchange, or every conformance problem seen. */
  exchange?: Exchange;
  problems: string[];
  requests: number;
  /** The operations the check called: how often, and the statuses they answered. */
  operations: Record<string, { calls: number; statuses: number[] }>;
}

/** The selectors of a check: its id, its id's stem (before `:`), its family (before `/`), its group, its tags. */
export const selectorsOf = (check: Check): string[] => [check.id, check.id.split(':')[0] ?? '', check.id.split('/')[0] ?? '', check.group, ...check.tags];

/** A check matches a filter by one of its selectors. */
const matches = (check: Check, filter: string): boolean => {
  const f = filter.toLowerCase();
  return selectorsOf(check).some((v) => v.toLowerCase() === f);
};

export function select(checks: readonly Check[], selection: Selection): { run: Check[]; skipped: [Check, string][] } {
  const run: Check[] = [];
  const skipped: [Check, string][] = [];
  for (const check of checks) {
    if (selection.only.length > 0 && !selection.only.some((f) => matches(check, f))) continue;
    if (selection.skip.some((f) => matches(check, f))) skipped.push([check, 'skipped by --skip']);
    else if (selection.strictSeed && check.designed) skipped.push([check, 'designed behaviour (--strict-seed)']);
    else run.push(check);
  }
  return { run, skipped };
}

/** A seeded generator (mulberry32), so a run's data can be made again with --seed. */
function seeded(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function operationsOf(exchanges: readonly Exchange[]): CheckResult['operations'] {
  const found: CheckResult['operations'] = {};
  for (const e of exchanges) {
    if (e.operationId === undefined) continue;
    const entry = (found[e.operationId] ??= { calls: 0, statuses: [] });
    entry.calls++;
    const status = e.response?.status;
    if (status !== undefined && !entry.statuses.includes(status)) entry.statuses.push(status);
  }
  return found;
}

/** How a run treats the target's data: clean-up mode records what it creates; --no-clock never moves a clock. */
export interface RunnerOptions {
  /** 'all': delete what the run created; 'partner': only what the partner created (sandbox mode: the rest goes with the sandboxes). */
  cleanup?: 'all' | 'partner';
  noClock?: boolean;
}

export class Runner {
  private readonly tokens = new Map<string, Promise<string | undefined>>();
  private readonly http: Http;
  private readonly random: () => number;
  private counter = 0;
  /** Unique to this run (not seeded): names made by two runs never collide on a gateway that keeps data. */
  private readonly nonce = randomBytes(3).toString('hex');

  /** What the run created, to delete at the end (clean-up mode only). */
  private readonly ledger: CleanupLedger | undefined;
  /** Each identity's sandbox clock offset (seconds) when the run began, to say how far the run moved it. */
  private readonly clockAtStart = new Map<string, number>();

  constructor(private readonly spec: Spec, private readonly target: Target, private readonly seed: number, private readonly timeoutMs: number, private readonly options: RunnerOptions = {}) {
    this.random = seeded(seed);
    this.ledger = options.cleanup ? new CleanupLedger(spec) : undefined;
    const ledger = this.ledger;
    this.http = new Http(target.baseUrl, spec, timeoutMs, (who) => this.token(who), target.headers ?? {}, ledger ? (op, opts, e) => { ledger.observe(op, opts, e); } : undefined);
    // The credentials given show as variables in reproduction lines and reports, never as their values.
    for (const [who, credentials] of Object.entries(target.credentials)) {
      registerSecret(credentials.clientSecret, `CLIENT_SECRET_${who.toUpperCase()}`, { what: `the client secret of ${who} (given to the suite)` });
      const password = (credentials as { userPassword?: unknown }).userPassword;
      if (typeof password === 'string') registerSecret(password, `PASSWORD_${who.toUpperCase()}`, { what: `the user password of ${who} (given to the suite)` });
    }
    // So are the values of --header options that look like credentials (a gateway key, say).
    for (const [name, value] of Object.entries(target.headers ?? {})) {
      if (/key|token|secret|auth|password|cookie/i.test(name)) registerSecret(value, `HEADER_${name.toUpperCase().replace(/[^A-Z0-9]+/g, '_')}`, { what: `the value of --header ${name}` });
    }
  }

  /** A token for an identity; a target that gives none stops the run (exit 3). */
  token(who: string): Promise<string | undefined> {
    let pending = this.tokens.get(who);
    if (!pending) {
      pending = (async () => {
        const credentials = this.target.credentials[who];
        if (!credentials) throw new UnreachableError(`no credentials for ${who}`);
        const request = {
          method: 'POST', url: `${this.target.authUrl}/oauth2/token`,
          headers: { ...this.target.headers, 'content-type': 'application/x-www-form-urlencoded' },
          body: new URLSearchParams({ grant_type: 'client_credentials', scope: 'offline_access', client_id: credentials.clientId, client_secret: credentials.clientSecret }).toString(),
        };
        let res: TransportResponse;
        try {
          res = await send({ ...request, timeoutMs: this.timeoutMs });
        } catch (error) {
          throw new UnreachableError(`the token service at ${request.url} cannot be reached: ${describeNetworkError(error, this.timeoutMs)}`);
        }
        const text = res.text;
        let body: { access_token?: unknown; error?: unknown; error_description?: unknown } = {};
        try { body = JSON.parse(text) as typeof body; } catch { /* not JSON: shown as text below */ }
        if (res.status < 200 || res.status > 299 || typeof body.access_token !== 'string') {
          const said = typeof body.error === 'string'
            ? `${String(res.status)} ${body.error}${typeof body.error_description === 'string' ? ` (${body.error_description})` : ''}`
            : `${String(res.status)} ${text.slice(0, 200) || '(no body)'}`;
          const hint = body.error === 'invalid_client' ? `: check the client id and secret of ${who}` : res.status === 404 ? `: is ${this.target.authUrl} the token service (--auth-url)?` : '';
          throw new UnreachableError(`no token for ${who}: the token service at ${this.target.authUrl}/oauth2/token answered ${said}${hint}`);
        }
        // A reproduction line that needs this token says how to get one: the same token request, in bash.
        const variable = `TOKEN_${who.toUpperCase()}`;
        registerSecret(body.access_token, variable, { what: `an access token of ${who}`, setup: `${variable}="$(${curlOf(request)} | node -p 'JSON.parse(require("fs").readFileSync(0, "utf8")).access_token')"` });
        return body.access_token;
      })();
      this.tokens.set(who, pending);
    }
    return pending;
  }

  /** The operationId of a URL on the target's servers (API, token service, CRM token service). */
  private operationAt(method: string, url: string): string | undefined {
    const base = [this.target.crmAuthUrl, this.target.authUrl, this.target.baseUrl].find((b) => b !== undefined && url.startsWith(b));
    if (base === undefined) return undefined;
    const rest = url.slice(base.length);
    // The CRM token service is addressed as {crm_auth_url}/oauth2/token; the spec writes it /crm/oauth2/token.
    const path = base === this.target.crmAuthUrl && base !== this.target.baseUrl ? `/crm${rest}` : rest;
    return this.spec.match(method, path)?.operationId;
  }

  /** Gets a token for every identity before any check runs. */
  /** How far the identities' business clocks run ahead of real time (the sandbox clock), at most. */
  private clockAheadMs = 0;

  async prepare(): Promise<void> {
    await probeBaseUrl(this.spec, this.target, this.timeoutMs);
    for (const who of Object.keys(this.target.credentials)) await this.token(who);
    // A sandbox whose clock earlier runs moved ahead: dates the checks send are counted from its business time.
    await this.readClocks(true);
  }

  /** How far the identities' clocks run ahead now (and, at the start, each one's offset). */
  private async readClocks(atStart: boolean): Promise<void> {
    if (!this.spec.operations.has(OperationId.getSandboxClock)) return;
    for (const who of Object.keys(this.target.credentials)) {
      const read = await this.http.call({ record: () => undefined }, OperationId.getSandboxClock, { as: who });
      const now = isObject(read.response?.body) ? read.response.body.now : undefined;
      if (read.response?.status === 200 && typeof now === 'string' && Number.isFinite(Date.parse(now))) this.clockAheadMs = Math.max(this.clockAheadMs, Date.parse(now) - Date.now());
      const offset = isObject(read.response?.body) ? read.response.body.offsetSeconds : undefined;
      if (atStart && read.response?.status === 200 && typeof offset === 'number') this.clockAtStart.set(who, offset);
    }
  }

  /**
   * Clean-up mode's end: deletes what the run created (also after a failure or an interrupt) and says what it
   * could not undo, a moved clock included. Undefined outside clean-up mode.
   */
  async cleanUp(): Promise<CleanupOutcome | undefined> {
    if (!this.ledger) return undefined;
    const recorder = { record: () => undefined };
    // Deletes are not POSTs: the ledger does not record them as it observes the HTTP layer.
    const outcome = await this.ledger.undo((operationId, options) => this.http.call(recorder, operationId, options), this.options.cleanup === 'partner' ? (as) => as === 'partner' : undefined);
    if (this.options.cleanup === 'partner') return outcome;
    for (const [who, before] of this.clockAtStart) {
      const read = await this.http.call(recorder, OperationId.getSandboxClock, { as: who });
      const offset = isObject(read.response?.body) ? read.response.body.offsetSeconds : undefined;
      const moved = typeof offset === 'number' ? clockMoved(who, offset - before) : undefined;
      if (moved !== undefined) outcome.notUndone.unshift(moved);
    }
    return outcome;
  }

  async runCheck(check: Check): Promise<CheckResult> {
    const exchanges: Exchange[] = [];
    const recorder = { record: (e: Exchange) => { exchanges.push(e); } };
    const stem = `${this.nonce}${createHash('sha256').update(`${String(this.seed)}:${check.id}`).digest('hex').slice(0, 4)}`;
    const clock = { moved: false };
    const ctx: CheckContext = {
      spec: this.spec,
      record: recorder.record,
      call: (operationId, options = {}) => {
        // --no-clock: a check that would move a business clock stops here, reported as skipped.
        if (this.options.noClock && operationId === OperationId.advanceSandboxClock) return Promise.reject(new CheckSkipped('--no-clock: the check moves a business clock'));
        if (operationId === OperationId.advanceSandboxClock) clock.moved = true;
        return this.http.call(recorder, operationId, { as: 'A', ...options });
      },
      // A raw request to an operation of the spec (the token services, say) is checked against it too.
      raw: (method, url, options = {}) => this.http.request(recorder, this.operationAt(method, url), method, url, options),
      identities: Object.keys(this.target.credentials),
      baseUrl: this.target.baseUrl,
      authUrl: this.target.authUrl,
      crmAuthUrl: this.target.crmAuthUrl,
      credentials: this.target.credentials,
      unique: (prefix) => `${prefix}${stem}${(++this.counter).toString(36)}${Math.floor(this.random() * 1e6).toString(36)}`,
      random: this.random,
      daysAhead: (days) => new Date(Date.now() + this.clockAheadMs + days * 86_400_000).toISOString(),
    };
    const started = performance.now();
    const base = { id: check.id, group: check.group, title: check.title };
    const finish = (partial: Omit<CheckResult, 'id' | 'group' | 'title' | 'durationMs' | 'requests' | 'operations'>): CheckResult =>
      ({ ...base, ...partial, durationMs: performance.now() - started, requests: exchanges.length, operations: operationsOf(exchanges) });
    try {
      try {
        await check.run(ctx);
      } finally {
        // A check that moved a clock (the subscription walk moves it weeks): later checks' dates count from its new time.
        if (clock.moved) await this.readClocks(false);
      }
    } catch (error) {
      if (error instanceof CheckSkipped) return finish({ status: 'skipped', message: error.message, problems: [] });
      if (error instanceof UnreachableError) throw error;
      if (error instanceof CheckFailure) {
        return finish({ status: 'failed', message: error.expected, ...(error.exchange ? { exchange: error.exchange } : {}), problems: error.exchange?.problems ?? [] });
      }
      return finish({ status: 'failed', message: `the check could not finish: ${error instanceof Error ? error.message : String(error)}`, problems: [] });
    }
    // Every response of every call must conform to the spec, whatever the check asserted.
    const bad = exchanges.find((e) => e.problems.length > 0);
    if (bad) return finish({ status: 'failed', message: `a response does not conform to the spec: ${bad.problems[0] ?? ''}`, exchange: bad, problems: bad.problems });
    return finish({ status: 'passed', problems: [] });
  }
}
