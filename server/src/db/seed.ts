// Demo data on first start with an empty database: one partner, two merchants under it, and for each
// merchant a card processor, an ACH (Eft) processor, a main contact address, an API key and a user of the
// management API. The credentials file is the only place the secrets are ever written.
import { randomBytes, randomUUID } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { Environment } from '../config.ts';
import type { Database } from './knex.ts';
import { hashPassword } from '../platform/passwords.ts';
import { iso, type Clock } from '../platform/time.ts';
import { hashSecret, newApiKey } from '../platform/tokens.ts';

export interface MerchantCredentials {
  merchantId: string;
  clientId: string;
  clientSecret: string;
  cardProcessorId: string;
  achProcessorId: string;
  /** The management API user (second token service, password grant). */
  userEmail: string;
  userPassword: string;
}

export interface CredentialsFile {
  environment: string;
  baseUrl: string;
  authUrl: string;
  crmAuthUrl: string;
  partner: { partnerId: string; clientId: string; clientSecret: string };
  merchants: MerchantCredentials[];
}

const DEMO_MERCHANTS = [
  { name: 'Acme Outdoor Supply', mcc: '5941', mccDescription: 'Sporting Goods Stores', email: 'owner@acme-outdoor.example', city: 'Austin', stateId: 44, stateName: 'Texas', zip: '78701' },
  { name: 'Bluebird Bakery', mcc: '5462', mccDescription: 'Bakeries', email: 'owner@bluebird-bakery.example', city: 'Portland', stateId: 38, stateName: 'Oregon', zip: '97205' },
];

async function addApiKey(trx: Database, environment: Environment, partnerId: string, merchantId: string | null, name: string, now: string): Promise<{ clientId: string; clientSecret: string }> {
  const key = newApiKey();
  await trx('api_keys').insert({
    client_id: key.clientId, partner_id: partnerId, merchant_id: merchantId, name, secret_hash: hashSecret(key.clientSecret), is_active: true, created_on: now, environment,
  });
  return key;
}

/** Creates the demo data (its API keys of `environment`) when the database holds no partner; returns the secrets it made, once. */
export async function seedDemoData(db: Database, clock: Clock, environment: Environment): Promise<Omit<CredentialsFile, 'environment' | 'baseUrl' | 'authUrl' | 'crmAuthUrl'> | undefined> {
  const existing = (await db('partners').first()) as unknown;
  if (existing) return undefined;
  const now = iso(clock.now());
  return db.transaction(async (trx) => {
    const partnerId = randomUUID();
    await trx('partners').insert({ id: partnerId, name: 'Demo Partner', status_id: 1, business_category_id: 2, business_model_type_id: 1, created_on: now });
    const partnerKey = await addApiKey(trx, environment, partnerId, null, 'Demo partner key', now);
    const merchants: MerchantCredentials[] = [];
    for (const demo of DEMO_MERCHANTS) {
      const merchantId = randomUUID();
      await trx('merchants').insert({
        id: merchantId, partner_id: partnerId, company_name: demo.name, mcc_code: demo.mcc, mcc_description: demo.mccDescription,
        zero_cost_processing_option_id: 0, is_tips_enabled: true, default_tips_options: JSON.stringify([15, 18, 20]),
        max_transaction_amount_cents: 2_500_000, avs_enabled: true, card_saving_by_terminal_enabled: false, webhooks_permission: true, created_on: now,
      });
      const cardProcessorId = randomUUID();
      const achProcessorId = randomUUID();
      await trx('payment_processors').insert([
        { id: cardProcessorId, merchant_id: merchantId, type_id: 1, name: 'CardProcessor (sandbox)', is_default: true,
          settlement_batch_time_slots: JSON.stringify([{ hours: 23, minutes: 0, timezoneName: 'America/New_York' }]) },
        { id: achProcessorId, merchant_id: merchantId, type_id: 2, name: 'Eft (sandbox)', is_default: true,
          settlement_batch_time_slots: JSON.stringify([{ hours: 18, minutes: 0, timezoneName: 'America/New_York' }]) },
      ]);
      await trx('contact_infos').insert({
        id: randomUUID(), merchant_id: merchantId, address_name: 'Main', address_line1: '100 Main St', address_line2: null,
        city: demo.city, zip: demo.zip, country_id: 1, state_id: demo.stateId, state_name: demo.stateName, email: demo.email,
        business_phone_number: '+15555550100', is_main_address: true, is_default_address: true,
      });
      const key = await addApiKey(trx, environment, partnerId, merchantId, `${demo.name} key`, now);
      const userPassword = randomBytes(12).toString('base64url');
      await trx('users').insert({
        id: randomUUID(), merchant_id: merchantId, email: demo.email, first_name: 'Demo', last_name: 'Owner',
        password_hash: await hashPassword(userPassword), created_on: now,
      });
      merchants.push({ merchantId, clientId: key.clientId, clientSecret: key.clientSecret, cardProcessorId, achProcessorId, userEmail: demo.email, userPassword });
    }
    return { partner: { partnerId, ...partnerKey }, merchants };
  });
}

/** Writes the credentials file (owner-only), or refreshes its addresses when it already exists. */
export function writeCredentials(file: string, addresses: Pick<CredentialsFile, 'environment' | 'baseUrl' | 'authUrl' | 'crmAuthUrl'>,
  secrets?: Omit<CredentialsFile, 'environment' | 'baseUrl' | 'authUrl' | 'crmAuthUrl'>): boolean {
  let content: CredentialsFile | undefined;
  if (secrets) content = { ...addresses, ...secrets };
  else if (existsSync(file)) content = { ...(JSON.parse(readFileSync(file, 'utf8')) as CredentialsFile), ...addresses };
  if (!content) return false;
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, `${JSON.stringify(content, null, 2)}\n`, { mode: 0o600 });
  chmodSync(file, 0o600);
  return true;
}
