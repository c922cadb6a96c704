// HTTP of the payment links: create, list, read, a link's payments and cancel (the sandbox's payment is in sandbox.ts, the
// hosted page in quick-payment-pages.ts).
import type { QuickPaymentsHandlers } from '@pgw/client/handlers';
import type * as op from '@pgw/client/operations';
import type { ServerContext } from '../platform/context.ts';
import * as links from '../services/quick-payments.ts';

export const quickPaymentsHandlers = {
  async createQuickPayment(input: op.CreateQuickPaymentInput, context: ServerContext): Promise<op.CreateQuickPaymentResult> {
    return { status: 200, body: await links.createQuickPayment(context.merchant(), input.body) };
  },
  async listQuickPayments(input: op.ListQuickPaymentsInput, context: ServerContext): Promise<op.ListQuickPaymentsResult> {
    return { status: 200, body: await links.listQuickPayments(context.merchant(), input.query) };
  },
  async getQuickPayment(input: op.GetQuickPaymentInput, context: ServerContext): Promise<op.GetQuickPaymentResult> {
    return { status: 200, body: await links.getQuickPayment(context.merchant(), input.path.quickPaymentId) };
  },
  async listQuickPaymentPayments(input: op.ListQuickPaymentPaymentsInput, context: ServerContext): Promise<op.ListQuickPaymentPaymentsResult> {
    return { status: 200, body: await links.listQuickPaymentPayments(context.merchant(), input.path.quickPaymentId, input.query) };
  },
  async cancelQuickPayment(input: op.CancelQuickPaymentInput, context: ServerContext): Promise<op.CancelQuickPaymentResult> {
    return { status: 200, body: await links.cancelQuickPayment(context.merchant(), input.path.quickPaymentId) };
  },
} satisfies QuickPaymentsHandlers<ServerContext>;
