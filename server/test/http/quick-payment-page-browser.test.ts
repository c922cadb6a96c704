// A customer pays payment links on their pages in headless Chromium: by card (the page then shows the receipt),
// by bank account (the consent box ticked, its time recorded by the server when the form arrives), and an
// expired link says so and offers no form. Screenshots go to test-artifacts/paylink/.
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestServer } from '../harness.ts';
import { artifactsDir, chromiumAvailable, startBrowserServer, type BrowserServer } from './page-browser.ts';
import { LINKS, businessNow, createLink, type Link } from './quick-payment-helpers.ts';

const available = chromiumAvailable('the payment link page test');
const artifacts = artifactsDir('paylink');

describe.skipIf(!available)('paying a payment link on its page in Chromium', () => {
  let s: TestServer;
  let origin: string;
  let browser: Browser;
  /** What the browser reported as a problem: script errors and CSP refusals. */
  const problems: string[] = [];

  let running: BrowserServer;

  beforeAll(async () => {
    running = await startBrowserServer();
    ({ s, origin, browser } = running);
  }, 120_000);

  afterAll(async () => { await running.close(); });

  const read = async (id: string): Promise<Link> => (await request(s.app).get(`${LINKS}/${id}`).set(await s.as(0))).body as Link;

  /** A new tab on the link's url (its path on the listening server: the test server's base URL has port 0). */
  async function open(link: Link): Promise<Page> {
    const tab = await browser.newPage({ viewport: { width: 900, height: 900 } });
    tab.on('pageerror', (err) => problems.push(`pageerror: ${err.message}`));
    // An answer's status is not a problem here (the favicon is a 404); a refused script or style or a script error is.
    tab.on('console', (m) => { if (m.type() === 'error' && !m.text().startsWith('Failed to load resource')) problems.push(`console: ${m.text()}`); });
    await tab.goto(`${origin}${new URL(link.url).pathname}`);
    return tab;
  }

  it('pays by card: the page then shows the receipt and no forms; the API agrees', async () => {
    const link = await createLink(s, 0, { amount: 125, description: 'Consulting, March' });
    const tab = await open(link);
    expect(await tab.locator('#status').innerText()).toBe('Active');
    expect(await tab.locator('#amount').innerText()).toBe('$125.00');
    expect(await tab.locator('#description').innerText()).toBe('Consulting, March');
    await expect.poll(() => tab.locator('form').count()).toBe(2);
    await tab.screenshot({ path: path.join(artifacts, 'open-link.png'), fullPage: true });
    await tab.getByLabel('Card number').fill('4111 1111 1111 1111');
    await tab.getByLabel('Expiry month').selectOption('12');
    await tab.getByLabel('Expiry year').fill('2030');
    await tab.getByLabel('Security code').fill('123');
    await tab.getByLabel('Billing postal code').fill('78701');
    await Promise.all([tab.waitForURL(`${origin}/pay/links/${link.id}`), tab.locator('#card-pay').click()]);
    await tab.locator('#receipt').waitFor();
    expect(await tab.locator('#status').innerText()).toBe('Paid');
    expect(await tab.locator('#paid').innerText()).toMatch(/^Paid \$125\.00 by card on .+ UTC\. Thank you\.$/);
    expect(await tab.locator('form').count()).toBe(0);
    await tab.screenshot({ path: path.join(artifacts, 'paid-by-card.png'), fullPage: true });
    const after = await read(link.id);
    expect(after).toMatchObject({ status: 'Paid' });
    expect(await tab.locator('#reference').innerText()).toBe(after.transactionId);
    await tab.close();
  });

  it('pays by bank account: the box must be ticked, the server records when the authorization arrived', async () => {
    const link = await createLink(s, 0, { amount: 60, description: 'Deposit' });
    const tab = await open(link);
    await tab.getByLabel('Routing number').fill('021000021');
    await tab.getByLabel('Account number').fill('1234567890');
    await tab.getByLabel('First name').fill('Jane');
    await tab.getByLabel('Last name').fill('Doe');
    // Unticked, the browser does not send the form (the box is required): nothing happens, nothing is charged.
    await tab.locator('#ach-pay').click();
    expect(await tab.evaluate("document.getElementById('ach-authorize').validity.valueMissing")).toBe(true);
    expect(tab.url()).toBe(`${origin}/pay/links/${link.id}`);
    expect((await read(link.id)).status).toBe('Active');
    await tab.getByLabel(/I authorize Acme Outdoor Supply to debit \$60\.00 once/).check();
    // The page carries no consent time of its own: a payer cannot set it.
    expect(await tab.locator('[name="authorizationConsentTimestamp"]').count()).toBe(0);
    const before = (await businessNow(s, 0)).toISOString();
    await Promise.all([tab.waitForURL(`${origin}/pay/links/${link.id}`), tab.locator('#ach-pay').click()]);
    await tab.locator('#receipt').waitFor();
    expect(await tab.locator('#paid').innerText()).toContain('by bank account');
    await tab.screenshot({ path: path.join(artifacts, 'paid-by-bank-account.png'), fullPage: true });
    const paid = await read(link.id);
    expect(paid.status).toBe('Paid');
    const after = (await businessNow(s, 0)).toISOString();
    const debit = (await s.db('transactions').where({ id: paid.transactionId }).first()) as { authorization_consent_on: string; creator_type_id: number };
    expect(debit.creator_type_id).toBe(5);
    expect(debit.authorization_consent_on >= before && debit.authorization_consent_on <= after, `${debit.authorization_consent_on} in [${before}, ${after}]`).toBe(true);
    await tab.close();
  });

  it('shows a decline at the top of the page it loads, in view; the link stays Active', async () => {
    const link = await createLink(s, 0, { amount: 40, description: 'Declined' });
    const tab = await open(link);
    await tab.getByLabel('Card number').fill('4000000000000002');
    await tab.getByLabel('Expiry month').selectOption('12');
    await tab.getByLabel('Expiry year').fill('2030');
    await tab.getByLabel('Security code').fill('123');
    await Promise.all([tab.waitForURL(`${origin}/pay/links/${link.id}/card`), tab.locator('#card-pay').click()]);
    const alert = tab.getByRole('alert');
    await alert.waitFor();
    expect(await alert.innerText()).toMatch(/Your payment was declined: .+ \(005\)\. The link is not paid/);
    const [box, viewport] = [await alert.boundingBox(), tab.viewportSize()];
    expect(box !== null && viewport !== null && box.y >= 0 && box.y + box.height <= viewport.height, JSON.stringify(box)).toBe(true);
    expect((await read(link.id)).status).toBe('Active');
    await tab.close();
  });

  it('an expired link says so and offers no form', async () => {
    const now = await businessNow(s, 0);
    const link = await createLink(s, 0, { amount: 10, description: 'Expires soon', expiresOn: new Date(now.getTime() + 60_000).toISOString() });
    const res = await request(s.app).post('/sandbox/v1/clock/advance').set(await s.as(0)).send({ seconds: 120 });
    expect(res.status, res.text).toBe(200);
    const tab = await open(link);
    expect(await tab.locator('#status').innerText()).toBe('Expired');
    expect(await tab.locator('#closed').innerText()).toMatch(/^This payment link has expired .*; it can no longer be paid\./);
    expect(await tab.locator('form').count()).toBe(0);
    await tab.screenshot({ path: path.join(artifacts, 'expired.png'), fullPage: true });
    await tab.close();
  });

  it('ran no script but its own and broke no CSP rule', () => {
    expect(problems).toEqual([]);
  });
});
