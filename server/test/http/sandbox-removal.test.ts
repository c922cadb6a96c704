// Removing sandbox records over HTTP, on both engines: deletion (everything gone; while requests and a webhook
// delivery are in flight; resumed after a crash; a request that lost the race answers 401, not 500), the reset
// (records gone, clock back, credentials kept, other merchants untouched, also under concurrent writes), expiry
// and the worker's sweep on a moved wall clock, and a deletion seen at once by another PostgreSQL instance.
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { App } from '../../src/app.ts';
import { openScope } from '../../src/platform/scope.ts';
import { removeMerchant, sweepSandboxes } from '../../src/services/sandboxes.ts';
import { deliverDue } from '../../src/services/webhook-delivery.ts';
import { engines, fieldsOf, secondInstance, startServer, type ErrorBody, type TestServer } from '../harness.ts';
import { merchantRowCounts, snapshotOthers } from '../../../scripts/lib/db-snapshot.ts';
import { apiCustomer } from './invoice-helpers.ts';
import { achDebitBody, type Headers } from './payment-helpers.ts';
import { get, signIn } from './dashboard-helpers.ts';
import { bearer, createSandbox, fill, holdingReceiver, SANDBOXES, startReceiver, tokenOf, workerDeps } from './sandbox-helpers.ts';

const errorOf = (res: request.Response): ErrorBody => res.body as ErrorBody;

/** Rows a merchant keeps through a reset: its credentials and configuration. */
const KEPT = ['api_keys', 'contact_infos', 'merchants', 'payment_processors', 'users', 'dashboard_sessions'];

describe.each(engines())('sandbox deletion and reset (%s)', (engine) => {
  let s: TestServer;
  let partner: Headers;
  beforeAll(async () => {
    s = await startServer(engine);
    partner = await s.as('partner');
  });
  afterAll(async () => { await s.close(); });

  it('deletes a sandbox with everything it held; its tokens and key stop at once; a repeat answers 404', async () => {
    const receiver = await startReceiver();
    try {
      const sb = await createSandbox(s, partner, { name: 'To delete' });
      await fill(s, sb.h, sb, receiver);
      const held = await merchantRowCounts(s.db, sb.merchantId);
      for (const table of ['customers', 'payment_methods', 'transactions', 'transaction_history', 'invoices', 'invoice_line_items', 'categories', 'line_items',
        'webhook_endpoints', 'webhook_deliveries', 'webhook_attempts', 'outbox_events', 'idempotency_keys', 'settlement_batches', 'terminals', 'quick_payments', 'quick_payment_payments', 'subscriptions', 'api_keys']) {
        expect(held[table], `${table} before the delete`).toBeGreaterThan(0);
      }
      const others = await snapshotOthers(s.db, sb.merchantId);
      const res = await request(s.app).delete(`${SANDBOXES}/${sb.merchantId}`).set(partner);
      expect(res.status, res.text).toBe(200);
      expect(await merchantRowCounts(s.db, sb.merchantId)).toEqual({});
      expect((await snapshotOthers(s.db, sb.merchantId)).changedSince(others)).toEqual([]);
      const after = await request(s.app).get('/pay-api/v1/customers').set(sb.h);
      expect(after.status).toBe(401);
      const token = await request(s.app).post('/oauth2/token').type('form')
        .send({ grant_type: 'client_credentials', scope: 'offline_access', client_id: sb.clientId, client_secret: sb.clientSecret });
      expect(token.status).toBe(401);
      const again = await request(s.app).delete(`${SANDBOXES}/${sb.merchantId}`).set(partner);
      expect(again.status).toBe(404);
    } finally {
      await receiver.close();
    }
  });

  it('resumes a deletion that was interrupted: a repeat finishes it and answers 200, and so does the sweep', async () => {
    for (const finish of ['repeat', 'sweep'] as const) {
      const sb = await createSandbox(s, partner, { name: `interrupted ${finish}` });
      await request(s.app).post('/pay-api/v1/customers').set(sb.h).send(apiCustomer());
      // A crash right after the mark: the merchant is marked, nothing is removed yet.
      await s.db('merchants').where({ id: sb.merchantId }).update({ deleting_on: s.clock.now().toISOString() });
      const listed = await request(s.app).get(SANDBOXES).set(partner).query({ pageSize: 100 });
      expect(JSON.stringify(listed.body)).not.toContain(sb.merchantId);
      if (finish === 'repeat') {
        const res = await request(s.app).delete(`${SANDBOXES}/${sb.merchantId}`).set(partner);
        expect(res.status, res.text).toBe(200);
      } else {
        expect(await sweepSandboxes(workerDeps(s))).toBeGreaterThanOrEqual(1);
      }
      expect(await merchantRowCounts(s.db, sb.merchantId)).toEqual({});
    }
  });

  it('deletes while requests of the merchant and a webhook delivery are in flight: those answer 200, 401 or 404, never 500, and nothing is left', async () => {
    const receiver = await holdingReceiver();
    try {
      const sb = await createSandbox(s, partner, { name: 'Busy' });
      const hook = await request(s.app).post('/v2/webhooks/endpoints').set(sb.h).send({ name: 'held', endpointUrl: receiver.url, eventTypes: ['payment.ach.scheduled'] });
      expect(hook.status, hook.text).toBe(200);
      const debit = await request(s.app).post('/pay-api/v1/transactions/ach/payment').set(sb.h).send(achDebitBody(s, 0, { paymentProcessorId: sb.achProcessorId }));
      expect(debit.status, debit.text).toBe(200);
      const delivering = deliverDue(openScope(workerDeps(s), sb.merchantId, 0), new Date(s.clock.now().getTime() + 60_000));
      await receiver.arrived;
      const partnerActing = { ...partner, 'x-merchant-id': sb.merchantId };
      const errorsFrom = s.logLines.length;
      const one = (i: number): request.Test => {
        const h = i % 3 === 2 ? partnerActing : sb.h;
        if (i % 4 === 0) return request(s.app).post('/pay-api/v1/customers').set(h).send(apiCustomer({ email: `busy${String(i)}@example.com` }));
        if (i % 4 === 1) return request(s.app).post('/pay-api/v1/transactions/ach/payment').set(h).send(achDebitBody(s, 0, { paymentProcessorId: sb.achProcessorId }));
        if (i % 4 === 2) return request(s.app).post('/pay-int-api/categories').set(h).send({ name: `busy ${String(i)}` });
        return request(s.app).get('/pay-api/v1/customers').set(h);
      };
      // Requests keep coming in waves before, during and after the deletion, so that some authenticate before
      // its mark and write while its batches run.
      const answers: Promise<request.Response>[] = [];
      for (let i = 0; i < 12; i++) answers.push(one(i).then((r) => r));
      await new Promise((resolve) => setTimeout(resolve, 5));
      const state = { deleted: false };
      const deletion = request(s.app).delete(`${SANDBOXES}/${sb.merchantId}`).set(partner).then((r) => { state.deleted = true; return r; });
      for (let i = 12; !state.deleted || i < 36; i++) {
        answers.push(one(i).then((r) => r));
        await new Promise((resolve) => setImmediate(resolve));
        if (i > 2000) break;
      }
      const done = await deletion;
      expect(done.status, `${done.text}\n${s.logLines.slice(errorsFrom).filter((line) => line.includes('"level":50')).join('\n')}`).toBe(200);
      const settled = await Promise.all(answers);
      const statuses = settled.map((r) => r.status);
      const failures = settled.filter((r) => ![200, 400, 401, 404].includes(r.status)).map((r) => r.text);
      expect(failures).toEqual([]);
      // Some answered before the deletion took their key, some after.
      expect(statuses).toContain(200);
      expect(statuses).toContain(401);
      // A partner naming a merchant that is gone gets the tenancy refusal (400 x-merchant-id) or 404.
      expect(settled.filter((r) => r.status === 400).every((r) => fieldsOf(r.body).includes('x-merchant-id'))).toBe(true);
      receiver.release();
      await expect(delivering).resolves.toBeTypeOf('number');
      expect(await merchantRowCounts(s.db, sb.merchantId)).toEqual({});
      expect(s.logLines.slice(errorsFrom).filter((line) => line.includes('"level":50'))).toEqual([]);
    } finally {
      receiver.release();
      await receiver.close();
    }
  });

  it('finishes a deletion while writes that authenticated before its mark still arrive: another pass removes them', async () => {
    const sb = await createSandbox(s, partner, { name: 'Raced' });
    await s.db('merchants').where({ id: sb.merchantId }).update({ deleting_on: s.clock.now().toISOString() });
    const lines: string[] = [];
    const deps = workerDeps(s, lines);
    // The racing writer: rows of the merchant written while the removal runs (a request past authentication).
    let written = 0;
    const writer = (async () => {
      for (let i = 0; i < 100; i++) {
        try {
          await s.db('customers').insert({ id: crypto.randomUUID(), merchant_id: sb.merchantId, first_name: 'Late', last_name: String(i), created_on: s.clock.now().toISOString(), modified_on: s.clock.now().toISOString() });
          written += 1;
        } catch {
          // The merchant row is gone: its foreign key refuses the row, as it would a request's.
        }
        await new Promise((resolve) => setImmediate(resolve));
      }
    })();
    await removeMerchant(deps, sb.merchantId);
    await writer;
    expect(written).toBeGreaterThan(0);
    expect(lines.some((line) => line.includes('a record arrived meanwhile'))).toBe(true);
    expect(await merchantRowCounts(s.db, sb.merchantId)).toEqual({});
  });

  it('answers 401, not 500, to a request that authenticated before the deletion and writes after the merchant is gone', async () => {
    const sb = await createSandbox(s, partner, { name: 'Gone under a request' });
    // The request's authentication is kept (this process remembers API-key states between requests) ...
    expect((await request(s.app).get('/pay-api/v1/customers').set(sb.h)).status).toBe(200);
    // ... and the merchant goes without this process being told: as if the request had authenticated just before.
    await s.db('merchants').where({ id: sb.merchantId }).update({ deleting_on: s.clock.now().toISOString() });
    await removeMerchant(workerDeps(s), sb.merchantId);
    const errorsFrom = s.logLines.length;
    const writes = [
      request(s.app).post('/pay-api/v1/customers').set(sb.h).send(apiCustomer()),
      request(s.app).post('/pay-int-api/categories').set(sb.h).send({ name: 'late' }),
      request(s.app).post('/pay-api/v1/transactions/ach/payment').set(sb.h).send(achDebitBody(s, 0, { paymentProcessorId: sb.achProcessorId })),
    ];
    for (const res of await Promise.all(writes)) {
      expect([401, 404], res.text).toContain(res.status);
      expect(errorOf(res).statusCode).toBe(res.status);
    }
    expect(s.logLines.slice(errorsFrom).filter((line) => line.includes('"level":50'))).toEqual([]);
    expect(await merchantRowCounts(s.db, sb.merchantId)).toEqual({});
  });

  it('resets a merchant: its records go, its clock returns to the present, its credentials work, and no other merchant is touched', async () => {
    const receiver = await startReceiver();
    try {
      for (const who of ['merchant', 'partner'] as const) {
        const h = who === 'merchant' ? bearer(await s.token(0)) : { ...bearer(await s.token('partner')), 'x-merchant-id': s.merchantId(0) };
        const a = s.secrets.merchants[0];
        if (!a) throw new Error('no merchant A');
        await fill(s, h, a, receiver);
        const bH = bearer(await s.token(1));
        await fill(s, bH, s.secrets.merchants[1] ?? a, receiver);
        const held = await merchantRowCounts(s.db, a.merchantId);
        for (const table of ['customers', 'payment_methods', 'transactions', 'invoices', 'webhook_endpoints', 'webhook_deliveries', 'webhook_attempts', 'outbox_events', 'terminals', 'quick_payments', 'subscriptions']) {
          expect(held[table], `${table} before the reset`).toBeGreaterThan(0);
        }
        const others = await snapshotOthers(s.db, a.merchantId);
        const keptBefore = Object.fromEntries(Object.entries(held).filter(([t]) => KEPT.includes(t)));
        const res = await request(s.app).post('/sandbox/v1/reset').set(h);
        expect(res.status, res.text).toBe(200);
        const result = res.body as { merchantId: string; offsetSeconds: number; now: string; removed: Record<string, number> };
        expect(result.merchantId).toBe(a.merchantId);
        expect(result.offsetSeconds).toBe(0);
        expect(result.removed.customers).toBe(held.customers);
        expect(result.removed.transactions).toBe(held.transactions);
        expect(result.removed.webhookEndpoints).toBe(held.webhook_endpoints);
        expect(result.removed.terminals).toBe(held.terminals);
        expect(result.removed.quickPayments).toBe(held.quick_payments);
        expect(result.removed.subscriptions).toBe(held.subscriptions);
        // Only the kept rows remain, exactly as they were counted.
        const left = await merchantRowCounts(s.db, a.merchantId);
        expect(left).toEqual(keptBefore);
        expect((await snapshotOthers(s.db, a.merchantId)).changedSince(others)).toEqual([]);
        const asked = s.clock.now().getTime();
        const clock = await request(s.app).get('/sandbox/v1/clock').set(h);
        const answered = s.clock.now().getTime();
        expect((clock.body as { offsetSeconds: number }).offsetSeconds).toBe(0);
        // Real time again: the server's while it answered.
        expect(Date.parse((clock.body as { now: string }).now)).toBeGreaterThanOrEqual(asked);
        expect(Date.parse((clock.body as { now: string }).now)).toBeLessThanOrEqual(answered);
        // Its credentials still work, for a token already issued and for a new one.
        expect((await request(s.app).get('/pay-api/v1/customers').set(h)).status).toBe(200);
        expect((await request(s.app).get('/pay-api/v1/customers').set(bearer(await s.token(0)))).status).toBe(200);
      }
    } finally {
      await receiver.close();
    }
  });
  it('resets while the merchant keeps writing, also with an Idempotency-Key (one transaction): no request fails, a replay answers the same', async () => {
    const receiver = await startReceiver();
    try {
      const sb = await createSandbox(s, partner, { name: 'Reset under load' });
      await fill(s, sb.h, sb, receiver);
      const errorsFrom = s.logLines.length;
      const writes: Promise<request.Response>[] = [];
      const key = crypto.randomUUID();
      const state = { done: false };
      const reset = request(s.app).post('/sandbox/v1/reset').set(sb.h).set('Idempotency-Key', key).then((r) => { state.done = true; return r; });
      for (let i = 0; !state.done || i < 20; i++) {
        writes.push(request(s.app).post('/pay-api/v1/transactions/ach/payment').set(sb.h).send(achDebitBody(s, 0, { paymentProcessorId: sb.achProcessorId })).then((r) => r));
        await new Promise((resolve) => setImmediate(resolve));
        if (i > 2000) break;
      }
      const answer = await reset;
      expect(answer.status, `${answer.text}\n${s.logLines.slice(errorsFrom).filter((line) => line.includes('"level":50')).join('\n')}`).toBe(200);
      expect((await Promise.all(writes)).map((r) => r.status).filter((status) => status !== 200)).toEqual([]);
      expect(s.logLines.slice(errorsFrom).filter((line) => line.includes('"level":50'))).toEqual([]);
      const replay = await request(s.app).post('/sandbox/v1/reset').set(sb.h).set('Idempotency-Key', key);
      expect(replay.status).toBe(200);
      expect(replay.headers['idempotent-replayed']).toBe('true');
      expect(replay.body).toEqual(answer.body);
      // What the writes added after the reset goes with the next one; then only credentials and configuration are left.
      expect((await request(s.app).post('/sandbox/v1/reset').set(sb.h)).status).toBe(200);
      expect(Object.keys(await merchantRowCounts(s.db, sb.merchantId)).filter((t) => !KEPT.includes(t))).toEqual([]);
    } finally {
      await receiver.close();
    }
    // On PostgreSQL the reset answers only once the writes thin out (it removes what they add, pass after pass):
    // here the loop's 2,000 debits take 10-12 s alone, and over 30 s while the rest of the suite runs beside it.
  }, 120_000);
});

describe.each(engines())('sandbox expiry and sweep (%s)', (engine) => {
  let s: TestServer;
  beforeAll(async () => { s = await startServer(engine); });
  afterAll(async () => { await s.close(); });

  it('refuses a sandbox merchant at its expiry, on every way in, before any sweep; its business clock does not count', async () => {
    const partner = await s.as('partner');
    const sb = await createSandbox(s, partner, { name: 'expiring', expiresInSeconds: 120 });
    const refresh = (await request(s.app).post('/oauth2/token').type('form')
      .send({ grant_type: 'client_credentials', scope: 'offline_access', client_id: sb.clientId, client_secret: sb.clientSecret })).body as { refresh_token: string };
    const dash = await signIn(s, sb);
    const asPartner = { ...partner, 'x-merchant-id': sb.merchantId };
    const config = '/pay-api/v1/configurations/payments';
    const ways = async () => ({
      token: (await request(s.app).get(config).set(sb.h)).status,
      partner: (await request(s.app).get(config).set(asPartner)).status,
      grant: (await request(s.app).post('/oauth2/token').type('form')
        .send({ grant_type: 'client_credentials', scope: 'offline_access', client_id: sb.clientId, client_secret: sb.clientSecret })).status,
      refresh: (await request(s.app).post('/oauth2/token').type('form')
        .send({ grant_type: 'refresh_token', refresh_token: refresh.refresh_token, client_id: sb.clientId, client_secret: sb.clientSecret })).status,
      dashboard: (await get(s, dash, '/dashboard/clock')).status,
    });
    // Its own clock a week ahead: nothing expires (sandbox lifetimes are wall-clock time). Its key state is kept now.
    expect((await request(s.app).post('/sandbox/v1/clock/advance').set(sb.h).send({ seconds: 7 * 86_400 })).status).toBe(200);
    expect(await ways()).toEqual({ token: 200, partner: 200, grant: 200, refresh: 200, dashboard: 200 });
    // One second before its expiresAt: still working; at it: refused at once, by every way in.
    await s.clock.stopped(async () => {
      s.clock.advance((Date.parse(sb.expiresAt) - 1000 - s.clock.now().getTime()) / 1000);
      expect(await ways()).toEqual({ token: 200, partner: 200, grant: 200, refresh: 200, dashboard: 200 });
      s.clock.advance(1);
      const expired = await request(s.app).get(config).set(sb.h);
      expect([expired.status, errorOf(expired).details]).toEqual([401, 'The sandbox merchant of this token has expired.']);
      const named = await request(s.app).get(config).set(asPartner);
      expect([named.status, fieldsOf(named.body)]).toEqual([400, ['x-merchant-id']]);
      expect(await ways()).toEqual({ token: 401, partner: 400, grant: 401, refresh: 401, dashboard: 303 });
    });
    // No sweep ran: the merchant is still there, not even marked; the sweep removes it when it comes.
    expect(await s.db('merchants').where({ id: sb.merchantId }).first('deleting_on')).toEqual({ deleting_on: null });
    expect(await sweepSandboxes(workerDeps(s))).toBe(1);
  });

  it('sweeps a sandbox once its expiry passes on the wall clock, not before, and not on its own business clock', async () => {
    const partner = await s.as('partner');
    const short = await createSandbox(s, partner, { name: 'short', expiresInSeconds: 3600 });
    const long = await createSandbox(s, partner, { name: 'long', expiresInSeconds: 7200 });
    await request(s.app).post('/pay-api/v1/customers').set(short.h).send(apiCustomer());
    // Moving the sandbox's own clock a week ahead does not expire it.
    const advanced = await request(s.app).post('/sandbox/v1/clock/advance').set(short.h).send({ seconds: 7 * 86_400 });
    expect(advanced.status, advanced.text).toBe(200);
    expect(await sweepSandboxes(workerDeps(s))).toBe(0);
    // To 2 s before its own expiresAt, then past it: what ran since its creation may have taken a while.
    s.clock.advance((Date.parse(short.expiresAt) - 2000 - s.clock.now().getTime()) / 1000);
    expect(await sweepSandboxes(workerDeps(s))).toBe(0);
    s.clock.advance(4);
    expect(await sweepSandboxes(workerDeps(s))).toBe(1);
    expect(await merchantRowCounts(s.db, short.merchantId)).toEqual({});
    expect(Object.keys(await merchantRowCounts(s.db, long.merchantId))).toContain('merchants');
    const fresh = bearer(await s.token('partner'));
    const listed = await request(s.app).get(SANDBOXES).set(fresh);
    expect((listed.body as { items: { merchantId: string }[] }).items.map((i) => i.merchantId)).toEqual([long.merchantId]);
    s.clock.advance(3600);
    expect(await sweepSandboxes(workerDeps(s))).toBe(1);
    expect(await merchantRowCounts(s.db, long.merchantId)).toEqual({});
    // The demo merchants never expire.
    expect(Object.keys(await merchantRowCounts(s.db, s.merchantId(0)))).toContain('merchants');
    const token = await request(s.app).post('/oauth2/token').type('form')
      .send({ grant_type: 'client_credentials', scope: 'offline_access', client_id: short.clientId, client_secret: short.clientSecret });
    expect(token.status).toBe(401);
    expect(await tokenOf(s, s.secrets.partner.clientId, s.secrets.partner.clientSecret)).toBeTruthy();
  });
});

const postgresUrl = process.env.PGW_TEST_DATABASE_URL;

describe.skipIf(!postgresUrl)('sandbox deletion across instances (postgres)', () => {
  let a: TestServer;
  let second: Awaited<ReturnType<typeof secondInstance>>;
  let b: App;
  let bQueries: string[];
  beforeAll(async () => {
    a = await startServer('postgres');
    second = await secondInstance(a);
    ({ app: b, queries: bQueries } = second);
  });
  afterAll(async () => {
    await second.close();
    await a.close();
  });

  it("refuses a deleted sandbox's token on the other instance, which kept its state, as soon as the delete is answered", async () => {
    for (let round = 0; round < 3; round++) {
      const sb = await createSandbox(a, await a.as('partner'), { name: `across ${String(round)}` });
      // Instance B keeps the key state: a second request reads no api_keys row (at once, but for a reconnection).
      let kept = false;
      for (let i = 0; i < 600 && !kept; i++) {
        await request(b).get('/pay-api/v1/customers').set(sb.h);
        bQueries.splice(0);
        expect((await request(b).get('/pay-api/v1/customers').set(sb.h)).status).toBe(200);
        kept = !bQueries.some((sql) => sql.includes('api_keys'));
        if (!kept) await new Promise((resolve) => setTimeout(resolve, 100));
      }
      expect(kept).toBe(true);
      expect((await request(a.app).delete(`${SANDBOXES}/${sb.merchantId}`).set(await a.as('partner'))).status).toBe(200);
      expect((await request(b).get('/pay-api/v1/customers').set(sb.h)).status).toBe(401);
    }
  });
});
