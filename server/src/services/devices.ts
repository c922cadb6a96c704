// Tap-to-pay devices: registration by token request, the status table (names from the spec's
// TapToPayStatus enumeration), and the tap-to-pay token, a JWT signed with a key derived from the
// environment's signing key (so it can never pass as an access token, nor the reverse).
import { hkdfSync, randomBytes, randomUUID } from 'node:crypto';
import { SignJWT, jwtVerify, type JWTPayload } from 'jose';
import { apiSpec } from '@pgw/client/server';
import { enumeration } from '../platform/spec-data.ts';
import type { components } from '@pgw/client/types';
import type { Environment } from '../config.ts';
import type { Deps } from '../platform/deps.ts';
import { ApiError, notFound } from '../platform/errors.ts';
import type { ListQuery } from '../platform/paging.ts';
import { iso } from '../platform/time.ts';
import { withTransaction } from '../platform/transaction.ts';
import * as repo from '../repositories/devices.ts';
import type { Scope } from '../platform/scope.ts';

export type TapToPayStatusId = components['schemas']['TapToPayStatus'];
export type TapToPayStatusName = components['schemas']['Device']['tapToPayStatus'];

/** A tap-to-pay token is valid for one hour (the spec's designed lifetime). */
export const TAP_TO_PAY_TOKEN_SECONDS = 3600;
export const TAP_TO_PAY_AUDIENCE = 'tap-to-pay';

// ---- statuses: ids and names from the spec

type JsonObject = Record<string, unknown>;

const STATUS_NAMES: readonly TapToPayStatusName[] = ['Inactive', 'Active', 'Deactivated'];
const isStatusName = (value: unknown): value is TapToPayStatusName => STATUS_NAMES.includes(value as TapToPayStatusName);

/** `id -> name` of the spec's TapToPayStatus (`x-enum-varnames`); exported for tests. */
export function statusNamesOf(document: JsonObject): Map<TapToPayStatusId, TapToPayStatusName> {
  let names: Map<number, string>;
  try {
    names = enumeration('TapToPayStatus', document);
  } catch {
    names = new Map();
  }
  const entries = [...names];
  if (entries.length === 0 || !entries.every(([id, name]) => [1, 2, 3].includes(id) && isStatusName(name))) {
    throw new Error('the spec does not name the values of TapToPayStatus');
  }
  return new Map(entries as [TapToPayStatusId, TapToPayStatusName][]);
}

const statusNames = statusNamesOf(apiSpec);

function statusId(name: TapToPayStatusName): TapToPayStatusId {
  for (const [id, label] of statusNames) if (label === name) return id;
  throw new Error(`the spec has no TapToPayStatus ${name}`);
}

export function statusName(id: number): TapToPayStatusName {
  const name = statusNames.get(id as TapToPayStatusId);
  if (name === undefined) throw new Error(`unknown TapToPayStatus ${String(id)}`);
  return name;
}

/** What activation does from each status; null: refused (device_deactivated). */
const ACTIVATION: Record<TapToPayStatusName, TapToPayStatusName | null> = {
  Inactive: 'Active',
  Active: 'Active',
  Deactivated: null,
};

/** Whether a device in the status may get a tap-to-pay token. */
const TOKEN_ALLOWED: Record<TapToPayStatusName, boolean> = { Inactive: true, Active: true, Deactivated: false };

const deactivated = (deviceId: string): ApiError =>
  new ApiError('device_deactivated', { details: `The tap-to-pay device ${deviceId} is deactivated.`, entityId: deviceId });

// ---- the token key

/** HKDF of the environment's signing key (base64), for tap-to-pay tokens only: derived once at start (instances.ts). */
export const tapToPayKey = (signingKey: string, environment: Environment): Uint8Array =>
  new Uint8Array(hkdfSync('sha256', Buffer.from(signingKey, 'base64'), 'payment-gateway', `tap-to-pay-token:${environment}`, 32));

const issuer = (environment: Environment): string => `payment-gateway:${environment}`;

// ---- operations

export interface TapToPayToken {
  jwtToken: string;
  expiresAt: string;
  deviceId: string;
}

/**
 * Issues a tap-to-pay token for a device of the merchant: registers an unknown (or absent) id as Inactive,
 * refuses a Deactivated device, and records the login (time and the calling key's name). The token's
 * times are real time (a device checks them against its own clock); the login time is the merchant's.
 */
export async function issueToken(
  scope: Scope, apiKeyName: string, requestedId: string | null | undefined,
): Promise<TapToPayToken> {
  const { merchantId } = scope;
  const environment = scope.config.environment;
  const deviceId = requestedId?.toLowerCase() ?? randomUUID();
  const key = scope.instances.tapToPayKey;
  const issuedAt = Math.floor(scope.wall.now().getTime() / 1000);
  const expiresAt = issuedAt + TAP_TO_PAY_TOKEN_SECONDS;
  const lastLoginAt = iso(scope.clock.now());
  await withTransaction(scope.db, async (tx) => {
    await repo.registerDevice(tx, { merchantId, deviceId, statusId: statusId('Inactive'), lastLoginAt, apiKeyName });
    const device = await repo.findDevice(tx, merchantId, deviceId);
    if (!device) throw new Error(`device ${deviceId} vanished while registered`);
    if (!TOKEN_ALLOWED[statusName(device.statusId)]) throw deactivated(deviceId);
    await repo.recordLogin(tx, merchantId, deviceId, lastLoginAt, apiKeyName);
  });
  const jwtToken = await new SignJWT({ merchant_id: merchantId })
    .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
    .setIssuer(issuer(environment))
    .setAudience(TAP_TO_PAY_AUDIENCE)
    .setSubject(deviceId)
    .setIssuedAt(issuedAt)
    .setExpirationTime(expiresAt)
    .setJti(randomBytes(16).toString('hex'))
    .sign(key);
  return { jwtToken, expiresAt: iso(new Date(expiresAt * 1000)), deviceId };
}

/** Verifies a tap-to-pay token of this environment at real time (what a device-side check would do); throws if invalid. */
export async function verifyToken(deps: Deps, token: string): Promise<JWTPayload> {
  const environment = deps.config.environment;
  const { payload } = await jwtVerify(token, deps.instances.tapToPayKey, {
    algorithms: ['HS256'],
    issuer: issuer(environment),
    audience: TAP_TO_PAY_AUDIENCE,
    currentDate: deps.wall.now(),
    requiredClaims: ['sub', 'jti', 'exp', 'iat', 'merchant_id'],
  });
  return payload;
}

export async function activate(scope: Scope, id: string): Promise<void> {
  const { merchantId } = scope;
  const deviceId = id.toLowerCase();
  await withTransaction(scope.db, async (tx) => {
    const device = await repo.findDevice(tx, merchantId, deviceId);
    if (!device) throw notFound(id, 'device');
    const next = ACTIVATION[statusName(device.statusId)];
    if (next === null) throw deactivated(deviceId);
    if (statusId(next) !== device.statusId) await repo.setStatus(tx, merchantId, deviceId, statusId(next));
  });
}

export async function getDevice(scope: Scope, id: string): Promise<repo.DeviceRecord> {
  const { merchantId } = scope;
  const device = await repo.findDevice(scope.db, merchantId, id.toLowerCase());
  if (!device) throw notFound(id, 'device');
  return device;
}

export const listDevices = (scope: Scope, list: ListQuery): Promise<{ items: repo.DeviceRecord[]; total: number }> =>
  repo.listDevices(scope.db, scope.merchantId, list);
