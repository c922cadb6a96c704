// The dashboard in headless Chromium (playwright-core), against the app listening on 127.0.0.1: sign in by
// keyboard alone, create an ACH debit through the API, advance the clock in the dashboard until the debit
// shows Settled in its history, see a webhook delivery fail against a receiver answering 500, then retry it
// once the receiver answers 200 and see the new successful attempt. No page logs an error (a CSP violation
// would). Screenshots go to test-artifacts/dashboard/.
import { existsSync, mkdirSync } from 'node:fs';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium, type Browser, type Page } from 'playwright-core';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runDue } from '../../src/worker/run-due.ts';
import { startServer, type TestServer } from '../harness.ts';
import { achDebitBody, paymentCalls } from './payment-helpers.ts';
import { startReceiver, type Receiver } from './webhook-receiver.ts';

const chromiumPath = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const available = existsSync(chromiumPath);
// CI installs Chromium and sets PGW_REQUIRE_CHROMIUM, so there a missing browser fails instead of skipping.
if (!available && process.env.PGW_REQUIRE_CHROMIUM) throw new Error(`Chromium not found at ${chromiumPath}`);
if (!available) {
  console.warn(`\n*** SKIPPING the dashboard browser test: no Chromium at ${chromiumPath} (apt-get install chromium) ***\n`);
}

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..', '..');
const artifacts = path.join(root, 'test-artifacts', 'dashboard');

describe.skipIf(!available)('the dashboard in Chromium', () => {
  let s: TestServer;
  let server: Server;
  let base: string;
  let receiver: Receiver;
  let browser: Browser;
  let tab: Page;
  const problems: string[] = [];
  /** The id of the element that has the keyboard focus (the tests have no DOM types: a locator reads it). */
  const focusedId = async (): Promise<string | null> => tab.locator(':focus').getAttribute('id');
  const shot = async (name: string): Promise<void> => { await tab.screenshot({ path: path.join(artifacts, `${name}.png`), fullPage: true }); };

  beforeAll(async () => {
    mkdirSync(artifacts, { recursive: true });
    s = await startServer('sqlite');
    server = s.app.listen(0, '127.0.0.1');
    await new Promise<void>((resolve) => server.once('listening', resolve));
    base = `http://127.0.0.1:${String((server.address() as AddressInfo).port)}`;
    receiver = await startReceiver();
    receiver.answer(500);
    const hook = await request(s.app).post('/v2/webhooks/endpoints').set(await s.as(0))
      .send({ name: 'Order system', endpointUrl: `${receiver.url}/orders`, eventTypes: ['payment.ach.scheduled', 'payment.ach.cleared'] });
    expect(hook.status, hook.text).toBe(200);
    browser = await chromium.launch({
      executablePath: chromiumPath,
      args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking',
        '--disable-component-update', '--disable-sync'],
    });
    tab = await (await browser.newContext({ viewport: { width: 1200, height: 900 } })).newPage();
    // A page answered 401 (the wrong secret) is logged as a failed load too: failed loads are judged by their
    // response instead, where a stylesheet's or an icon's failure counts and a page's status is the test's.
    tab.on('console', (message) => { if (message.type() === 'error' && !message.text().startsWith('Failed to load resource')) problems.push(message.text()); });
    tab.on('response', (response) => {
      if (response.status() >= 400 && response.request().resourceType() !== 'document') problems.push(`${String(response.status())} ${response.url()}`);
    });
    tab.on('pageerror', (error) => { problems.push(error.message); });
  }, 60_000);

  afterAll(async () => {
    await browser.close();
    await receiver.close();
    await new Promise<void>((resolve) => { server.closeAllConnections(); server.close(() => { resolve(); }); });
    await s.close();
  });

  it('signs in by keyboard alone: skip link first, then the fields, Enter submits', async () => {
    await tab.goto(`${base}/dashboard`);
    expect(new URL(tab.url()).pathname).toBe('/dashboard/sign-in');
    await shot('sign-in');
    // The client id field has focus (autofocus); the one Tab stop before it is the skip link.
    expect(await focusedId()).toBe('clientId');
    await tab.keyboard.press('Shift+Tab');
    expect(await tab.locator(':focus').textContent()).toBe('Skip to content');
    // The focused skip link is visible (on screen), and Enter on it moves focus to the main content.
    const box = await tab.locator('a.skip').boundingBox();
    expect(box?.x ?? -1).toBeGreaterThanOrEqual(0);
    await tab.keyboard.press('Enter');
    expect(await focusedId()).toBe('main');
    await tab.keyboard.press('Tab');
    expect(await focusedId()).toBe('clientId');
    // A wrong secret: the error is shown, still on the sign-in page.
    await tab.keyboard.type(s.secrets.merchants[0]?.clientId ?? '');
    await tab.keyboard.press('Tab');
    expect(await focusedId()).toBe('clientSecret');
    await tab.keyboard.type('pgw_cs_not-the-secret');
    await tab.keyboard.press('Enter');
    await tab.waitForSelector('.error');
    expect(await tab.locator('.error').innerText()).toMatch(/not correct/);
    // Again with the right secret (the client id is kept in its field).
    await tab.focus('#clientSecret');
    await tab.keyboard.type(s.secrets.merchants[0]?.clientSecret ?? '');
    await tab.keyboard.press('Enter');
    await tab.waitForURL(`${base}/dashboard`);
    expect(await tab.locator('h1').innerText()).toBe('Overview');
    const cookie = (await tab.context().cookies()).find((c) => c.name === 'pgw_dashboard');
    expect(cookie).toMatchObject({ httpOnly: true, sameSite: 'Strict', path: '/dashboard' });
  });

  let debitId = '';

  it('lists an ACH debit made through the API, then settles it by advancing the clock in the dashboard', async () => {
    const debit = await paymentCalls(() => s).achDebit(await s.as(0), achDebitBody(s, 0, { amount: 250.75 }));
    debitId = debit.transactionId;
    await tab.click('nav >> text=Transactions');
    const row = tab.locator(`a[href="/dashboard/transactions/${debitId}"]`);
    await expect.poll(() => row.count()).toBe(1);
    expect(await tab.locator('table').innerText()).toContain('$250.75');
    await shot('transactions');
    await row.click();
    expect(await tab.locator('#status').innerText()).toBe('Scheduled');
    // A day at a time until the debit shows Settled in its history (submission at the batch slot, clearing 24 h later).
    let settled = false;
    for (let day = 0; day < 5 && !settled; day++) {
      await tab.goto(`${base}/dashboard/clock`);
      await tab.click('button:has-text("Advance 1 day")');
      await tab.waitForSelector('#ran');
      await tab.goto(`${base}/dashboard/transactions/${debitId}`);
      settled = (await tab.locator('#status').innerText()) === 'Settled';
    }
    expect(settled).toBe(true);
    const history = await tab.locator('table[aria-labelledby="history"]').innerText();
    expect(history).toMatch(/Scheduled\s+InProgress/);
    expect(history).toMatch(/InProgress\s+Settled/);
    await shot('ach-settled');
  });

  it('shows the clock and what an advance ran', async () => {
    await tab.goto(`${base}/dashboard/clock`);
    const before = await tab.locator('#clock-offset').innerText();
    await tab.fill('#seconds', '3600');
    await tab.click('form:has(#seconds) button[type=submit]');
    await tab.waitForSelector('#ran');
    expect(await tab.locator('#clock-offset').innerText()).not.toBe(before);
    expect(await tab.locator('section[aria-labelledby="ran"]').innerText()).toMatch(/Webhook attempts queued\s+\d+/);
    await shot('clock');
  });

  it('retries a failed delivery once the receiver answers 200 and shows the new successful attempt', async () => {
    // The advances queued their webhook attempts; the delivery engine makes them (as the worker would).
    await runDue({ ...s, wall: s.clock }, s.clock.now());
    await tab.goto(`${base}/dashboard/events`);
    const failed = tab.locator('section.delivery:has(.delivery-status:text-is("Failed"))').first();
    expect(await failed.count()).toBe(1);
    // Seven attempts, each answered 500.
    expect(await failed.locator('tr.attempt').count()).toBe(7);
    expect(await failed.locator('tr.attempt').first().innerText()).toMatch(/500/);
    receiver.answer(200);
    const received = receiver.received.length;
    // By keyboard: focus the Retry button and press Enter.
    await failed.locator('button:has-text("Retry delivery")').focus();
    await tab.keyboard.press('Enter');
    await tab.waitForSelector('p.notice');
    expect(await tab.locator('p.notice').innerText()).toContain('Retried: the new attempt succeeded (status code 200).');
    expect(receiver.received.length).toBe(received + 1);
    const manual = tab.locator('section.delivery:has(h3:has-text("Manual retry"))').first();
    expect(await manual.locator('.delivery-status').innerText()).toBe('Succeeded');
    expect(await manual.locator('tr.attempt').innerText()).toMatch(/200/);
    await shot('events-after-retry');
  });

  it('signs out, and the pages send the browser to sign-in again', async () => {
    await tab.click('button:has-text("Sign out")');
    await tab.waitForURL(`${base}/dashboard/sign-in`);
    await tab.goto(`${base}/dashboard/transactions`);
    expect(new URL(tab.url()).pathname).toBe('/dashboard/sign-in');
  });

  it('logged no error on any page (no CSP violation, no script error)', () => {
    expect(problems).toEqual([]);
  });
});
