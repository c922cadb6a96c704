// The suite's run modes: the deletes the clean-up ledger derives from the spec, sandbox mode ended by Ctrl-C
// (nothing left), clean-up mode against a target without sandboxes (and --sandbox refused there), --no-clock.
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { deleteRules } from '../src/cleanup.ts';
import { main } from '../src/cli.ts';
import { Spec } from '../src/spec.ts';
import { tokenOf } from './seed.ts';
import { startBundledServer, startProxy, type BundledServer } from './target.ts';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');

describe('the clean-up ledger derives each delete from the spec', () => {
  const rules = deleteRules(Spec.load());
  it.each([
    ['createCustomer', 'deleteCustomer', 'customerId', []],
    ['addCardPaymentMethod', 'deletePaymentMethod', 'paymentMethodId', ['customerId']],
    ['addAchPaymentMethod', 'deletePaymentMethod', 'paymentMethodId', ['customerId']],
    ['createApiKey', 'deleteApiKey', 'clientId', []],
    ['createCategory', 'deleteCategory', 'categoryId', []],
    ['createLineItem', 'deleteLineItem', 'lineItemId', []],
    ['createInvoice', 'deleteInvoice', 'invoiceId', []],
    ['publishInvoice', 'deleteInvoice', 'invoiceId', []],
    ['createWebhookEndpoint', 'deleteWebhookEndpoint', 'webhookId', []],
    ['createSandboxMerchant', 'deleteSandboxMerchant', 'merchantId', []],
  ])('%s is undone by %s', (create, del, idParam, parents) => {
    expect(rules.get(create)).toEqual({ deleteOperation: del, idParam, parentParams: parents });
  });
  it.each(['createCardSale', 'authorizeCard', 'createAchDebit', 'createAchCredit', 'refundCardWithoutReference', 'captureCardTransaction', 'pingWebhookEndpoint', 'resetSandbox', 'requestToken'])(
    '%s has no delete (said, not undone)', (op) => { expect(rules.has(op)).toBe(false); });
});

describe('run modes against the bundled server', () => {
  let server: BundledServer;
  let partnerToken: string;
  const credentials = (): { merchants: { merchantId: string; clientId: string; clientSecret: string }[]; partner: { clientId: string; clientSecret: string } } =>
    JSON.parse(readFileSync(server.credentialsFile, 'utf8')) as ReturnType<typeof credentials>;
  const sandboxes = async (): Promise<number> => {
    const res = await fetch(`${server.baseUrl}/sandbox/v1/merchants?pageSize=100`, { headers: { authorization: `Bearer ${partnerToken}` } });
    return Number(((await res.json()) as { total?: number }).total);
  };
  const clockOf = async (pair: { clientId: string; clientSecret: string }): Promise<number> => {
    const res = await fetch(`${server.baseUrl}/sandbox/v1/clock`, { headers: { authorization: `Bearer ${await tokenOf(server.baseUrl, pair)}` } });
    return Number(((await res.json()) as { offsetSeconds?: number }).offsetSeconds);
  };
  beforeAll(async () => {
    server = await startBundledServer();
    partnerToken = await tokenOf(server.baseUrl, credentials().partner);
  });
  afterAll(async () => { await server.stop(); });

  it.each(['SIGINT', 'SIGTERM'] as const)('a sandbox run stopped by %s deletes its sandboxes before it ends', async (signal) => {
    expect(await sandboxes()).toBe(0);
    const child = spawn(process.execPath, ['--import', 'tsx', 'conformance/src/main.ts', '--credentials', server.credentialsFile], { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    // Told at each chunk: the first verdict line means some checks have run, in the sandboxes.
    let checked = (): void => undefined;
    const collect = (c: Buffer): void => { output += c.toString('utf8'); if (/^(PASS|FAIL) /m.test(output)) checked(); };
    child.stdout.on('data', collect);
    child.stderr.on('data', collect);
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => { resolve(code); }));
    // Stopped in the middle of the checks (the whole test took 4-5 s in CI's config unloaded; the wait ends at the
    // run's exit or after 90 s, and the expectations below say what was missing).
    await new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, 90_000);
      checked = () => { clearTimeout(timer); resolve(); };
      void exited.then(checked);
    });
    expect(output).toMatch(/^mode: sandbox/m);
    expect(await sandboxes()).toBeGreaterThanOrEqual(2);
    child.kill(signal);
    expect(await exited).toBe(signal === 'SIGINT' ? 130 : 143);
    expect(output).toMatch(new RegExp(`^${signal}: cleaning up`, 'm'));
    expect(output).toMatch(/^sandbox: deleted /m);
    expect(await sandboxes()).toBe(0);
  });

  it('a target without sandboxes runs in clean-up mode and says why; --sandbox there exits 3', async () => {
    // The proxy answers the sandbox operations as a production gateway does.
    const proxy = await startProxy(server.baseUrl, {
      name: 'no sandboxes',
      reply: (req, reply) => (req.path.startsWith('/sandbox/v1/merchants')
        ? { status: 404, headers: { 'content-type': 'application/json' }, body: JSON.stringify({ statusCode: 404, errorCode: 'route_not_found', message: 'Not found' }) }
        : reply),
    });
    try {
      const lines: string[] = [];
      const args = ['--credentials', server.credentialsFile, '--base-url', proxy.baseUrl, '--auth-url', proxy.baseUrl];
      const code = await main([...args, '--only', 'families'], (l) => lines.push(l), (l) => lines.push(l));
      expect(code, lines.join('\n')).toBe(0);
      expect(lines.join('\n')).toMatch(/^mode: clean-up \(no sandbox: POST \/sandbox\/v1\/merchants answered 404 route_not_found/m);
      expect(lines.join('\n')).toMatch(/^clean-up: deleted [1-9]\d* records? the run created/m);
      const refused: string[] = [];
      expect(await main([...args, '--sandbox', '--only', 'families'], (l) => refused.push(l), (l) => refused.push(l))).toBe(3);
      expect(refused.join('\n')).toMatch(/--sandbox: no sandbox could be made: POST \/sandbox\/v1\/merchants answered 404/);
    } finally {
      await proxy.stop();
    }
  });

  it('--no-clock skips the checks that move a clock: merchant A\'s clock stays where it was', async () => {
    const a = credentials().merchants[0];
    if (!a) throw new Error('merchant A expected');
    const before = await clockOf(a);
    const lines: string[] = [];
    const code = await main(['--credentials', server.credentialsFile, '--no-sandbox', '--no-clock', '--only', 'machines,coverage/walk,webhooks/deliveries'], (l) => lines.push(l), (l) => lines.push(l));
    expect(code, lines.join('\n')).toBe(0);
    expect(lines.filter((l) => /^SKIP .*--no-clock/.test(l)).length).toBeGreaterThan(0);
    expect(lines.join('\n')).not.toMatch(/moved merchant A's business clock/);
    expect(await clockOf(a)).toBe(before);
    // 30.7 s in CI's config unloaded.
  }, 240_000);
});
