// Disposable sandbox merchants and the sandbox reset: a partner creates isolated merchants that expire,
// lists and deletes them; a merchant wipes its own records. Removal runs in bounded batches, each in its own
// transaction, after the merchant is marked as being deleted (its credentials stop at once; a crashed
// delete resumes from the mark). Sandbox lifetimes are wall-clock time: a sandbox's own business clock,
// which it may move, never decides when it expires.
import { randomBytes } from 'node:crypto';
import type { Knex } from 'knex';
import type { components } from '@pgw/client/types';
import type { Deps } from '../platform/deps.ts';
import { ApiError, invalid, notFound } from '../platform/errors.ts';
import { recordEvent } from '../platform/outbox.ts';
import type { ListQuery } from '../platform/paging.ts';
import { hashPassword } from '../platform/passwords.ts';
import { iso, normalizeDateTime } from '../platform/time.ts';
import { inSavepoint, lockRow, withTransaction } from '../platform/transaction.ts';
import { lockMerchant } from '../repositories/sandboxes.ts';
import { DELETE_STEPS, RESET_STEPS, removeBatch, removeMerchantRow } from '../repositories/merchant-records.ts';
import { setUpMerchant } from '../repositories/merchant-setup.ts';
import * as repo from '../repositories/sandboxes.ts';
import { insertUser } from '../repositories/users.ts';
import { setClockOffset } from '../repositories/transactions.ts';
import type { Scope } from '../platform/scope.ts';

type Schemas = components['schemas'];

/** The most sandbox merchants a partner holds at once (the spec and its error code say 20). */
export const SANDBOX_LIMIT = 20;
export const DEFAULT_EXPIRY_SECONDS = 7 * 86_400;
export const MAX_EXPIRY_SECONDS = 30 * 86_400;
export const MIN_EXPIRY_SECONDS = 60;
/** Rows deleted per transaction: a large merchant never holds one long transaction (or SQLite's one writer). */
export const REMOVAL_BATCH = 500;
/** Passes over the tables before a removal gives up (a deletion is then finished by the sweep, later). */
const REMOVAL_PASSES = 10;

/** When the sandbox expires: `expiresInSeconds` or `expiresAt` (not both), within the bounds. */
function expiryOf(body: Schemas['SandboxMerchantCreateRequest'], nowMs: number): string {
  if (body.expiresInSeconds !== undefined && body.expiresAt !== undefined) throw invalid('expiresAt', 'cannot be given with expiresInSeconds');
  if (body.expiresAt === undefined) return iso(new Date(nowMs + (body.expiresInSeconds ?? DEFAULT_EXPIRY_SECONDS) * 1000));
  const at = Date.parse(normalizeDateTime(body.expiresAt, 'expiresAt'));
  if (at < nowMs + MIN_EXPIRY_SECONDS * 1000) throw invalid('expiresAt', `must be at least ${String(MIN_EXPIRY_SECONDS)} seconds from now`);
  if (at > nowMs + MAX_EXPIRY_SECONDS * 1000) throw invalid('expiresAt', 'must be at most 30 days from now');
  return iso(new Date(at));
}

export async function createSandbox(deps: Deps, partnerId: string, body: Schemas['SandboxMerchantCreateRequest']): Promise<Schemas['SandboxMerchantCreated']> {
  const now = deps.wall.now();
  const expiresAt = expiryOf(body, now.getTime());
  const name = body.name ?? 'Sandbox merchant';
  const createdOn = iso(now);
  // The password is hashed before the transaction: the partner's row stays locked for the inserts only.
  const userPassword = body.managementUser === true ? randomBytes(12).toString('base64url') : undefined;
  const passwordHash = userPassword === undefined ? undefined : await hashPassword(userPassword);
  return withTransaction(deps.db, async (tx) => {
    // Two creates of one partner count one after the other: the limit holds under concurrency.
    await lockRow(tx, 'partners', { id: partnerId });
    if ((await repo.countSandboxes(tx, partnerId)) >= SANDBOX_LIMIT) throw new ApiError('sandbox_limit_reached');
    const setUp = await setUpMerchant(tx, deps.config.environment, partnerId, {
      name, mcc: '5999', mccDescription: 'Miscellaneous and Specialty Retail Stores', email: 'owner@sandbox.example',
      city: 'Austin', stateId: 44, stateName: 'Texas', zip: '78701',
    }, createdOn, expiresAt);
    await recordEvent(tx, { merchantId: setUp.merchantId, type: 'merchant.created', data: { merchantId: setUp.merchantId, partnerId, companyName: name, createdOn }, occurredOn: createdOn });
    if (userPassword === undefined || passwordHash === undefined) return { ...setUp, partnerId, name, expiresAt, createdOn };
    // An address no one else holds: the password grant finds a user by e-mail address across merchants.
    const userEmail = `owner-${setUp.merchantId}@sandbox.example`;
    await insertUser(tx, { merchantId: setUp.merchantId, email: userEmail, firstName: 'Sandbox', lastName: 'Owner', passwordHash, createdOn });
    return { ...setUp, partnerId, name, expiresAt, createdOn, userEmail, userPassword };
  });
}

export const listSandboxes = (deps: Deps, partnerId: string, list: ListQuery): Promise<{ items: Schemas['SandboxMerchant'][]; total: number }> =>
  repo.listSandboxes(deps.db, partnerId, list);

/**
 * One batch's transaction: its own, or, inside a caller's transaction (a reset sent with an Idempotency-Key), a
 * savepoint of it, so that a batch refused by a foreign key is undone alone and the next pass can run.
 */
function batch<T>(db: Knex, merchantId: string, work: (tx: Knex.Transaction) => Promise<T>): Promise<T> {
  return inSavepoint(db, async (tx) => {
    await lockMerchant(tx, merchantId);
    return work(tx);
  });
}

/** Runs the steps' batches until each has nothing left; counts what went by kind. */
async function removeAll(deps: Pick<Deps, 'db'>, steps: typeof DELETE_STEPS, sandboxId: string, counts: Record<string, number> = {}): Promise<Record<string, number>> {
  for (const step of steps) {
    for (;;) {
      const removed = await batch(deps.db, sandboxId, (tx) => removeBatch(tx, step, sandboxId, REMOVAL_BATCH));
      if (step.kind !== undefined) counts[step.kind] = (counts[step.kind] ?? 0) + removed;
      if (removed < REMOVAL_BATCH) break;
    }
  }
  return counts;
}

/** A batch broken by a row that arrived meanwhile (a foreign key), or chosen as a deadlock's victim (PostgreSQL). */
const isRetryable = (error: unknown): boolean => {
  const code = (error as { code?: unknown } | null)?.code;
  return code === '23503' || code === 'SQLITE_CONSTRAINT_FOREIGNKEY' || code === '40P01';
};

/**
 * Runs `work` (batches of removal) again, after a short wait, when a row it deletes is still referred to by a
 * row that arrived meanwhile (a delivery fanned out to an endpoint by a request still running): the next pass
 * removes the newcomer first. Requests that started before a deletion's mark end soon, so passes end too.
 */
async function inPasses(deps: Pick<Deps, 'log'>, sandboxId: string, work: () => Promise<void>): Promise<void> {
  for (let pass = 1; ; pass++) {
    try {
      await work();
      return;
    } catch (error) {
      if (!isRetryable(error) || pass >= REMOVAL_PASSES) throw error;
      deps.log.info({ merchantId: sandboxId, pass }, 'sandbox removal: a record arrived meanwhile; removing it too');
      await new Promise((resolve) => setTimeout(resolve, 10 * pass));
    }
  }
}

/**
 * Removes everything of a merchant already marked as being deleted, then the merchant. A request that
 * authenticated before the mark may still add a row meanwhile: a delete that it breaks fails on its foreign
 * key, and another pass removes the newcomer. Safe to run twice at once (the sweep and a request).
 */
export async function removeMerchant(deps: Pick<Deps, 'db' | 'log'>, sandboxId: string): Promise<void> {
  await inPasses(deps, sandboxId, async () => {
    await removeAll(deps, DELETE_STEPS, sandboxId);
    await batch(deps.db, sandboxId, (tx) => removeMerchantRow(tx, sandboxId));
  });
}

/** 404 for an unknown id, another partner's merchant or one that is not a sandbox; a repeat resumes a half-done delete. */
export async function deleteSandbox(deps: Deps, partnerId: string, sandboxId: string): Promise<void> {
  const found = await repo.findSandbox(deps.db, partnerId, sandboxId);
  if (!found) throw notFound(sandboxId, 'sandbox merchant');
  await markDeleting(deps, sandboxId, iso(deps.wall.now()));
  await removeMerchant(deps, sandboxId);
}

/**
 * Marks the merchant as being deleted (an earlier mark stays) and announces it: once committed, its tokens
 * answer 401 on every instance.
 */
async function markDeleting(deps: Pick<Deps, 'db' | 'instances'>, sandboxId: string, now: string): Promise<void> {
  await withTransaction(deps.db, async (tx) => {
    await repo.markDeleting(tx, sandboxId, now);
    await deps.instances.keyStates.changed(tx, { merchantId: sandboxId });
  });
}

const noneRemoved = (): Schemas['SandboxResetResult']['removed'] => ({
  customers: 0, paymentMethods: 0, transactions: 0, invoices: 0, categories: 0, lineItems: 0, webhookEndpoints: 0,
  webhookDeliveries: 0, events: 0, devices: 0, terminals: 0, quickPayments: 0, subscriptions: 0, notifications: 0, settlementBatches: 0, idempotencyKeys: 0,
});

/** The merchant's records go, its clock returns to the present; its credentials, processors and addresses stay. */
export async function resetSandbox(scope: Scope): Promise<Schemas['SandboxResetResult']> {
  const { merchantId } = scope;
  // The clock first: what the merchant does while its records go is already dated in the present.
  await withTransaction(scope.db, async (tx) => {
    await setClockOffset(tx, merchantId, 0);
    await scope.instances.keyStates.changed(tx, { merchantId });
  });
  const removed = noneRemoved();
  // The merchant's own requests go on during a reset: a row they add that breaks a batch is removed by another pass.
  await inPasses(scope, merchantId, async () => { await removeAll(scope, RESET_STEPS, merchantId, removed); });
  return { merchantId, now: iso(scope.wall.now()), offsetSeconds: 0, removed };
}

/** The worker's sweep: deletes expired sandbox merchants and finishes interrupted deletions; returns how many went. */
export async function sweepSandboxes(deps: Pick<Deps, 'db' | 'log' | 'wall' | 'instances'>, limit = 10): Promise<number> {
  const wallNow = iso(deps.wall.now());
  let swept = 0;
  for (const merchantId of await repo.sweepable(deps.db, wallNow, limit)) {
    await markDeleting(deps, merchantId, wallNow);
    await removeMerchant(deps, merchantId);
    swept += 1;
  }
  return swept;
}
