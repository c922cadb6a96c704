// Disposable sandbox merchants and the sandbox reset over HTTP, on both engines: creation (credentials at once,
// for that merchant only, merchant.created once), refusals that change nothing, the limit, partner tenancy,
// expiry and the worker's sweep on a moved wall clock, deletion (everything gone, while requests and a webhook
// delivery are in flight), the reset (records gone, clock back, credentials kept, other merchants untouched),
// and a production server answering 404 to each operation.
import type { Knex } from 'knex';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp, type App } from '../../src/app.ts';
import { loadConfig } from '../../src/config.ts';
import { createDatabase } from '../../src/db/knex.ts';
import { createLogger } from '../../src/platform/log.ts';
import { removeMerchant, sweepSandboxes, SANDBOX_LIMIT } from '../../src/services/sandboxes.ts';
import { deliverDue } from '../../src/services/webhook-delivery.ts';
import { engines, fieldsOf, startServer, type ErrorBody, type TestServer } from '../harness.ts';
import { merchantRowCounts, snapshot, snapshotOthers } from './db-snapshot.ts';
import { customer, invoiceBody } from './invoice-helpers.ts';
import { achDebitBody, type Headers } from './payment-helpers.ts';
import {
  bearer, createSandbox, fill, holdingReceiver, SANDBOXES, secondPartner, startReceiver, tokenOf, workerDeps, type Created,
} from './sandbox-helpers.ts';

const errorOf = (res: request.Response): ErrorBody => res.body as ErrorBody;

/** Rows a merchant keeps through a reset: its credentials and configuration. */
const KEPT = ['api_keys', 'contact_infos', 'merchants', 'payment_processors', 'users', 'dashboard_sessions'];

describe.each(engines())('disposable sandboxes (%s)', (engine) => {
  let s: TestServer;
  let partner: Headers;
  beforeAll(async () => {
    s = await startServer(engine);
    partner = await s.as('partner');
  });
  afterAll(async () => { await s.close(); });

  it('creates a merchant whose credentials work at once, with processors, settings, an address and a clock at the present', async () => {
    const sb = await createSandbox(s, partner, { name: 'CI run 1', expiresInSeconds: 3600 });
    expect(sb).toMatchObject({ partnerId: s.secrets.partner.partnerId, name: 'CI run 1' });
    expect(sb.clientSecret).toMatch(/^pgw_cs_/);
    expect(Date.parse(sb.expiresAt) - Date.parse(sb.createdOn)).toBe(3600_000);
    const config = await request(s.app).get('/pay-api/v1/configurations/payments').set(sb.h);
    expect(config.status, config.text).toBe(200);
    expect(JSON.stringify(config.body)).toContain(sb.cardProcessorId);
    expect(JSON.stringify(config.body)).toContain(sb.achProcessorId);
    const contacts = await request(s.app).get('/pay-api/v1/configurations/contact-infos').set(sb.h);
    expect(contacts.status, contacts.text).toBe(200);
    const clock = await request(s.app).get('/sandbox/v1/clock').set(sb.h);
    expect((clock.body as { offsetSeconds: number }).offsetSeconds).toBe(0);
    // It takes payments on its own processors, as a demo merchant does.
    const debit = await request(s.app).post('/pay-api/v1/transactions/ach/payment').set(sb.h).send(achDebitBody(s, 0, { paymentProcessorId: sb.achProcessorId }));
    expect(debit.status, debit.text).toBe(200);
    // The default expiry is 7 days.
    const plain = await createSandbox(s, partner);
    expect(Date.parse(plain.expiresAt) - Date.parse(plain.createdOn)).toBe(7 * 86_400_000);
    expect(plain.name).toBe('Sandbox merchant');
  });

  it('emits merchant.created exactly once per creation, also when the request is replayed with its Idempotency-Key', async () => {
    const key = crypto.randomUUID();
    const first = await request(s.app).post(SANDBOXES).set(partner).set('Idempotency-Key', key).send({ name: 'Replayed' });
    const again = await request(s.app).post(SANDBOXES).set(partner).set('Idempotency-Key', key).send({ name: 'Replayed' });
    expect([first.status, again.status]).toEqual([200, 200]);
    const created = first.body as Created;
    expect((again.body as Created).merchantId).toBe(created.merchantId);
    expect((again.body as Created).clientSecret).toBe('');
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(first.headers['cache-control']).toBe('no-store');
    const events = await s.db('outbox_events').where({ type: 'merchant.created' }).select<{ merchant_id: string; payload: string }[]>('merchant_id', 'payload');
    const mine = events.filter((e) => e.merchant_id === created.merchantId);
    expect(mine).toHaveLength(1);
    expect(JSON.parse(mine[0]?.payload ?? '{}')).toEqual({ merchantId: created.merchantId, partnerId: created.partnerId, companyName: 'Replayed', createdOn: created.createdOn });
    // One event per merchant created, none for anything else.
    const sandboxes = await s.db('merchants').whereNotNull('sandbox_expires_at').select<{ id: string }[]>('id');
    expect(events.map((e) => e.merchant_id).sort()).toEqual(sandboxes.map((m) => m.id).sort());
  });

  it("works only for its own merchant: it reads none of A's or B's records, and A and B read none of its", async () => {
    const sb = await createSandbox(s, partner, { name: 'Isolated' });
    const kinds = [
      { path: '/pay-api/v1/customers', body: customer() },
      { path: '/pay-int-api/invoices', body: invoiceBody() },
      { path: '/v2/webhooks/endpoints', body: { name: 'iso', endpointUrl: 'http://127.0.0.1:9/iso', eventTypes: ['invoice.paid'] } },
    ];
    const readPath = (path: string, id: string): string => `${path}/${id}`;
    const owners: { who: string; h: Headers }[] = [{ who: 'sandbox', h: sb.h }, { who: 'A', h: await s.as(0) }, { who: 'B', h: await s.as(1) }];
    const problems: string[] = [];
    for (const kind of kinds) {
      const ids = new Map<string, string>();
      for (const owner of owners) {
        const res = await request(s.app).post(kind.path).set(owner.h).send(kind.body);
        expect(res.status, res.text).toBe(200);
        ids.set(owner.who, (res.body as { id: string }).id);
      }
      for (const reader of owners) {
        for (const [who, id] of ids) {
          const res = await request(s.app).get(readPath(kind.path, id)).set(reader.h);
          const expected = reader.who === who ? 200 : 404;
          if (res.status !== expected) problems.push(`${reader.who} reads ${who}'s ${kind.path}: ${String(res.status)}`);
        }
        const list = await request(s.app).get(kind.path).set(reader.h).query({ pageSize: 100 });
        const listed = JSON.stringify(list.body);
        for (const [who, id] of ids) if (listed.includes(id) !== (who === reader.who)) problems.push(`${reader.who} lists ${who}'s ${kind.path}`);
      }
    }
    expect(problems).toEqual([]);
  });

  it('lists the partner\'s sandbox merchants in pages, without the demo merchants, ordered as asked', async () => {
    const res = await request(s.app).get(SANDBOXES).set(partner).query({ pageSize: 2, orderBy: 'name', asc: true });
    expect(res.status, res.text).toBe(200);
    const page = res.body as { items: { merchantId: string; name: string }[]; total: number };
    const all = await s.db('merchants').whereNotNull('sandbox_expires_at').whereNull('deleting_on').count({ n: '*' }).first<{ n: number | string }>();
    expect(page.total).toBe(Number(all.n));
    expect(page.items).toHaveLength(2);
    expect(page.items.map((i) => i.name)).toEqual([...page.items.map((i) => i.name)].sort((a, b) => a.toLowerCase().localeCompare(b.toLowerCase())));
    const everything = await request(s.app).get(SANDBOXES).set(partner).query({ pageSize: 100 });
    const ids = (everything.body as { items: { merchantId: string }[] }).items.map((i) => i.merchantId);
    expect(ids).not.toContain(s.merchantId(0));
    expect(ids).not.toContain(s.merchantId(1));
  });

  it('refuses every bad create and a merchant key, in the documented shape, changing nothing', async () => {
    const soon = new Date(s.clock.now().getTime() + 30_000).toISOString();
    const tooLate = new Date(s.clock.now().getTime() + 31 * 86_400_000).toISOString();
    const cases: { name: string; h: Headers; body: unknown; status: number; code: string; fields?: string[] }[] = [
      { name: 'expiresInSeconds below 60', h: partner, body: { expiresInSeconds: 59 }, status: 400, code: 'validation_failed', fields: ['expiresInSeconds'] },
      { name: 'expiresInSeconds above 30 days', h: partner, body: { expiresInSeconds: 2_592_001 }, status: 400, code: 'validation_failed', fields: ['expiresInSeconds'] },
      { name: 'expiresInSeconds 0', h: partner, body: { expiresInSeconds: 0 }, status: 400, code: 'validation_failed', fields: ['expiresInSeconds'] },
      { name: 'expiresInSeconds negative', h: partner, body: { expiresInSeconds: -3600 }, status: 400, code: 'validation_failed', fields: ['expiresInSeconds'] },
      { name: 'expiresInSeconds fractional', h: partner, body: { expiresInSeconds: 3600.5 }, status: 400, code: 'validation_failed' },
      { name: 'expiresAt and expiresInSeconds', h: partner, body: { expiresInSeconds: 3600, expiresAt: tooLate }, status: 400, code: 'validation_failed', fields: ['expiresAt'] },
      { name: 'expiresAt in 30 seconds', h: partner, body: { expiresAt: soon }, status: 400, code: 'validation_failed', fields: ['expiresAt'] },
      { name: 'expiresAt in the past', h: partner, body: { expiresAt: '2020-01-01T00:00:00Z' }, status: 400, code: 'validation_failed', fields: ['expiresAt'] },
      { name: 'expiresAt beyond 30 days', h: partner, body: { expiresAt: tooLate }, status: 400, code: 'validation_failed', fields: ['expiresAt'] },
      { name: 'expiresAt not a date', h: partner, body: { expiresAt: 'tomorrow' }, status: 400, code: 'validation_failed', fields: ['expiresAt'] },
      { name: 'empty name', h: partner, body: { name: '' }, status: 400, code: 'validation_failed', fields: ['name'] },
      { name: 'name of 201 characters', h: partner, body: { name: 'x'.repeat(201) }, status: 400, code: 'validation_failed', fields: ['name'] },
      { name: "merchant A's key", h: await s.as(0), body: {}, status: 403, code: 'partner_key_required' },
      { name: "merchant B's key", h: await s.as(1), body: { name: 'sneaky' }, status: 403, code: 'partner_key_required' },
    ];
    const before = await snapshot(s.db);
    const wrong: string[] = [];
    for (const c of cases) {
      const res = await request(s.app).post(SANDBOXES).set(c.h).send(c.body as object);
      const body = res.body as Partial<ErrorBody> & { errors?: unknown };
      if (res.status !== c.status) wrong.push(`${c.name}: ${String(res.status)} ${res.text}`);
      else if (body.errorCode !== undefined && body.errorCode !== c.code) wrong.push(`${c.name}: errorCode ${String(body.errorCode)}`);
      else if (c.fields && body.errorCode !== undefined && JSON.stringify(fieldsOf(res.body)) !== JSON.stringify(c.fields)) wrong.push(`${c.name}: fields ${JSON.stringify(fieldsOf(res.body))}`);
    }
    expect(wrong).toEqual([]);
    expect((await snapshot(s.db)).changedSince(before)).toEqual([]);
    for (const [method, path] of [['get', SANDBOXES], ['delete', `${SANDBOXES}/${s.merchantId(0)}`]] as const) {
      const res = await request(s.app)[method](path).set(await s.as(0));
      expect(res.status, res.text).toBe(403);
      expect(errorOf(res).errorCode).toBe('partner_key_required');
    }
  });

  it(`holds at most ${String(SANDBOX_LIMIT)} sandbox merchants a partner; the next answers sandbox_limit_reached and changes nothing`, async () => {
    const other = await secondPartner(s, 'Limit Partner');
    const made: string[] = [];
    for (let i = 0; i < SANDBOX_LIMIT; i++) made.push((await createSandbox(s, other.h, { name: `limit ${String(i)}` })).merchantId);
    const before = await snapshot(s.db);
    const refused = await request(s.app).post(SANDBOXES).set(other.h).send({ name: 'one too many' });
    expect(refused.status, refused.text).toBe(400);
    expect(errorOf(refused)).toMatchObject({ errorCode: 'sandbox_limit_reached', statusCode: 400, exceptionType: 'BusinessRuleException' });
    expect((await snapshot(s.db)).changedSince(before)).toEqual([]);
    // Another partner's count is its own.
    await createSandbox(s, partner, { name: 'not limited by the other partner' });
    const deleted = await request(s.app).delete(`${SANDBOXES}/${made[0] ?? ''}`).set(other.h);
    expect(deleted.status, deleted.text).toBe(200);
    await createSandbox(s, other.h, { name: 'room again' });
  });

  it("keeps partners apart: a partner neither lists, deletes, resets nor acts on another partner's sandboxes", async () => {
    const mine = await createSandbox(s, partner, { name: 'P1 only' });
    const other = await secondPartner(s, 'Tenancy Partner');
    const theirs = await createSandbox(s, other.h, { name: 'P2 only' });
    const before = await snapshot(s.db);
    const listed = await request(s.app).get(SANDBOXES).set(other.h).query({ pageSize: 100 });
    expect((listed.body as { items: { merchantId: string }[] }).items.map((i) => i.merchantId)).toEqual([theirs.merchantId]);
    const refusals = [
      request(s.app).delete(`${SANDBOXES}/${mine.merchantId}`).set(other.h),
      request(s.app).delete(`${SANDBOXES}/${s.merchantId(0)}`).set(other.h),
      request(s.app).delete(`${SANDBOXES}/${s.merchantId(0)}`).set(partner),
      request(s.app).delete(`${SANDBOXES}/${crypto.randomUUID()}`).set(partner),
    ];
    for (const res of await Promise.all(refusals)) {
      expect(res.status, res.text).toBe(404);
      expect(errorOf(res).errorCode).toBe('not_found');
    }
    const acting = await request(s.app).post('/sandbox/v1/reset').set({ ...other.h, 'x-merchant-id': mine.merchantId });
    expect(acting.status, acting.text).toBe(400);
    expect(fieldsOf(acting.body)).toEqual(['x-merchant-id']);
    expect((await snapshot(s.db)).changedSince(before)).toEqual([]);
  });

  it('deletes a sandbox with everything it held; its tokens and key stop at once; a repeat answers 404', async () => {
    const receiver = await startReceiver();
    try {
      const sb = await createSandbox(s, partner, { name: 'To delete' });
      await fill(s, sb.h, sb, receiver);
      const held = await merchantRowCounts(s.db, sb.merchantId);
      for (const table of ['customers', 'payment_methods', 'transactions', 'transaction_history', 'invoices', 'invoice_line_items', 'categories', 'line_items',
        'webhook_endpoints', 'webhook_deliveries', 'webhook_attempts', 'outbox_events', 'idempotency_keys', 'settlement_batches', 'api_keys']) {
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
      await request(s.app).post('/pay-api/v1/customers').set(sb.h).send(customer());
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
      const delivering = deliverDue(workerDeps(s), sb.merchantId, new Date(s.clock.now().getTime() + 60_000), false);
      await receiver.arrived;
      const partnerActing = { ...partner, 'x-merchant-id': sb.merchantId };
      const errorsFrom = s.logLines.length;
      const one = (i: number): request.Test => {
        const h = i % 3 === 2 ? partnerActing : sb.h;
        if (i % 4 === 0) return request(s.app).post('/pay-api/v1/customers').set(h).send(customer({ email: `busy${String(i)}@example.com` }));
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
      request(s.app).post('/pay-api/v1/customers').set(sb.h).send(customer()),
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
        for (const table of ['customers', 'payment_methods', 'transactions', 'invoices', 'webhook_endpoints', 'webhook_deliveries', 'webhook_attempts', 'outbox_events']) {
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
        // Only the kept rows remain, exactly as they were counted.
        const left = await merchantRowCounts(s.db, a.merchantId);
        expect(left).toEqual(keptBefore);
        expect((await snapshotOthers(s.db, a.merchantId)).changedSince(others)).toEqual([]);
        const clock = await request(s.app).get('/sandbox/v1/clock').set(h);
        expect((clock.body as { offsetSeconds: number }).offsetSeconds).toBe(0);
        expect(Math.abs(Date.parse((clock.body as { now: string }).now) - s.clock.now().getTime())).toBeLessThan(5_000);
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
  });
});

describe.each(engines())('sandbox expiry and sweep (%s)', (engine) => {
  let s: TestServer;
  beforeAll(async () => { s = await startServer(engine); });
  afterAll(async () => { await s.close(); });

  it('sweeps a sandbox once its expiry passes on the wall clock, not before, and not on its own business clock', async () => {
    const partner = await s.as('partner');
    const short = await createSandbox(s, partner, { name: 'short', expiresInSeconds: 3600 });
    const long = await createSandbox(s, partner, { name: 'long', expiresInSeconds: 7200 });
    await request(s.app).post('/pay-api/v1/customers').set(short.h).send(customer());
    // Moving the sandbox's own clock a week ahead does not expire it.
    const advanced = await request(s.app).post('/sandbox/v1/clock/advance').set(short.h).send({ seconds: 7 * 86_400 });
    expect(advanced.status, advanced.text).toBe(200);
    expect(await sweepSandboxes(workerDeps(s))).toBe(0);
    s.clock.advance(3599);
    expect(await sweepSandboxes(workerDeps(s))).toBe(0);
    s.clock.advance(2);
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

describe.each(engines())('sandbox merchants in production (%s)', (engine) => {
  let s: TestServer;
  beforeAll(async () => { s = await startServer(engine, { environment: 'production' }); });
  afterAll(async () => { await s.close(); });

  it('answers 404 route_not_found to each operation, with or without a token, and changes nothing', async () => {
    const callers: Headers[] = [{}, await s.as('partner'), await s.as(0)];
    const before = await snapshot(s.db);
    const calls: [string, () => request.Test][] = [];
    for (const h of callers) {
      calls.push(
        ['list', () => request(s.app).get(SANDBOXES).set(h)],
        ['create', () => request(s.app).post(SANDBOXES).set(h).send({ name: 'prod' })],
        ['delete', () => request(s.app).delete(`${SANDBOXES}/${s.merchantId(0)}`).set(h)],
        ['reset', () => request(s.app).post('/sandbox/v1/reset').set(h)],
      );
    }
    for (const [name, call] of calls) {
      const res = await call();
      expect(res.status, `${name}: ${res.text}`).toBe(404);
      expect(errorOf(res).errorCode, name).toBe('route_not_found');
    }
    expect((await snapshot(s.db)).changedSince(before)).toEqual([]);
  });
});

const postgresUrl = process.env.PGW_TEST_DATABASE_URL;

describe.skipIf(!postgresUrl)('sandbox deletion across instances (postgres)', () => {
  let a: TestServer;
  let b: App;
  let bDb: Knex;
  const bQueries: string[] = [];
  beforeAll(async () => {
    a = await startServer('postgres');
    const schema = (await a.db.raw<{ rows: { s: string }[] }>('select current_schema() as s')).rows[0]?.s ?? '';
    bDb = createDatabase(postgresUrl ?? '', { schema });
    bDb.on('query', (q: { sql: string }) => { bQueries.push(q.sql); });
    const config = loadConfig({ PGW_ENV: 'sandbox', DATABASE_URL: postgresUrl ?? '', PORT: '0', LOG_LEVEL: 'silent' });
    b = await createApp({ config, db: bDb, log: createLogger('silent'), clock: a.clock });
  });
  afterAll(async () => {
    await b.close();
    await bDb.destroy();
    await a.close();
  });

  it("refuses a deleted sandbox's token on the other instance, which kept its state, as soon as the delete is answered", async () => {
    for (let round = 0; round < 3; round++) {
      const sb = await createSandbox(a, await a.as('partner'), { name: `across ${String(round)}` });
      // Instance B keeps the key state: a second request reads no api_keys row.
      let kept = false;
      for (let i = 0; i < 50 && !kept; i++) {
        await request(b).get('/pay-api/v1/customers').set(sb.h);
        bQueries.length = 0;
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
