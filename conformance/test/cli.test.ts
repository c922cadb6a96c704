// What the CLI tells an implementer when something is off: unknown selectors, what the token service answered,
// the cause of a network failure, a wrong base URL, and reports written whatever the exit code.
import { execFile, execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { main } from '../src/cli.ts';
import { Http } from '../src/http.ts';
import { Spec } from '../src/spec.ts';
import { closedPortUrl, serve } from './local-server.ts';

const dir = mkdtempSync(path.join(tmpdir(), 'pgw-cli-'));
afterAll(() => { rmSync(dir, { recursive: true, force: true }); });
const bin = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', 'bin', 'pgw-conformance.mjs');

async function run(args: string[]): Promise<{ code: number; out: string }> {
  const lines: string[] = [];
  const code = await main(args, (l) => lines.push(l), (l) => lines.push(l));
  return { code, out: lines.join('\n') };
}
const creds = ['--client-id', 'a', '--client-secret', 'sb-secret', '--client-id-b', 'c', '--client-secret-b', 'sd-secret'];

/** Paths for both reports of a run, and what they hold afterwards. */
function reports(name: string): { args: string[]; junit: () => string; json: () => { exitCode?: number; error?: string } } {
  const junit = path.join(dir, `${name}.xml`);
  const json = path.join(dir, `${name}.json`);
  return {
    args: ['--junit', junit, '--json', json],
    junit: () => readFileSync(junit, 'utf8'),
    json: () => JSON.parse(readFileSync(json, 'utf8')) as { exitCode?: number; error?: string },
  };
}

/** Both reports exist and carry the error: a JUnit testsuite with one errored testcase, a JSON `error`. */
function expectReportsWithError(r: ReturnType<typeof reports>, code: number, error: RegExp): void {
  expect(r.json()).toMatchObject({ exitCode: code, error: expect.stringMatching(error) as unknown });
  const junit = r.junit();
  expect(junit).toMatch(/<testsuite name="run" tests="1" failures="0" errors="1"/);
  expect(junit).toMatch(new RegExp(`<error message="[^"]*${error.source}`));
}

describe('--only / --skip', () => {
  it('names unknown selectors, suggests the nearest, lists the groups, exits 2 and writes the reports', async () => {
    const r = reports('selectors');
    const { code, out } = await run(['--base-url', 'http://127.0.0.1:1', ...creds, '--only', 'pagnation,auth', '--skip', 'no-such-thing', ...r.args]);
    expect(code).toBe(2);
    expect(out).toMatch(/unknown --only\/--skip selectors: pagnation \(did you mean pagination\?\), no-such-thing\. Selectors are check ids or id stems \(--list\), groups \(auth, errors, resources, pagination/);
    expectReportsWithError(r, 2, /unknown --only\/--skip selectors: pagnation/);
  });

  it('a typo in --skip alone is an error too (exit 2), not a run of everything', async () => {
    const { code, out } = await run(['--base-url', 'http://127.0.0.1:1', ...creds, '--skip', 'tenncy']);
    expect(code).toBe(2);
    expect(out).toMatch(/unknown --only\/--skip selector: tenncy \(did you mean tenancy\?\)/);
    expect(out).not.toMatch(/^conformance: /m);
  });
});

describe('the token service', () => {
  it('says what it answered (401 invalid_client, with the description), exits 3, and writes both reports', async () => {
    const gateway = await serve((req) => (req.url === '/oauth2/token'
      ? [401, { 'content-type': 'application/json' }, JSON.stringify({ error: 'invalid_client', error_description: 'Client authentication failed.' })]
      : [401, { 'content-type': 'application/json' }, '{}']));
    try {
      const r = reports('token');
      const { code, out } = await run(['--base-url', gateway.url, ...creds, ...r.args]);
      expect(code).toBe(3);
      expect(out).toMatch(/no token for A: the token service at http:\/\/127\.0\.0\.1:\d+\/oauth2\/token answered 401 invalid_client \(Client authentication failed\.\): check the client id and secret of A/);
      expect(out).not.toMatch(/unreachable|cannot be reached/);
      expectReportsWithError(r, 3, /no token for A: [^"]*401 invalid_client/);
    } finally {
      await gateway.close();
    }
  });

  it('writes the reports on a usage error too', async () => {
    const r = reports('usage');
    const { code } = await run(['--base-url', 'http://127.0.0.1:1', ...r.args]);
    expect(code).toBe(2);
    expectReportsWithError(r, 2, /two merchants/);
  });
});

describe('a wrong base URL', () => {
  it('is said once, before any check, when every route of the spec answers 404', async () => {
    const plain = await serve(() => [404, { 'content-type': 'text/html' }, '<h1>Not Found</h1>']);
    try {
      const r = reports('base-404');
      const { code, out } = await run(['--base-url', plain.url, ...creds, ...r.args]);
      expect(code).toBe(3);
      expect(out).toMatch(/the base URL looks wrong: none of the spec's routes exists at http:\/\/127\.0\.0\.1:\d+ \(asked without a token: GET \/\S+ -> 404 text\/html, /);
      expect(out).not.toMatch(/^(FAIL|PASS) /m);
      expect(plain.seen.every((s) => s.url !== '/oauth2/token')).toBe(true);
      expectReportsWithError(r, 3, /the base URL looks wrong/);
    } finally {
      await plain.close();
    }
  });

  it('is said when every route answers a page that is not the API (200 text/html), or redirects', async () => {
    const page = await serve(() => [200, { 'content-type': 'text/html' }, '<html>a web site</html>']);
    const moved = await serve(() => [301, { location: 'https://gw.example/pay' }, '']);
    try {
      const html = await run(['--base-url', page.url, ...creds]);
      expect(html.code).toBe(3);
      expect(html.out).toMatch(/the base URL looks wrong: none of the spec's routes answers as the API does at http:\/\/127\.0\.0\.1:\d+ \(asked without a token: GET \/\S+ -> 200 text\/html/);
      const redirect = await run(['--base-url', moved.url, ...creds]);
      expect(redirect.code).toBe(3);
      expect(redirect.out).toMatch(/-> 301 to https:\/\/gw\.example\/pay.*it redirects \(to https:\/\/gw\.example\/pay\)/);
    } finally {
      await page.close();
      await moved.close();
    }
  });
});

describe('the cause of a network failure', () => {
  it('connection refused (a closed port), with both reports written', async () => {
    const r = reports('refused');
    const refused = await run(['--base-url', await closedPortUrl(), ...creds, ...r.args]);
    expect(refused.code).toBe(3);
    expect(refused.out).toMatch(/the target at http:\/\/127\.0\.0\.1:\d+ cannot be reached: connection refused .*\(ECONNREFUSED\)/);
    expectReportsWithError(r, 3, /connection refused/);
  });

  it('DNS: a host under .invalid', async () => {
    const dns = await run(['--base-url', 'http://gateway.pgw-conformance.invalid', ...creds]);
    expect([dns.code, dns.out]).toEqual([3, expect.stringMatching(/DNS lookup failed .*\((ENOTFOUND|EAI_AGAIN)\)/)]);
  });

  it('time-out: a server that never answers, within --timeout', async () => {
    const silent = await serve(() => undefined);
    try {
      // It never answers: the run ends by the time-out it was given, which it names (not the default 10 s).
      const timeout = await run(['--base-url', silent.url, ...creds, '--timeout', '300']);
      expect([timeout.code, timeout.out]).toEqual([3, expect.stringMatching(/cannot be reached: timed out \(no answer within 300 ms, --timeout\)/)]);
    } finally {
      await silent.close();
    }
  });

  it('TLS: https:// to a server that speaks plain HTTP', async () => {
    const plain = await serve(() => [401, {}, '']);
    try {
      const tls = await run(['--base-url', plain.url.replace('http:', 'https:'), ...creds]);
      expect([tls.code, tls.out]).toEqual([3, expect.stringMatching(/TLS error: no TLS there .*\(ERR_SSL_WRONG_VERSION_NUMBER\)/)]);
    } finally {
      await plain.close();
    }
  });

  const openssl = ((): boolean => { try { execFileSync('openssl', ['version']); return true; } catch { return false; } })();
  it.skipIf(!openssl)('TLS: a self-signed certificate (made with openssl)', async () => {
    execFileSync('openssl', ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', path.join(dir, 'key.pem'), '-out', path.join(dir, 'cert.pem'), '-days', '1', '-subj', '/CN=127.0.0.1'], { stdio: 'ignore' });
    const server = createHttpsServer({ key: readFileSync(path.join(dir, 'key.pem')), cert: readFileSync(path.join(dir, 'cert.pem')) }, (_req, res) => { res.writeHead(401).end(); });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const tls = await run(['--base-url', `https://127.0.0.1:${String((server.address() as AddressInfo).port)}`, ...creds]);
      expect([tls.code, tls.out]).toEqual([3, expect.stringMatching(/TLS error: the certificate is not trusted .*\(DEPTH_ZERO_SELF_SIGNED_CERT\)/)]);
    } finally {
      await new Promise((resolve) => { server.closeAllConnections(); server.close(resolve); });
    }
  });

  it('a port fetch refuses to use (9) is tried like any other: the suite sends no request through fetch', async () => {
    const blocked = await run(['--base-url', 'http://127.0.0.1:9', ...creds]);
    expect([blocked.code, blocked.out]).toEqual([3, expect.stringMatching(/connection refused \(nothing listens there\) \(ECONNREFUSED\)/)]);
  });

  it('a request of a check that gets no answer says why (not "fetch failed")', async () => {
    const http = new Http('http://127.0.0.1', Spec.load(), 1000, () => Promise.resolve(undefined));
    const exchange = await http.request({ record: () => undefined }, undefined, 'GET', `${await closedPortUrl()}/x`, {});
    expect(exchange.error).toMatch(/^connection refused .*\(ECONNREFUSED\)$/);
    expect(exchange.problems).toEqual([expect.stringMatching(/^the request failed: connection refused/)]);
  });
});

describe('the pgw-conformance command', () => {
  it('exits 3 on a closed port, says why on stderr, and writes both reports', async () => {
    const r = reports('bin');
    const url = await closedPortUrl();
    const result = await new Promise<{ code: number | null; stderr: string }>((resolve) => {
      const child = execFile(process.execPath, [bin, '--base-url', url, ...creds, ...r.args], (_error, _stdout, stderr) => { resolve({ code: child.exitCode, stderr }); });
    });
    expect(result.code).toBe(3);
    expect(result.stderr).toMatch(/cannot be reached: connection refused/);
    expect(existsSync(path.join(dir, 'bin.xml'))).toBe(true);
    expectReportsWithError(r, 3, /connection refused/);
  }, 30_000);
});
