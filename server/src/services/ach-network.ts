// The ACH network's side of a transaction, at a business time: submission at the batch time slot
// (InProgress, or Failed for the sandbox's failing account), clearing (Settled, or a return with its code
// for the sandbox's magic accounts), and forced returns and failures. Each is a row of the ACH state
// machine; the caller holds the record's lock and the transaction.
import type { Knex } from 'knex';
import { achStateMachine } from '../../../generated/state-machines.ts';
import { iso } from '../platform/time.ts';
import type { TransactionRecord } from '../repositories/transactions.ts';
import { AchStatus, CHARGEBACK_CODES } from './ach.ts';
import { invoicePaymentFailed } from './invoice-returns.ts';
import { Type, uncountPayment } from './payments.ts';
import { clearingDelayMs } from './schedule.ts';
import * as machine from './transitions.ts';

/** A debit that fails or is returned after it was accepted stops counting, and the invoice it paid is Due again. */
async function failedAfterAcceptance(tx: Knex, before: TransactionRecord, after: TransactionRecord, at: Date): Promise<TransactionRecord> {
  if (before.typeId === Type.AchDebit) await uncountPayment(tx, before, before.processedAmountCents);
  await invoicePaymentFailed(tx as Knex.Transaction, after, at);
  return after;
}

/**
 * Scheduled -> InProgress at `at` (clearing falls due after the clearing delay); the failing magic account
 * fails here, unless `forced` (the sandbox's simulate says what happens instead).
 */
export async function submit(tx: Knex, record: TransactionRecord, at: Date, forced = false): Promise<TransactionRecord | undefined> {
  if (record.sandboxOutcome === '096' && !forced) return fail(tx, record, at);
  return machine.transition(tx, achStateMachine, record, 'network.submit', at, {
    submittedOn: iso(at), dueAction: 'clear', dueAt: iso(new Date(at.getTime() + clearingDelayMs(record.isFasterProcessing))),
  });
}

/** Scheduled or InProgress -> Failed with 096 (a processing failure). */
export async function fail(tx: Knex, record: TransactionRecord, at: Date): Promise<TransactionRecord | undefined> {
  const after = await machine.transition(tx, achStateMachine, record, 'network.fail', at, {
    responseCode: '096', responseDescription: 'Processing failure', dueAction: null, dueAt: null,
  });
  return after && failedAfterAcceptance(tx, record, after, at);
}

/** InProgress -> ChargedBack or Failed with the return code (ChargedBack for the codes of a dispute). */
export async function returned(tx: Knex, record: TransactionRecord, returnCode: string, at: Date): Promise<TransactionRecord | undefined> {
  const trigger = CHARGEBACK_CODES.has(returnCode) ? 'network.return.chargeback' : 'network.return.failed';
  const after = await machine.transition(tx, achStateMachine, record, trigger, at, { returnCode, dueAction: null, dueAt: null });
  return after && failedAfterAcceptance(tx, record, after, at);
}

/** InProgress -> Settled, or the sandbox magic account's return (unless `forced` to settle). */
export async function clear(tx: Knex, record: TransactionRecord, at: Date, forced = false): Promise<TransactionRecord | undefined> {
  const outcome = record.sandboxOutcome;
  if (outcome !== null && outcome.startsWith('R') && !forced) return returned(tx, record, outcome, at);
  return machine.transition(tx, achStateMachine, record, 'network.clear', at, { settledOn: iso(at), dueAction: null, dueAt: null });
}

/** What a due ACH transaction does at its due time. */
export async function runDueAch(tx: Knex, record: TransactionRecord, at: Date): Promise<'submitted' | 'failed' | 'settled' | 'returned' | undefined> {
  if (record.dueAction === 'submit' && record.statusId === AchStatus.Scheduled) {
    const after = await submit(tx, record, at);
    return after?.statusId === AchStatus.Failed ? 'failed' : after ? 'submitted' : undefined;
  }
  if (record.dueAction === 'clear' && record.statusId === AchStatus.InProgress) {
    const after = await clear(tx, record, at);
    return after?.statusId === AchStatus.Settled ? 'settled' : after ? 'returned' : undefined;
  }
  return undefined;
}
