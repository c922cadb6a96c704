// What the CLI tells an implementer when something is off: reproduction lines that work when pasted, unknown
// selectors, what the token service answered, the cause of a network failure, a wrong base URL, and reports
// written whatever the exit code.
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { main } from '../src/cli.ts';
import { curlOf, registerSecret, variablesOf, type ExchangeRequest } from '../src/http.ts';

const sh = promisify(execFile);
const dir = mkdtempSync(path.join(tmpdir(), 'pgw-cli-'));

/** A loopback server answering every request with `answer`, recording what it received. */
async function serve(answer: (req: IncomingMessage, body: string) => [number, Record<string, string>, string] | undefined): Promise<{ url: string; seen: { method: string; url: string; headers: Record<string, string | string[] | undefined>; body: string }[]; close: () => Promise<void> }> {
  const seen: { method: string; url: string; headers: Record<string, string | string[] | undefined>; body: string }[] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      seen.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers, body });
      const reply = answer(req, body);
      if (reply === undefined) return; // never answers: a time-out
      res.writeHead(reply[0], reply[1]).end(reply[2]);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${String((server.address() as AddressInfo).port)}`,
    seen,
    close: () => new Promise((resolve) => { server.closeAllConnections(); server.close(() => { resolve(); }); }),
  };
}

async function run(args: string[]): Promise<{ code: number; out: string }> {
  const lines: string[] = [];
  const code = await main(args, (l) => lines.push(l), (l) => lines.push(l));
  return { code, out: lines.join('\n') };
}
const creds = ['--client-id', 'a', '--client-secret', 'sb-secret', '--client-id-b', 'c', '--client-secret-b', 'sd-secret'];

afterAll(() => { rmSync(dir, { recursive: true, force: true }); });

describe('reproduction lines', () => {
  let echo: Awaited<ReturnType<typeof serve>>;
  beforeAll(async () => { echo = await serve(() => [204, {}, '']); });
  afterAll(async () => { await echo.close(); });

  it('paste into bash and send what the check sent: real secrets as variables, bad ones as they are', async () => {
    const token = 'eyJ.real-token-of-merchant-a.sig';
    const secret = 'real-client-secret-A';
    registerSecret(token, 'TOKEN_A');
    registerSecret(secret, 'CLIENT_SECRET_A');
    const requests: ExchangeRequest[] = [
      { method: 'GET', url: `${echo.url}/pay-api/v1/customers?search=O'Brien`, headers: { authorization: `Bearer ${token}` } },
      { method: 'GET', url: `${echo.url}/pay-api/v1/customers`, headers: { authorization: 'Bearer garbage-token-made-up' } },
      { method: 'POST', url: `${echo.url}/oauth2/token`, headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: `grant_type=client_credentials&client_id=a&client_secret=${secret}` },
      { method: 'POST', url: `${echo.url}/oauth2/token`, headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: 'grant_type=client_credentials&client_id=a&client_secret=wrong-on-purpose' },
      { method: 'POST', url: `${echo.url}/pay-api/v1/customers`, headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body: `{"lastName":"O'Brien $HOME \`x\` \\"q\\""}` },
    ];
    for (const request of requests) {
      const line = curlOf(request);
      expect(line).not.toContain(token);
      expect(line).not.toContain(secret);
      const before = echo.seen.length;
      await sh('bash', ['-c', line], { env: { ...process.env, TOKEN_A: token, CLIENT_SECRET_A: secret } });
      const got = echo.seen[before];
      expect(got?.method).toBe(request.method);
      expect(`${echo.url}${got?.url ?? ''}`).toBe(request.url);
      if (request.headers.authorization !== undefined) expect(got?.headers.authorization).toBe(request.headers.authorization);
      if (request.body !== undefined) expect(got?.body).toBe(request.body);
    }
    const none: ExchangeRequest = { method: 'GET', url: '', headers: {} };
    expect(variablesOf(requests[0] ?? none)).toEqual(['TOKEN_A']);
    expect(curlOf(requests[1] ?? none)).toContain('garbage-token-made-up');
    expect(curlOf(requests[3] ?? none)).toContain('wrong-on-purpose');
  });
});

describe('diagnostics', () => {
  it('names unknown --only / --skip selectors, suggests the nearest, and exits 2', async () => {
    const { code, out } = await run(['--base-url', 'http://127.0.0.1:9', ...creds, '--only', 'pagnation,auth', '--skip', 'no-such-thing']);
    expect(code).toBe(2);
    expect(out).toMatch(/unknown --only\/--skip selectors: pagnation \(did you mean pagination\?\), no-such-thing/);
  });

  it('says what the token service answered (401 invalid_client), exits 3, and still writes both reports', async () => {
    const gateway = await serve((req) => (req.url === '/oauth2/token'
      ? [401, { 'content-type': 'application/json' }, JSON.stringify({ error: 'invalid_client', error_description: 'Client authentication failed.' })]
      : [401, { 'content-type': 'application/json' }, '{}']));
    try {
      const junitFile = path.join(dir, 'token.xml');
      const jsonFile = path.join(dir, 'token.json');
      const { code, out } = await run(['--base-url', gateway.url, ...creds, '--junit', junitFile, '--json', jsonFile]);
      expect(code).toBe(3);
      expect(out).toMatch(/no token for A: the token service at http:\/\/127\.0\.0\.1:\d+\/oauth2\/token answered 401 invalid_client \(Client authentication failed\.\): check the client id and secret of A/);
      expect(out).not.toMatch(/unreachable/);
      expect(readFileSync(junitFile, 'utf8')).toMatch(/<error message="no token for A: [^"]*invalid_client/);
      expect(JSON.parse(readFileSync(jsonFile, 'utf8'))).toMatchObject({ exitCode: 3, error: expect.stringMatching(/invalid_client/) as unknown });
    } finally {
      await gateway.close();
    }
  });

  it('writes the reports on a usage error too', async () => {
    const jsonFile = path.join(dir, 'usage.json');
    const { code } = await run(['--base-url', 'http://127.0.0.1:9', '--json', jsonFile]);
    expect(code).toBe(2);
    expect(JSON.parse(readFileSync(jsonFile, 'utf8'))).toMatchObject({ exitCode: 2, error: expect.stringMatching(/two merchants/) as unknown });
  });

  it('detects a wrong base URL once (every route of the spec 404), instead of dozens of failures', async () => {
    const plain = await serve(() => [404, { 'content-type': 'text/html' }, '<h1>Not Found</h1>']);
    try {
      const { code, out } = await run(['--base-url', plain.url, ...creds]);
      expect(code).toBe(3);
      expect(out).toMatch(/the base URL looks wrong: none of the spec's routes exists at http:\/\/127\.0\.0\.1:\d+ \(GET \/\S+ -> 404/);
      expect(out).not.toMatch(/^FAIL /m);
    } finally {
      await plain.close();
    }
  });

  it('says the cause of a network failure: refused, DNS, time-out', async () => {
    const closed = await serve(() => [204, {}, '']);
    const closedUrl = closed.url;
    await closed.close();
    const refused = await run(['--base-url', closedUrl, ...creds]);
    expect([refused.code, refused.out]).toEqual([3, expect.stringMatching(/connection refused .*\(ECONNREFUSED\)/)]);
    const dns = await run(['--base-url', 'http://gateway.pgw-conformance.invalid', ...creds]);
    expect([dns.code, dns.out]).toEqual([3, expect.stringMatching(/DNS lookup failed .*\((ENOTFOUND|EAI_AGAIN)\)/)]);
    const silent = await serve(() => undefined);
    try {
      const timeout = await run(['--base-url', silent.url, ...creds, '--timeout', '300']);
      expect([timeout.code, timeout.out]).toEqual([3, expect.stringMatching(/timed out/)]);
    } finally {
      await silent.close();
    }
  }, 30_000);
});
