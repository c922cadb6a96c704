// HTTP of the merchant's invoice settings: two operations of the Invoices group, spread into its handlers.
// The path names the merchant: it must be one the request may act on (a merchant's own id; any of a
// partner's merchants, or with x-merchant-id that one), else 404.
import type { InvoicesHandlers } from '../../../generated/handlers.ts';
import type * as op from '../../../generated/operations.ts';
import type { ServerContext } from '../platform/context.ts';
import { ApiError, notFound } from '../platform/errors.ts';
import { fromCents } from '../platform/money.ts';
import * as settingsService from '../services/invoice-settings.ts';

/** The merchant the path names, when the request may act on it; 404 otherwise (never 403). */
function addressed(context: ServerContext, merchantId: string): string {
  const id = merchantId.toLowerCase();
  if (!context.scope.includes(id)) throw notFound(merchantId, 'merchant');
  return id;
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
    const merchantId = addressed(context, input.path.merchantId);
    return body(context, await settingsService.getSettings(context, merchantId));
  },
  async updateInvoiceSettings(input: op.UpdateInvoiceSettingsInput, context: ServerContext): Promise<op.UpdateInvoiceSettingsResult> {
    const merchantId = addressed(context, input.path.merchantId);
    await settingsService.updateSettings(context, merchantId, input.body);
    return { status: 200 };
  },
};
