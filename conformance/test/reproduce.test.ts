// Reproduction lines run through bash against a recording server: they send what the check sent, the run's real
// secrets as variables, a deliberately bad credential as itself.
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { main } from '../src/cli.ts';
import { curlOf, registerSecret, setupOf, variablesOf, type ExchangeRequest } from '../src/http.ts';
import { serve, type LocalServer, type Seen } from './local-server.ts';

const sh = promisify(execFile);
const dir = mkdtempSync(path.join(tmpdir(), 'pgw-reproduce-'));
afterAll(() => { rmSync(dir, { recursive: true, force: true }); });

/** What a request looked like on arrival: the parts a reproduction must keep. */
const arrived = (seen: Seen | undefined, names: readonly string[]): unknown => seen && ({
  method: seen.method, url: seen.url, body: seen.body, headers: Object.fromEntries(names.map((n) => [n.toLowerCase(), seen.headers[n.toLowerCase()]])),
});

/** Runs lines through `bash -c` with the variables in the environment; the server records what they sent. */
async function bash(script: string, env: Record<string, string>): Promise<void> {
  await sh('bash', ['-c', script], { env: { ...process.env, ...env }, timeout: 5000 });
}

describe('reproduction lines, case by case', () => {
  let echo: LocalServer;
  // A body with a length: `curl -X HEAD` would wait for it (the line uses --head).
  beforeAll(async () => { echo = await serve(() => [200, { 'content-type': 'text/plain' }, 'ok']); });
  afterAll(async () => { await echo.close(); });

  const token = 'eyJhbGciOiJIUzI1NiJ9.real-token-of-merchant-a.sig';
  const secret = 'real-client-secret-A';
  // A secret that form- and percent-encoding change, with a quote and a space in it.
  const odd = "p+/=s'~ c!*(x)$HOME";
  const env = { TOKEN_A: token, CLIENT_SECRET_A: secret, CLIENT_SECRET_P: odd };
  registerSecret(token, 'TOKEN_A');
  registerSecret(secret, 'CLIENT_SECRET_A');
  registerSecret(odd, 'CLIENT_SECRET_P');
  const form = (fields: Record<string, string>): string => new URLSearchParams(fields).toString();
  const basic = (id: string, s: string): string => `Basic ${Buffer.from(`${encodeURIComponent(id)}:${encodeURIComponent(s)}`).toString('base64')}`;
  const formHeaders = { accept: 'application/json', 'content-type': 'application/x-www-form-urlencoded' };

  const cases: [string, (url: string) => ExchangeRequest, { variables: string[]; shown?: string }][] = [
    ['a valid token', (url) => ({ method: 'GET', url: `${url}/pay-api/v1/customers?search=O'Brien`, headers: { accept: 'application/json', authorization: `Bearer ${token}` } }), { variables: ['TOKEN_A'] }],
    ['a bad token', (url) => ({ method: 'GET', url: `${url}/pay-api/v1/customers`, headers: { authorization: 'Bearer garbage-token-made-up' } }), { variables: [], shown: 'Bearer garbage-token-made-up' }],
    ['a valid client secret', (url) => ({ method: 'POST', url: `${url}/oauth2/token`, headers: formHeaders, body: form({ grant_type: 'client_credentials', client_id: 'a', client_secret: secret }) }), { variables: ['CLIENT_SECRET_A'] }],
    ['a bad client secret', (url) => ({ method: 'POST', url: `${url}/oauth2/token`, headers: formHeaders, body: form({ grant_type: 'client_credentials', client_id: 'a', client_secret: 'wrong-on-purpose' }) }), { variables: [], shown: 'client_secret=wrong-on-purpose' }],
    ['a body with a single quote (and $, backticks, !, double quotes)', (url) => ({ method: 'POST', url: `${url}/pay-api/v1/customers`, headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body: JSON.stringify({ lastName: "O'Brien $HOME `id` !! \"q\" \\ \n" }) }), { variables: ['TOKEN_A'] }],
    ['a secret that encoding changes, in a form body', (url) => ({ method: 'POST', url: `${url}/oauth2/token`, headers: formHeaders, body: form({ client_id: 'p', client_secret: odd }) }), { variables: ['CLIENT_SECRET_P'] }],
    ['a real secret in HTTP Basic credentials', (url) => ({ method: 'POST', url: `${url}/oauth2/token`, headers: { ...formHeaders, authorization: basic('p', odd) }, body: form({ grant_type: 'client_credentials' }) }), { variables: ['CLIENT_SECRET_P'] }],
    ['a wrong secret in HTTP Basic credentials', (url) => ({ method: 'POST', url: `${url}/oauth2/token`, headers: { ...formHeaders, authorization: basic('a', 'wrong-basic') }, body: form({ grant_type: 'client_credentials' }) }), { variables: [], shown: basic('a', 'wrong-basic') }],
    ['a URL curl would glob or normalise, an empty header, a tab and a newline in a text body', (url) => ({ method: 'PATCH', url: `${url}/x/../pay-api/v1/a[1]{2}?q=it's`, headers: { 'x-empty': '', 'content-type': 'text/plain' }, body: 'a\tb\nc' }), { variables: [] }],
    ['a HEAD request', (url) => ({ method: 'HEAD', url: `${url}/pay-api/v1/customers`, headers: { accept: 'application/json' } }), { variables: [] }],
  ];

  for (const [name, make, expected] of cases) {
    it(`${name}: bash sends what fetch sent`, async () => {
      const request = make(echo.url);
      await fetch(request.url, { method: request.method, headers: request.headers, ...(request.body === undefined ? {} : { body: request.body }), redirect: 'manual' });
      const sent = echo.seen.at(-1);
      const line = curlOf(request);
      for (const value of [token, secret, odd, encodeURIComponent(odd), new URLSearchParams({ x: odd }).toString().slice(2), basic('p', odd)]) expect(line).not.toContain(value);
      if (expected.shown !== undefined) expect(line).toContain(expected.shown);
      expect(variablesOf(request)).toEqual(expected.variables);
      const count = echo.seen.length;
      await bash(line, env);
      expect(echo.seen.length).toBe(count + 1);
      expect(arrived(echo.seen.at(-1), Object.keys(request.headers))).toEqual(arrived(sent, Object.keys(request.headers)));
    });
  }
});

describe('reproduction lines of real failures', () => {
  // A gateway with two defects: it accepts any token (and none) and issues a token for a wrong client secret.
  const secretA = "A+/=secret'~ 1";
  const secretB = 'plain-secret-of-b';
  const tokenOf = (clientId: string): string => `tok.${clientId}.valid-signature-0123`;
  let gateway: LocalServer;
  beforeAll(async () => {
    gateway = await serve((req, body) => {
      if (req.url === '/oauth2/token') {
        const clientId = new URLSearchParams(body).get('client_id') ?? '';
        return [200, { 'content-type': 'application/json' }, JSON.stringify({ access_token: tokenOf(clientId), refresh_token: `refresh.${clientId}.0123456789`, token_type: 'Bearer', expires_in: 3600 })];
      }
      return [200, { 'content-type': 'application/json' }, '{}'];
    });
  });
  afterAll(async () => { await gateway.close(); });

  it('the bad-token, bad-secret and valid-token failures reproduce in bash: the bad credential as itself, the real ones as variables', async () => {
    const jsonFile = path.join(dir, 'report.json');
    const lines: string[] = [];
    const code = await main(['--base-url', gateway.url, '--client-id', 'merchant-a', '--client-secret', secretA, '--client-id-b', 'merchant-b', '--client-secret-b', secretB,
      '--only', 'auth/garbage_token,auth/token_invalid_client,resources/ensure_resource_availability:customer', '--json', jsonFile], (l) => lines.push(l), (l) => lines.push(l));
    expect(code).toBe(1);
    const text = readFileSync(jsonFile, 'utf8');
    const output = lines.join('\n');
    for (const value of [secretA, encodeURIComponent(secretA), new URLSearchParams({ x: secretA }).toString().slice(2), secretB, tokenOf('merchant-a'), tokenOf('merchant-b')]) {
      expect(text).not.toContain(value);
      expect(output).not.toContain(value);
    }
    const report = JSON.parse(text) as { checks: { id: string; status: string; curl?: string; curlSetup?: string[] }[] };
    const failed = report.checks.filter((c) => c.status === 'failed');
    expect(failed.map((c) => c.id).sort()).toEqual(['auth/garbage_token', 'auth/token_invalid_client', 'resources/ensure_resource_availability:customer']);
    const sentByRun = gateway.seen.slice();
    const names = ['authorization', 'content-type'];
    for (const check of failed) {
      expect(check.curl).toBeDefined();
      // The setup lines: a comment asking for the client secret, then the token request that sets TOKEN_A.
      const script = [...(check.curlSetup ?? []), check.curl ?? ''].join('\n');
      const before = gateway.seen.length;
      await bash(script, { CLIENT_SECRET_A: secretA, CLIENT_SECRET_B: secretB });
      const replayed = gateway.seen.at(-1);
      expect(gateway.seen.length).toBeGreaterThan(before);
      // What bash sent is a request the run sent.
      expect(sentByRun.map((s) => arrived(s, names))).toContainEqual(arrived(replayed, names));
      if (check.id === 'auth/garbage_token') {
        expect(replayed?.headers.authorization).toMatch(/^Bearer /);
        expect(replayed?.headers.authorization).not.toBe(`Bearer ${tokenOf('merchant-a')}`);
        expect(check.curl).toContain(String(replayed?.headers.authorization));
      }
      if (check.id === 'auth/token_invalid_client') {
        expect(replayed?.body).toContain('client_secret=wrong-secret');
        expect(check.curl).toContain('client_secret=wrong-secret');
        expect(check.curlSetup).toEqual([]); // nothing real in it: no variable to set
      }
      if (check.id === 'resources/ensure_resource_availability:customer') {
        expect(replayed?.headers.authorization).toBe(`Bearer ${tokenOf('merchant-a')}`);
        expect(check.curl).toContain('"${TOKEN_A}"');
        expect(check.curlSetup?.[1]).toMatch(/^TOKEN_A="\$\(curl .*"\$\(node -p .*"\$\{CLIENT_SECRET_A\}"\)".* \| node -p /);
      }
    }
    // The text report shows the same lines under "reproduce".
    expect(output).toMatch(/ {2}reproduce \(bash; set the variables first\):\n {4}# CLIENT_SECRET_A=\.\.\.: .*\n {4}TOKEN_A="\$\(curl .*\n {4}curl -sS /);
    expect(setupOf({ method: 'GET', url: `${gateway.url}/x`, headers: {} })).toEqual([]);
  }, 30_000);
});
