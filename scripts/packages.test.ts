// The toolkit as its users get it: every package packed (`npm pack`), installed from its tarball into empty folders
// outside this repository with a clean environment, then used as the READMEs say: pgw-sandbox serves, pgw-conformance
// is green against it, pgw trigger/listen forward a signed event, a plain .mjs and a strict .ts file (and CommonJS) take a payment
// and verify a signed delivery with @pgw/client, pgw-generate writes a typed folder. Prints each package's size, each
// install's package count, and the time from the first install to a green suite.
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync, cpSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { alive, root } from './lib/run.ts';
import { packAll, packTable, type PackageName, type Packed } from './pack.ts';

const execFileAsync = promisify(execFile);
const scratch = mkdtempSync(path.join(tmpdir(), 'pgw-packages-'));

/**
 * A shell outside this repository: no npm_* variables of the `npm test` that runs this (npm would apply this
 * repository's .npmrc settings through them) and no NODE_OPTIONS (which here selects the packages' sources).
 */
const cleanEnv: NodeJS.ProcessEnv = Object.fromEntries(
  Object.entries(process.env).filter(([key]) => !/^npm_/i.test(key) && key !== 'NODE_OPTIONS' && key !== 'INIT_CWD'),
);
const npmEnv = { ...cleanEnv, npm_config_audit: 'false', npm_config_fund: 'false', npm_config_update_notifier: 'false' };

async function run(command: string, args: readonly string[], cwd: string, env: NodeJS.ProcessEnv = npmEnv): Promise<string> {
  try {
    const { stdout, stderr } = await execFileAsync(command, [...args], { cwd, env, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024, timeout: 300_000 });
    return `${stdout}${stderr}`;
  } catch (error) {
    const failed = error as { stdout?: string; stderr?: string; message: string };
    throw new Error(`${command} ${args.join(' ')} failed in ${cwd}: ${failed.message}\n${failed.stdout ?? ''}\n${failed.stderr ?? ''}`, { cause: error });
  }
}

/** Every package in a folder's node_modules (scoped ones by their full name). */
function installedPackages(app: string): string[] {
  const modules = path.join(app, 'node_modules');
  return readdirSync(modules, { withFileTypes: true })
    .flatMap((e) => (e.name.startsWith('@') ? readdirSync(path.join(modules, e.name)).map((n) => `${e.name}/${n}`) : [e.name]))
    .filter((name) => !name.startsWith('.'));
}

/** What an install of the client or the suite must not bring: other parts' tools and drivers they do not use. */
const TOOLS = ['@stoplight/prism-cli', '@redocly/cli', '@redocly/openapi-core', 'playwright-core', 'eslint', 'vitest', 'typescript', 'tsx', 'ts-morph'];
const DRIVERS = ['pg', 'knex', '@photostructure/sqlite', 'better-sqlite3', 'sqlite3'];

let packed: Packed[] = [];
const tarball = (name: PackageName): string => {
  const found = packed.find((p) => p.name === name);
  if (!found) throw new Error(`${name} was not packed`);
  return found.tarball;
};

/** An empty project folder with the given tarballs installed (from npm's cache where it can: npm ci filled it). */
async function install(name: string, packages: readonly PackageName[], extra: readonly string[] = []): Promise<{ app: string; installed: string[] }> {
  const app = path.join(scratch, name);
  mkdirSync(app, { recursive: true });
  writeFileSync(path.join(app, 'package.json'), JSON.stringify({ name: `trial-${name}`, private: true, type: 'module' }));
  await run('npm', ['install', '--prefer-offline', '--no-save', ...packages.map(tarball)], app);
  const installed = installedPackages(app);
  if (extra.length > 0) await run('npm', ['install', '--prefer-offline', '--no-save', ...packages.map(tarball), ...extra], app);
  return { app, installed };
}

let sandbox: ChildProcess | undefined;
let sandboxUrl = '';
let credentialsFile = '';
let receiver: Server | undefined;
const apps: Record<string, string> = {};
let firstInstall = 0;

beforeAll(() => {
  packed = packAll(path.join(scratch, 'tarballs'), npmEnv);
  console.log(packTable(packed));
}, 600_000);

afterAll(async () => {
  if (sandbox?.pid !== undefined && alive(sandbox.pid)) process.kill(sandbox.pid, 'SIGKILL');
  if (receiver) await new Promise((r) => receiver?.close(r));
  rmSync(scratch, { recursive: true, force: true });
});

describe('the packages, installed from their tarballs in empty folders', () => {
  it('install with only what each imports at run time', async () => {
    firstInstall = performance.now();
    const counts: string[] = [];
    const client = await install('client', ['@pgw/runtime', '@pgw/client'], ['typescript@5.9.3', '@types/node@20']);
    apps.client = client.app;
    const suite = await install('suite', ['@pgw/runtime', '@pgw/client', '@pgw/conformance']);
    apps.suite = suite.app;
    const sandboxApp = await install('sandbox', ['@pgw/runtime', '@pgw/client', '@pgw/sandbox', '@pgw/cli']);
    apps.sandbox = sandboxApp.app;
    counts.push(`@pgw/client: ${String(client.installed.length)} packages`, `@pgw/conformance: ${String(suite.installed.length)}`, `@pgw/sandbox + @pgw/cli: ${String(sandboxApp.installed.length)}`);
    console.log(`installed packages per install: ${counts.join('; ')}`);
    // The client: itself, the runtime, openapi-fetch and its one helper package; nothing else.
    expect(client.installed.sort()).toEqual(['@pgw/client', '@pgw/runtime', 'openapi-fetch', 'openapi-typescript-helpers']);
    for (const absent of [...TOOLS, ...DRIVERS, 'express']) expect(suite.installed, absent).not.toContain(absent);
    for (const absent of TOOLS) expect(sandboxApp.installed, absent).not.toContain(absent);
  });

  it('pgw-sandbox serves the gateway on embedded SQLite in a folder of the user\'s choosing', async () => {
    const app = apps.sandbox ?? '';
    sandbox = spawn('npx', ['--no-install', 'pgw-sandbox', '--data', './my-sandbox', '--port', '0'], { cwd: app, env: cleanEnv, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    sandboxUrl = await new Promise<string>((resolve, reject) => {
      const seen = (chunk: Buffer): void => {
        output += chunk.toString();
        const url = /sandbox at (http:\/\/127\.0\.0\.1:\d+)/.exec(output)?.[1];
        if (url) resolve(url);
      };
      sandbox?.stdout?.on('data', seen);
      sandbox?.stderr?.on('data', seen);
      sandbox?.once('exit', (code) => { reject(new Error(`pgw-sandbox exited with ${String(code)}:\n${output}`)); });
    });
    credentialsFile = path.join(app, 'my-sandbox', 'sandbox-credentials.json');
    const health = await fetch(`${sandboxUrl}/healthz`);
    expect(health.status).toBe(200);
    // The served document names the address it listens on; the docs page is packed with the server.
    const served = (await (await fetch(`${sandboxUrl}/openapi.json`)).json()) as { servers: { url: string }[] };
    expect(served.servers.map((s) => s.url)).toContain(sandboxUrl);
    const docs = await fetch(`${sandboxUrl}/docs`);
    expect([docs.status, (await docs.text()).includes('Payment Gateway API')]).toEqual([200, true]);
    expect(JSON.parse(readFileSync(credentialsFile, 'utf8'))).toMatchObject({ baseUrl: sandboxUrl });
  });

  it('pgw-conformance, with the contract it carries, is green against it', async () => {
    const out = await run('npx', ['--no-install', 'pgw-conformance', '--credentials', credentialsFile, '--junit', 'report.xml'], apps.suite ?? '');
    expect(out).toMatch(/\b\d+ passed, 0 failed\b/);
    expect(readFileSync(path.join(apps.suite ?? '', 'report.xml'), 'utf8')).toContain('<testsuites');
    console.log(`from the first npm install of the tarballs to a green pgw-conformance: ${((performance.now() - firstInstall) / 1000).toFixed(1)} s (${/\d+ passed, 0 failed, \d+ skipped in [\d.]+s/.exec(out)?.[0] ?? ''})`);
  });

  it('pgw listen forwards what pgw trigger makes, signed; global options go before the command', async () => {
    const app = apps.sandbox ?? '';
    const bodies: { headers: Record<string, string | string[] | undefined>; body: string }[] = [];
    receiver = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => { bodies.push({ headers: req.headers, body: Buffer.concat(chunks).toString() }); res.writeHead(204).end(); });
    });
    await new Promise<void>((r) => receiver?.listen(0, '127.0.0.1', r));
    const hooks = `http://127.0.0.1:${String((receiver.address() as AddressInfo).port)}/hooks`;
    const listen = spawn('npx', ['--no-install', 'pgw', '--credentials', credentialsFile, 'listen', '--forward-to', hooks, '--events', 'payment.card.captured'], { cwd: app, env: cleanEnv, stdio: ['ignore', 'pipe', 'pipe'] });
    try {
      let said = '';
      await new Promise<void>((resolve, reject) => {
        const seen = (chunk: Buffer): void => { said += chunk.toString(); if (said.includes('> Ready')) resolve(); };
        listen.stdout.on('data', seen);
        listen.stderr.on('data', seen);
        listen.once('exit', (code) => { reject(new Error(`pgw listen exited with ${String(code)}: ${said}`)); });
      });
      const triggered = await run('npx', ['--no-install', 'pgw', 'trigger', 'payment.card.captured', '--credentials', credentialsFile], app, cleanEnv);
      expect(triggered).toMatch(/payment\.card\.captured was emitted/);
      const deadline = Date.now() + 60_000;
      while (bodies.length === 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
      const secret = readFileSync(path.join(app, 'my-sandbox', 'pgw-listen-secret'), 'utf8').trim();
      const [first] = bodies;
      expect(first, said).toBeDefined();
      // Verified by the client package's own helper, from the tarball, in its own folder.
      writeFileSync(path.join(apps.client ?? '', 'forwarded.json'), JSON.stringify({ secret, ...first }));
      const verified = await run(process.execPath, ['-e', `
        import('@pgw/client').then(({ verifyWebhookEvent }) => {
          const f = JSON.parse(require('node:fs').readFileSync('forwarded.json', 'utf8'));
          console.log(verifyWebhookEvent(f.secret, f.headers, f.body).type);
        });`], apps.client ?? '', cleanEnv);
      expect(verified.trim()).toBe('payment.card.captured');
    } finally {
      listen.kill('SIGTERM');
    }
  });

  it('a plain .mjs and a strict .ts file take a payment and verify a signed delivery with @pgw/client; CommonJS requires it', async () => {
    const app = apps.client ?? '';
    writeFileSync(path.join(app, 'pay.mjs'), PAY_MJS);
    writeFileSync(path.join(app, 'pay.ts'), PAY_TS);
    writeFileSync(path.join(app, 'tsconfig.json'), JSON.stringify({
      compilerOptions: { target: 'ES2022', module: 'NodeNext', moduleResolution: 'NodeNext', strict: true, noUncheckedIndexedAccess: true, exactOptionalPropertyTypes: true, skipLibCheck: false, types: ['node'], lib: ['ES2023', 'DOM'], outDir: 'out' },
      files: ['pay.ts'],
    }));
    const env = { ...cleanEnv, PGW_CREDENTIALS_FILE: credentialsFile };
    const plain = await run(process.execPath, ['pay.mjs'], app, env);
    expect(plain).toMatch(/^sale [0-9a-f-]{36}\nverified payment\.card\.captured [0-9a-f-]{36}\nrefused: no matching signature found\nrefused: the payload is not an event of the contract/m);
    // CommonJS: Node 20.19 and later require() an ES module without top-level await, as @pgw/client is.
    writeFileSync(path.join(app, 'check.cjs'), "const { createApiClient, verifyWebhookEvent, webhookEvents } = require('@pgw/client');\nconsole.log(typeof createApiClient, typeof verifyWebhookEvent, webhookEvents.length);\n");
    expect((await run(process.execPath, ['check.cjs'], app, cleanEnv)).trim()).toBe('function function 29');
    // Type-checked with the declarations the tarballs carry (skipLibCheck off), compiled, run.
    await run(process.execPath, [path.join(app, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', '.'], app, cleanEnv);
    const typed = await run(process.execPath, [path.join('out', 'pay.js')], app, env);
    expect(typed).toMatch(/^sale [0-9a-f-]{36}\nverified payment\.card\.captured [0-9a-f-]{36}\nrefused: no matching signature found\nrefused: the payload is not an event of the contract/m);
  });

  it('pgw-generate writes a typed folder from a document nobody here wrote, importing @pgw/runtime', async () => {
    const { app, installed } = await install('generator', ['@pgw/runtime', '@pgw/generator'], ['openapi-fetch@0.17.0', 'express@5', '@types/express@5', '@types/node@20', 'ajv@8', 'ajv-formats@3', 'lossless-json@4']);
    console.log(`@pgw/generator: ${String(installed.length)} packages`);
    for (const absent of ['@stoplight/prism-cli', '@redocly/cli', 'playwright-core', 'eslint', 'vitest', ...DRIVERS, 'express']) expect(installed, absent).not.toContain(absent);
    cpSync(path.join(root, 'generator', 'test', 'corpus', 'oai', 'v3.0', 'petstore-expanded.yaml'), path.join(app, 'petstore.yaml'));
    const out = await run('npx', ['--no-install', 'pgw-generate', '--input', 'petstore.yaml', '--output', 'api'], app);
    expect(out).toMatch(/api\/: \d+ files from petstore\.yaml \(4 operations/);
    expect(readdirSync(path.join(app, 'api')).sort()).toEqual(['.fingerprint.json', 'client.ts', 'handlers.ts', 'index.ts', 'openapi.json', 'operations.ts', 'router.ts', 'server.ts', 'spec.ts', 'types.ts', 'webhooks.ts']);
    expect(await run('npx', ['--no-install', 'pgw-generate', '--input', 'petstore.yaml', '--output', 'api'], app)).toContain('is up to date');
    writeFileSync(path.join(app, 'tsconfig.json'), JSON.stringify({
      compilerOptions: { target: 'ES2022', module: 'NodeNext', moduleResolution: 'NodeNext', strict: true, noEmit: true, allowImportingTsExtensions: true, skipLibCheck: false, types: ['node'], lib: ['ES2023', 'DOM'] },
      files: ['api/server.ts'],
    }));
    await run(process.execPath, [path.join(root, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', '.'], app, cleanEnv);
    // The generator's API from a plain ESM module.
    writeFileSync(path.join(app, 'use.mjs'), [
      "import { generate } from '@pgw/generator';",
      "const { model, files } = await generate({ openapi: '3.1.0', info: { title: 't', version: '1' }, paths: { '/a': { get: { responses: { 200: { description: 'ok' } } } } } });",
      "console.log(model.operations.map((op) => op.operationId).join(','), files.length);",
    ].join('\n'));
    expect(await run(process.execPath, ['use.mjs'], app, cleanEnv)).toMatch(/^getA \d+/);
  });

  it('pgw-sandbox stops, with everything it started, on SIGTERM to the pid npx started', async () => {
    const pid = sandbox?.pid;
    if (pid === undefined) throw new Error('no sandbox');
    const exited = new Promise<string>((r) => sandbox?.once('exit', (code, signal) => { r(String(code ?? signal)); }));
    process.kill(pid, 'SIGTERM');
    // npx ends as its child ends (0) or by the signal it passed on; either way the server must be gone, not orphaned.
    expect(['0', 'SIGTERM']).toContain(await exited);
    const deadline = Date.now() + 30_000;
    let answering = true;
    while (answering && Date.now() < deadline) {
      answering = await fetch(`${sandboxUrl}/healthz`).then(() => true, () => false);
      if (answering) await new Promise((r) => setTimeout(r, 100));
    }
    expect(answering, 'the server still answers after SIGTERM to npx').toBe(false);
  });
});

// The payment and the signed delivery, as a plain ESM program: an endpoint on a local receiver, a card sale, the
// captured event verified, then a tampered copy and a foreign payload refused.
const PAY_MJS = `import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { createApiClient, verifyWebhookEvent, webhookHeaders, WebhookVerificationError } from '@pgw/client';

const credentials = JSON.parse(readFileSync(process.env.PGW_CREDENTIALS_FILE, 'utf8'));
const merchant = credentials.merchants[0];
const client = createApiClient({ baseUrl: credentials.baseUrl, tokenUrl: credentials.authUrl + '/oauth2/token', clientId: merchant.clientId, clientSecret: merchant.clientSecret });
let delivered;
const arrived = new Promise((resolve) => { delivered = resolve; });
const receiver = createServer((req, res) => {
  const chunks = [];
  req.on('data', (c) => chunks.push(c));
  req.on('end', () => { delivered({ headers: req.headers, body: Buffer.concat(chunks) }); res.writeHead(204).end(); });
});
await new Promise((r) => receiver.listen(0, '127.0.0.1', r));
const hook = await client.api.POST('/v2/webhooks/endpoints', { body: { name: 'mjs', endpointUrl: 'http://127.0.0.1:' + receiver.address().port + '/hooks', eventTypes: ['payment.card.captured'] } });
if (hook.error) throw new Error(JSON.stringify(hook.error));
const sale = await client.api.POST('/pay-api/v1/transactions/card/sale', { body: { amount: 12.5, card: { pan: '4111111111111111', expirationMonth: 12, expirationYear: 2030, securityCode: '123' } } });
if (sale.error) throw new Error(JSON.stringify(sale.error));
console.log('sale', sale.data.transactionId);
const delivery = await arrived;
const event = verifyWebhookEvent(hook.data.signingSecret, delivery.headers, delivery.body);
console.log('verified', event.type, event.data.transactionId);
const refusal = (f) => { try { f(); return 'accepted'; } catch (e) { if (e instanceof WebhookVerificationError) return 'refused: ' + e.message; throw e; } };
const tampered = Buffer.concat([delivery.body, Buffer.from(' ')]);
console.log(refusal(() => verifyWebhookEvent(hook.data.signingSecret, delivery.headers, tampered)));
const foreign = JSON.stringify({ id: 'x', type: 'payment.card.captured', data: 'not a transaction' });
const now = Math.floor(Date.now() / 1000);
console.log(refusal(() => verifyWebhookEvent(hook.data.signingSecret, webhookHeaders(hook.data.signingSecret, 'msg_1', now, foreign), foreign)));
const removed = await client.api.DELETE('/v2/webhooks/endpoints/{webhookId}', { params: { path: { webhookId: hook.data.id } } });
if (removed.error) throw new Error(JSON.stringify(removed.error));
receiver.close();
`;

// The same, typed: strict, noUncheckedIndexedAccess, exactOptionalPropertyTypes, the tarballs' declarations checked.
const PAY_TS = `import { readFileSync } from 'node:fs';
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createApiClient, verifyWebhookEvent, webhookHeaders, WebhookVerificationError, type WebhookEvent } from '@pgw/client';

interface Credentials { baseUrl: string; authUrl: string; merchants: { clientId: string; clientSecret: string }[] }
const credentials = JSON.parse(readFileSync(process.env.PGW_CREDENTIALS_FILE ?? '', 'utf8')) as Credentials;
const merchant = credentials.merchants[0];
if (!merchant) throw new Error('no merchant');
const client = createApiClient({ baseUrl: credentials.baseUrl, tokenUrl: credentials.authUrl + '/oauth2/token', clientId: merchant.clientId, clientSecret: merchant.clientSecret });
interface Delivery { headers: IncomingHttpHeaders; body: Buffer }
let delivered: (d: Delivery) => void = () => undefined;
const arrived = new Promise<Delivery>((resolve) => { delivered = resolve; });
const receiver = createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on('data', (c: Buffer) => chunks.push(c));
  req.on('end', () => { delivered({ headers: req.headers, body: Buffer.concat(chunks) }); res.writeHead(204).end(); });
});
await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
const port = (receiver.address() as AddressInfo).port;
const hook = await client.api.POST('/v2/webhooks/endpoints', { body: { name: 'ts', endpointUrl: 'http://127.0.0.1:' + String(port) + '/hooks', eventTypes: ['payment.card.captured'] } });
if (hook.error) throw new Error(JSON.stringify(hook.error));
const sale = await client.api.POST('/pay-api/v1/transactions/card/sale', { body: { amount: 12.5, card: { pan: '4111111111111111', expirationMonth: 12, expirationYear: 2030, securityCode: '123' } } });
if (sale.error) throw new Error(JSON.stringify(sale.error));
console.log('sale', sale.data.transactionId);
const delivery = await arrived;
const event: WebhookEvent = verifyWebhookEvent(hook.data.signingSecret, delivery.headers, delivery.body);
if (event.type !== 'payment.card.captured') throw new Error('another event: ' + event.type);
console.log('verified', event.type, event.data.transactionId);
const refusal = (f: () => unknown): string => { try { f(); return 'accepted'; } catch (e) { if (e instanceof WebhookVerificationError) return 'refused: ' + e.message; throw e; } };
const tampered = Buffer.concat([delivery.body, Buffer.from(' ')]);
console.log(refusal(() => verifyWebhookEvent(hook.data.signingSecret, delivery.headers, tampered)));
const foreign = JSON.stringify({ id: 'x', type: 'payment.card.captured', data: 'not a transaction' });
const now = Math.floor(Date.now() / 1000);
console.log(refusal(() => verifyWebhookEvent(hook.data.signingSecret, webhookHeaders(hook.data.signingSecret, 'msg_1', now, foreign), foreign)));
const removed = await client.api.DELETE('/v2/webhooks/endpoints/{webhookId}', { params: { path: { webhookId: hook.data.id } } });
if (removed.error) throw new Error(JSON.stringify(removed.error));
receiver.close();
`;
