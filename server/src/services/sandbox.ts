// The sandbox controls: each merchant's clock (real time plus an offset that only grows) and its advance,
// which runs everything that falls due up to the new time, and the forced network outcomes of simulate.
import { AchTransactionStatus, CardTransactionStatus, PaymentMethodType } from '@pgw/client/enums';
import type { components } from '@pgw/client/types';
import { ApiError, invalid } from '../platform/errors.ts';
import { schemaMaximum } from '../platform/spec-data.ts';
import { iso } from '../platform/time.ts';
import { businessTimeAt, within, type Scope, type Tx } from '../platform/scope.ts';
import { clockOffsetOf } from '../repositories/merchants.ts';
import { lockRow, withTransaction } from '../platform/transaction.ts';
import { countFallingDue } from '../repositories/invoice-due.ts';
import { countDueDeliveries } from '../repositories/webhook-deliveries.ts';
import * as repo from '../repositories/transactions.ts';
import type { TransactionRecord } from '../repositories/transactions.ts';
import { runDueForMerchant, noRuns } from '../worker/run-due.ts';
import * as ach from './ach-network.ts';
import { settleBatch } from './card-network.ts';
import { findOwn } from './payments.ts';
import { transactionDetails } from './transaction-view.ts';

type Schemas = components['schemas'];

/** The largest offset the contract allows (SandboxClock.offsetSeconds's maximum). */
const MAX_OFFSET_SECONDS = schemaMaximum('SandboxClock', 'offsetSeconds');

export async function getClock(scope: Scope): Promise<Schemas['SandboxClock']> {
  const { merchantId } = scope;
  const offsetMs = await clockOffsetOf(scope.db, merchantId);
  return { merchantId, now: iso(businessTimeAt(scope, scope.wall.now(), offsetMs)), offsetSeconds: Math.floor(offsetMs / 1000) };
}

/**
 * Moves the merchant's clock `seconds` forward and runs what falls due up to the new time, in time order,
 * in one transaction with the clock change (the worker's timer never sees the new time half run). Webhook
 * deliveries are not attempted here: the events' deliveries and the retries that fell due are left due in
 * the delivery table, and the worker's delivery pump makes them afterwards, each at its due time
 * (attemptTimeOf), so the advance takes the same time whatever the receivers do.
 */
export async function advanceClock(scope: Scope, seconds: number): Promise<Schemas['SandboxClockAdvanceResult']> {
  const { merchantId } = scope;
  return withTransaction(scope.db, async (tx) => {
    // Two advances of one merchant run one after the other.
    await lockRow(tx, 'merchants', { id: merchantId });
    const before = await clockOffsetOf(tx, merchantId);
    const offsetMs = before + seconds * 1000;
    // The offset has a bound the contract states (an int32 of seconds would overflow at 68 years): past it,
    // 400 before anything moves, not a clock moved and a 500 on every later read.
    if (offsetMs > MAX_OFFSET_SECONDS * 1000) {
      throw invalid('seconds', `the sandbox clock may run at most ${String(MAX_OFFSET_SECONDS)} seconds (50 years) ahead of real time; it is ${String(Math.floor(before / 1000))} ahead, so it can advance at most ${String(Math.max(0, MAX_OFFSET_SECONDS - Math.floor(before / 1000)))} more`);
    }
    await repo.setClockOffset(tx, merchantId, offsetMs);
    // The kept states carry the offset: every instance reads it again once this commits.
    await scope.instances.keyStates.changed(tx, { merchantId });
    const wallNow = scope.wall.now();
    const from = businessTimeAt(scope, wallNow, before);
    const until = businessTimeAt(scope, wallNow, offsetMs);
    const counts = await runDueForMerchant(within(scope, tx), until, noRuns(), true);
    counts.invoicesPastDue = await countFallingDue(tx, merchantId, iso(from), iso(until));
    counts.webhookAttempts = await countDueDeliveries(tx, merchantId, iso(until));
    return { merchantId, now: iso(until), offsetSeconds: Math.floor(offsetMs / 1000), ran: counts };
  });
}

type Outcome = Schemas['SandboxSimulateRequest']['outcome'];

const notAllowed = (outcome: Outcome, record: TransactionRecord, status: string): ApiError =>
  new ApiError('simulation_not_allowed', {
    details: `${outcome} does not apply to a ${record.paymentMethodTypeId === PaymentMethodType.Card ? 'card' : 'ACH'} transaction in status ${status}.`,
    entityId: record.id,
  });

/** Submits a Scheduled ACH transaction first (the network sees it before it settles, returns or fails it). */
async function submitted(tx: Tx, record: TransactionRecord, at: Date): Promise<TransactionRecord | undefined> {
  if (record.statusId !== AchTransactionStatus.Scheduled) return record;
  return ach.submit(tx, record, at, true);
}

async function simulateAch(tx: Tx, record: TransactionRecord, outcome: Outcome, returnCode: string | undefined, at: Date): Promise<TransactionRecord | undefined> {
  const open = record.statusId === AchTransactionStatus.Scheduled || record.statusId === AchTransactionStatus.InProgress;
  if (!open) return undefined;
  switch (outcome) {
    case 'submit':
      return record.statusId === AchTransactionStatus.Scheduled ? ach.submit(tx, record, at, true) : undefined;
    case 'settle': {
      const inProgress = await submitted(tx, record, at);
      return inProgress && ach.clear(tx, inProgress, at, true);
    }
    case 'return': {
      const inProgress = await submitted(tx, record, at);
      return inProgress && ach.returned(tx, inProgress, returnCode ?? '', at);
    }
    case 'fail':
      return ach.fail(tx, record, at);
  }
}

/** Forces a network outcome now (without moving the clock); 400 simulation_not_allowed when it does not apply. */
export async function simulate(scope: Scope, id: string, body: Schemas['SandboxSimulateRequest']): Promise<Schemas['TransactionDetails']> {
  const { merchantId } = scope;
  if (body.outcome === 'return' && body.returnCode === undefined) throw invalid('returnCode', 'is required with the outcome return');
  if (body.outcome !== 'return' && body.returnCode !== undefined) throw invalid('returnCode', 'is allowed only with the outcome return');
  return withTransaction(scope.db, async (tx) => {
    const found = await findOwn(tx, merchantId, id);
    const record = (await repo.lockTransaction(tx, merchantId, found.id)) ?? found;
    const at = scope.clock.now();
    let after: TransactionRecord | undefined;
    if (record.paymentMethodTypeId === PaymentMethodType.ElectronicCheck) {
      after = await simulateAch(tx, record, body.outcome, body.returnCode, at);
    } else if (body.outcome === 'settle' && record.statusId === CardTransactionStatus.Captured) {
      if ((await settleBatch(tx, merchantId, record.processorId, [record], at)) === 1) after = await repo.findTransaction(tx, merchantId, record.id);
    }
    if (!after) throw notAllowed(body.outcome, record, transactionDetails(record).status ?? String(record.statusId));
    return transactionDetails(after);
  });
}
