// HTTP of the merchant's invoice settings: two operations of the Invoices group, spread into its handlers.
// The path names the merchant: it must be one the request may act on (a merchant's own id; any of a
// partner's merchants, or with x-merchant-id that one), else 404.
import type { InvoicesHandlers } from '@pgw/client/handlers';
import type * as op from '@pgw/client/operations';
import type { ServerContext } from '../platform/context.ts';
import { ApiError, notFound } from '../platform/errors.ts';
import { fromCents } from '../platform/money.ts';
import * as settingsService from '../services/invoice-settings.ts';
import type { Scope } from '../platform/scope.ts';

/** The merchant the path names, when the request may act on it; 404 otherwise (never 403). */
async function addressed(context: ServerContext, named: string): Promise<Scope> {
  const id = named.toLowerCase();
  if (!context.scope.includes(id)) throw notFound(named, 'merchant');
  return context.scopeOf(id);
}

function body(context: ServerContext, settings: settingsService.InvoiceSettings): op.GetInvoiceSettingsResult & { status: 200 } {
  const { cardPaymentProcessorId: card, achPaymentProcessorId: ach } = settings;
  if (card === null || ach === null) {
    // The record requires both; every merchant the gateway creates has a card and an Eft processor.
    context.log.error({ merchantId: settings.merchantId }, 'the merchant has no card or no ACH processor for its invoice settings');
    throw new ApiError('internal_error');
  }
  return {
    status: 200,
    body: {
      merchantId: settings.merchantId,
      dueDateAfterDays: settings.dueDateAfterDays,
      taxPercentage: settings.taxPercentage,
      isDiscountEnabled: settings.isDiscountEnabled,
      discountPercentage: settings.discountPercentage,
      isShippingFeeEnabled: settings.isShippingFeeEnabled,
      shippingFeeAmount: settings.shippingFeeCents === null ? null : fromCents(settings.shippingFeeCents),
      isFeesEnabled: settings.isFeesEnabled,
      feesPercentage: settings.feesPercentage,
      notes: settings.notes,
      paymentMethodTypeId: settings.paymentMethodTypeId,
      cardPaymentProcessorId: card,
      achPaymentProcessorId: ach,
      allowStaffToSetDiscountAndLineItemDiscount: settings.allowStaffToSetDiscountAndLineItemDiscount,
      allowManuallyEnterLineItems: settings.allowManuallyEnterLineItems,
      isSmsNotificationAfterPaymentEnabled: settings.isSmsNotificationAfterPaymentEnabled,
      isSmsNotificationAfterPaymentFailedEnabled: settings.isSmsNotificationAfterPaymentFailedEnabled,
      canOverWriteInvoiceLineItemPrice: settings.canOverWriteInvoiceLineItemPrice,
      newZcpFeatureEnabled: settings.newZcpFeatureEnabled,
    },
  };
}

export const invoiceSettingsHandlers: Pick<InvoicesHandlers<ServerContext>, 'getInvoiceSettings' | 'updateInvoiceSettings'> = {
  async getInvoiceSettings(input: op.GetInvoiceSettingsInput, context: ServerContext): Promise<op.GetInvoiceSettingsResult> {
    return body(context, await settingsService.getSettings(await addressed(context, input.path.merchantId)));
  },
  async updateInvoiceSettings(input: op.UpdateInvoiceSettingsInput, context: ServerContext): Promise<op.UpdateInvoiceSettingsResult> {
    await settingsService.updateSettings(await addressed(context, input.path.merchantId), input.body);
    return { status: 200 };
  },
};
