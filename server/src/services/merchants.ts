// The merchant's own records as the API and the pages show them: its payment configuration, contact
// addresses, name and sandbox clock offset (read-only).
import { type CardType, Currency, PaymentProcessorType, type TransactionType, ZeroCostProcessingOption } from '@pgw/client/enums';
import type * as op from '@pgw/client/operations';
import type { components } from '@pgw/client/types';
import { notFound } from '../platform/errors.ts';
import { fromCents } from '../platform/money.ts';
import { enumeration, enumerationItems } from '../platform/spec-data.ts';
import { contactInfosOf, findMerchant, merchantSettings, processorsOf } from '../repositories/merchants.ts';
import type { Scope } from '../platform/scope.ts';

type Schemas = components['schemas'];
type ContactInfoItem = Extract<op.ListContactInfosResult, { status: 200 }>['body']['contactInfos'][number];

/** The merchant's payment configuration (getPaymentConfiguration). */
export async function paymentConfiguration(scope: Scope): Promise<Schemas['PaymentConfiguration']> {
  const { merchantId } = scope;
  const merchant = await findMerchant(scope.db, merchantId);
  if (!merchant) throw notFound(merchantId, 'merchant');
  const settings = merchantSettings(merchant);
  const zeroCost = merchant.zero_cost_processing_option_id as ZeroCostProcessingOption;
  return {
    zeroCostProcessingOptionId: zeroCost,
    zeroCostProcessingOption: zeroCost === ZeroCostProcessingOption.None ? null : (enumeration('ZeroCostProcessingOption').get(zeroCost) ?? null),
    defaultTipsOptions: settings.tipsOptions,
    isTipsEnabled: Boolean(merchant.is_tips_enabled),
    defaultSurchargeRate: settings.surchargeRate,
    defaultCashDiscountRate: settings.cashDiscountRate,
    defaultDualPricingRate: settings.dualPricingRate,
    availableCurrencies: enumerationItems('Currency') as { id: Currency; name: string }[],
    availableCardTypes: enumerationItems('CardType') as { id: CardType; name: string }[],
    availableTransactionTypes: enumerationItems('TransactionType') as { id: TransactionType; name: string }[],
    availablePaymentProcessors: (await processorsOf(scope.db, merchantId)).map((p) => ({
      ...p,
      // The names are typed by the spec's enumeration, so tsc holds this mapping to it.
      type: p.typeId === PaymentProcessorType.Eft ? ('Eft' as const) : ('CardProcessor' as const),
    })),
    avs: { isEnabled: Boolean(merchant.avs_enabled), profileId: null, profile: null },
    isCustomerCardSavingByTerminalEnabled: Boolean(merchant.card_saving_by_terminal_enabled),
    companyName: merchant.company_name,
    mccCode: merchant.mcc_code,
    mccCodeDescription: merchant.mcc_description,
    currencyId: Currency.USD,
    currencyIsoCode: 'USD',
    maxTransactionAmount: settings.maxTransactionAmountCents === null ? null : fromCents(settings.maxTransactionAmountCents),
  };
}

/** The merchant's contact addresses (listContactInfos). */
export async function contactInfos(scope: Scope): Promise<ContactInfoItem[]> {
  const { merchantId } = scope;
  const rows = await contactInfosOf(scope.db, merchantId);
  return rows.map((r) => ({
    id: r.id, addressName: r.address_name, addressLine1: r.address_line1, addressLine2: r.address_line2, city: r.city, zip: r.zip,
    countryId: r.country_id, stateId: r.state_id ?? 0, stateName: r.state_name ?? '', email: r.email,
    businessPhoneNumber: r.business_phone_number, merchantId: r.merchant_id,
    isMainAddress: Boolean(r.is_main_address), isDefaultAddress: Boolean(r.is_default_address),
  }));
}

/** The merchant's company name; undefined when there is no such merchant. */
export async function merchantName(scope: Scope): Promise<string | undefined> {
  const { merchantId } = scope;
  return (await findMerchant(scope.db, merchantId))?.company_name;
}

/** The merchant's sandbox clock offset (ms; 0 when it never moved). */
