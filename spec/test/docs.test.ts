// The documentation page renders offline in headless Chromium and shows operations and webhook events.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readMagicValues } from '../../generator/transform/magic-values.ts';
import { readStateMachines } from '../../generator/transform/state-machines.ts';
import { servedAt } from '../../server/src/platform/docs-page.ts';
import { STAMP, specHash, stateMachineRows } from '../../scripts/docs.ts';
import { markDesigned } from '../../scripts/docs-marks.ts';
import { root } from '../../scripts/lib/run.ts';

const chromiumPath = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const available = existsSync(chromiumPath);
// CI installs Chromium and sets PGW_REQUIRE_CHROMIUM, so there a missing browser fails instead of skipping.
if (!available && process.env.PGW_REQUIRE_CHROMIUM) throw new Error(`Chromium not found at ${chromiumPath}`);
if (!available) {
  console.warn(`\n*** SKIPPING the docs rendering test: no Chromium at ${chromiumPath} (apt-get install chromium) ***\n`);
}

/** Sections of the page (Redoc names them after the tag) and text each must show once opened. */
const sections: [string, string[]][] = [
  ['authentication', ['/oauth2/token', '/crm/oauth2/token']],
  ['ach-payments', ['/pay-api/v1/transactions/ach/payment', '/pay-api/v1/transactions/ach/{transactionId}/hold']],
  ['customers', ['/pay-api/v1/customers', '/pay-api/v1/customers/{customerId}']],
  ['invoices', ['/pay-int-api/invoices/publish', '/pay-int-api/invoices/{invoiceId}/submit']],
  ['categories', ['/pay-int-api/categories']],
  ['webhooks', ['/v2/webhooks/endpoints', '/v2/webhooks/endpoints/{webhookId}']],
  ['webhook-events', ['settlement.batch.completed', 'payment.card.authorized', 'webhook-signature']],
];

describe.skipIf(!available)('the documentation page', () => {
  let browser: Browser;
  let tab: Page;
  const page = path.join(root, 'docs', 'index.html');
  const external: string[] = [];
  /** What `npm run docs` printed (stdout and stderr). */
  let printed = '';

  beforeAll(async () => {
    const build = spawnSync(path.join(root, 'node_modules', '.bin', 'tsx'), ['scripts/docs.ts'], { cwd: root, encoding: 'utf8' });
    printed = `${build.stdout}${build.stderr}`;
    if (build.status !== 0) throw new Error(`scripts/docs.ts failed:\n${printed}`);
    browser = await chromium.launch({
      executablePath: chromiumPath,
      args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking',
        '--disable-component-update', '--disable-sync'],
    });
    const context = await browser.newContext({ offline: true });
    tab = await context.newPage();
    // Offline: every request that is not the file itself is refused and recorded.
    await tab.route('**/*', async (route) => {
      const url = route.request().url();
      if (url.startsWith('file:') || url.startsWith('data:') || url.startsWith('blob:')) {
        await route.continue();
      } else {
        external.push(url);
        await route.abort();
      }
    });
    await tab.goto(pathToFileURL(page).href);
    await tab.waitForSelector('#redoc [data-section-id]', { timeout: 30_000 });
  }, 120_000);

  afterAll(async () => {
    await browser.close();
  });

  /** The text Redoc rendered (not the embedded definition script), once it contains every wanted string. */
  async function renderedSection(slug: string, wanted: readonly string[]): Promise<string> {
    await tab.goto(`${pathToFileURL(page).href}#/${slug}`);
    let text = '';
    await expect
      .poll(async () => {
        text = await tab.locator('#redoc').innerText();
        return wanted.every((t) => text.includes(t));
      }, { timeout: 15_000 })
      .toBe(true)
      .catch(() => undefined);
    return text;
  }

  it('renders the introduction', async () => {
    const text = await tab.locator('#redoc').innerText();
    expect(text).toContain('Payment Gateway API');
    expect(text).toContain('Error codes (designed)');
  });

  it.each(sections)('renders the %s section with its operations', async (slug, wanted) => {
    const text = await renderedSection(slug, wanted);
    for (const expected of wanted) expect(text).toContain(expected);
  });

  it('publishes the state machine tables the spec declares', async () => {
    const text = await renderedSection('section/state-machines', ['State machines', 'holdAchTransaction', 'refundCardTransaction', 'publishInvoice']);
    expect(text).toContain('State machines');
    // A row of each table, as the intro renders it: from, trigger, to, code, event.
    expect(text).toMatch(/Scheduled \(21\)\s+holdAchTransaction\s+Held \(26\)\s+000\s+payment\.ach\.held/);
    expect(text).toMatch(/Settled \(4\)\s+refundCardTransaction \(all that remains, or no amount\)\s+Refunded \(7\)\s+000\s+payment\.card\.refunded/);
    expect(text).toMatch(/PartiallyRefunded \(11\)\s+refundCardTransaction \(a part of what remains\)\s+PartiallyRefunded \(11\)\s+000\s+payment\.card\.refunded/);
    expect(text).toMatch(/Draft \(1\)\s+publishInvoice\s+Due \(2\)/);
    expect(text).toContain('network.submit');
    // The table's columns, and the network triggers with what they are.
    expect(text).toMatch(/From\s+Trigger\s+To\s+Response code\s+Event\s+Provenance/);
    expect(text).toContain('network.clear: The entry clears 24 hours after submission');
    expect(text).toContain('time.dueDatePassed: The due date of a Due invoice passes');
  });

  it('publishes every sandbox magic value of the spec', async () => {
    // The values are the contract's data (spec/data/magic-values.yaml, as the bundled document carries it).
    const model = readMagicValues(JSON.parse(readFileSync(path.join(root, 'spec', 'dist', 'openapi.json'), 'utf8')) as Record<string, unknown>);
    const values = model === undefined ? [] : [
      ...model.cards.values.map((c) => c.number), ...model.amounts.values.map((a) => a.amount.toFixed(2)),
      ...model.postalCodes.values.map((p) => p.postalCode), ...model.achAccounts.values.map((a) => a.accountNumber),
    ];
    expect(values).toEqual(expect.arrayContaining(['4000000000000002', '90.05']));
    expect(values.length).toBeGreaterThan(20);
    const text = await renderedSection('section/sandbox-magic-values-(designed)', values);
    for (const value of values) expect(text, value).toContain(value);
  });

  it('publishes every row of every state machine the spec declares', async () => {
    await renderedSection('section/state-machines', ['State machines', 'holdAchTransaction']);
    // Each table row as the page shows it: cells as text, Markdown code ticks and escapes gone.
    const rendered = new Set<string>();
    for (const row of await tab.locator('#redoc table tr').all()) {
      rendered.add((await row.locator('th, td').allInnerTexts()).map((c) => c.replace(/\s+/g, ' ').trim()).join(' | '));
    }
    const plain = (markdown: string): string => markdown.replaceAll('\\|', '|').replace(/[`*]/g, '').replace(/\s+/g, ' ').trim();
    const machines = readStateMachines(JSON.parse(readFileSync(path.join(root, 'spec', 'dist', 'openapi.json'), 'utf8')) as Record<string, unknown>);
    expect(machines.length).toBeGreaterThanOrEqual(3);
    let rows = 0;
    for (const machine of machines) {
      for (const cells of stateMachineRows(machine)) {
        const row = cells.map(plain).join(' | ');
        expect(rendered.has(row), `${machine.name}: ${row}`).toBe(true);
        rows += 1;
      }
    }
    expect(rows).toBe(machines.reduce((n, m) => n + m.rows.length, 0));
  });

  it('shows every heading of the description whole in the side menu (inline code included)', async () => {
    const headings = [...readFileSync(path.join(root, 'spec', 'description.md'), 'utf8').matchAll(/^##? (.+)$/gm)]
      .map((m) => (m[1] ?? '').replace(/`([^`]*)`/g, '$1').trim());
    expect(headings).toContain('Response codes (designed, except 000)');
    await tab.goto(pathToFileURL(page).href);
    const menu = await tab.locator('.menu-content').innerText();
    for (const heading of headings) expect(menu, heading).toContain(heading);
  });

  it('marks every designed operation with a badge and the spec\'s reason, and its designed parameters', async () => {
    const doc = JSON.parse(readFileSync(path.join(root, 'spec', 'dist', 'openapi.json'), 'utf8')) as Record<string, unknown>;
    const marks = markDesigned(doc);
    const operations = marks.filter((m) => m.kind === 'operation');
    expect(operations.length).toBeGreaterThan(10);
    const paths = doc.paths as Record<string, Record<string, { operationId: string; tags: string[] }>>;
    for (const operation of operations) {
      const [, , route, method] = operation.pointer.split('/');
      const definition = paths[(route ?? '').replaceAll('~1', '/').replaceAll('~0', '~')]?.[method ?? ''];
      // Redoc routes each operation at #/<tag>/<operationid>, and renders the section it routes to.
      const slug = `/${(definition?.tags[0] ?? '').toLowerCase().replace(/\s+/g, '-')}/${(definition?.operationId ?? '').toLowerCase()}`;
      await tab.goto(`${pathToFileURL(page).href}#${slug}`);
      const section = tab.locator(`[data-section-id="${slug}"]`).first();
      await expect.poll(async () => (await section.locator('h2').first().innerText().catch(() => '')).includes('Designed'), { timeout: 15_000 }).toBe(true);
      const text = await section.innerText();
      // The sentence as Markdown renders it: the bold label, then the reason.
      expect(text, slug).toContain(operation.sentence.replace(/\*\*/g, '').replace(/`/g, '').slice(0, 60));
      for (const parameter of marks.filter((m) => m.kind === 'parameter' && m.pointer.startsWith(`${operation.pointer}/`))) {
        expect(text, `${slug} ${parameter.pointer}`).toContain(parameter.sentence.replace(/\*\*/g, '').replace(/`/g, '').slice(0, 40));
      }
    }
    await tab.goto(`${pathToFileURL(page).href}#/card-payments/authorizecard`);
    await tab.waitForTimeout(500);
    mkdirSync(path.join(root, 'test-artifacts', 'docs'), { recursive: true });
    await tab.screenshot({ path: path.join(root, 'test-artifacts', 'docs', 'designed-operation.png') });
  }, 120_000);

  it('records the spec it was built from, as the server checks it', () => {
    const bundle = readFileSync(path.join(root, 'spec', 'dist', 'openapi.json'), 'utf8');
    expect(STAMP.exec(readFileSync(page, 'utf8'))?.[1]).toBe(specHash(JSON.parse(bundle)));
  });

  it('needs nothing from the network to render, its Redocly badge included', async () => {
    // Every request to another host is refused and recorded: the page asked for none (no script, font or image).
    await tab.goto(pathToFileURL(page).href);
    await tab.waitForSelector('#redoc [data-section-id]', { timeout: 30_000 });
    const badge = tab.locator('img[alt="redocly logo"]').first();
    await expect.poll(async () => badge.evaluate((img) => { const image = img as unknown as { complete: boolean; naturalWidth: number }; return image.complete && image.naturalWidth > 0; }).catch(() => false), { timeout: 15_000 }).toBe(true);
    expect(external).toEqual([]);
  }, 60_000);

  it('shows the address of the server that serves it in the Servers panel', async () => {
    // As a sandbox on another port serves the page (server/src/platform/docs-page.ts), rendered.
    const spec = JSON.parse(readFileSync(path.join(root, 'spec', 'dist', 'openapi.json'), 'utf8')) as unknown;
    const served = servedAt(readFileSync(page, 'utf8'), spec, 'http://127.0.0.1:45123');
    const url = 'http://127.0.0.1:45123/docs';
    await tab.route(url, (route) => route.fulfill({ status: 200, contentType: 'text/html', body: served }), { times: 1 });
    await tab.goto(url);
    await tab.waitForSelector('#redoc [data-section-id]', { timeout: 30_000 });
    const text = await tab.locator('#redoc').innerText();
    expect(text).toContain('http://127.0.0.1:45123');
    expect(text).not.toMatch(/127\.0\.0\.1:4000(?![0-9])/);
  });

  it('prints no Redocly notice that does not concern the build (Node.js 20 end of support, Redoc 3)', () => {
    expect(printed).toContain('bundled successfully');
    expect(printed).not.toContain('Node.js 20 support is ending');
    expect(printed).not.toContain('now renders docs with Redoc 3');
    expect(printed).not.toContain('╔');
  });
});
