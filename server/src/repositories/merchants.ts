// Merchants, their payment processors and contact addresses (Knex only). Amounts stay in integer cents
// (`…Cents`); the responses convert them to USD.
import type { Knex } from 'knex';
import { PaymentProcessorType } from '@pgw/client/enums';
import { compiledSelect } from './compiled.ts';
import { centsOrNullOfColumn } from '../platform/money.ts';

export interface MerchantRow {
  id: string;
  partner_id: string;
  company_name: string;
  mcc_code: string;
  mcc_description: string;
  zero_cost_processing_option_id: number;
  is_tips_enabled: boolean | number;
  default_tips_options: string | null;
  default_surcharge_rate: number | string | null;
  default_cash_discount_rate: number | string | null;
  default_dual_pricing_rate: number | string | null;
  max_transaction_amount_cents: number | string | null;
  avs_enabled: boolean | number;
  card_saving_by_terminal_enabled: boolean | number;
}

export interface ProcessorRecord {
  id: string;
  name: string;
  isDefault: boolean;
  typeId: PaymentProcessorType;
  settlementBatchTimeSlots: { hours: number; minutes: number; timezoneName: string }[];
}

const numberOrNull = (v: number | string | null): number | null => (v === null ? null : Number(v));

const merchantById = compiledSelect<{ id: string }, MerchantRow>((db, v) => db('merchants').where({ id: v.id }).first());

export async function findMerchant(db: Knex, id: string): Promise<MerchantRow | undefined> {
  return (await merchantById(db, { id }))[0];
}

export function merchantSettings(row: MerchantRow) {
  return {
    tipsOptions: row.default_tips_options === null ? null : (JSON.parse(row.default_tips_options) as number[]),
    surchargeRate: numberOrNull(row.default_surcharge_rate),
    cashDiscountRate: numberOrNull(row.default_cash_discount_rate),
    dualPricingRate: numberOrNull(row.default_dual_pricing_rate),
    maxTransactionAmountCents: centsOrNullOfColumn(row.max_transaction_amount_cents),
  };
}

/** The merchant's sandbox clock offset (ms ahead of real time); 0 for an unknown merchant. */
export async function clockOffsetOf(db: Knex, merchantId: string): Promise<number> {
  const row = await db('merchants').where({ id: merchantId }).first<{ clock_offset_ms: number | string } | undefined>('clock_offset_ms');
  return Number(row?.clock_offset_ms ?? 0);
}

interface ProcessorRow { id: string; name: string; is_default: boolean | number; type_id: number; settlement_batch_time_slots: string }

const processorsByMerchant = compiledSelect<{ merchantId: string }, ProcessorRow>((db, v) => db('payment_processors').where({ merchant_id: v.merchantId }).orderBy([{ column: 'type_id' }, { column: 'name' }]));

const processorOf = (r: ProcessorRow): ProcessorRecord => ({
  id: r.id,
  name: r.name,
  isDefault: Boolean(r.is_default),
  typeId: r.type_id === PaymentProcessorType.Eft ? PaymentProcessorType.Eft : PaymentProcessorType.CardProcessor,
  settlementBatchTimeSlots: JSON.parse(r.settlement_batch_time_slots) as ProcessorRecord['settlementBatchTimeSlots'],
});

export async function processorsOf(db: Knex, merchantId: string): Promise<ProcessorRecord[]> {
  return (await processorsByMerchant(db, { merchantId })).map(processorOf);
}

/** What a payment reads of its merchant: the limit and the processors (in processorsOf's order). */
export interface PaymentSetupRecord {
  maxTransactionAmountCents: ReturnType<typeof centsOrNullOfColumn>;
  processors: ProcessorRecord[];
}

/** A processor's columns, null for a merchant without processors (the left join's one row). */
type SetupRow = { [K in keyof ProcessorRow]: ProcessorRow[K] | null } & { max_transaction_amount_cents: number | string | null };

const setupByMerchant = compiledSelect<{ merchantId: string }, SetupRow>((db, v) => db('merchants as m')
  .leftJoin('payment_processors as p', 'p.merchant_id', 'm.id')
  .where({ 'm.id': v.merchantId })
  .orderBy([{ column: 'p.type_id' }, { column: 'p.name' }])
  .select('m.max_transaction_amount_cents', 'p.id', 'p.name', 'p.is_default', 'p.type_id', 'p.settlement_batch_time_slots'));

/** The merchant's limit and processors in one statement; undefined for an unknown merchant. */
export async function paymentSetupOf(db: Knex, merchantId: string): Promise<PaymentSetupRecord | undefined> {
  const rows = await setupByMerchant(db, { merchantId });
  const [first] = rows;
  if (first === undefined) return undefined;
  return {
    maxTransactionAmountCents: centsOrNullOfColumn(first.max_transaction_amount_cents),
    // A merchant without processors: one row, its processor columns null.
    processors: rows.flatMap((r) => (r.id === null ? [] : [processorOf(r as ProcessorRow)])),
  };
}

export interface ContactInfoRow {
  id: string; merchant_id: string; address_name: string; address_line1: string; address_line2: string | null; city: string; zip: string;
  country_id: number; state_id: number | null; state_name: string | null; email: string; business_phone_number: string;
  is_main_address: boolean | number; is_default_address: boolean | number;
}

export async function contactInfosOf(db: Knex, merchantId: string): Promise<ContactInfoRow[]> {
  return db('contact_infos').where({ merchant_id: merchantId })
    .orderByRaw('is_main_address desc, lower(address_name) asc, id asc')
    .select<ContactInfoRow[]>('*');
}
