// The other commands end to end (clock, clock advance, logs, events resend), and the CLI's failures: each
// class of usage error exits 2 with a message naming the problem, configuration and credential problems
// exit 3, an unreachable server exits 4, the API's error answer exits 1; --help works on every command.
import { writeFileSync } from 'node:fs';
import { createServer as createHttpServer } from 'node:http';
import { createServer, type AddressInfo } from 'node:net';
import path from 'node:path';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runDue } from '../../server/src/worker/run-due.ts';
import { pgw, startGateway, type Gateway } from './helpers.ts';

const UNKNOWN = '7c9e6679-7425-40de-944b-e07fc1f90ae7';

describe('pgw commands against the bundled server', () => {
  let g: Gateway;
  let env: Record<string, string>;
  beforeAll(async () => {
    g = await startGateway();
    env = { PGW_CONFIG: g.config };
  });
  afterAll(async () => { await g.close(); });

  it('shows the clock and advances it by a duration', async () => {
    const shown = await pgw(['clock'], env);
    expect(shown.code, shown.stderr).toBe(0);
    expect(shown.stdout).toMatch(new RegExp(`merchant ${g.s.merchantId(0)}, 0 s ahead`));
    await request(g.s.app).post('/pay-api/v1/transactions/card/sale').set(await g.s.as(0))
      .send({ amount: 10, card: { pan: '4111111111111111', expirationMonth: 12, expirationYear: 2030, securityCode: '123' } });
    const advanced = await pgw(['clock', 'advance', '1d2h'], env);
    expect(advanced.code, advanced.stderr).toBe(0);
    expect(advanced.stdout).toContain(`${String(26 * 3600)} s ahead`);
    expect(advanced.stdout).toMatch(/ran: .*cardSettled 1/);
    const other = await pgw(['clock', '--merchant', '1'], env);
    expect(other.stdout).toMatch(new RegExp(`merchant ${g.s.merchantId(1)}, 0 s ahead`));
  });

  it('lists deliveries and resends a Failed one by its event id and by its delivery id', async () => {
    const h = await g.s.as(1);
    const hook = await request(g.s.app).post('/v2/webhooks/endpoints').set(h)
      .send({ name: 'closed port', endpointUrl: 'http://127.0.0.1:9/hooks', eventTypes: ['payment.card.captured'] });
    expect(hook.status, hook.text).toBe(200);
    await request(g.s.app).post('/pay-api/v1/transactions/card/sale').set(h)
      .send({ amount: 10, card: { pan: '4111111111111111', expirationMonth: 12, expirationYear: 2030, securityCode: '123' } });
    // Seven attempts on the merchant's clock: every retry falls due within two days. The advance queues them;
    // the delivery engine (the worker's, here run by the test) makes them afterwards, each at its due time.
    const advanced = await pgw(['clock', 'advance', '2d', '--merchant', '1'], env);
    expect(advanced.code, advanced.stderr).toBe(0);
    expect(advanced.stdout).toMatch(/webhookAttempts 1/);
    expect((await runDue({ ...g.s, wall: g.s.clock }, g.s.clock.now())).webhookAttempts).toBe(7);
    const logs = await pgw(['logs', '--status', 'Failed', '--merchant', '1'], env);
    expect(logs.code, logs.stderr).toBe(0);
    const row = logs.stdout.split('\n').find((l) => l.includes('payment.card.captured'));
    expect(row, logs.stdout).toMatch(/Failed\s+7/);
    const [deliveryId, eventId] = row?.match(/[0-9a-f-]{36}/g) ?? [];
    // The header sits over its values: each left-aligned title starts where its value does, `try` and `http`
    // (right-aligned numbers) end where theirs do.
    const header = logs.stdout.split('\n').find((l) => l.startsWith('created')) ?? '';
    const at = (line: string | undefined, text: string): number => line?.indexOf(text) ?? -1;
    const ends = (line: string | undefined, pattern: RegExp): number => { const m = line?.match(pattern); return m?.index === undefined ? -1 : m.index + m[0].length; };
    expect([at(header, 'event type'), at(header, 'status'), at(header, 'delivery id'), at(header, 'event id')], `${header}\n${row ?? ''}`)
      .toEqual([at(row, 'payment.card.captured'), at(row, 'Failed'), at(row, deliveryId ?? '?'), at(row, eventId ?? '?')]);
    expect([ends(header, /try/), ends(header, /http/)], `${header}\n${row ?? ''}`).toEqual([ends(row, /Failed\s+7/), ends(row, /Failed\s+7\s+-/)]);
    const byEvent = await pgw(['events', 'resend', eventId ?? '', '--merchant', '1'], env);
    expect(byEvent.code, `${logs.stdout}\n${byEvent.stderr}`).toBe(0);
    expect(byEvent.stdout).toContain(`resent delivery ${deliveryId ?? ''} of event ${eventId ?? ''}`);
    const byDelivery = await pgw(['events', 'resend', deliveryId ?? '', '--merchant', '1'], env);
    expect(byDelivery.code, `${logs.stdout}\n${byDelivery.stderr}`).toBe(0);
    expect(byDelivery.stdout).toContain(`resent delivery ${deliveryId ?? ''}`);
    // An id of nothing: the API's answer, exit 1.
    const none = await pgw(['events', 'resend', UNKNOWN, '--merchant', '1'], env);
    expect(none.code).toBe(1);
    expect(none.stderr).toMatch(/no delivery has the id/);
  });

  it('resends a delivery still being retried at once, and a delivered one only with --force', async () => {
    const hits: string[] = [];
    const receiver = createHttpServer((req, res) => { hits.push(String(req.headers['webhook-id'])); req.resume(); res.writeHead(204).end(); });
    await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
    try {
      const h = await g.s.as(0);
      const hook = await request(g.s.app).post('/v2/webhooks/endpoints').set(h)
        .send({ name: 'live', endpointUrl: `http://127.0.0.1:${String((receiver.address() as AddressInfo).port)}/hooks`, eventTypes: ['payment.card.captured'] });
      expect(hook.status, hook.text).toBe(200);
      await request(g.s.app).post('/pay-api/v1/transactions/card/sale').set(h)
        .send({ amount: 11, card: { pan: '4111111111111111', expirationMonth: 12, expirationYear: 2030, securityCode: '123' } });
      const log = await request(g.s.app).get('/v2/webhooks/delivery-logs').set(h).query({ webhookId: (hook.body as { id: string }).id });
      const [pending] = (log.body as { items: { id: string; eventId: string; status: string }[] }).items;
      expect(pending?.status).toBe('Pending');
      // Pending (the delivery engine has not run): resent now; its success ends the delivery's schedule.
      const now = await pgw(['events', 'resend', pending?.id ?? ''], env);
      expect(now.code, now.stderr).toBe(0);
      expect(now.stdout).toMatch(new RegExp(`resent delivery ${pending?.id ?? ''}: new delivery [0-9a-f-]{36} \\(Succeeded\\)`));
      // Delivered: by its event id, refused without --force (nothing sent), resent once with it.
      const refused = await pgw(['events', 'resend', pending?.eventId ?? ''], env);
      expect([refused.code, refused.stderr]).toEqual([1, expect.stringMatching(/was delivered to each of its webhooks .*add --force/)]);
      const forced = await pgw(['events', 'resend', pending?.eventId ?? '', '--force'], env);
      expect(forced.code, forced.stderr).toBe(0);
      expect(forced.stdout.trim().split('\n')).toEqual([expect.stringMatching(new RegExp(`^resent delivery ${pending?.id ?? ''} of event ${pending?.eventId ?? ''}: new delivery .* \\(Succeeded\\)$`))]);
      expect(hits).toEqual([pending?.eventId, pending?.eventId]);
    } finally {
      receiver.closeAllConnections();
      await new Promise((r) => receiver.close(r));
    }
  });

  it.each([
    ['an unknown command', ['lsiten'], /unknown command "lsiten" \(did you mean listen\?\)/],
    ['an unknown option', ['listen', '--forward', 'http://127.0.0.1:1/'], /unknown option --forward \(did you mean --forward-to\?\)/],
    ['listen without --forward-to', ['listen'], /--forward-to URL is required/],
    ['a forward URL that is not one', ['listen', '--forward-to', 'localhost:8080'], /http or https URL|is not a URL/],
    ['an unknown event type to listen to', ['listen', '--forward-to', 'http://127.0.0.1:1/', '--events', 'payment.card.captured,payment.card.refundd'], /unknown event type "payment.card.refundd" \(did you mean payment.card.refunded\?\)/],
    ['an --after that is not an event id', ['listen', '--forward-to', 'http://127.0.0.1:1/', '--after', '42'], /--after "42" is not an event id/],
    ['an unknown event type to trigger', ['trigger', 'payment.ach.clered'], /unknown event type "payment.ach.clered" \(did you mean payment.ach.cleared\?\)/],
    ['trigger without a type', ['trigger'], /the event type .* is missing/],
    ['a duration without a unit', ['clock', 'advance', '3'], /"3" is not a duration/],
    ['a duration with an unknown unit', ['clock', 'advance', '2y'], /"2y" is not a duration/],
    ['a zero duration', ['clock', 'advance', '0s'], /is 0 s: a clock advance is 1 s to 365 days/],
    ['a duration over a year', ['clock', 'advance', '53w'], /a clock advance is 1 s to 365 days/],
    ['clock advance without a duration', ['clock', 'advance'], /the duration .* is missing/],
    ['an unknown clock subcommand', ['clock', 'rewind', '1d'], /unknown subcommand "rewind"/],
    ['a resend id that is not a UUID', ['events', 'resend', 'abc'], /"abc" is not a delivery or event id/],
    ['events without resend', ['events', 'replay'], /unknown subcommand "replay"/],
    ['a --limit out of range', ['logs', '--limit', '500'], /--limit "500" must be a whole number from 1 to 100/],
    ['a --status that is none', ['logs', '--status', 'Done'], /--status "Done" must be Pending, Succeeded or Failed/],
  ])('exits 2 on %s, saying what is wrong, before reading any configuration', async (_name, args, message) => {
    // No configuration at all: a usage error is reported as one, not as a missing configuration.
    const run = await pgw(args, { PGW_CONFIG: path.join(g.dir, 'absent.json') });
    expect(run.code, run.stderr).toBe(2);
    expect(run.stderr).toMatch(message);
    expect(run.stdout).toBe('');
  });

  it('exits 3 on configuration and credential problems, naming them', async () => {
    const absent = await pgw(['clock'], { PGW_CONFIG: path.join(g.dir, 'absent.json') });
    expect(absent.code).toBe(3);
    expect(absent.stderr).toMatch(/cannot read the configuration file .*absent\.json: ENOENT/);
    const broken = path.join(g.dir, 'broken.json');
    writeFileSync(broken, '{ "baseUrl": ');
    const notJson = await pgw(['clock', '--credentials', broken], env);
    expect(notJson.code).toBe(3);
    expect(notJson.stderr).toMatch(/is not valid JSON/);
    const wrong = await pgw(['clock', '--client-secret', 'not-the-secret'], env);
    expect(wrong.code).toBe(3);
    expect(wrong.stderr).toMatch(/refused the credentials: 401 invalid_client/);
    expect(wrong.stderr).not.toContain('not-the-secret');
    const listenWrong = await pgw(['listen', '--forward-to', 'http://127.0.0.1:1/', '--client-secret', 'nope'], env);
    expect(listenWrong.code).toBe(3);
    const noMerchant = await pgw(['clock', '--merchant', '7'], env);
    expect(noMerchant.code).toBe(3);
    expect(noMerchant.stderr).toMatch(/--merchant 7: .* has 2 merchant\(s\)/);
    const missing = await pgw(['clock', '--base-url', g.base], { PGW_CONFIG: path.join(g.dir, 'absent.json'), HOME: g.dir });
    expect(missing.code).toBe(3);
  });

  it("triggers merchant.created only with a partner's key: without one it exits 3 saying so, and makes nothing", async () => {
    const before = await g.s.db('merchants').count<{ n: number | string }>({ n: '*' }).first();
    const run = await pgw(['trigger', 'merchant.created'], env);
    expect(run.code, run.stderr).toBe(3);
    expect(run.stderr).toMatch(/missing --client-id, --client-secret: .* this needs a partner's key: the file's "partner" entry/);
    expect(await g.s.db('merchants').count<{ n: number | string }>({ n: '*' }).first()).toEqual(before);
    const listen = await pgw(['listen', '--partner', '--forward-to', 'http://127.0.0.1:1/'], env);
    expect(listen.code).toBe(3);
    expect(listen.stderr).toMatch(/this needs a partner's key/);
  });

  it('exits 4 when the server cannot be reached, and 1 when the API refuses', async () => {
    // A port that was free a moment ago: nothing listens there.
    const probe = createServer().listen(0, '127.0.0.1');
    await new Promise((r) => probe.once('listening', r));
    const closed = `http://127.0.0.1:${String((probe.address() as AddressInfo).port)}`;
    await new Promise((r) => probe.close(r));
    const down = await pgw(['clock', '--base-url', closed, '--auth-url', closed], env);
    expect(down.code).toBe(4);
    expect(down.stderr).toContain(`cannot reach ${closed}: ECONNREFUSED`);
    const listenDown = await pgw(['listen', '--forward-to', 'http://127.0.0.1:1/', '--base-url', closed, '--auth-url', closed], env);
    expect(listenDown.code).toBe(4);
    // An --after naming no event of this merchant: the stream's 400, exit 1.
    const refused = await pgw(['listen', '--forward-to', 'http://127.0.0.1:1/', '--after', UNKNOWN], env);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/the event stream was refused: 400 .*Last-Event-ID: names no event of this merchant/);
  });

  it('prints help for every command, with the exit codes', async () => {
    const main = await pgw(['--help'], {});
    expect(main.code).toBe(0);
    expect(main.stdout).toMatch(/Exit codes:[\s\S]*2 {2}usage error[\s\S]*4 {2}the server cannot be reached/);
    for (const command of ['listen', 'trigger', 'events', 'clock', 'logs', 'sandbox', 'reset']) {
      const run = await pgw([command, '--help'], {});
      expect(run.code, command).toBe(0);
      expect(run.stdout).toContain(`Usage: pgw ${command}`);
      expect(run.stdout).toContain('Exit codes:');
      expect((await pgw(['help', command], {})).stdout).toBe(run.stdout);
    }
    const list = await pgw(['trigger', '--list'], {});
    expect(list.code).toBe(0);
    expect(list.stdout).toMatch(/payment\.ach\.cleared\s+an ACH debit, settled/);
    expect(list.stdout).toMatch(/terminal\.added\s+a terminal registered\n/);
    expect(list.stdout).toMatch(/terminal\.out_of_paper\s+a terminal registered, then its paper reported Empty/);
    expect(list.stdout).toMatch(/quick_payment\.created\s+a payment link created\n/);
    expect(list.stdout).toMatch(/quick_payment\.paid\s+a payment link created, then paid by card/);
    for (const type of ['subscription.created', 'subscription.paid', 'subscription.payment_failed', 'subscription.delinquent']) {
      expect(list.stdout).toMatch(new RegExp(`${type.replace('.', '\\.')}\\s+a monthly subscription`));
    }
    expect(list.stdout).toMatch(/merchant\.created\s+a sandbox merchant created under the partner, with the partner's key/);
    // Every event type of the spec is listed as triggerable; none is left over.
    expect(list.stdout).not.toContain('Event types it cannot trigger');
  });

  // Built-in triggers work at any sandbox clock: `${now}` in a fixture is the merchant's business clock, which
  // the server judges due dates by (30 days from wall time is past once the clock is ahead). Last: it moves the clock.
  it.each(['invoice.created', 'invoice.paid'])('%s: the invoice is due 30 days after the business clock, not the wall clock', async (type) => {
    // Global options before the command, as CI recipes write them.
    const advanced = await pgw(['--merchant', '0', 'clock', 'advance', '90d'], env);
    expect(advanced.code, advanced.stderr).toBe(0);
    const clock = await request(g.s.app).get('/sandbox/v1/clock').set(await g.s.as(0));
    const businessNow = Date.parse((clock.body as { now: string }).now);
    expect(businessNow - Date.now()).toBeGreaterThan(80 * 86_400_000);

    const run = await pgw(['trigger', type], env);
    expect(run.code, `${run.stdout}${run.stderr}`).toBe(0);
    const id = /invoice ([0-9a-f-]{36})/.exec(run.stdout)?.[1];
    expect(id, run.stdout).toBeDefined();
    const invoice = await request(g.s.app).get(`/pay-int-api/invoices/${id ?? ''}`).set(await g.s.as(0));
    expect(invoice.status, invoice.text).toBe(200);
    const due = Date.parse((invoice.body as { dueDate: string }).dueDate);
    // 30 days after the business clock (a day's slack either way for the date's rounding), far from wall time.
    expect(Math.abs(due - (businessNow + 30 * 86_400_000))).toBeLessThan(2 * 86_400_000);
    if (type === 'invoice.created') expect((invoice.body as { status: unknown }).status).not.toBe('PastDue');
  });
});
