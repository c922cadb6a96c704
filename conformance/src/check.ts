// What a check is, what it may do, and how it fails.
import type { CallOptions, Exchange, Operation, Recorder } from './http.ts';
import type { Spec } from './spec.ts';

export type Group = 'auth' | 'errors' | 'resources' | 'pagination' | 'tenancy' | 'idempotency' | 'transitions' | 'fuzz';

export interface Check {
  /** `group/name`, Schemathesis' names where one fits (`auth/ignored_auth`, `resources/use_after_free`). */
  readonly id: string;
  readonly group: Group;
  readonly title: string;
  /** The spec tags of the operations it exercises (for --only / --skip by tag). */
  readonly tags: readonly string[];
  /** Relies on behaviour the interface does not define (x-provenance: designed); --strict-seed skips it. */
  readonly designed: boolean;
  readonly run: (ctx: CheckContext) => Promise<void>;
}

/** A check's verdict on the implementation: what was expected, and the exchange that showed otherwise. */
export class CheckFailure extends Error {
  constructor(
    readonly expected: string,
    readonly exchange?: Exchange,
  ) {
    super(expected);
    this.name = 'CheckFailure';
  }
}

/** The check cannot run against this target (say why); reported as skipped. */
export class CheckSkipped extends Error {}

export interface CheckContext extends Recorder {
  readonly spec: Spec;
  /** Calls an operation, by its generated operationId or as the spec describes it (as merchant A unless `as` says otherwise). */
  call(operation: Operation, options?: CallOptions): Promise<Exchange>;
  /** A request outside the spec's operations (unknown routes, raw token requests). */
  raw(method: string, url: string, options?: CallOptions): Promise<Exchange>;
  /** Identities: `A` and `B` (two merchants), `partner` when configured. */
  readonly identities: readonly string[];
  readonly baseUrl: string;
  readonly authUrl: string;
  readonly crmAuthUrl: string | undefined;
  readonly credentials: Readonly<Record<string, { clientId: string; clientSecret: string }>>;
  /** A text unique to this run and call (seeded), for names the checks can find again. */
  unique(prefix: string): string;
  /** A seeded random number in [0, 1). */
  random(): number;
  /** A date-time this many days after the target's business now (its sandbox clock may run ahead of real time). */
  daysAhead(days: number): string;
}

/** Asserts a status; the failure names what was expected and shows the exchange. */
export function expectStatus(exchange: Exchange, expected: number | number[], what: string): void {
  const allowed = Array.isArray(expected) ? expected : [expected];
  if (!exchange.response || !allowed.includes(exchange.response.status)) {
    throw new CheckFailure(`${what}: expected ${allowed.join(' or ')}, got ${exchange.response ? String(exchange.response.status) : exchange.error ?? 'no response'}`, exchange);
  }
}

export function expectThat(condition: boolean, expected: string, exchange?: Exchange): asserts condition {
  if (!condition) throw new CheckFailure(expected, exchange);
}

type JsonObject = Record<string, unknown>;
export const bodyOf = (exchange: Exchange): JsonObject =>
  typeof exchange.response?.body === 'object' && exchange.response.body !== null ? (exchange.response.body as JsonObject) : {};

/**
 * Fails with the first of a check's collected failures, naming a few of the others, so one run shows every
 * case a check found wrong rather than stopping at the first. Returns when there are none.
 */
export function failWithAll(failures: readonly (readonly [string, Exchange | undefined])[]): void {
  const first = failures[0];
  if (!first) return;
  const more = failures.length > 1 ? ` (and ${String(failures.length - 1)} more: ${failures.slice(1, 4).map(([m]) => m).join('; ')})` : '';
  throw new CheckFailure(`${first[0]}${more}`, first[1]);
}

/** The id of a created record (`{id}`), or a failure. */
export function createdId(exchange: Exchange, what: string): string {
  expectStatus(exchange, [200, 201], `creating ${what}`);
  const id = bodyOf(exchange).id;
  expectThat(typeof id === 'string' && id.length > 0, `creating ${what} answers its id`, exchange);
  return id;
}
