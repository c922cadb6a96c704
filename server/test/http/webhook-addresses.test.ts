// Where webhooks may reach, over HTTP, on both engines: every spelling of every kind of address through
// create and update in production, in a sandbox on loopback and in a sandbox on a public interface (with
// and without the operator's allowances); pings and deliveries to a name that now resolves to a refused
// address (no connection: a counting receiver on 127.0.0.1 sees none); DNS rebinding (a resolver that
// changes its answer: the connection goes to the checked address); redirects not followed; TLS names.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { createServer as createHttpServer, type Server } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AddressRange } from '../../src/platform/address-policy.ts';
import { runDue } from '../../src/worker/run-due.ts';
import { ALL_SPELLINGS, REACHING_LOOPBACK_V4, SPELLINGS, TRANSLATED } from '../address-spellings.ts';
import { engines, fieldsOf, startServer, type ErrorBody, type ServerOptions, type TestServer } from '../harness.ts';
import { achDebitBody, paymentCalls } from './payment-helpers.ts';
import { startReceiver, type Receiver } from './webhook-receiver.ts';

const W = '/v2/webhooks';
const PUBLIC = '93.184.215.14';

/** A resolver the test answers for: per name a queue of answers (the last one repeats); records each question. */
class Names {
  readonly asked: string[] = [];
  private readonly answers = new Map<string, string[][]>();
  set(name: string, ...answers: string[][]): void { this.answers.set(name, answers); }
  readonly resolve = (name: string): Promise<readonly string[]> => {
    this.asked.push(name);
    const queue = this.answers.get(name);
    const answer = queue && queue.length > 1 ? queue.shift() : queue?.[0];
    return answer ? Promise.resolve(answer) : Promise.reject(Object.assign(new Error(`no answer for ${name}`), { code: 'ENOTFOUND' }));
  };
}

interface Hook { id: string; endpointUrl: string }

/** One server of a configuration, a receiver counting connections on 127.0.0.1, and the calls the tests make. */
function setup(engine: 'sqlite' | 'postgres', options: ServerOptions) {
  const names = new Names();
  const ctx = { s: undefined as unknown as TestServer, receiver: undefined as unknown as Receiver, names };
  beforeAll(async () => {
    ctx.s = await startServer(engine, { ...options, resolveHost: names.resolve });
    ctx.receiver = await startReceiver();
  });
  afterAll(async () => {
    await ctx.receiver.close();
    await ctx.s.close();
  });
  // By default a type no test makes, so that an accepted public URL is never delivered to (no internet traffic).
  const send = async (method: 'post' | 'put', url: string, id?: string, eventTypes = ['payment.card.captured']) =>
    (method === 'post' ? request(ctx.s.app).post(`${W}/endpoints`) : request(ctx.s.app).put(`${W}/endpoints/${id ?? ''}`))
      .set(await ctx.s.as(0)).send({ name: 'Hook', endpointUrl: url, eventTypes });
  /** A webhook of the type deliver() makes. */
  const created = async (url: string): Promise<Hook> => {
    const res = await send('post', url, undefined, ['payment.ach.scheduled']);
    expect(res.status, res.text).toBe(200);
    return res.body as Hook;
  };
  const ping = async (hook: Hook): Promise<{ success: boolean; responseStatusCode: number | null }> =>
    (await request(ctx.s.app).post(`${W}/endpoints/${hook.id}/ping`).set(await ctx.s.as(0)).expect(200)).body as { success: boolean; responseStatusCode: number | null };
  /** Makes an event every webhook of merchant 0 takes, runs what is due, and answers each hook's attempts. */
  const deliver = async (): Promise<void> => {
    await paymentCalls(() => ctx.s).achDebit(await ctx.s.as(0), achDebitBody(ctx.s));
    await runDue({ ...ctx.s, wall: ctx.s.clock }, ctx.s.clock.now());
  };
  const attemptsOf = async (hook: Hook): Promise<{ outcome: string; response_status_code: number | null; response_excerpt: string | null }[]> =>
    ctx.s.db('webhook_attempts').join('webhook_deliveries', 'webhook_deliveries.id', 'webhook_attempts.delivery_id')
      .where('webhook_deliveries.endpoint_id', hook.id).orderBy('webhook_attempts.attempted_on')
      .select('webhook_attempts.outcome', 'webhook_attempts.response_status_code', 'webhook_attempts.response_excerpt');
  return { ctx, send, created, ping, deliver, attemptsOf };
}

const withPort = (host: string, port: number, scheme: string): string => `${scheme}://${host}:${String(port)}/hooks/${encodeURIComponent(host)}`;
const LOCAL: readonly AddressRange[] = ['loopback', 'private'];
const schemes = (rows: readonly (readonly [string, AddressRange])[]) => rows.flatMap(([h, r]) => [['http', h, r], ['https', h, r]] as const);

describe.each(engines())('webhook addresses (%s)', (engine) => {
  describe('production', () => {
    const t = setup(engine, { environment: 'production' });
    const refused = schemes(ALL_SPELLINGS.filter(([, range]) => range !== 'public'));

    it.each(refused)('refuses %s://%s (%s) on create and update, naming endpointUrl, connecting nowhere', async (scheme, host) => {
      const { receiver } = t.ctx;
      const url = withPort(host, receiver.port, scheme);
      const res = await t.send('post', url);
      expect([res.status, fieldsOf(res.body)]).toEqual([400, ['endpointUrl']]);
      expect((res.body as ErrorBody).errors?.endpointUrl?.[0]).toMatch(scheme === 'http' ? /must use https|may not reach/ : /may not reach \(public addresses only\)$/);
      t.ctx.names.set('kept.example', [PUBLIC]);
      const kept = (await t.send('post', 'https://kept.example/hooks')).body as Hook;
      expect([(await t.send('put', url, kept.id)).status, (await request(t.ctx.s.app).get(`${W}/endpoints/${kept.id}`).set(await t.ctx.s.as(0))).body]).toMatchObject([400, { endpointUrl: 'https://kept.example/hooks' }]);
      expect(receiver.connections).toBe(0);
    });

    it.each(SPELLINGS.public.map((host) => [host]))('accepts https://%s', async (host) => {
      expect((await t.send('post', `https://${host}/hooks`)).status).toBe(200);
    });

    // What a resolver may answer for a name that was public when the webhook was made.
    const answers = [
      ['127.0.0.1'], ['::1'], ['::ffff:127.0.0.1'], ['::ffff:7f00:1'], ['0:0:0:0:0:ffff:7f00:1'], ['::7f00:1'], ['::127.0.0.1'], ['64:ff9b::7f00:1'],
      ['2002:7f00:1::'], ['0.0.0.0'], ['::'], ['169.254.169.254'], ['::ffff:a9fe:a9fe'], ['fd00:ec2::254'], ['10.0.0.1'], ['192.168.1.1'], ['fe80::1'],
      ['2130706433'], ['0x7f.0.0.1'], ['0177.0.0.1'], ['127.1'], [PUBLIC, '127.0.0.1'], ['2606:4700::1', '::ffff:10.0.0.1'],
    ];
    it('pings and delivers to none of them: no connection, the attempt says why', async () => {
      const { names, receiver } = t.ctx;
      const hooks = [];
      for (const [i] of answers.entries()) {
        names.set(`h${String(i)}.example`, [PUBLIC]);
        hooks.push(await t.created(`https://h${String(i)}.example:${String(receiver.port)}/hooks`));
      }
      answers.forEach((answer, i) => { names.set(`h${String(i)}.example`, answer); });
      for (const hook of hooks) expect(await t.ping(hook), hook.endpointUrl).toEqual(expect.objectContaining({ success: false, responseStatusCode: null }));
      await t.deliver();
      for (const [i, hook] of hooks.entries()) {
        const attempts = await t.attemptsOf(hook);
        expect(attempts, String(answers[i])).toEqual([{ outcome: 'blocked', response_status_code: null, response_excerpt: expect.stringMatching(/^not sent: the URL resolves to .*which production webhooks may not reach/) as unknown }]);
        expect(attempts[0]?.response_excerpt).not.toContain(answers[i]?.at(-1));
      }
      expect(receiver.connections).toBe(0);
    });
  });

  describe('a sandbox listening on loopback (the default)', () => {
    const t = setup(engine, {});
    const refused = schemes(ALL_SPELLINGS.filter(([host, range]) => range !== 'public' && (!LOCAL.includes(range) || TRANSLATED.has(host))));

    it.each(refused)('refuses %s://%s (%s): metadata, link-local, unspecified, translated forms and the like stay out', async (scheme, host) => {
      const res = await t.send('post', withPort(host, t.ctx.receiver.port, scheme));
      expect([res.status, fieldsOf(res.body)]).toEqual([400, ['endpointUrl']]);
      expect(t.ctx.receiver.connections).toBe(0);
    });

    it.each(REACHING_LOOPBACK_V4.filter((h) => SPELLINGS.loopback.includes(h)).map((h) => [h]))('reaches a local receiver at http://%s', async (host) => {
      const before = t.ctx.receiver.received.length;
      const hook = await t.created(withPort(host, t.ctx.receiver.port, 'http'));
      expect(await t.ping(hook)).toMatchObject({ success: true, responseStatusCode: 200 });
      expect(t.ctx.receiver.received.length).toBe(before + 1);
    });

    it.each(SPELLINGS.private.filter((h) => !TRANSLATED.has(h)).map((h) => [h]))('accepts a private receiver at http://%s', async (host) => {
      expect((await t.send('post', withPort(host, 8080, 'http'))).status).toBe(200);
    });

    it('connects to no IPv6 address because the IPv4 address inside is loopback: pings and deliveries are blocked', async () => {
      const { names } = t.ctx;
      // A receiver of its own on 127.0.0.1 (the other tests' webhooks deliver to the shared one).
      const receiver = await startReceiver();
      try {
        // What a resolver may answer for a name that was 127.0.0.1 when the webhook was made: translated forms of it.
        const answers = [
          ['::7f00:1'], ['::127.0.0.1'], ['64:ff9b::7f00:1'], ['64:ff9b::127.0.0.1'], ['64:ff9b:1::7f00:1'], ['2002:7f00:1::'], ['2002:7f00:1::1'],
          ['::ffff:0:7f00:1'], ['2001:0:4136:e378:8000:63bf:80ff:fffe'], ['2001::80ff:fffe'], ['127.0.0.1', '64:ff9b::7f00:1'], ['::ffff:7f00:1%lo'],
        ];
        const hooks = [];
        for (const [i] of answers.entries()) {
          names.set(`t${String(i)}.example`, ['127.0.0.1']);
          hooks.push(await t.created(`http://t${String(i)}.example:${String(receiver.port)}/hooks`));
        }
        answers.forEach((answer, i) => { names.set(`t${String(i)}.example`, answer); });
        for (const hook of hooks) expect(await t.ping(hook), hook.endpointUrl).toEqual(expect.objectContaining({ success: false, responseStatusCode: null }));
        await t.deliver();
        for (const [i, hook] of hooks.entries()) {
          expect(await t.attemptsOf(hook), String(answers[i])).toEqual([{ outcome: 'blocked', response_status_code: null, response_excerpt: expect.stringMatching(/^not sent: the URL resolves to .*which this sandbox may not reach/) as unknown }]);
        }
        expect([receiver.connections, receiver.received]).toEqual([0, []]);
      } finally {
        await receiver.close();
      }
      // The literal forms are refused when the webhook is made, saying why.
      const res = await t.send('post', withPort('[64:ff9b::7f00:1]', t.ctx.receiver.port, 'http'));
      expect((res.body as ErrorBody).errors?.endpointUrl?.[0]).toMatch(/a NAT64 address of 127\.0\.0\.1, a loopback address, which this sandbox may not reach: an address translated to IPv4 is reached only when the IPv4 address inside is public/);
    });

    it('takes an https name that does not resolve yet (its attempts fail as dns), but not over http', async () => {
      const hook = await t.created('https://not-yet.example/hooks');
      expect(await t.ping(hook)).toMatchObject({ success: false, responseStatusCode: null });
      expect((await t.send('post', 'http://not-yet.example/hooks')).status).toBe(400);
      await t.deliver();
      expect(await t.attemptsOf(hook)).toMatchObject([{ outcome: 'dns', response_excerpt: 'not sent: the URL names a host that does not resolve' }]);
    });

    it('does not follow a redirect: a 302 is a failed attempt, and its target gets nothing', async () => {
      const target = await startReceiver();
      const redirecting: Server = createHttpServer((_req, res) => { res.writeHead(302, { location: `${target.url}/moved` }).end(); });
      await new Promise<void>((resolve) => redirecting.listen(0, '127.0.0.1', resolve));
      try {
        const hook = await t.created(`http://127.0.0.1:${String((redirecting.address() as AddressInfo).port)}/hooks`);
        expect(await t.ping(hook)).toMatchObject({ success: false, responseStatusCode: 302 });
        await t.deliver();
        expect(await t.attemptsOf(hook)).toMatchObject([{ outcome: 'http_3xx', response_status_code: 302 }]);
        expect([target.connections, target.received]).toEqual([0, []]);
      } finally {
        redirecting.closeAllConnections();
        await new Promise((resolve) => redirecting.close(resolve));
        await target.close();
      }
    });

    it('connects TLS to the checked address but verifies the certificate against the host name', async (context) => {
      const dir = mkdtempSync(path.join(tmpdir(), 'pgw-tls-'));
      try {
        execFileSync('openssl', ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-days', '1', '-subj', '/CN=tls.example', '-addext', 'subjectAltName=DNS:tls.example',
          '-keyout', path.join(dir, 'key.pem'), '-out', path.join(dir, 'cert.pem')], { stdio: 'ignore' });
      } catch {
        console.warn('\n*** SKIPPING the TLS name test: openssl is not available to make a certificate ***\n');
        context.skip();
        return;
      }
      const served: string[] = [];
      const server = createHttpsServer({
        key: readFileSync(path.join(dir, 'key.pem')), cert: readFileSync(path.join(dir, 'cert.pem')),
        SNICallback: (servername, done) => { served.push(servername); done(null); },
      }, (_req, res) => { served.push('request'); res.end('ok'); });
      server.on('tlsClientError', () => undefined);
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      try {
        t.ctx.names.set('tls.example', ['127.0.0.1']);
        const hook = await t.created(`https://tls.example:${String((server.address() as AddressInfo).port)}/hooks`);
        await t.deliver();
        // The name went out as SNI, and a self-signed certificate is refused: verification is on (no request arrives).
        expect(await t.attemptsOf(hook)).toMatchObject([{ outcome: 'tls', response_status_code: null }]);
        expect(served).toEqual(['tls.example']);
      } finally {
        server.closeAllConnections();
        await new Promise((resolve) => server.close(resolve));
      }
    });
  });

  describe('a sandbox listening on a public interface', () => {
    const t = setup(engine, { env: { HOST: '0.0.0.0' } });
    const refused = schemes(ALL_SPELLINGS.filter(([, range]) => range !== 'public'));

    it.each(refused)('refuses %s://%s (%s): no proxy into its network', async (scheme, host) => {
      const res = await t.send('post', withPort(host, t.ctx.receiver.port, scheme));
      expect([res.status, fieldsOf(res.body)]).toEqual([400, ['endpointUrl']]);
      expect(t.ctx.receiver.connections).toBe(0);
    });

    it('refuses a name that resolves to loopback at the attempt, connecting nowhere', async () => {
      t.ctx.names.set('moved.example', [PUBLIC], ['::ffff:7f00:1']);
      const hook = await t.created(`https://moved.example:${String(t.ctx.receiver.port)}/x`);
      expect(await t.ping(hook)).toMatchObject({ success: false, responseStatusCode: null });
      await t.deliver();
      expect(await t.attemptsOf(hook)).toMatchObject([{ outcome: 'blocked', response_excerpt: expect.stringMatching(/a loopback address, which this sandbox may not reach/) as unknown }]);
      expect(t.ctx.receiver.connections).toBe(0);
    });
  });

  describe('a sandbox on a public interface whose operator allows private receivers', () => {
    const t = setup(engine, { env: { HOST: '0.0.0.0', PGW_WEBHOOK_ALLOW_PRIVATE: '1' } });
    it('reaches a loopback receiver, and still refuses metadata and unspecified addresses', async () => {
      expect(await t.ping(await t.created(withPort('0x7f000001', t.ctx.receiver.port, 'http')))).toMatchObject({ success: true });
      for (const host of ['169.254.169.254', '[::ffff:a9fe:a9fe]', '0.0.0.0', '[::]']) expect((await t.send('post', withPort(host, t.ctx.receiver.port, 'http'))).status, host).toBe(400);
      expect(t.ctx.receiver.connections).toBe(1);
    });
  });

  describe('DNS rebinding: a sandbox on a public interface allowing 127.0.0.2 only', () => {
    const t = setup(engine, { env: { HOST: '0.0.0.0', PGW_WEBHOOK_ALLOW_NETWORKS: '127.0.0.2/32' } });
    let allowed: Receiver;
    let forbidden: Receiver;
    beforeAll(async () => {
      // The same port on both addresses, so only the address decides which one a connection reaches.
      for (let tries = 0; ; tries += 1) {
        allowed = await startReceiver('/hooks', { host: '127.0.0.2' });
        try {
          forbidden = await startReceiver('/hooks', { host: '127.0.0.1', port: allowed.port });
          return;
        } catch (error) {
          await allowed.close();
          if (tries > 20) throw error;
        }
      }
    });
    afterAll(async () => {
      await allowed.close();
      await forbidden.close();
    });

    it('connects to the address it checked, never to a later answer; one question per check', async () => {
      const { names } = t.ctx;
      const good = ['127.0.0.2'];
      const bad = ['127.0.0.1'];
      // The attacker's name answers the allowed address, then the forbidden one, in turn.
      names.set('rebind.example', good, bad, good, good, bad);
      const hook = await t.created(`http://rebind.example:${String(allowed.port)}/hooks`);
      expect(await t.ping(hook)).toMatchObject({ success: false, responseStatusCode: null });
      expect(await t.ping(hook)).toMatchObject({ success: true, responseStatusCode: 200 });
      await t.deliver();
      expect(await t.attemptsOf(hook)).toMatchObject([{ outcome: 'ok' }]);
      expect(await t.ping(hook)).toMatchObject({ success: false });
      expect([allowed.received.length, forbidden.connections]).toEqual([2, 0]);
      expect(names.asked.filter((n) => n === 'rebind.example')).toHaveLength(5);
      // An answer holding both addresses is refused whole: no address of it is connected to.
      names.set('both.example', good, [...good, ...bad]);
      const both = await t.created(`http://both.example:${String(allowed.port)}/hooks`);
      expect(await t.ping(both)).toMatchObject({ success: false, responseStatusCode: null });
      expect([allowed.received.length, forbidden.connections]).toEqual([2, 0]);
    });

    it('takes the listed network in any spelling, and nothing else of loopback', async () => {
      for (const host of ['127.0.0.2', '2130706434', '0x7f.0.0.2', '127.2', '[::ffff:7f00:2]']) expect((await t.send('post', withPort(host, allowed.port, 'http'))).status, host).toBe(200);
      for (const host of ['127.0.0.1', '127.0.0.3', 'localhost', '[::1]', '10.0.0.1']) expect((await t.send('post', withPort(host, allowed.port, 'http'))).status, host).toBe(400);
    });
  });
});
