// Disposable sandbox merchants over HTTP, on both engines: creation (credentials at once, for that merchant
// only, merchant.created once), the list, refusals that change nothing, the limit, partner tenancy, and a
// production server answering 404 to each operation. Deletion, sweep and reset: sandbox-removal.test.ts.
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SANDBOX_LIMIT } from '../../src/services/sandboxes.ts';
import { engines, fieldsOf, startServer, type ErrorBody, type TestServer } from '../harness.ts';
import { snapshot } from '../../../scripts/lib/db-snapshot.ts';
import { apiCustomer, invoiceBody } from './invoice-helpers.ts';
import { achDebitBody, type Headers } from './payment-helpers.ts';
import { createSandbox, SANDBOXES, secondPartner, type Created } from './sandbox-helpers.ts';

const errorOf = (res: request.Response): ErrorBody => res.body as ErrorBody;

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

  it('makes a management user when asked (shown once), whose password grant works on the CRM token service and ends with the sandbox', async () => {
    const crm = (sb: Created, password: string): Promise<request.Response> => request(s.app).post('/crm/oauth2/token').type('form')
      .send({ grant_type: 'password', username: sb.userEmail, password, client_id: sb.clientId, client_secret: sb.clientSecret, scope: 'offline_access' });
    const sb = await createSandbox(s, partner, { managementUser: true });
    expect(sb.userEmail).toBe(`owner-${sb.merchantId}@sandbox.example`);
    expect(sb.userPassword).toMatch(/^[\w-]{16}$/);
    expect((await crm(sb, sb.userPassword ?? '')).status).toBe(200);
    expect((await crm(sb, `${sb.userPassword ?? ''}x`)).status).toBe(400);
    // Without the flag there is no user, and no user fields in the answer.
    const plain = await createSandbox(s, partner, { managementUser: false });
    expect([plain.userEmail, plain.userPassword]).toEqual([undefined, undefined]);
    expect(Number((await s.db('users').where({ merchant_id: plain.merchantId }).count({ n: '*' }).first())?.n)).toBe(0);
    // Never stored: a replay answers the password empty.
    const key = crypto.randomUUID();
    const first = await request(s.app).post(SANDBOXES).set(partner).set('Idempotency-Key', key).send({ managementUser: true });
    const again = await request(s.app).post(SANDBOXES).set(partner).set('Idempotency-Key', key).send({ managementUser: true });
    expect([(first.body as Created).userPassword?.length, (again.body as Created).userPassword]).toEqual([16, '']);
    expect(JSON.stringify(await s.db('idempotency_keys').select())).not.toContain((first.body as Created).userPassword);
    // A non-boolean is refused and makes nothing.
    const bad = await request(s.app).post(SANDBOXES).set(partner).send({ managementUser: 'yes' });
    expect([bad.status, fieldsOf(bad.body)]).toEqual([400, ['$.managementUser']]);
    // The user goes with the sandbox.
    for (const made of [sb, first.body as Created]) expect((await request(s.app).delete(`${SANDBOXES}/${made.merchantId}`).set(partner)).status).toBe(200);
    expect((await crm(sb, sb.userPassword ?? '')).status).not.toBe(200);
    expect(Number((await s.db('users').where({ email: sb.userEmail }).count({ n: '*' }).first())?.n)).toBe(0);
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
      { path: '/pay-api/v1/customers', body: apiCustomer() },
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
