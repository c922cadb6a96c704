// HTTP of the read-only merchant configuration: payment configuration and contact addresses.
import type { ConfigurationHandlers } from '../../../generated/handlers.ts';
import type * as op from '../../../generated/operations.ts';
import type { ServerContext } from '../platform/context.ts';
import { notFound } from '../platform/errors.ts';
import { fromCents } from '../platform/money.ts';
import { enumeration, enumerationItems } from '../platform/spec-data.ts';
import { contactInfosOf, findMerchant, merchantSettings, processorsOf } from '../repositories/merchants.ts';

export const configurationHandlers = {
  async getPaymentConfiguration(_input: op.GetPaymentConfigurationInput, context: ServerContext): Promise<op.GetPaymentConfigurationResult> {
    const merchantId = context.merchantId();
    const merchant = await findMerchant(context.db, merchantId);
    if (!merchant) throw notFound(merchantId, 'merchant');
    const settings = merchantSettings(merchant);
    const zeroCost = merchant.zero_cost_processing_option_id as 0 | 1 | 2 | 3;
    return {
      status: 200,
      body: {
        zeroCostProcessingOptionId: zeroCost,
        zeroCostProcessingOption: zeroCost === 0 ? null : (enumeration('ZeroCostProcessingOption').get(zeroCost) ?? null),
        defaultTipsOptions: settings.tipsOptions,
        isTipsEnabled: Boolean(merchant.is_tips_enabled),
        defaultSurchargeRate: settings.surchargeRate,
        defaultCashDiscountRate: settings.cashDiscountRate,
        defaultDualPricingRate: settings.dualPricingRate,
        availableCurrencies: enumerationItems('Currency') as { id: 1; name: string }[],
        availableCardTypes: enumerationItems('CardType') as { id: 0 | 1 | 2 | 3 | 4 | 5 | 6; name: string }[],
        availableTransactionTypes: enumerationItems('TransactionType') as { id: 1 | 2 | 3 | 4 | 5 | 6 | 7 | 8 | 11 | 12 | 13 | 14 | 15; name: string }[],
        availablePaymentProcessors: (await processorsOf(context.db, merchantId)).map((p) => ({
          ...p,
          // The names are typed by the spec's enumeration, so tsc holds this mapping to it.
          type: p.typeId === 2 ? ('Eft' as const) : ('CardProcessor' as const),
        })),
        avs: { isEnabled: Boolean(merchant.avs_enabled), profileId: null, profile: null },
        isCustomerCardSavingByTerminalEnabled: Boolean(merchant.card_saving_by_terminal_enabled),
        companyName: merchant.company_name,
        mccCode: merchant.mcc_code,
        mccCodeDescription: merchant.mcc_description,
        currencyId: 1,
        currencyIsoCode: 'USD',
        maxTransactionAmount: settings.maxTransactionAmountCents === null ? null : fromCents(settings.maxTransactionAmountCents),
      },
    };
  },

  async listContactInfos(_input: op.ListContactInfosInput, context: ServerContext): Promise<op.ListContactInfosResult> {
    const rows = await contactInfosOf(context.db, context.merchantId());
    return {
      status: 200,
      body: {
        contactInfos: rows.map((r) => ({
          id: r.id, addressName: r.address_name, addressLine1: r.address_line1, addressLine2: r.address_line2, city: r.city, zip: r.zip,
          countryId: r.country_id, stateId: r.state_id ?? 0, stateName: r.state_name ?? '', email: r.email,
          businessPhoneNumber: r.business_phone_number, merchantId: r.merchant_id,
          isMainAddress: Boolean(r.is_main_address), isDefaultAddress: Boolean(r.is_default_address),
        })),
      },
    };
  },
} satisfies ConfigurationHandlers<ServerContext>;
