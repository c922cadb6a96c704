// Sign-in to the sandbox dashboard with client credentials: a random session id (the cookie) whose hash is
// stored, an idle and an absolute end on the wall clock, the key checked again on every request (revoking it
// ends the session), and the CSRF tokens of the forms, derived from the session id with the server's key.
import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type { Deps } from '../platform/deps.ts';
import { iso } from '../platform/time.ts';
import * as repo from '../repositories/dashboard-sessions.ts';
import { verifiedKey } from './client-credentials.ts';
import { throttled, type ThrottleDeps } from './throttle.ts';

/** A session unused this long ends. */
export const IDLE_MS = 2 * 3600_000;
/** A session ends this long after sign-in, used or not. */
export const ABSOLUTE_MS = 8 * 3600_000;
/** last_seen_on is written at most this often (a page load need not write). */
const TOUCH_MS = 60_000;

type SessionDeps = Pick<Deps, 'db' | 'wall' | 'config'>;

export interface Session { id: string; clientId: string; merchantId: string; expiresOn: Date }

export class SignInError extends Error {}

const hashOf = (id: string): string => createHash('sha256').update(id).digest('hex');

/**
 * Opens a session for a merchant's active API key; a SignInError says why not (without saying which part was
 * wrong). The secret is checked through the throttle with the token services' budget for the client id and
 * the source `address` (a ThrottledError when over a limit: the secret was not checked).
 */
export async function signIn(deps: SessionDeps & ThrottleDeps, clientId: string, clientSecret: string, address: string): Promise<Session> {
  if (clientId === '' || clientSecret === '') throw new SignInError('Enter the client id and the client secret.');
  const key = await throttled(deps, { scope: 'client', identity: clientId, address }, () => verifiedKey(deps.db, deps.config.environment, clientId, clientSecret, deps.wall.now()));
  if (!key) throw new SignInError('The client id or the client secret is not correct, or the key was revoked.');
  if (key.merchant_id === null) throw new SignInError("Sign in with a merchant's API key: the dashboard shows one merchant's sandbox.");
  const now = deps.wall.now();
  await repo.deleteEnded(deps.db, iso(now), iso(new Date(now.getTime() - IDLE_MS)));
  const id = randomBytes(32).toString('base64url');
  const expiresOn = new Date(now.getTime() + ABSOLUTE_MS);
  await repo.insertSession(deps.db, { idHash: hashOf(id), clientId: key.client_id, merchantId: key.merchant_id, createdOn: iso(now), lastSeenOn: iso(now), expiresOn: iso(expiresOn) });
  return { id, clientId: key.client_id, merchantId: key.merchant_id, expiresOn };
}

/** The live session of this id, or undefined; an ended one (expired, idle, or its key revoked) is removed. */
export async function resume(deps: SessionDeps, id: string): Promise<Session | undefined> {
  if (!/^[A-Za-z0-9_-]{43}$/.test(id)) return undefined;
  const idHash = hashOf(id);
  const found = await repo.findSession(deps.db, idHash);
  if (!found) return undefined;
  const now = deps.wall.now();
  // A sandbox merchant's session ends with the sandbox's expiry, not at the sweep that deletes it later.
  const sandboxExpired = found.sandboxExpiresAt !== null && Date.parse(found.sandboxExpiresAt) <= now.getTime();
  const ended = !found.keyActive || sandboxExpired || Date.parse(found.expiresOn) <= now.getTime() || Date.parse(found.lastSeenOn) + IDLE_MS <= now.getTime();
  if (ended) {
    await repo.deleteSession(deps.db, idHash);
    return undefined;
  }
  if (now.getTime() - Date.parse(found.lastSeenOn) >= TOUCH_MS) await repo.touchSession(deps.db, idHash, iso(now));
  return { id, clientId: found.clientId, merchantId: found.merchantId, expiresOn: new Date(found.expiresOn) };
}

export async function signOut(deps: SessionDeps, id: string): Promise<void> {
  await repo.deleteSession(deps.db, hashOf(id));
}

/** The CSRF token of a purpose ('session' or 'sign-in') and a secret value (the session id, or the sign-in nonce). */
export const csrfToken = (key: Buffer, purpose: string, value: string): string =>
  createHmac('sha256', key).update(`dashboard csrf\0${purpose}\0${value}`).digest('base64url');

/** Whether `given` is the CSRF token of that purpose and value, compared in constant time. */
export function csrfMatches(key: Buffer, purpose: string, value: string, given: unknown): boolean {
  if (typeof given !== 'string') return false;
  const expected = Buffer.from(csrfToken(key, purpose, value));
  const actual = Buffer.from(given);
  return actual.length === expected.length && timingSafeEqual(actual, expected);
}

/** A fresh nonce for the sign-in form (its cookie). */
export const newNonce = (): string => randomBytes(32).toString('base64url');
