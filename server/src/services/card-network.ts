// The card network's side, at a business time: settlement batches (every captured transaction of a
// processor due at one batch time slot settles together, and the batch emits settlement.batch.completed)
// and the expiry of authorizations not captured within 7 days. Rows of the card state machine; the caller
// holds the records' locks and the transaction.
import { newId } from '../platform/ids.ts';
import { CardTransactionStatus, PaymentProcessorType, TransactionType } from '@pgw/client/enums';
import { fromCents, minusCents, sumCents, ZERO_CENTS } from '../platform/money.ts';
import type { Tx } from '../platform/scope.ts';
import { recordEvent } from '../platform/outbox.ts';
import { iso } from '../platform/time.ts';
import * as repo from '../repositories/transactions.ts';
import type { TransactionRecord } from '../repositories/transactions.ts';
import { DAY_MS } from './schedule.ts';
import * as engine from './engine.ts';
import { cardFamily } from './transaction-machine.ts';

/** Authorized or PartiallyAuthorized -> Expired. */
export async function expireAll(tx: Tx, records: readonly TransactionRecord[], at: Date): Promise<number> {
  const expired = await engine.transitionAll({ db: tx }, cardFamily, records, 'network.expire', at, () => ({ dueAction: null, dueAt: null }));
  return expired.filter(Boolean).length;
}

/**
 * Settles captured transactions of one processor in one batch at `at`: each Captured -> Settled, the batch
 * recorded, settlement.batch.completed sent. Returns how many settled (0: no batch).
 */
export async function settleBatch(tx: Tx, merchantId: string, processorId: string, records: readonly TransactionRecord[], at: Date): Promise<number> {
  const batchId = newId();
  const when = iso(at);
  let sale = ZERO_CENTS;
  let credit = ZERO_CENTS;
  let count = 0;
  const settled = await engine.transitionAll({ db: tx }, cardFamily, records, 'network.settle', at, () => ({ settledOn: when, dueAction: null, dueAt: null, settlementBatchId: batchId }));
  for (const after of settled) {
    if (!after) continue;
    count += 1;
    if (after.typeId === TransactionType.RefundWORef) credit = sumCents(credit, after.processedAmountCents);
    else sale = sumCents(sale, after.processedAmountCents);
  }
  if (count === 0) return 0;
  const openedOn = (await repo.previousBatchOn(tx, merchantId, processorId)) ?? iso(new Date(at.getTime() - DAY_MS));
  await repo.insertBatch(tx, { id: batchId, merchantId, processorId, openedOn, settledOn: when, transactionCount: count, saleAmountCents: sale, refundAmountCents: credit });
  await recordEvent(tx, {
    merchantId, type: 'settlement.batch.completed', occurredOn: when,
    data: {
      batchId, paymentProcessorId: processorId, paymentProcessorTypeId: PaymentProcessorType.CardProcessor, openedOn, settledOn: when, transactionCount: count,
      saleAmount: fromCents(sale), refundAmount: fromCents(credit), totalAmount: fromCents(minusCents(sale, credit)), currencyIsoCode: 'USD',
    },
  });
  return count;
}

export const isSettleDue = (r: TransactionRecord): boolean => r.dueAction === 'settle' && r.statusId === CardTransactionStatus.Captured;
export const isExpiryDue = (r: TransactionRecord): boolean =>
  r.dueAction === 'expire' && (r.statusId === CardTransactionStatus.Authorized || r.statusId === CardTransactionStatus.PartiallyAuthorized);
