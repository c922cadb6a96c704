// `pgw trigger --fixture` does not trust its file (issue 40, item 5), class by class:
// - a path parameter is one percent-encoded segment of data: ".", "..", empty text (also percent-encoded) are
//   refused before anything is sent, "/", "?", "#", "%" are sent encoded; query names and values are encoded;
// - a file over 1 MiB is refused by its size, unread; nesting over 64 levels is refused before parsing (exit 2);
// - a step that resets, deletes a sandbox merchant, makes or revokes a credential, or sends webhooks off this
//   machine is refused without --allow-destructive (built-in fixtures run theirs, and --list marks them);
// - what trigger (and clock, logs, resend) prints of the server's or the fixture's text has its control
//   characters escaped.
// Effects are checked by a later read of the server's records; the URLs sent, on a fake server that records them.
import { readFileSync, truncateSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connect, type Session } from '../src/api.ts';
import type { Config } from '../src/config.ts';
import { consentRoutes, isLoopbackUrl, NEEDS_CONSENT, stepsNeedingConsent } from '../src/consent.ts';
import { exitCodeOf, UsageError } from '../src/errors.ts';
import { applyEdits, checkFixture, loadFixtureFile, MAX_FIXTURE_BYTES, MAX_FIXTURE_DEPTH, parseEdit, type Fixture } from '../src/fixtures.ts';
import { builtInFixture, listing, runFixture, type RunOptions } from '../src/recipes.ts';
import { fillPath, pathSegment, queryString } from '../src/request-url.ts';
import { terminalSafe } from '../src/terminal.ts';
import { pgw, ROOT, startGateway, type Gateway } from './helpers.ts';

const CARD = { pan: '4111111111111111', expirationMonth: 12, expirationYear: 2030, securityCode: '123' };
const DELETE_PM = '/pay-api/v1/customers/{customerId}/payment-methods/{paymentMethodId}';
/** Any character a terminal acts on rather than shows (what terminalSafe escapes), newline aside (it ends lines). */
// eslint-disable-next-line no-control-regex -- the characters under test
const UNSAFE_BUT_NEWLINE = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/;
// eslint-disable-next-line no-control-regex -- the characters under test
const UNSAFE = /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;

/** Path segment values: refused (before anything is sent), or sent as one encoded segment. */
const SEGMENTS: { value: string; refused: boolean; sent?: string }[] = [
  { value: '.', refused: true },
  { value: '..', refused: true },
  { value: '%2e%2e', refused: true },
  { value: '%2E.', refused: true },
  { value: '.%2e', refused: true },
  { value: '%252e%252e', refused: true },
  { value: '%2e', refused: true },
  { value: '', refused: true },
  { value: 'a/b', refused: false, sent: 'a%2Fb' },
  { value: '?x', refused: false, sent: '%3Fx' },
  { value: '#', refused: false, sent: '%23' },
  { value: '../..', refused: false, sent: '..%2F..' },
  { value: '%2F', refused: false, sent: '%252F' },
  { value: '%', refused: false, sent: '%25' },
  { value: 'a\\b', refused: false, sent: 'a%5Cb' },
  { value: ' .. ', refused: false, sent: '%20..%20' },
  { value: '...', refused: false, sent: '...' },
  { value: '{customerId}', refused: false, sent: '%7BcustomerId%7D' },
];

/** Text a hostile answer may hold: escape sequences and controls that act on a terminal. */
const HOSTILE: [string, string][] = [
  ['ESC CSI (clear the screen, home the cursor)', '\u001b[2J\u001b[H'],
  ['ESC CSI (colour)', '\u001b[31mred\u001b[0m'],
  ['OSC (retitle the window), BEL-ended', '\u001b]0;pwned\u0007'],
  ['OSC 8 (a hidden link), ST-ended', '\u001b]8;;http://evil.example\u001b\\click\u001b]8;;\u001b\\'],
  ['BEL', 'ding\u0007'],
  ['C1 CSI (U+009B)', '\u009b2J'],
  ['C1 OSC and ST (U+009D, U+009C)', '\u009d0;title\u009c'],
  ['C1 NEL (U+0085)', 'line\u0085next'],
  ['CR (overwrites the line)', 'safe\rEVIL'],
  ['backspaces', 'abc\b\b\b'],
  ['DEL', 'x\u007fy'],
  ['a newline (a forged line)', 'a\nDone: forged'],
  ['bidi override (U+202E)', 'abc\u202edef'],
];

const write = (dir: string, name: string, content: unknown): string => {
  const file = path.join(dir, name);
  writeFileSync(file, typeof content === 'string' ? content : JSON.stringify(content));
  return file;
};

/** Runs a fixture file in-process as `pgw trigger --fixture` does (load, then run), returning what it printed and the error. */
async function runFile(session: Session, file: string, options: RunOptions = {}, args: Record<string, string> = {}): Promise<{ printed: string[]; error: unknown }> {
  const printed: string[] = [];
  try {
    await runFixture(session, loadFixtureFile(file), args, (t) => printed.push(t), file, options);
    return { printed, error: undefined };
  } catch (error) {
    return { printed, error };
  }
}

/** A fake gateway: a token for anyone, each request recorded, answers chosen by the test. */
interface Fake { base: string; dir: string; config: string; seen: { method: string; url: string }[]; answer: (req: IncomingMessage) => { status: number; body: unknown }; close(): Promise<void> }

async function startFake(dir: string): Promise<Fake> {
  const fake: Fake = {
    base: '', dir, config: '', seen: [],
    answer: () => ({ status: 200, body: {} }),
    close: () => new Promise((r) => { server.closeAllConnections(); server.close(() => { r(); }); }),
  };
  const server: Server = createServer((req, res) => {
    req.resume().on('end', () => {
      const json = (status: number, body: unknown): void => { res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body)); };
      if (req.url === '/oauth2/token') {
        json(200, { access_token: 'token', token_type: 'Bearer', expires_in: 3600 });
        return;
      }
      fake.seen.push({ method: req.method ?? '', url: req.url ?? '' });
      const { status, body } = fake.answer(req);
      json(status, body);
    });
  });
  server.listen(0, '127.0.0.1');
  await new Promise((r) => server.once('listening', r));
  fake.base = `http://127.0.0.1:${String((server.address() as AddressInfo).port)}`;
  fake.config = write(dir, 'fake.json', { baseUrl: fake.base, authUrl: fake.base, clientId: 'c', clientSecret: 's' });
  return fake;
}

const configOf = (base: string, key: { clientId: string; clientSecret: string }): Config => ({ baseUrl: base, authUrl: base, clientId: key.clientId, clientSecret: key.clientSecret, file: undefined });

let g: Gateway;
let env: Record<string, string>;
let fake: Fake;
/** A configuration file that does not exist: a refusal before it is needed proves nothing was sent. */
let noConfig: Record<string, string>;
const merchant = (i: 0 | 1): Session => connect(configOf(g.base, g.s.secrets.merchants[i] ?? { clientId: '', clientSecret: '' }));
const partner = (): Session => connect(configOf(g.base, g.s.secrets.partner));

beforeAll(async () => {
  g = await startGateway();
  // The bundled server's credentials file: the partner's key beside the merchants'.
  const file = write(g.dir, 'credentials.json', { baseUrl: g.base, authUrl: g.base, partner: g.s.secrets.partner, merchants: g.s.secrets.merchants });
  env = { PGW_CONFIG: file };
  noConfig = { PGW_CONFIG: path.join(g.dir, 'absent.json') };
  fake = await startFake(g.dir);
});
afterAll(async () => {
  await fake.close();
  await g.close();
});

describe('path and query parameters are data', () => {
  it.each(SEGMENTS)('pathSegment($value): refused $refused, else sent as $sent', ({ value, refused, sent }) => {
    if (refused) {
      expect(() => pathSegment('paymentMethodId', value, 'step 1 "remove"')).toThrow(UsageError);
      expect(() => pathSegment('paymentMethodId', value, 'step 1 "remove"')).toThrow(/step 1 "remove": path\.paymentMethodId ".*" cannot be a path segment/);
      return;
    }
    const filled = fillPath(DELETE_PM, { customerId: 'C', paymentMethodId: value }, 'x');
    expect(filled).toBe(`/pay-api/v1/customers/C/payment-methods/${sent ?? ''}`);
    // As a URL parser reads it: the same path, the same segments, no query or fragment, the value decoded back.
    const url = new URL(`http://gateway.example${filled}`);
    expect(url.pathname).toBe(filled);
    expect(url.search + url.hash).toBe('');
    expect(decodeURIComponent(url.pathname.split('/').at(-1) ?? '')).toBe(value);
  });

  it('refuses a path value that is not text or a number, and a path key the operation does not take', () => {
    expect(() => fillPath(DELETE_PM, { customerId: 'C', paymentMethodId: { a: 1 } }, 'w')).toThrow(/path\.paymentMethodId must be text or a number \(got an object\)/);
    expect(() => fillPath(DELETE_PM, { customerId: 'C', paymentMethodId: null }, 'w')).toThrow(/got null/);
    expect(fillPath(DELETE_PM, { customerId: 7, paymentMethodId: true }, 'w')).toBe('/pay-api/v1/customers/7/payment-methods/true');
    expect(() => checkFixture({ description: 'x', steps: [{ name: 'r', operation: 'deletePaymentMethod', path: { customerId: 'C', paymentMethodId: 'P', extra: '..' } }] }, 't.json'))
      .toThrow(/step 1 "r": path\.extra is not a parameter of deletePaymentMethod/);
  });

  it.each([
    ['a name and value with & = # + % and spaces', { 'a&b=c': 'x&y=z#w + 100%' }],
    ['a list (the name repeated)', { eventType: ['payment.card.captured', 'a&b'] }],
    ['numbers and booleans', { page: 0, asc: false }],
    ['unicode', { search: 'Zoë ✓' }],
  ])('encodes the query: %s', (_name, query) => {
    const text = queryString(query, 'w');
    expect(text.startsWith('?')).toBe(true);
    const back = [...new URLSearchParams(text.slice(1)).entries()];
    const expected = Object.entries(query).flatMap(([k, v]) => (Array.isArray(v) ? v.map((x) => [k, String(x)]) : [[k, String(v)]]));
    expect(back).toEqual(expected);
    expect(new URL(`http://h/p${text}`).hash).toBe('');
  });

  it('leaves a null query value out, and refuses an object', () => {
    expect(queryString({ a: null, b: 1 }, 'w')).toBe('?b=1');
    expect(queryString({}, 'w')).toBe('');
    expect(() => queryString({ a: { b: 1 } }, 'w')).toThrow(/query\.a must be text, a number/);
  });

  it.each(SEGMENTS)('sends $value to the server as $sent, or sends nothing at all', async ({ value, refused, sent }) => {
    fake.seen.length = 0;
    fake.answer = () => ({ status: 204, body: {} });
    // The value comes from an argument: the fixture itself is fine; the request is judged as filled in.
    const file = write(g.dir, 'fake-remove.json', { description: 'remove', steps: [
      { name: 'first', operation: 'searchCustomers', query: { search: 'x' } },
      { name: 'remove', operation: 'deletePaymentMethod', path: { customerId: 'C', paymentMethodId: '${args.pm}' } },
    ] });
    const run = await runFile(connect(configOf(fake.base, { clientId: 'c', clientSecret: 's' })), file, {}, { pm: value });
    if (refused) {
      expect(exitCodeOf(run.error)).toBe(2);
      expect(String(run.error)).toMatch(/step 2 "remove" of .*: path\.paymentMethodId .* cannot be a path segment/);
      // Refused before the first step: nothing reached the server.
      expect(fake.seen).toEqual([]);
    } else {
      expect(run.error).toBeUndefined();
      expect(fake.seen).toEqual([
        { method: 'GET', url: '/pay-api/v1/customers?search=x' },
        { method: 'DELETE', url: `/pay-api/v1/customers/C/payment-methods/${sent ?? ''}` },
      ]);
    }
  });

  it('sends a query whose names and values need encoding as they are (the fake server reads them back)', async () => {
    fake.seen.length = 0;
    fake.answer = () => ({ status: 200, body: { items: [], total: 0 } });
    const file = write(g.dir, 'fake-query.json', { description: 'q', steps: [{ name: 'q', operation: 'searchCustomers', query: { search: 'a&page=9#x', 'x=y&z': ['1', '2 3'] } }] });
    const run = await runFile(connect(configOf(fake.base, { clientId: 'c', clientSecret: 's' })), file);
    expect(run.error).toBeUndefined();
    const url = new URL(`http://h${fake.seen[0]?.url ?? ''}`);
    expect(url.pathname).toBe('/pay-api/v1/customers');
    expect([...url.searchParams.entries()]).toEqual([['search', 'a&page=9#x'], ['x=y&z', '1'], ['x=y&z', '2 3']]);
  });

  describe('against the bundled server', () => {
    let customerId: string;
    let pmId: string;
    const customerStillThere = async (): Promise<void> => {
      const h = await g.s.as(0);
      const customer = await request(g.s.app).get(`/pay-api/v1/customers/${customerId}`).set(h);
      expect(customer.status, customer.text).toBe(200);
      const methods = await request(g.s.app).get(`/pay-api/v1/customers/${customerId}/payment-methods`).set(h);
      expect((methods.body as { items: { id: string }[] }).items.map((m) => m.id)).toContain(pmId);
    };
    beforeAll(async () => {
      const h = await g.s.as(0);
      // Its first name is "..": an answer that is no path segment (the step after it names it).
      const customer = await request(g.s.app).post('/pay-api/v1/customers').set(h).send({ firstName: '..', lastName: 'Dotted', email: 'dots@example.com' });
      customerId = (customer.body as { id: string }).id;
      const pm = await request(g.s.app).post(`/pay-api/v1/customers/${customerId}/payment-methods/cards`).set(h).send({ pan: '4111111111111111', expirationMonth: 12, expirationYear: 2035, name: 'kept' });
      pmId = (pm.body as { id: string }).id;
      expect(pmId).toBeDefined();
    });

    it('issue sample: deletePaymentMethod with paymentMethodId ".." is refused (exit 2), and the customer is still there', async () => {
      const file = write(g.dir, 'dotdot.json', { description: 'the sample', steps: [{ name: 'remove', operation: 'deletePaymentMethod', path: { customerId, paymentMethodId: '..' } }] });
      const run = await pgw(['trigger', '--fixture', file], env);
      expect(run.code, run.stderr).toBe(2);
      expect(run.stderr).toMatch(/step 1 "remove": path\.paymentMethodId "\.\." cannot be a path segment: "\.\." climbs one level up the path/);
      await customerStillThere();
    });

    it('issue sample: voidCardTransaction with transactionId "." is refused (exit 2); the sale is not voided', async () => {
      const h = await g.s.as(0);
      const sale = await request(g.s.app).post('/pay-api/v1/transactions/card/sale').set(h).send({ amount: 10, card: CARD });
      const id = (sale.body as { transactionId: string }).transactionId;
      const file = write(g.dir, 'dot.json', { description: 'the sample', steps: [{ name: 'void', operation: 'voidCardTransaction', path: { transactionId: '.' } }] });
      const run = await pgw(['trigger', '--fixture', file], env);
      expect(run.code, run.stderr).toBe(2);
      expect(run.stderr).toMatch(/path\.transactionId "\." cannot be a path segment/);
      const status = await request(g.s.app).post(`/pay-api/v1/transactions/${id}`).set(h).send({});
      expect((status.body as { status: string }).status).toBe('Captured');
    });

    it.each(SEGMENTS)('deletePaymentMethod with paymentMethodId $value: refused or a 404, never another record', async ({ value, refused }) => {
      const file = write(g.dir, 'segment.json', { description: 'remove', steps: [{ name: 'remove', operation: 'deletePaymentMethod', path: { customerId: '${args.customer}', paymentMethodId: '${args.pm}' } }] });
      const run = await runFile(merchant(0), file, {}, { customer: customerId, pm: value });
      expect(exitCodeOf(run.error)).toBe(refused ? 2 : 1);
      if (!refused) expect(String(run.error)).toMatch(/step 1 "remove" of .* failed: 4\d\d/);
      await customerStillThere();
    });

    it('refuses --customer .. before the first step (nothing is created), and --override path.X=.. before reading the configuration', async () => {
      const name = `Never${String(Date.now())}`;
      const file = write(g.dir, 'args.json', { description: 'args', steps: [
        { name: 'made', operation: 'createCustomer', body: { firstName: name, lastName: 'X', email: 'never@example.com' } },
        { name: 'remove', operation: 'deletePaymentMethod', path: { customerId: '${args.customer}', paymentMethodId: pmId } },
      ] });
      const run = await pgw(['trigger', '--fixture', file, '--customer', '..'], env);
      expect(run.code, run.stderr).toBe(2);
      expect(run.stderr).toMatch(/step 2 "remove" of .*args\.json: path\.customerId "\.\." cannot be a path segment/);
      expect(run.stdout).not.toContain('made:');
      const found = await request(g.s.app).get('/pay-api/v1/customers').query({ search: name }).set(await g.s.as(0));
      expect((found.body as { total: number }).total).toBe(0);
      const override = await pgw(['trigger', '--fixture', file, '--customer', customerId, '--override', 'remove:path.paymentMethodId=%2e%2e'], noConfig);
      expect(override.code, override.stderr).toBe(2);
      expect(override.stderr).toMatch(/path\.paymentMethodId "%2e%2e" cannot be a path segment: it percent-decodes to "\.\."/);
      await customerStillThere();
    });

    it('refuses a path value from an earlier answer at its step ("..", the customer\'s first name): the step is not sent', async () => {
      const file = write(g.dir, 'answer.json', { description: 'answer', steps: [
        { name: 'got', operation: 'getCustomer', path: { customerId }, say: 'got ${got.firstName}' },
        { name: 'remove', operation: 'deletePaymentMethod', path: { customerId, paymentMethodId: '${got.firstName}' } },
      ] });
      const run = await pgw(['trigger', '--fixture', file], env);
      expect(run.code, run.stderr).toBe(2);
      expect(run.stdout).toContain('got ..');
      expect(run.stderr).toMatch(/step 2 "remove" of .*: path\.paymentMethodId "\.\." cannot be a path segment/);
      await customerStillThere();
    });

    it('finds a customer by a search text with & # + % and a quote (the query is encoded end to end)', async () => {
      const last = `O'Hara & Sons #${String(Date.now())} + 100%`;
      await request(g.s.app).post('/pay-api/v1/customers').set(await g.s.as(0)).send({ firstName: 'Q', lastName: last, email: 'q@example.com' });
      const file = write(g.dir, 'search.json', { description: 'search', steps: [{ name: 'found', operation: 'searchCustomers', query: { search: last, pageSize: 5 }, say: 'found ${found.total}: ${found.items[0].lastName}' }] });
      const run = await pgw(['trigger', '--fixture', file], env);
      expect(run.code, run.stderr).toBe(0);
      expect(run.stdout).toContain(`found 1: ${last}`);
    });
  });
});

describe('size and depth limits', () => {
  /**
   * A fixture of one card sale whose body nests so that the fixture is `depth` levels deep in all: the top level
   * is 1, steps 2, the step 3, the body 4 (the outermost of its depth - 3 objects).
   */
  const nested = (depth: number): Fixture => {
    let inner: unknown = 1;
    for (let i = 0; i < depth - 3; i++) inner = { a: inner };
    return { description: 'deep', steps: [{ name: 'sale', operation: 'createCardSale', body: inner as never }] };
  };
  const yamlFlow = (depth: number): string => {
    let inner = '1';
    for (let i = 0; i < depth - 3; i++) inner = `{a: ${inner}}`;
    return `description: deep\nsteps:\n  - name: sale\n    operation: createCardSale\n    body: ${inner}\n`;
  };
  const yamlBlock = (depth: number): string => {
    let text = 'description: deep\nsteps:\n  - name: sale\n    operation: createCardSale\n    body:\n';
    let indent = '      ';
    for (let i = 0; i < depth - 4; i++) {
      text += `${indent}a:\n`;
      indent += ' ';
    }
    return `${text}${indent}a: 1\n`;
  };

  it.each([
    ['exactly the limit', MAX_FIXTURE_BYTES, true],
    ['a byte under', MAX_FIXTURE_BYTES - 1, true],
    ['a byte over', MAX_FIXTURE_BYTES + 1, false],
    ['1 KiB over', MAX_FIXTURE_BYTES + 1024, false],
  ])('a JSON fixture of %s (%d bytes): loaded %s', (_name, size, loads) => {
    const text = JSON.stringify(nested(5));
    const file = write(g.dir, 'sized.json', text + ' '.repeat(size - text.length));
    expect(readFileSync(file).length).toBe(size);
    if (loads) expect(loadFixtureFile(file).steps).toHaveLength(1);
    else expect(() => loadFixtureFile(file)).toThrow(/the fixture .*sized\.json is larger than 1 MiB \(\d+ bytes; at most 1048576 bytes\)/);
  });

  it('refuses a 200 MB fixture by its size, without reading it (a sparse file; memory stays flat)', () => {
    const file = write(g.dir, 'huge.json', '{"description": "');
    truncateSync(file, 200 * 1024 * 1024);
    const before = process.memoryUsage().rss;
    const started = Date.now();
    expect(() => loadFixtureFile(file)).toThrow(/larger than 1 MiB \(209715200 bytes/);
    expect(Date.now() - started).toBeLessThan(1000);
    expect(process.memoryUsage().rss - before).toBeLessThan(16 * 1024 * 1024);
  });

  it('refuses an endless stream (/dev/zero) after one byte over the limit', () => {
    expect(() => loadFixtureFile('/dev/zero')).toThrow(/the fixture \/dev\/zero is larger than 1 MiB \(it gave more/);
  });

  it.each([
    ['JSON', 'json', (d: number) => JSON.stringify(nested(d))],
    ['YAML, flow style', 'yaml', yamlFlow],
    ['YAML, block style', 'yml', yamlBlock],
  ])('%s: nesting at the limit (64) loads, one level more is refused', (_name, ext, make) => {
    const at = write(g.dir, `at.${ext}`, make(MAX_FIXTURE_DEPTH));
    expect(loadFixtureFile(at).steps).toHaveLength(1);
    const over = write(g.dir, `over.${ext}`, make(MAX_FIXTURE_DEPTH + 1));
    expect(() => loadFixtureFile(over)).toThrow(UsageError);
    expect(() => loadFixtureFile(over)).toThrow(/the fixture .*over\.(json|yaml|yml) is nested more than 64 levels deep/);
  });

  it.each([
    ['JSON arrays', 'json', `{"description": "x", "steps": [{"name": "s", "operation": "createCardSale", "body": ${'['.repeat(100_000)}${']'.repeat(100_000)}}]}`],
    ['JSON objects', 'json', `{"description": "x", "steps": ${'{"a":'.repeat(100_000)}1${'}'.repeat(100_000)}}`],
    ['JSON brackets inside strings do not count', 'json', `{"description": "${'['.repeat(100_000)}", "steps": [{"name": "s", "operation": "createCardSale", "body": {}}]}`],
    ['YAML flow lists', 'yaml', `description: x\nsteps: ${'['.repeat(100_000)}${']'.repeat(100_000)}\n`],
    ['YAML compact block lists', 'yaml', `description: x\nsteps:\n${'- '.repeat(100_000)}1\n`],
    ['a YAML alias of its own ancestor (endless nesting)', 'yaml', 'description: x\nsteps:\n  - &s\n    name: s\n    operation: createCardSale\n    body: { again: *s }\n'],
    ['YAML aliases deeper than the text (an anchor 40 deep, aliased 40 deep)', 'yaml',
      `description: x\nextra: &deep ${'['.repeat(40)}1${']'.repeat(40)}\nsteps: ${'['.repeat(38)}*deep${']'.repeat(38)}\n`],
  ])('refuses %s (100,000 levels: a usage error, not a stack overflow)', (name, ext, text) => {
    const file = write(g.dir, `deep.${ext}`, text);
    if (name.includes('inside strings')) {
      expect(loadFixtureFile(file).steps).toHaveLength(1);
      return;
    }
    expect(() => loadFixtureFile(file)).toThrow(/is nested more than 64 levels deep/);
  });

  it('refuses YAML aliases that multiply (a "billion laughs"), at once', () => {
    let text = 'description: x\na0: &a0 [x, x, x, x, x, x, x, x, x, x]\n';
    for (let i = 1; i < 30; i++) text += `a${String(i)}: &a${String(i)} [${Array.from({ length: 10 }, () => `*a${String(i - 1)}`).join(', ')}]\n`;
    const file = write(g.dir, 'laughs.yaml', `${text}steps: *a29\n`);
    const started = Date.now();
    expect(() => loadFixtureFile(file)).toThrow(/the fixture .*laughs\.yaml is not valid YAML: Excessive alias count/);
    expect(Date.now() - started).toBeLessThan(5000);
  });

  it('refuses deep data given in memory or by --add (checkFixture), not only in files', () => {
    expect(() => checkFixture(nested(MAX_FIXTURE_DEPTH + 1), 'memory')).toThrow(/fixture memory is nested more than 64 levels deep/);
    const base = checkFixture(nested(5), 'memory');
    const deep = `${'['.repeat(100_000)}${']'.repeat(100_000)}`;
    expect(() => applyEdits(base, [parseEdit('add', `sale:more=${deep}`)], 'memory')).toThrow(/nested more than 64 levels deep/);
  });

  it('pgw exits 2 (usage) on an over-size or 100,000-deep fixture, before reading the configuration', async () => {
    const huge = write(g.dir, 'huge-cli.json', '{');
    truncateSync(huge, MAX_FIXTURE_BYTES + 1);
    const big = await pgw(['trigger', '--fixture', huge], noConfig);
    expect(big.code, big.stderr).toBe(2);
    expect(big.stderr).toMatch(/larger than 1 MiB/);
    const deep = write(g.dir, 'deep-cli.json', `{"description": "x", "steps": [${'['.repeat(100_000)}${']'.repeat(100_000)}]}`);
    const run = await pgw(['trigger', '--fixture', deep], noConfig);
    expect(run.code, run.stderr).toBe(2);
    expect(run.stderr).toMatch(/^pgw: the fixture .*deep-cli\.json is nested more than 64 levels deep/);
  });
});

describe('steps that need --allow-destructive', () => {
  it('the table names operations of the route table, by method and path', () => {
    for (const row of consentRoutes()) expect(row.routes, row.operationId).toBe(row.table);
    expect(Object.keys(NEEDS_CONSENT).sort()).toEqual(['createApiKey', 'createSandboxMerchant', 'createWebhookEndpoint', 'deleteApiKey', 'deleteSandboxMerchant', 'resetSandbox', 'updateWebhookEndpoint']);
  });

  it.each([
    ['http://127.0.0.1:8080/hooks', true], ['http://127.200.3.4/x', true], ['http://localhost:9/x', true], ['http://LOCALHOST/x', true],
    ['http://[::1]:9/x', true], ['http://[0:0:0:0:0:0:0:1]/x', true], ['http://2130706433/x', true], ['http://0x7f.1/x', true],
    ['http://[::ffff:127.0.0.1]/x', true],
    ['http://10.0.0.1/x', false], ['http://192.168.1.1/x', false], ['https://hooks.example.com/x', false], ['http://127.0.0.1.nip.io/x', false],
    ['http://localhost.example.com/x', false], ['http://127.0.0.1@evil.example/x', false], ['http://[::2]/x', false], ['http://[::ffff:10.0.0.1]/x', false],
    ['http://0.0.0.0/x', false], ['not a url', false], ['', false],
  ])('isLoopbackUrl(%s) is %s', (url, loopback) => {
    expect(isLoopbackUrl(url)).toBe(loopback);
  });

  it('--list marks exactly the built-in fixtures with such steps, and says what they do', () => {
    const lines = listing().split('\n');
    // A type's line, then its mark under the description.
    const marked = lines.flatMap((line, i) => (/^ {20,}! /.test(lines[i + 1] ?? '') ? [line.trim().split(/\s+/)[0]] : []));
    expect(marked.sort()).toEqual(['api_key.created', 'api_key.deleted', 'merchant.created']);
    expect(listing()).toMatch(/api_key\.created .*\n\s+! creates an API key \(step 1 "key", createApiKey\); revokes an API key \(step 2 "deleted", deleteApiKey\)/);
    expect(listing()).toMatch(/refused\s+unless --allow-destructive is given/);
    for (const type of ['api_key.created', 'api_key.deleted', 'merchant.created']) expect(stepsNeedingConsent(builtInFixture(type as never) as Fixture).length).toBeGreaterThan(0);
  });

  /** One case per operation of the table: its fixture, and whether its effect is there (read from the server). */
  interface Case { key?: 'partner'; merchant?: 1; setup(): Promise<Record<string, string>>; steps(ctx: Record<string, string>): unknown[]; done(ctx: Record<string, string>): Promise<boolean> }
  const listed = async (who: 0 | 1 | 'partner', url: string): Promise<Record<string, unknown>[]> => {
    const res = await request(g.s.app).get(url).set(await g.s.as(who));
    return (res.body as { items: Record<string, unknown>[] }).items;
  };
  const CASES: Record<string, Case> = {
    resetSandbox: {
      merchant: 1,
      async setup() {
        const c = await request(g.s.app).post('/pay-api/v1/customers').set(await g.s.as(1)).send({ firstName: 'Reset', lastName: 'Me', email: 'r@example.com' });
        return { customerId: (c.body as { id: string }).id };
      },
      steps: () => [{ name: 'wipe', operation: 'resetSandbox' }],
      done: async (ctx) => (await request(g.s.app).get(`/pay-api/v1/customers/${ctx.customerId ?? ''}`).set(await g.s.as(1))).status === 404,
    },
    deleteSandboxMerchant: {
      key: 'partner',
      async setup() {
        const m = await request(g.s.app).post('/sandbox/v1/merchants').set(await g.s.as('partner')).send({ name: 'to delete', expiresInSeconds: 600 });
        return { merchantId: (m.body as { merchantId: string }).merchantId };
      },
      steps: (ctx) => [{ name: 'gone', operation: 'deleteSandboxMerchant', path: { merchantId: ctx.merchantId } }],
      done: async (ctx) => !(await listed('partner', '/sandbox/v1/merchants')).some((m) => m.merchantId === ctx.merchantId),
    },
    createSandboxMerchant: {
      key: 'partner',
      setup: () => Promise.resolve({ name: `made ${String(Date.now())}` }),
      steps: (ctx) => [{ name: 'made', operation: 'createSandboxMerchant', body: { name: ctx.name, expiresInSeconds: 600 } }],
      done: async (ctx) => (await listed('partner', '/sandbox/v1/merchants')).some((m) => m.name === ctx.name),
    },
    createApiKey: {
      setup: () => Promise.resolve({ name: `key ${String(Date.now())}` }),
      steps: (ctx) => [{ name: 'key', operation: 'createApiKey', body: { name: ctx.name } }],
      done: async (ctx) => (await listed(0, '/pay-api/v1/merchants/tokens')).some((k) => k.name === ctx.name),
    },
    deleteApiKey: {
      async setup() {
        const k = await request(g.s.app).post('/pay-api/v1/merchants/tokens').set(await g.s.as(0)).send({ name: 'to revoke' });
        return { clientId: (k.body as { clientId: string }).clientId };
      },
      steps: (ctx) => [{ name: 'revoke', operation: 'deleteApiKey', path: { clientId: ctx.clientId } }],
      done: async (ctx) => (await listed(0, '/pay-api/v1/merchants/tokens')).some((k) => k.clientId === ctx.clientId && k.isActive === false),
    },
    createWebhookEndpoint: {
      setup: () => Promise.resolve({ name: `hook ${String(Date.now())}` }),
      steps: (ctx) => [{ name: 'hook', operation: 'createWebhookEndpoint', body: { name: ctx.name, endpointUrl: 'http://10.0.0.1:9/hooks', eventTypes: ['payment.card.captured'] } }],
      done: async (ctx) => (await listed(0, '/v2/webhooks/endpoints')).some((w) => w.name === ctx.name),
    },
    updateWebhookEndpoint: {
      async setup() {
        const w = await request(g.s.app).post('/v2/webhooks/endpoints').set(await g.s.as(0)).send({ name: 'moved', endpointUrl: 'http://127.0.0.1:9/hooks', eventTypes: ['payment.card.captured'] });
        return { webhookId: (w.body as { id: string }).id };
      },
      steps: (ctx) => [{ name: 'move', operation: 'updateWebhookEndpoint', path: { webhookId: ctx.webhookId }, body: { name: 'moved', endpointUrl: 'http://10.0.0.2:9/hooks', eventTypes: ['payment.card.captured'] } }],
      done: async (ctx) => (await listed(0, '/v2/webhooks/endpoints')).some((w) => w.id === ctx.webhookId && w.endpointUrl === 'http://10.0.0.2:9/hooks'),
    },
  };
  const fixtureOf = (c: Case, ctx: Record<string, string>, name: string): unknown => ({ description: name, ...(c.key ? { key: c.key } : {}), steps: c.steps(ctx) });

  it.each(Object.keys(CASES))('%s without --allow-destructive: refused (exit 2) naming the step; a later read finds nothing done', async (name) => {
    const c = CASES[name] as Case;
    const ctx = await c.setup();
    const file = write(g.dir, `${name}.json`, fixtureOf(c, ctx, name));
    const run = await pgw(['trigger', '--fixture', file, ...(c.merchant ? ['--merchant', '1'] : [])], env);
    expect(run.code, run.stderr).toBe(2);
    expect(run.stderr).toMatch(new RegExp(`${name}\\.json has a step that needs --allow-destructive: .*\\(step 1 "\\w+", ${name}\\)\\. Nothing was sent`));
    expect(run.stdout).toBe('');
    expect(await c.done(ctx)).toBe(false);
  });

  it.each(Object.keys(CASES))('%s with allowDestructive: done (a later read finds it)', async (name) => {
    const c = CASES[name] as Case;
    const ctx = await c.setup();
    const file = write(g.dir, `${name}.json`, fixtureOf(c, ctx, name));
    const session = c.key === 'partner' ? partner() : merchant(c.merchant ?? 0);
    const run = await runFile(session, file, { allowDestructive: true });
    expect(run.error).toBeUndefined();
    expect(await c.done(ctx)).toBe(true);
  });

  it.each([
    'http://127.0.0.1:9/hooks', 'http://localhost:9/hooks', 'http://[::1]:9/hooks', 'http://127.3.4.5:9/hooks',
  ])('registers a webhook on loopback (%s) without the flag', async (url) => {
    const name = `loopback ${url}`;
    const file = write(g.dir, 'loopback.json', { description: 'loopback', steps: [{ name: 'hook', operation: 'createWebhookEndpoint', body: { name, endpointUrl: url, eventTypes: ['payment.card.captured'] } }] });
    const run = await runFile(merchant(0), file);
    expect(run.error).toBeUndefined();
    expect((await listed(0, '/v2/webhooks/endpoints')).some((w) => w.name === name && w.endpointUrl === url)).toBe(true);
  });

  it.each([
    ['a private address', 'http://192.168.7.7:9/hooks'],
    ['a loopback-looking name', 'http://127.0.0.1.nip.io/hooks'],
    ['user info before another host', 'http://127.0.0.1@hooks.example.com/hooks'],
    ['an argument', '${args.url}'],
    ['an earlier step\'s answer (not known before the run)', 'http://${first.id}.example/hooks'],
  ])('refuses a webhook off this machine without the flag, before the first step: %s', async (_name, url) => {
    const name = `Off${String(Date.now())}${String(Math.random()).slice(2, 8)}`;
    const file = write(g.dir, 'offhost.json', { description: 'off', args: { url: 'https://hooks.example.com/x' }, steps: [
      { name: 'first', operation: 'createCustomer', body: { firstName: name, lastName: 'X', email: 'x@example.com' } },
      { name: 'hook', operation: 'createWebhookEndpoint', body: { name, endpointUrl: url, eventTypes: ['payment.card.captured'] } },
    ] });
    const run = await runFile(merchant(0), file);
    expect(exitCodeOf(run.error)).toBe(2);
    expect(String(run.error)).toMatch(/has a step that needs --allow-destructive: registers a webhook endpoint off this machine .*\(step 2 "hook", createWebhookEndpoint\)/);
    const found = await request(g.s.app).get('/pay-api/v1/customers').query({ search: name }).set(await g.s.as(0));
    expect((found.body as { total: number }).total).toBe(0);
  });

  it('a built-in fixture runs its own such steps without the flag; the same file given with --fixture is refused', async () => {
    const before = (await listed(0, '/pay-api/v1/merchants/tokens')).length;
    const builtIn = await pgw(['trigger', 'api_key.created'], env);
    expect(builtIn.code, builtIn.stderr).toBe(0);
    expect((await listed(0, '/pay-api/v1/merchants/tokens')).length).toBe(before + 1);
    const copy = write(g.dir, 'api_key.created.json', readFileSync(path.join(ROOT, 'cli', 'fixtures', 'api_key.created.json'), 'utf8'));
    for (const args of [['--fixture', copy], ['api_key.created', '--fixture', copy]]) {
      const run = await pgw(['trigger', ...args], env);
      expect(run.code, run.stderr).toBe(2);
      expect(run.stderr).toMatch(/api_key\.created\.json has steps that need --allow-destructive: creates an API key \(step 1 "key", createApiKey\); revokes an API key \(step 2 "deleted", deleteApiKey\)/);
    }
    expect((await listed(0, '/pay-api/v1/merchants/tokens')).length).toBe(before + 1);
  });

  // The flag itself is parsed by cli/src/main.ts, which passes it to trigger/runUserFixture as { allowDestructive }.
  const mainTakesFlag = readFileSync(path.join(ROOT, 'cli', 'src', 'main.ts'), 'utf8').includes('allow-destructive');
  it.skipIf(!mainTakesFlag)('pgw trigger --fixture FILE --allow-destructive runs such a step', async () => {
    const name = `flag key ${String(Date.now())}`;
    const file = write(g.dir, 'flag.json', { description: 'flag', steps: [{ name: 'key', operation: 'createApiKey', body: { name } }] });
    const run = await pgw(['trigger', '--fixture', file, '--allow-destructive'], env);
    expect(run.code, run.stderr).toBe(0);
    expect((await listed(0, '/pay-api/v1/merchants/tokens')).some((k) => k.name === name)).toBe(true);
  });
});

describe('what trigger prints is escaped for a terminal', () => {
  it.each(HOSTILE)('terminalSafe escapes %s', (_name, text) => {
    const safe = terminalSafe(text);
    expect(safe).not.toMatch(UNSAFE_BUT_NEWLINE);
    expect(safe).not.toContain('\n');
    expect(terminalSafe(safe)).toBe(safe);
    if (text.includes('\u001b')) expect(safe).toContain('\\u001b');
    // The printable text stays as it was.
    expect(safe.replace(/\\u[0-9a-f]{4}/g, '')).toBe(text.replace(UNSAFE, ''));
  });

  it('escapes the answers a fixture prints (say, and the default line), its description, and the server\'s error', async () => {
    let i = 0;
    fake.answer = (req) => {
      if (req.url === '/pay-int-api/invoices') return { status: 400, body: { details: HOSTILE.map(([, t]) => t).join(' | '), errors: { '\u001b[8mfield': ['\u009b2J hidden'] } } };
      const text = HOSTILE[i++ % HOSTILE.length]?.[1] ?? '';
      return { status: 200, body: { id: `id${text}`, note: text } };
    };
    const steps = HOSTILE.map((_, n) => ({ name: `s${String(n)}`, operation: 'createCustomer', body: { firstName: 'a', lastName: 'b', email: 'c@example.com' }, say: `${String(n)}: \${s${String(n)}.note}` }));
    const file = write(g.dir, 'hostile.json', { description: 'hostile \u001b]0;title\u0007 fixture', steps: [
      ...steps,
      { name: 'plain', operation: 'createCustomer', body: { firstName: 'a', lastName: 'b', email: 'c@example.com' } },
      { name: 'fails', operation: 'createInvoice', body: {} },
    ] });
    const run = await pgw(['trigger', '--fixture', file], { PGW_CONFIG: fake.config });
    expect(run.code, run.stderr).toBe(1);
    expect(run.stdout).not.toMatch(UNSAFE_BUT_NEWLINE);
    expect(run.stderr).not.toMatch(UNSAFE_BUT_NEWLINE);
    const lines = run.stdout.split('\n');
    expect(lines[0]).toBe(`Running ${file}: hostile \\u001b]0;title\\u0007 fixture`);
    // One line per step: the forged "Done:" is inside its line, escaped.
    for (const [n, [, text]] of HOSTILE.entries()) expect(lines[n + 1]).toBe(`  ${String(n)}: ${terminalSafe(text)}`);
    expect(lines[HOSTILE.length + 1]).toMatch(/^ {2}plain: createCustomer 200 id\\u001b\[2J\\u001b\[H$/);
    expect(lines.filter((l) => l.startsWith('Done:'))).toEqual([]);
    expect(run.stderr).toContain('\\u001b[31mred\\u001b[0m');
    expect(run.stderr).toContain('\\u001b[8mfield: \\u009b2J hidden');
    expect(run.stderr.trimEnd().split('\n')).toHaveLength(1);
  });

  it('escapes fixture text in its refusals (an unknown operation, a missing reference)', async () => {
    const file = write(g.dir, 'hostile-op.json', { description: 'x', steps: [{ name: 's', operation: 'create\u001b[2JCustomer' }] });
    const run = await pgw(['trigger', '--fixture', file], noConfig);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('unknown operation "create\\u001b[2JCustomer"');
    expect(run.stderr).not.toMatch(UNSAFE_BUT_NEWLINE);
  });

  it('pgw clock and pgw logs print the server\'s text escaped too', async () => {
    fake.answer = (req) => (req.url?.startsWith('/sandbox/v1/clock')
      ? { status: 200, body: { now: '2030-01-01T00:00:00Z\u001b]0;pwned\u0007', merchantId: 'm\u009b2J', offsetSeconds: 0 } }
      : { status: 200, body: { items: [{ id: 'd', eventId: 'e', eventType: 'payment.card.captured\u001b[2K', status: 'Failed', attempt: 1, httpStatus: null, createdOn: '2030-01-01T00:00:00Z', webhookId: 'w', triggerType: 'Scheduled' }], total: 1 } });
    const clock = await pgw(['clock'], { PGW_CONFIG: fake.config });
    expect(clock.code, clock.stderr).toBe(0);
    expect(clock.stdout).toContain('2030-01-01T00:00:00Z\\u001b]0;pwned\\u0007  (merchant m\\u009b2J');
    const logs = await pgw(['logs'], { PGW_CONFIG: fake.config });
    expect(logs.code, logs.stderr).toBe(0);
    expect(logs.stdout).toContain('payment.card.captured\\u001b[2K');
    for (const out of [clock.stdout, logs.stdout]) expect(out).not.toMatch(UNSAFE_BUT_NEWLINE);
  });
});
