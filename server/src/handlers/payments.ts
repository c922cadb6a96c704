// HTTP of the payments: the status check of any transaction, the ACH and card operations.
import type { AchPaymentsHandlers, CardPaymentsHandlers, TransactionsHandlers } from '@pgw/client/handlers';
import type * as op from '@pgw/client/operations';
import type { ServerContext } from '../platform/context.ts';
import * as ach from '../services/ach.ts';
import * as card from '../services/card.ts';
import { findOwn } from '../services/payments.ts';
import { transactionDetails } from '../services/transaction-view.ts';

export const transactionsHandlers = {
  async getTransactionStatus(input: op.GetTransactionStatusInput, context: ServerContext): Promise<op.GetTransactionStatusResult> {
    return { status: 200, body: transactionDetails(await findOwn(context.db, context.merchantId(), input.path.transactionId)) };
  },
} satisfies TransactionsHandlers<ServerContext>;

export const achPaymentsHandlers = {
  async createAchDebit(input: op.CreateAchDebitInput, context: ServerContext): Promise<op.CreateAchDebitResult> {
    return { status: 200, body: await ach.createDebit(context.merchant(), input.body) };
  },
  async createAchCredit(input: op.CreateAchCreditInput, context: ServerContext): Promise<op.CreateAchCreditResult> {
    return { status: 200, body: await ach.createCredit(context.merchant(), input.body) };
  },
  async holdAchTransaction(input: op.HoldAchTransactionInput, context: ServerContext): Promise<op.HoldAchTransactionResult> {
    return { status: 200, body: await ach.command(context.merchant(), input.path.transactionId, 'holdAchTransaction') };
  },
  async unholdAchTransaction(input: op.UnholdAchTransactionInput, context: ServerContext): Promise<op.UnholdAchTransactionResult> {
    return { status: 200, body: await ach.command(context.merchant(), input.path.transactionId, 'unholdAchTransaction') };
  },
  async voidAchTransaction(input: op.VoidAchTransactionInput, context: ServerContext): Promise<op.VoidAchTransactionResult> {
    return { status: 200, body: await ach.command(context.merchant(), input.path.transactionId, 'voidAchTransaction') };
  },
  async refundAchTransaction(input: op.RefundAchTransactionInput, context: ServerContext): Promise<op.RefundAchTransactionResult> {
    return { status: 200, body: await ach.refund(context.merchant(), input.path.transactionId, input.body) };
  },
} satisfies AchPaymentsHandlers<ServerContext>;

export const cardPaymentsHandlers = {
  async authorizeCard(input: op.AuthorizeCardInput, context: ServerContext): Promise<op.AuthorizeCardResult> {
    return { status: 200, body: await card.createCardTransaction(context.merchant(), 'authorizeCard', input.body) };
  },
  async createCardSale(input: op.CreateCardSaleInput, context: ServerContext): Promise<op.CreateCardSaleResult> {
    return { status: 200, body: await card.createCardTransaction(context.merchant(), 'createCardSale', input.body) };
  },
  async refundCardWithoutReference(input: op.RefundCardWithoutReferenceInput, context: ServerContext): Promise<op.RefundCardWithoutReferenceResult> {
    return { status: 200, body: await card.createCardTransaction(context.merchant(), 'refundCardWithoutReference', input.body) };
  },
  async captureCardTransaction(input: op.CaptureCardTransactionInput, context: ServerContext): Promise<op.CaptureCardTransactionResult> {
    return { status: 200, body: await card.capture(context.merchant(), input.path.transactionId, input.body) };
  },
  async voidCardTransaction(input: op.VoidCardTransactionInput, context: ServerContext): Promise<op.VoidCardTransactionResult> {
    return { status: 200, body: await card.voidTransaction(context.merchant(), input.path.transactionId) };
  },
  async refundCardTransaction(input: op.RefundCardTransactionInput, context: ServerContext): Promise<op.RefundCardTransactionResult> {
    return { status: 200, body: await card.refund(context.merchant(), input.path.transactionId, input.body) };
  },
} satisfies CardPaymentsHandlers<ServerContext>;
