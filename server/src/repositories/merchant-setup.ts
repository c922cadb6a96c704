// A merchant as the sandbox makes one (Knex only): its row with the default settings, a card and an ACH
// (Eft) processor, a main contact address and an API key. The demo seed and the disposable sandboxes both
// build their merchants here, so a sandbox merchant is exactly what a demo merchant is.
import { newId } from '../platform/ids.ts';
import type { Knex } from 'knex';
import { AffiliateBusinessModelType, AffiliateStatus, BusinessCategory, PaymentProcessorType, ZeroCostProcessingOption } from '@pgw/client/enums';
import type { Environment } from '../config.ts';
import { hashSecret, newApiKey } from '../platform/tokens.ts';

export interface MerchantProfile {
  name: string;
  mcc: string;
  mccDescription: string;
  email: string;
  city: string;
  stateId: number;
  stateName: string;
  zip: string;
}

export interface MerchantSetup {
  merchantId: string;
  clientId: string;
  clientSecret: string;
  cardProcessorId: string;
  achProcessorId: string;
}

/** A partner's row; returns its id. */
export async function insertPartner(db: Knex, name: string, now: string): Promise<string> {
  const id = newId();
  await db('partners').insert({ id, name, status_id: AffiliateStatus.Active, business_category_id: BusinessCategory.IndependentSoftwareVendor,
    business_model_type_id: AffiliateBusinessModelType.SingleAffiliateModel, created_on: now });
  return id;
}

/** A new API key of `environment` (the secret is returned once and stored hashed); merchantId null for a partner's own key. */
export async function addApiKey(db: Knex, environment: Environment, partnerId: string, merchantId: string | null, name: string, now: string): Promise<{ clientId: string; clientSecret: string }> {
  const key = newApiKey();
  await db('api_keys').insert({
    client_id: key.clientId, partner_id: partnerId, merchant_id: merchantId, name, secret_hash: hashSecret(key.clientSecret), is_active: true, created_on: now, environment,
  });
  return key;
}

/**
 * The merchant and what it needs to take payments. `sandboxExpiresAt`: when a disposable sandbox merchant
 * expires (null for a merchant that stays). Its clock offset starts at 0: its business clock is the present.
 */
export async function setUpMerchant(db: Knex, environment: Environment, partnerId: string, profile: MerchantProfile, now: string, sandboxExpiresAt: string | null = null): Promise<MerchantSetup> {
  const merchantId = newId();
  await db('merchants').insert({
    id: merchantId, partner_id: partnerId, company_name: profile.name, mcc_code: profile.mcc, mcc_description: profile.mccDescription,
    zero_cost_processing_option_id: ZeroCostProcessingOption.None, is_tips_enabled: true, default_tips_options: JSON.stringify([15, 18, 20]),
    max_transaction_amount_cents: 2_500_000, avs_enabled: true, card_saving_by_terminal_enabled: false, webhooks_permission: true, created_on: now,
    sandbox_expires_at: sandboxExpiresAt,
  });
  const cardProcessorId = newId();
  const achProcessorId = newId();
  await db('payment_processors').insert([
    { id: cardProcessorId, merchant_id: merchantId, type_id: PaymentProcessorType.CardProcessor, name: 'CardProcessor (sandbox)', is_default: true,
      settlement_batch_time_slots: JSON.stringify([{ hours: 23, minutes: 0, timezoneName: 'America/New_York' }]) },
    { id: achProcessorId, merchant_id: merchantId, type_id: PaymentProcessorType.Eft, name: 'Eft (sandbox)', is_default: true,
      settlement_batch_time_slots: JSON.stringify([{ hours: 18, minutes: 0, timezoneName: 'America/New_York' }]) },
  ]);
  await db('contact_infos').insert({
    id: newId(), merchant_id: merchantId, address_name: 'Main', address_line1: '100 Main St', address_line2: null,
    city: profile.city, zip: profile.zip, country_id: 1, state_id: profile.stateId, state_name: profile.stateName, email: profile.email,
    business_phone_number: '+15555550100', is_main_address: true, is_default_address: true,
  });
  const key = await addApiKey(db, environment, partnerId, merchantId, `${profile.name} key`, now);
  return { merchantId, ...key, cardProcessorId, achProcessorId };
}
