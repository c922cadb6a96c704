// The ACH network's side of a transaction, at a business time: submission at the batch time slot
// (InProgress, or Failed for the sandbox's failing account), clearing (Settled, or a return with its code
// for the sandbox's magic accounts), and forced returns and failures. Each is a row of the ACH state
// machine; the caller holds the record's lock and the transaction.
import type { Knex } from 'knex';
import { AchTransactionStatus, TransactionType } from '@pgw/client/enums';
import { iso } from '../platform/time.ts';
import type { Tx } from '../platform/scope.ts';
import type { TransactionRecord } from '../repositories/transactions.ts';
import { invoicePaymentFailed } from './invoice-returns.ts';
import { subscriptionPaymentReturned } from './subscription-payments.ts';
import { uncountPayment } from './payments.ts';
import { clearingDelayMs } from './schedule.ts';
import * as engine from './engine.ts';
import { achFamily } from './transaction-machine.ts';

/**
 * A debit that fails or is returned after it was accepted stops counting, the invoice it paid is Due again, and
 * the subscription payment it collected is failed after all.
 */
async function failedAfterAcceptance(tx: Tx, before: TransactionRecord, after: TransactionRecord, at: Date): Promise<TransactionRecord> {
  if (before.typeId === TransactionType.AchDebit) await uncountPayment(tx, before, before.processedAmountCents);
  await invoicePaymentFailed(tx as Knex.Transaction, after, at);
  await subscriptionPaymentReturned(tx, after, at);
  return after;
}

const submission = (at: Date) => (record: TransactionRecord) => ({
  submittedOn: iso(at), dueAction: 'clear' as const, dueAt: iso(new Date(at.getTime() + clearingDelayMs(record.isFasterProcessing))),
});

/**
 * Scheduled -> InProgress at `at` (clearing falls due after the clearing delay); the failing magic account
 * fails here, unless `forced` (the sandbox's simulate says what happens instead).
 */
export async function submit(tx: Tx, record: TransactionRecord, at: Date, forced = false): Promise<TransactionRecord | undefined> {
  if (record.sandboxOutcome === '096' && !forced) return fail(tx, record, at);
  return engine.transition({ db: tx }, achFamily, record, 'network.submit', at, submission(at)(record));
}

/** Scheduled or InProgress -> Failed with 096 (a processing failure). */
export async function fail(tx: Tx, record: TransactionRecord, at: Date): Promise<TransactionRecord | undefined> {
  const after = await engine.transition({ db: tx }, achFamily, record, 'network.fail', at, {
    responseCode: '096', responseDescription: 'Processing failure', dueAction: null, dueAt: null,
  });
  return after && failedAfterAcceptance(tx, record, after, at);
}

const RETURNS = ['network.return.chargeback', 'network.return.failed'] as const;

/**
 * InProgress -> ChargedBack or Failed with the return code: the return trigger whose row names the code (the
 * spec's ACH machine lists each row's returnCodes). A code no row names changes nothing.
 */
export async function returned(tx: Tx, record: TransactionRecord, returnCode: string, at: Date): Promise<TransactionRecord | undefined> {
  const trigger = RETURNS.find((t) => engine.rowFor(achFamily, record.statusId, record.typeId, t, { returnCode }) !== undefined);
  if (trigger === undefined) return undefined;
  const after = await engine.transition({ db: tx }, achFamily, record, trigger, at, { returnCode, dueAction: null, dueAt: null }, { returnCode });
  return after && failedAfterAcceptance(tx, record, after, at);
}

const clearing = (at: Date) => (): Partial<TransactionRecord> => ({ settledOn: iso(at), dueAction: null, dueAt: null });
const returning = (record: TransactionRecord): boolean => record.sandboxOutcome !== null && record.sandboxOutcome.startsWith('R');

/** InProgress -> Settled, or the sandbox magic account's return (unless `forced` to settle). */
export async function clear(tx: Tx, record: TransactionRecord, at: Date, forced = false): Promise<TransactionRecord | undefined> {
  if (returning(record) && !forced) return returned(tx, record, record.sandboxOutcome ?? '', at);
  return engine.transition({ db: tx }, achFamily, record, 'network.clear', at, clearing(at)());
}

export interface AchRun { submitted: number; failed: number; settled: number; returned: number; unchanged: TransactionRecord[] }

/**
 * What the ACH entries due at `at` do: Scheduled ones are submitted (the failing magic account fails),
 * InProgress ones clear (the magic accounts are returned). The common outcomes change together; the rare
 * ones, which touch invoices and counters, one by one. `unchanged`: entries whose due action no longer fits.
 */
export async function runDueAch(tx: Tx, records: readonly TransactionRecord[], at: Date): Promise<AchRun> {
  const run: AchRun = { submitted: 0, failed: 0, settled: 0, returned: 0, unchanged: [] };
  const toSubmit = records.filter((r) => r.dueAction === 'submit' && r.statusId === AchTransactionStatus.Scheduled);
  const toClear = records.filter((r) => r.dueAction === 'clear' && r.statusId === AchTransactionStatus.InProgress);
  const acting = new Set([...toSubmit, ...toClear]);
  run.unchanged = records.filter((r) => !acting.has(r));
  for (const record of toSubmit.filter((r) => r.sandboxOutcome === '096')) if (await fail(tx, record, at)) run.failed += 1;
  const submitted = await engine.transitionAll({ db: tx }, achFamily, toSubmit.filter((r) => r.sandboxOutcome !== '096'), 'network.submit', at, submission(at));
  run.submitted = submitted.filter(Boolean).length;
  for (const record of toClear.filter(returning)) if (await returned(tx, record, record.sandboxOutcome ?? '', at)) run.returned += 1;
  const settled = await engine.transitionAll({ db: tx }, achFamily, toClear.filter((r) => !returning(r)), 'network.clear', at, clearing(at));
  run.settled = settled.filter(Boolean).length;
  return run;
}
