// HTTP of the invoices: lifecycle, list, calculations, notifications, PDF and payment by card or ACH (the
// settings operations come from invoice-settings.ts).
import type { InvoicesHandlers } from '@pgw/client/handlers';
import type * as op from '@pgw/client/operations';
import type { ServerContext } from '../platform/context.ts';
import * as notifications from '../services/invoice-notifications.ts';
import * as payments from '../services/invoice-payments.ts';
import * as service from '../services/invoices.ts';
import { invoiceSettingsHandlers } from './invoice-settings.ts';

export const invoicesHandlers = {
  ...invoiceSettingsHandlers,

  async createInvoice(input: op.CreateInvoiceInput, context: ServerContext): Promise<op.CreateInvoiceResult> {
    return { status: 200, body: { id: await service.createInvoice(context.merchant(), input.body) } };
  },

  async listInvoices(input: op.ListInvoicesInput, context: ServerContext): Promise<op.ListInvoicesResult> {
    return { status: 200, body: await service.listInvoices(context.merchant(), input.query) };
  },

  async getInvoice(input: op.GetInvoiceInput, context: ServerContext): Promise<op.GetInvoiceResult> {
    return { status: 200, body: await service.getInvoice(context.merchant(), input.path.invoiceId) };
  },

  async updateInvoice(input: op.UpdateInvoiceInput, context: ServerContext): Promise<op.UpdateInvoiceResult> {
    await service.updateInvoice(context.merchant(), input.path.invoiceId, input.body);
    return { status: 200 };
  },

  async deleteInvoice(input: op.DeleteInvoiceInput, context: ServerContext): Promise<op.DeleteInvoiceResult> {
    await service.deleteInvoice(context.merchant(), input.path.invoiceId);
    return { status: 200 };
  },

  async publishInvoice(input: op.PublishInvoiceInput, context: ServerContext): Promise<op.PublishInvoiceResult> {
    return { status: 200, body: { id: await service.publishInvoice(context.merchant(), input.body) } };
  },

  async getInvoiceCalculations(input: op.GetInvoiceCalculationsInput, context: ServerContext): Promise<op.GetInvoiceCalculationsResult> {
    return { status: 200, body: await service.getCalculations(context.merchant(), input.path.invoiceId) };
  },

  async cancelInvoice(input: op.CancelInvoiceInput, context: ServerContext): Promise<op.CancelInvoiceResult> {
    await service.cancelInvoice(context.merchant(), input.path.invoiceId);
    return { status: 200 };
  },

  async markInvoiceAsPaid(input: op.MarkInvoiceAsPaidInput, context: ServerContext): Promise<op.MarkInvoiceAsPaidResult> {
    // The body may be left out (designed): another means of payment, such as cash.
    await service.markInvoiceAsPaid(context.merchant(), input.path.invoiceId, input.body?.paymentMethodTypeId ?? null);
    return { status: 200 };
  },

  async sendInvoiceEmailNotification(input: op.SendInvoiceEmailNotificationInput, context: ServerContext): Promise<op.SendInvoiceEmailNotificationResult> {
    await notifications.sendToPhone(context.merchant(), input.path.invoiceId, input.body);
    return { status: 200 };
  },

  async sendInvoiceSmsNotification(input: op.SendInvoiceSmsNotificationInput, context: ServerContext): Promise<op.SendInvoiceSmsNotificationResult> {
    await notifications.sendToEmail(context.merchant(), input.path.invoiceId, input.body);
    return { status: 200 };
  },

  async downloadInvoicePdf(input: op.DownloadInvoicePdfInput, context: ServerContext): Promise<op.DownloadInvoicePdfResult> {
    return { status: 200, body: await service.invoicePdfBase64(context.merchant(), input.path.invoiceId) };
  },

  // Paying an invoice: the interface's submit (card) and ach/submit rules (services/invoice-payments.ts).
  async submitInvoiceCardPayment(input: op.SubmitInvoiceCardPaymentInput, context: ServerContext): Promise<op.SubmitInvoiceCardPaymentResult> {
    return { status: 200, body: await payments.payByCard(context.merchant(), input.path.invoiceId, input.body) };
  },
  async submitInvoiceAchPayment(input: op.SubmitInvoiceAchPaymentInput, context: ServerContext): Promise<op.SubmitInvoiceAchPaymentResult> {
    return { status: 200, body: await payments.payByAch(context.merchant(), input.path.invoiceId, input.body) };
  },
} satisfies InvoicesHandlers<ServerContext>;
