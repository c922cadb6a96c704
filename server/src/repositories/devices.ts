// Tap-to-pay devices (Knex only), keyed by merchant and device id; and the environment's signing secret,
// from which the service derives the tap-to-pay token key.
import type { Knex } from 'knex';
import { pageOf, type ListQuery } from './paging.ts';

export interface DeviceRecord {
  merchantId: string;
  deviceId: string;
  deviceName: string | null;
  statusId: number;
  lastLoginAt: string;
  apiKeyName: string;
}

interface Row { merchant_id: string; device_id: string; device_name: string | null; tap_to_pay_status_id: number; last_login_at: string; api_key_name: string }

const toRecord = (row: Row): DeviceRecord => ({
  merchantId: row.merchant_id,
  deviceId: row.device_id,
  deviceName: row.device_name,
  statusId: row.tap_to_pay_status_id,
  lastLoginAt: row.last_login_at,
  apiKeyName: row.api_key_name,
});

export async function findDevice(db: Knex, merchantId: string, deviceId: string): Promise<DeviceRecord | undefined> {
  const row = (await db('devices').where({ merchant_id: merchantId, device_id: deviceId }).first()) as Row | undefined;
  return row ? toRecord(row) : undefined;
}

/** Registers a device unless the merchant has it already (a concurrent registration of the same id wins). */
export async function registerDevice(db: Knex, device: { merchantId: string; deviceId: string; statusId: number; lastLoginAt: string; apiKeyName: string }): Promise<void> {
  await db('devices')
    .insert({
      merchant_id: device.merchantId, device_id: device.deviceId, device_name: null, tap_to_pay_status_id: device.statusId,
      last_login_at: device.lastLoginAt, api_key_name: device.apiKeyName, created_on: device.lastLoginAt,
    })
    .onConflict(['merchant_id', 'device_id'])
    .ignore();
}

export async function recordLogin(db: Knex, merchantId: string, deviceId: string, lastLoginAt: string, apiKeyName: string): Promise<void> {
  await db('devices').where({ merchant_id: merchantId, device_id: deviceId }).update({ last_login_at: lastLoginAt, api_key_name: apiKeyName });
}

export async function setStatus(db: Knex, merchantId: string, deviceId: string, statusId: number): Promise<void> {
  await db('devices').where({ merchant_id: merchantId, device_id: deviceId }).update({ tap_to_pay_status_id: statusId });
}

export async function listDevices(db: Knex, merchantId: string, list: ListQuery): Promise<{ items: DeviceRecord[]; total: number }> {
  const { rows, total } = await pageOf(db('devices').where({ merchant_id: merchantId }), list, {
    orderable: { lastLoginAt: 'last_login_at', deviceName: 'lower(device_name)', tapToPayStatusId: 'tap_to_pay_status_id' },
    defaultOrder: 'lastLoginAt',
    searchable: ['device_name', 'device_id'],
    dateColumn: 'last_login_at',
    idColumn: 'device_id',
  });
  return { items: (rows as unknown as Row[]).map(toRecord), total };
}

