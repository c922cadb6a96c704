// Throttling of credential guessing: failed checks of a client secret or a user's password are counted in a
// window (wall clock), and over a limit a check is refused before it runs (no secret hash compare, no scrypt).
//
// Three counters per scope ('client': client secrets, shared by both token services and the dashboard sign-in;
// 'user': the management password grant's user names; 'page': declined payments on a public payment page, the
// page being the identity, against card testing):
// - identity+address: failures of one client id / user name from one source address (hard limit);
// - address: failures from one source address over all identities (against spraying many ids). Over it, an
//   identity that has itself failed from this address in the window is refused unchecked; one that has not (a
//   merchant behind the same NAT or proxy as a sprayer, who never mistyped) is still checked, so that the right
//   credentials get in, and a wrong answer is then a 429 as well, so that a sprayer learns nothing from any
//   answer but a success, and gets one check per identity and window from that address. The check is the one an
//   attempt under the limit gets (the same lookup and constant-time compare), so the answer's timing tells no
//   more than it did. Pages ('page': no credentials tell the rightful payer apart, and a check is a real card
//   authorization, what card testers want) keep the hard limit: a payer at that address waits out the window;
// - identity: failures of one identity from every address. It refuses only an address that has itself failed
//   (or is checking) for that identity in its window, so an attacker at address X can never lock out the
//   rightful caller at address Y, who has no failures there: the anti-lockout rule. A distributed guesser gets
//   one try per fresh address and window once the identity is over its limit.
// A check reserves its hit before it runs (one atomic upsert), so concurrent checks, on one instance or many,
// cannot all slip under a limit; a successful check takes its hit back and clears its identity+address counter.
import { createHmac } from 'node:crypto';
import type { Deps } from '../platform/deps.ts';
import type { Counter, ThrottleStore } from '../repositories/auth-throttle.ts';

/** 'client' and 'user': credential checks; 'page': declined payments on a public payment page (card testing). */
export type ThrottleScope = 'client' | 'user' | 'page';

export interface Attempt {
  readonly scope: ThrottleScope;
  /** The client id, or the user name (compared as the lookup compares it: lower case). */
  readonly identity: string;
  /** The source address's bucket (platform/client-address.ts). */
  readonly address: string;
}

export type ThrottleDeps = Pick<Deps, 'wall' | 'config' | 'instances'> & { readonly hashKey: Buffer; readonly throttleStore: ThrottleStore };

/** Refused unchecked: too many failures; the caller may try again in `retryAfterSeconds`. */
export class ThrottledError extends Error {
  constructor(readonly retryAfterSeconds: number) {
    super(`Too many failed attempts: try again in ${String(retryAfterSeconds)} seconds.`);
    this.name = 'ThrottledError';
  }
}

/** Stored keys are keyed hashes: no client id, user name (sometimes a mistyped password) or address in clear. */
const keyOf = (hashKey: Buffer, ...parts: string[]): string =>
  createHmac('sha256', hashKey).update(['auth throttle', ...parts].join('\0')).digest('base64url');

/** How often (ms, wall clock) an instance removes counters whose window has passed. */
const SWEEP_EVERY_MS = 60_000;

/** When this server last swept the throttle's counters: one per server, made at start (instances.ts). */
export class ThrottleSweeps {
  private last: number | undefined;

  /** Whether a sweep is due at `now` (wall ms), and if so, that it is taken now; a clock moved back makes it due. */
  take(now: number): boolean {
    if (this.last !== undefined && now - this.last < SWEEP_EVERY_MS && now >= this.last) return false;
    this.last = now;
    return true;
  }
}

async function sweepNow(deps: ThrottleDeps, now: number): Promise<void> {
  if (!deps.instances.throttleSweeps.take(now)) return;
  await deps.throttleStore.sweep(now - deps.config.throttle.windowMs);
}

/**
 * Runs `check` (the expensive comparison: it answers what the credentials open, or undefined when they are
 * wrong) unless the attempt is over a limit, when a ThrottledError is thrown and `check` is not called.
 */
export async function throttled<T>(deps: ThrottleDeps, attempt: Attempt, check: () => Promise<T | undefined>): Promise<T | undefined> {
  const limits = deps.config.throttle;
  const now = deps.wall.now().getTime();
  const expiredAt = now - limits.windowMs;
  const { scope, identity, address } = attempt;
  const pair = keyOf(deps.hashKey, scope, 'identity+address', identity, address);
  const fromAddress = keyOf(deps.hashKey, scope, 'address', address);
  const ofIdentity = keyOf(deps.hashKey, scope, 'identity', identity);

  const store = deps.throttleStore;
  const reserved = await store.addHits([pair, fromAddress], now, expiredAt);
  const pairCount = reserved.find((c) => c.key === pair);
  const addressCount = reserved.find((c) => c.key === fromAddress);
  const over: Counter[] = [];
  if (pairCount && pairCount.hits > limits.identityAddressLimit) over.push(pairCount);
  // Over the address's limit: the identities that failed from it themselves are refused unchecked; the others
  // (credentials only) are checked below, a failure answered 429 too.
  const addressOver = addressCount && addressCount.hits > limits.addressLimit ? addressCount : undefined;
  const failedHere = !pairCount || pairCount.hits > 1;
  if (addressOver && (scope === 'page' || failedHere)) over.push(addressOver);
  // Only an address with failures of its own for this identity is refused by the identity's counter.
  if (pairCount && pairCount.hits > 1) {
    const identityCount = (await store.liveCounters([ofIdentity], expiredAt))[0];
    if (identityCount && identityCount.hits >= limits.identityLimit) over.push(identityCount);
  }
  const refusal = (counters: readonly Counter[]): ThrottledError => {
    const opensAt = Math.max(...counters.map((c) => c.windowStartMs + limits.windowMs));
    return new ThrottledError(Math.max(1, Math.ceil((opensAt - now) / 1000)));
  };
  // The refused attempt keeps its hit: a guesser who keeps going stays over the limit until the window ends.
  if (over.length > 0) throw refusal(over);

  let result: T | undefined;
  try {
    result = await check();
  } catch (error) {
    // A fault is no failed guess.
    await store.takeBack([pair, fromAddress]);
    throw error;
  }
  if (result === undefined) await store.addHits([ofIdentity], now, expiredAt);
  else await store.clearAfterSuccess(pair, fromAddress, now);
  await sweepNow(deps, now);
  // Checked over the address's limit and wrong: refused like the unchecked (the failure counted above).
  if (result === undefined && addressOver) throw refusal([addressOver]);
  return result;
}
