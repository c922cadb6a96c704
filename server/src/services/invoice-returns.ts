// An ACH payment of an invoice that the bank returns, or that fails, after the invoice was marked Paid: the
// invoice is Due again (PastDue when its due date has passed: the spec's payment.returned row) with a
// PaymentFailed entry holding the return code. Runs in the transaction of the transaction's change.
import type { Knex } from 'knex';
import { PaymentMethodType } from '@pgw/client/enums';
import type { TransactionRecord } from '../repositories/transactions.ts';
import * as engine from './engine.ts';
import { invoiceFamily, Status } from './invoice-machine.ts';

export async function invoicePaymentFailed(tx: Knex.Transaction, record: TransactionRecord, at: Date): Promise<void> {
  if (record.invoiceId === null) return;
  const invoice = await engine.lock({ db: tx }, invoiceFamily, { id: record.invoiceId });
  // Only the payment that paid it reopens it (a later payment, or a hand-marked one, stands).
  if (!invoice || invoice.status !== Status.Paid || invoice.transactionId !== record.id) return;
  await engine.transition({ db: tx }, invoiceFamily, invoice, 'payment.returned', at, {
    payment: { paymentDate: null, paymentMethodTypeId: null, markedAsPaid: null, transactionId: null, useCardPrice: null },
    history: {
      errorCode: record.returnCode ?? record.responseCode,
      errorMessage: record.returnCode === null ? record.responseDescription : `ACH return ${record.returnCode}`,
      transactionId: record.id, paymentMethodTypeId: PaymentMethodType.ElectronicCheck,
    },
  });
}
