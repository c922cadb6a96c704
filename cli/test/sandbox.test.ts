// `pgw sandbox create|list|delete` and `pgw reset` end to end against the bundled server: a sandbox made with
// --write gives a credentials file (0600) that listen, trigger, clock and reset use as any merchant's; the secret
// is printed once or written, never both; delete ends its credentials; every usage error exits 2 before reading
// any configuration, a file without a partner key exits 3, and an existing --write file is never overwritten.
import { readFileSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pgw, spawnPgw, startGateway, startReceiver, type Gateway } from './helpers.ts';

describe('pgw sandbox and pgw reset', () => {
  let g: Gateway;
  let env: Record<string, string>;
  beforeAll(async () => {
    g = await startGateway();
    // The bundled server's credentials file: the partner's key beside the merchants'.
    const file = path.join(g.dir, 'credentials.json');
    writeFileSync(file, JSON.stringify({ baseUrl: g.base, authUrl: g.base, partner: g.s.secrets.partner, merchants: g.s.secrets.merchants }), { mode: 0o600 });
    env = { PGW_CONFIG: file };
  });
  afterAll(async () => { await g.close(); });

  const sandboxCount = async (): Promise<number> =>
    Number((await g.s.db('merchants').whereNotNull('sandbox_expires_at').whereNull('deleting_on').count({ n: '*' }).first<{ n: number | string }>()).n);

  it('creates a sandbox whose credentials file listen, trigger, clock and reset use; delete ends it', async () => {
    const file = path.join(g.dir, 'ci-sandbox.json');
    const asked = g.s.clock.now().getTime();
    const created = await pgw(['sandbox', 'create', '--name', 'CI run', '--expires', '2h', '--write', file], env);
    const answered = g.s.clock.now().getTime();
    expect(created.code, created.stderr).toBe(0);
    const saved = JSON.parse(readFileSync(file, 'utf8')) as { merchantId: string; clientId: string; clientSecret: string; baseUrl: string; expiresAt: string };
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(saved.baseUrl).toBe(g.base);
    expect(created.stdout).toContain(`created sandbox merchant ${saved.merchantId} "CI run"`);
    // Written, so not printed.
    expect(created.stdout).not.toContain(saved.clientSecret);
    // Two hours after it was made, on the server's clock (however long the command took).
    expect(Date.parse(saved.expiresAt)).toBeGreaterThanOrEqual(asked + 2 * 3600_000);
    expect(Date.parse(saved.expiresAt)).toBeLessThanOrEqual(answered + 2 * 3600_000);

    const cred = ['--credentials', file];
    const clock = await pgw(['clock', ...cred], {});
    expect(clock.code, clock.stderr).toBe(0);
    expect(clock.stdout).toContain(`merchant ${saved.merchantId}, 0 s ahead`);
    const listed = await pgw(['sandbox', 'list'], env);
    expect(listed.code, listed.stderr).toBe(0);
    expect(listed.stdout).toMatch(new RegExp(`${saved.merchantId} .* CI run`));

    // listen and trigger with the sandbox's credentials: the event arrives, and it is the sandbox's.
    const receiver = await startReceiver();
    const listener = spawnPgw(['listen', '--forward-to', receiver.url, ...cred], { PGW_CONFIG: file });
    try {
      await listener.waitFor(/Ready: events of merchant/);
      receiver.secret = /local signing secret is (whsec_\S+)/.exec(listener.stdout())?.[1] ?? readFileSync(path.join(g.dir, 'pgw-listen-secret'), 'utf8').trim();
      const triggered = await pgw(['trigger', 'payment.ach.scheduled', ...cred], {});
      expect(triggered.code, triggered.stderr).toBe(0);
      await receiver.waitForCount(1);
      expect(receiver.received.map((r) => [r.type, r.merchantId, r.verified])).toContainEqual(['payment.ach.scheduled', saved.merchantId, true]);
    } finally {
      listener.process.kill('SIGINT');
      await listener.exit();
      await receiver.close();
    }

    const reset = await pgw(['reset', ...cred], {});
    expect(reset.code, reset.stderr).toBe(0);
    expect(reset.stdout).toContain(`reset merchant ${saved.merchantId}`);
    expect(reset.stdout).toMatch(/removed: .*transactions 1/);

    const deleted = await pgw(['sandbox', 'delete', saved.merchantId], env);
    expect(deleted.code, deleted.stderr).toBe(0);
    expect(deleted.stdout).toContain(`deleted sandbox merchant ${saved.merchantId}`);
    const after = await pgw(['clock', ...cred], {});
    expect(after.code).toBe(3);
    expect(after.stderr).toMatch(/refused the credentials: 401 invalid_client/);
    const again = await pgw(['sandbox', 'delete', saved.merchantId], env);
    expect(again.code).toBe(1);
    expect(again.stderr).toMatch(/404 \[not_found\]/);
  });

  it('prints the secret once when no file is asked for', async () => {
    const run = await pgw(['sandbox', 'create'], env);
    expect(run.code, run.stderr).toBe(0);
    const secret = /client secret {2}(pgw_cs_\S+)/.exec(run.stdout)?.[1];
    expect(secret).toBeDefined();
    expect(run.stdout.split(secret ?? '').length).toBe(2);
    expect(run.stdout).toContain('Sandbox merchant');
  });

  it('resets a demo merchant with its own key: its records go, its clock returns', async () => {
    const h = await g.s.as(1);
    expect((await request(g.s.app).post('/pay-api/v1/customers').set(h).send({ firstName: 'Reset', lastName: 'Me' })).status).toBe(200);
    expect((await pgw(['clock', 'advance', '1d', '--merchant', '1'], env)).code).toBe(0);
    const run = await pgw(['reset', '--merchant', '1'], env);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toMatch(/removed: customers 1/);
    expect((await pgw(['clock', '--merchant', '1'], env)).stdout).toContain('0 s ahead');
  });

  it.each([
    ['sandbox without a subcommand', ['sandbox'], /pgw sandbox: a subcommand is missing/],
    ['an unknown sandbox subcommand', ['sandbox', 'delet', '7c9e6679-7425-40de-944b-e07fc1f90ae7'], /unknown subcommand "delet" \(did you mean delete\?\)/],
    ['an expiry under a minute', ['sandbox', 'create', '--expires', '30s'], /is 30 s: a sandbox's expiry is 60 s to 30 days/],
    ['an expiry over 30 days', ['sandbox', 'create', '--expires', '31d'], /a sandbox's expiry is 60 s to 30 days/],
    ['an expiry that is no duration', ['sandbox', 'create', '--expires', 'tomorrow'], /"tomorrow" is not a duration/],
    ['an empty name', ['sandbox', 'create', '--name', ''], /--name must be 1 to 200 characters/],
    ['delete without an id', ['sandbox', 'delete'], /the sandbox merchant id is missing/],
    ['delete with an id that is none', ['sandbox', 'delete', 'abc'], /"abc" is not a merchant id/],
    ['--write on list', ['sandbox', 'list', '--write', 'x.json'], /--write belongs to pgw sandbox create/],
    ['an argument to reset', ['reset', 'now'], /unexpected argument "now"/],
  ])('exits 2 on %s, before reading any configuration', async (_name, args, message) => {
    const run = await pgw(args, { PGW_CONFIG: path.join(g.dir, 'absent.json') });
    expect(run.code, run.stderr).toBe(2);
    expect(run.stderr).toMatch(message);
    expect(run.stdout).toBe('');
  });

  it('exits 3 without a partner key, and never writes over an existing file (nor creates a merchant then)', async () => {
    const before = await sandboxCount();
    const merchantsOnly = await pgw(['sandbox', 'list'], { PGW_CONFIG: g.config });
    expect(merchantsOnly.code).toBe(3);
    expect(merchantsOnly.stderr).toMatch(/missing --client-id, --client-secret/);
    const withMerchant = await pgw(['sandbox', 'list', '--merchant', '0'], env);
    expect(withMerchant.code).toBe(3);
    expect(withMerchant.stderr).toMatch(/--merchant does not apply/);
    const existing = path.join(g.dir, 'taken.json');
    writeFileSync(existing, '{"keep":"me"}');
    const refused = await pgw(['sandbox', 'create', '--write', existing], env);
    expect(refused.code).toBe(3);
    expect(refused.stderr).toMatch(/the file exists/);
    expect(readFileSync(existing, 'utf8')).toBe('{"keep":"me"}');
    expect(await sandboxCount()).toBe(before);
    // A merchant's own key: the API's 403, exit 1.
    const asMerchant = await pgw(['sandbox', 'list', '--client-id', g.s.secrets.merchants[0]?.clientId ?? '', '--client-secret', g.s.secrets.merchants[0]?.clientSecret ?? ''], env);
    expect(asMerchant.code).toBe(1);
    expect(asMerchant.stderr).toMatch(/403 \[partner_key_required\]/);
  });

  it('prints help for sandbox and reset', async () => {
    for (const command of ['sandbox', 'reset']) {
      const run = await pgw([command, '--help'], {});
      expect(run.code, command).toBe(0);
      expect(run.stdout).toContain(`Usage: pgw ${command}`);
      expect(run.stdout).toContain('Exit codes:');
    }
    expect((await pgw(['--help'], {})).stdout).toMatch(/sandbox create\|list\|delete[\s\S]*reset/);
  });
});
