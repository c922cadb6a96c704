// Tap-to-pay devices over HTTP: tokens (registration, login record, the JWT), activation, read and list.
import { decodeJwt, decodeProtectedHeader } from 'jose';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Deps } from '../../src/platform/deps.ts';
import { createLogger } from '../../src/platform/log.ts';
import { verifyToken } from '../../src/services/devices.ts';
import { engines, fieldsOf, startServer, type ErrorBody, type TestServer } from '../harness.ts';

const TOKEN = '/pay-api/v1/devices/tap-to-pay/jwt';
const DEVICES = '/pay-api/v1/devices';
const activatePath = (id: string): string => `${DEVICES}/${id}/tap-to-pay/activate`;
const UNKNOWN = '7c9e6679-7425-40de-944b-e07fc1f90ae7';

interface Device {
  deviceId: string; deviceName: string | null; lastLoginAt: string; apiKeyName: string;
  tapToPayStatus: string; tapToPayStatusId: number; tapToPayEnabled: boolean; userProfiles: unknown[];
}
interface Page<T> { items: T[]; total: number }
interface Token { jwtToken: string; expiresAt: string }

const newId = (): string => crypto.randomUUID();

describe.each(engines())('devices (%s)', (engine) => {
  let s: TestServer;
  beforeAll(async () => { s = await startServer(engine); });
  afterAll(async () => { await s.close(); });

  const merchantId = (i: 0 | 1): string => s.merchantId(i);
  const as = (who: 0 | 1 | 'partner', acting?: 0 | 1): Promise<Record<string, string>> => s.as(who, acting);

  async function issue(headers: Record<string, string>, body: object): Promise<Token> {
    const res = await request(s.app).post(TOKEN).set(headers).send(body);
    expect(res.status, res.text).toBe(200);
    return res.body as Token;
  }

  async function device(headers: Record<string, string>, id: string): Promise<Device> {
    const res = await request(s.app).get(`${DEVICES}/${id}`).set(headers);
    expect(res.status, res.text).toBe(200);
    return res.body as Device;
  }

  async function list(headers: Record<string, string>, query: Record<string, string | number | boolean> = {}): Promise<Page<Device>> {
    const res = await request(s.app).get(DEVICES).set(headers).query(query);
    expect(res.status, res.text).toBe(200);
    return res.body as Page<Device>;
  }

  describe('tap-to-pay token', () => {
    it('registers a new device for a null or absent deviceId and signs a one-hour token for it', async () => {
      const h = await as(0);
      const before = s.clock.now();
      const token = await issue(h, { deviceId: null });
      const after = s.clock.now();
      const claims = decodeJwt(token.jwtToken);
      expect(decodeProtectedHeader(token.jwtToken).alg).toBe('HS256');
      expect(claims).toMatchObject({ aud: 'tap-to-pay', iss: 'payment-gateway:sandbox', merchant_id: merchantId(0) });
      expect(typeof claims.jti).toBe('string');
      expect((claims.exp ?? 0) - (claims.iat ?? 0)).toBe(3600);
      expect(token.expiresAt).toBe(new Date((claims.exp ?? 0) * 1000).toISOString());
      // An hour after it was signed (in whole seconds), while the request was answered.
      expect(Date.parse(token.expiresAt)).toBeGreaterThanOrEqual(Math.floor(before.getTime() / 1000) * 1000 + 3600_000);
      expect(Date.parse(token.expiresAt)).toBeLessThanOrEqual(after.getTime() + 3600_000);
      const id = String(claims.sub);
      expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
      // Signed by the gateway: the server's key verifies it; a changed payload does not.
      const deps: Deps = { db: s.db, log: createLogger('silent'), config: s.config, clock: s.clock, wall: s.clock, instances: s.instances };
      await expect(verifyToken(deps, token.jwtToken)).resolves.toMatchObject({ sub: id });
      const [head, , signature] = token.jwtToken.split('.');
      const forged = `${String(head)}.${Buffer.from(JSON.stringify({ ...claims, merchant_id: merchantId(1) })).toString('base64url')}.${String(signature)}`;
      await expect(verifyToken(deps, forged)).rejects.toThrow();
      expect(await device(h, id)).toEqual({
        deviceId: id, deviceName: null, lastLoginAt: expect.any(String) as string, apiKeyName: 'Acme Outdoor Supply key',
        tapToPayStatus: 'Inactive', tapToPayStatusId: 1, tapToPayEnabled: false, userProfiles: [],
      });
      const absent = decodeJwt((await issue(h, {})).jwtToken).sub;
      expect(absent).not.toBe(id);
      expect((await device(h, String(absent))).tapToPayStatus).toBe('Inactive');
    });

    it('registers an unknown id as Inactive and records each login with the calling key\'s name', async () => {
      const id = newId();
      const first = await issue(await as(0), { deviceId: id });
      expect(decodeJwt(first.jwtToken).sub).toBe(id);
      const registered = await device(await as(0), id);
      expect(registered).toMatchObject({ deviceId: id, tapToPayStatus: 'Inactive', tapToPayStatusId: 1, apiKeyName: 'Acme Outdoor Supply key' });
      expect(Math.abs(Date.parse(registered.lastLoginAt) - s.clock.now().getTime())).toBeLessThan(5000);
      s.clock.advance(600);
      const second = await issue(await as('partner', 0), { deviceId: id.toUpperCase() });
      expect(decodeJwt(second.jwtToken).sub).toBe(id);
      const after = await device(await as(0), id);
      expect(after.apiKeyName).toBe('Demo partner key');
      expect(Date.parse(after.lastLoginAt) - Date.parse(registered.lastLoginAt)).toBeGreaterThanOrEqual(600_000);
      expect(Date.parse(second.expiresAt) - Date.parse(first.expiresAt)).toBeGreaterThanOrEqual(600_000);
      expect((await list(await as(0), { search: id })).total).toBe(1);
    });

    it('refuses a deactivated device and a deviceId that is not a UUID', async () => {
      const h = await as(0);
      const id = newId();
      await issue(h, { deviceId: id });
      const before = await device(h, id);
      await s.db('devices').where({ merchant_id: merchantId(0), device_id: id }).update({ tap_to_pay_status_id: 3 });
      s.clock.advance(60);
      const res = await request(s.app).post(TOKEN).set(h).send({ deviceId: id });
      expect(res.status).toBe(400);
      expect(res.body).toMatchObject({ errorCode: 'device_deactivated', statusCode: 400, entityId: id });
      expect(await device(h, id)).toEqual({ ...before, tapToPayStatus: 'Deactivated', tapToPayStatusId: 3 });
      const bad = await request(s.app).post(TOKEN).set(h).send({ deviceId: 'phone-1' });
      expect([bad.status, fieldsOf(bad.body)]).toEqual([400, ['deviceId']]);
      const typed = await request(s.app).post(TOKEN).set(h).send({ deviceId: 7 });
      expect(typed.status).toBe(400);
      expect(Object.keys((typed.body as { errors: Record<string, string> }).errors)).toEqual(['$.deviceId']);
    });

    it('is not an access token', async () => {
      const token = await issue(await as(0), { deviceId: null });
      const res = await request(s.app).get(DEVICES).set({ Authorization: `Bearer ${token.jwtToken}` });
      expect([res.status, (res.body as ErrorBody).errorCode]).toEqual([401, 'invalid_token']);
    });
  });

  describe('activation', () => {
    it('activates an Inactive device, leaves an Active one, refuses a Deactivated one', async () => {
      const h = await as(0);
      const id = newId();
      await issue(h, { deviceId: id });
      const res = await request(s.app).post(activatePath(id)).set(h);
      expect([res.status, res.text]).toEqual([200, '']);
      expect(await device(h, id)).toMatchObject({ tapToPayStatus: 'Active', tapToPayStatusId: 2, tapToPayEnabled: true });
      const again = await request(s.app).post(activatePath(id)).set(h);
      expect(again.status).toBe(200);
      expect((await device(h, id)).tapToPayStatusId).toBe(2);
      // A token for an Active device keeps it Active.
      await issue(h, { deviceId: id });
      expect((await device(h, id)).tapToPayStatus).toBe('Active');
      await s.db('devices').where({ merchant_id: merchantId(0), device_id: id }).update({ tap_to_pay_status_id: 3 });
      const refused = await request(s.app).post(activatePath(id)).set(h);
      expect(refused.status).toBe(400);
      expect(refused.body).toMatchObject({ errorCode: 'device_deactivated', entityId: id });
      expect(await device(h, id)).toMatchObject({ tapToPayStatus: 'Deactivated', tapToPayEnabled: false });
    });

    it('answers 404 for an unknown device and 400 for an id that is not a UUID', async () => {
      const h = await as(0);
      const res = await request(s.app).post(activatePath(UNKNOWN)).set(h);
      expect(res.status).toBe(404);
      expect(res.body).toMatchObject({ errorCode: 'not_found', entityId: UNKNOWN });
      const read = await request(s.app).get(`${DEVICES}/${UNKNOWN}`).set(h);
      expect([read.status, (read.body as ErrorBody).errorCode]).toEqual([404, 'not_found']);
      const bad = await request(s.app).post(activatePath('phone-1')).set(h);
      expect(bad.status).toBe(400);
    });
  });

  describe('tenancy', () => {
    it('keeps device ids to their merchant', async () => {
      const id = newId();
      await issue(await as(0), { deviceId: id });
      const other = await as(1);
      const read = await request(s.app).get(`${DEVICES}/${id}`).set(other);
      expect([read.status, (read.body as ErrorBody).errorCode]).toEqual([404, 'not_found']);
      const activate = await request(s.app).post(activatePath(id)).set(other);
      expect(activate.status).toBe(404);
      expect((await device(await as(0), id)).tapToPayStatus).toBe('Inactive');
      expect((await list(other, { search: id })).total).toBe(0);
      // The same id under merchant 1 is merchant 1's own device.
      await issue(other, { deviceId: id });
      expect(await device(other, id)).toMatchObject({ apiKeyName: 'Bluebird Bakery key', tapToPayStatus: 'Inactive' });
      await request(s.app).post(activatePath(id)).set(other).expect(200);
      expect((await device(await as(0), id)).tapToPayStatus).toBe('Inactive');
      // A partner names the merchant, or gets a 400.
      expect((await device(await as('partner', 1), id)).tapToPayStatus).toBe('Active');
      for (const res of [
        await request(s.app).get(DEVICES).set(await as('partner')),
        await request(s.app).get(`${DEVICES}/${id}`).set(await as('partner')),
        await request(s.app).post(TOKEN).set(await as('partner')).send({ deviceId: null }),
        await request(s.app).post(activatePath(id)).set(await as('partner')),
      ]) {
        expect([res.status, fieldsOf(res.body)]).toEqual([400, ['x-merchant-id']]);
      }
    });
  });

  describe('list', () => {
    it('pages, orders, searches and bounds lastLoginAt', async () => {
      // The partner's view of merchant 1, with devices made here only (merchant 1 has one from the tenancy test).
      // A fresh token: earlier tests moved the clock on, towards the cached tokens' expiry.
      const h = { Authorization: `Bearer ${await s.token('partner')}`, 'x-merchant-id': merchantId(1) };
      await s.db('devices').where({ merchant_id: merchantId(1) }).delete();
      const ids: string[] = [];
      const times: string[] = [];
      for (let i = 0; i < 17; i++) {
        s.clock.advance(2);
        const id = newId();
        await issue(h, { deviceId: id });
        ids.push(id);
        times.push((await device(h, id)).lastLoginAt);
      }
      const first = await list(h);
      expect(first.total).toBe(17);
      expect(first.items.map((d) => d.deviceId)).toEqual(ids.slice(0, 15));
      expect((await list(h, { page: 1 })).items.map((d) => d.deviceId)).toEqual(ids.slice(15));
      expect(await list(h, { page: 5, pageSize: 4 })).toEqual({ items: [], total: 17 });
      expect((await list(h, { asc: false, pageSize: 2 })).items.map((d) => d.deviceId)).toEqual([ids[16], ids[15]]);
      const window = await list(h, { dateFrom: String(times[3]), dateTo: String(times[5]) });
      expect(window.items.map((d) => d.deviceId)).toEqual(ids.slice(3, 6));
      const fragment = String(ids[9]).slice(0, 13).toUpperCase();
      expect((await list(h, { search: fragment })).items.map((d) => d.deviceId)).toEqual([ids[9]]);
      // Names and statuses (no operation sets a name: the database does, as a merchant's app would).
      await s.db('devices').where({ merchant_id: merchantId(1), device_id: ids[4] }).update({ device_name: 'Front counter' });
      await s.db('devices').where({ merchant_id: merchantId(1), device_id: ids[2] }).update({ device_name: 'back office' });
      expect((await list(h, { search: 'counter' })).items.map((d) => [d.deviceId, d.deviceName])).toEqual([[ids[4], 'Front counter']]);
      const byName = await list(h, { orderBy: 'deviceName', asc: false, pageSize: 2 });
      expect(byName.items.map((d) => d.deviceName)).toEqual(['Front counter', 'back office']);
      await request(s.app).post(activatePath(String(ids[11]))).set(h).expect(200);
      const byStatus = await list(h, { orderBy: 'tapToPayStatusId', asc: false, pageSize: 1 });
      expect(byStatus.items.map((d) => [d.deviceId, d.tapToPayStatus, d.tapToPayEnabled])).toEqual([[ids[11], 'Active', true]]);
      const badOrder = await request(s.app).get(DEVICES).set(h).query({ orderBy: 'deviceId' });
      expect([badOrder.status, fieldsOf(badOrder.body)]).toEqual([400, ['orderBy']]);
    });
  });
});
