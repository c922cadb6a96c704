// Demo data on first start with an empty database: one partner, two merchants under it, and for each
// merchant a card processor, an ACH (Eft) processor, a main contact address, an API key and a user of the
// management API. The credentials file is the only place the secrets are ever written.
import { randomBytes } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { Environment } from '../config.ts';
import type { Database } from './knex.ts';
import { hashPassword } from '../platform/passwords.ts';
import { insertUser } from '../repositories/users.ts';
import { iso, type Clock } from '../platform/time.ts';
import { addApiKey, insertPartner, setUpMerchant, type MerchantProfile } from '../repositories/merchant-setup.ts';

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

const DEMO_MERCHANTS: MerchantProfile[] = [
  { name: 'Acme Outdoor Supply', mcc: '5941', mccDescription: 'Sporting Goods Stores', email: 'owner@acme-outdoor.example', city: 'Austin', stateId: 44, stateName: 'Texas', zip: '78701' },
  { name: 'Bluebird Bakery', mcc: '5462', mccDescription: 'Bakeries', email: 'owner@bluebird-bakery.example', city: 'Portland', stateId: 38, stateName: 'Oregon', zip: '97205' },
];

/** Creates the demo data (its API keys of `environment`) when the database holds no partner; returns the secrets it made, once. */
export async function seedDemoData(db: Database, clock: Clock, environment: Environment): Promise<Omit<CredentialsFile, 'environment' | 'baseUrl' | 'authUrl' | 'crmAuthUrl'> | undefined> {
  const existing = (await db('partners').first()) as unknown;
  if (existing) return undefined;
  const now = iso(clock.now());
  return db.transaction(async (trx) => {
    const partnerId = await insertPartner(trx, 'Demo Partner', now);
    const partnerKey = await addApiKey(trx, environment, partnerId, null, 'Demo partner key', now);
    const merchants: MerchantCredentials[] = [];
    for (const demo of DEMO_MERCHANTS) {
      const setUp = await setUpMerchant(trx, environment, partnerId, demo, now);
      const userPassword = randomBytes(12).toString('base64url');
      await insertUser(trx, { merchantId: setUp.merchantId, email: demo.email, firstName: 'Demo', lastName: 'Owner', passwordHash: await hashPassword(userPassword), createdOn: now });
      merchants.push({ ...setUp, userEmail: demo.email, userPassword });
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
