// An ACH payment of an invoice that the bank returns, or that fails, after the invoice was marked Paid: the
// invoice is Due again (PastDue when its due date has passed: the spec's payment.returned row) with a
// PaymentFailed entry holding the return code. Runs in the transaction of the transaction's change.
import { randomUUID } from 'node:crypto';
import type { Knex } from 'knex';
import { iso } from '../platform/time.ts';
import { reopen } from '../repositories/invoice-payments.ts';
import { addHistory } from '../repositories/invoices.ts';
import type { TransactionRecord } from '../repositories/transactions.ts';

/** PaymentFailed: the InvoiceHistoryType of a failed payment. */
const PAYMENT_FAILED = 9;

export async function invoicePaymentFailed(tx: Knex.Transaction, record: TransactionRecord, at: Date): Promise<void> {
  if (record.invoiceId === null) return;
  const when = iso(at);
  if (!(await reopen(tx, record.invoiceId, record.id, when))) return;
  await addHistory(tx, randomUUID(), record.invoiceId, {
    typeId: PAYMENT_FAILED, errorCode: record.returnCode ?? record.responseCode, errorMessage: record.returnCode === null ? record.responseDescription : `ACH return ${record.returnCode}`,
    transactionId: record.id, paymentMethodTypeId: 2, createdOn: when,
  });
}
