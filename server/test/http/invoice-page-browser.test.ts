// A customer pays invoices on their pages in headless Chromium: by card (the page then shows Paid), by bank
// account with the keyboard (consent ticked, its time recorded by the server when the form arrives), and
// with a declined magic card (the decline shown, the invoice still Due). Screenshots go to
// test-artifacts/paypage/ (open invoice with both forms, the decline, the paid pages).
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestServer } from '../harness.ts';
import { artifactsDir, chromiumAvailable, startBrowserServer, type BrowserServer } from './page-browser.ts';
import { invoiceBody, invoiceCalls, manualLine } from './invoice-helpers.ts';
import { businessNow } from './quick-payment-helpers.ts';

const available = chromiumAvailable('the invoice page payment test');
const artifacts = artifactsDir('paypage');

describe.skipIf(!available)('paying an invoice on its page in Chromium', () => {
  let s: TestServer;
  let h: Record<string, string>;
  let origin: string;
  let browser: Browser;
  /** What the browser reported as a problem: script errors and CSP refusals. */
  const problems: string[] = [];
  const calls = invoiceCalls(() => s);

  let running: BrowserServer;

  beforeAll(async () => {
    running = await startBrowserServer();
    ({ s, origin, browser } = running);
    h = await s.as(0);
  }, 120_000);

  afterAll(async () => { await running.close(); });

  /** A new tab on the invoice's fullUrl (its path on the listening server: the test server's base URL has port 0). */
  async function open(id: string): Promise<Page> {
    const invoice = await calls.get(h, id);
    const tab = await browser.newPage({ viewport: { width: 900, height: 900 } });
    tab.on('pageerror', (err) => problems.push(`pageerror: ${err.message}`));
    // An answer's status is not a problem here (the decline page is a 402, the favicon a 404); a refused
    // script or style ("Refused to …", the CSP) or a script error is.
    tab.on('console', (m) => { if (m.type() === 'error' && !m.text().startsWith('Failed to load resource')) problems.push(`console: ${m.text()}`); });
    await tab.goto(`${origin}${new URL(invoice.fullUrl).pathname}`);
    return tab;
  }

  /** Whether the element is wholly inside the viewport, as the page shows it (not scrolled). */
  const inView = async (tab: Page, element: ReturnType<Page['locator']>): Promise<boolean> => {
    const box = await element.boundingBox();
    const viewport = tab.viewportSize();
    return box !== null && viewport !== null && box.y >= 0 && box.y + box.height <= viewport.height;
  };

  const publish = () => calls.publish(h, invoiceBody({ additionalNotes: 'Thank you for your business <3', lineItems: [manualLine({ productName: 'Consulting', unitPrice: 62.5, quantity: 2 })] }));

  it('pays by card: the page then shows Paid and no forms', async () => {
    const id = await publish();
    const tab = await open(id);
    expect(await tab.locator('#status').innerText()).toBe('Due');
    expect(await tab.locator('#amount-credit').innerText()).toBe('$125.00');
    expect(await tab.locator('#amount-ach').innerText()).toBe('$125.00');
    await expect.poll(() => tab.locator('form').count()).toBe(2);
    await tab.screenshot({ path: path.join(artifacts, 'open-invoice.png'), fullPage: true });
    await tab.getByLabel('Card number').fill('4111 1111 1111 1111');
    await tab.getByLabel('Expiry month').selectOption('12');
    await tab.getByLabel('Expiry year').fill('2030');
    await tab.getByLabel('Security code').fill('123');
    await tab.getByLabel('Billing postal code').fill('78701');
    await Promise.all([tab.waitForURL(`${origin}/pay/invoices/${id}`), tab.locator('#card-pay').click()]);
    await tab.locator('#paid').waitFor();
    expect(await inView(tab, tab.locator('#paid'))).toBe(true);
    expect(await tab.locator('#status').innerText()).toBe('Paid');
    expect(await tab.locator('#paid').innerText()).toMatch(/^Paid by card on \d{4}-\d{2}-\d{2}\. Thank you\.$/);
    expect(await tab.locator('form').count()).toBe(0);
    await tab.screenshot({ path: path.join(artifacts, 'paid-by-card.png'), fullPage: true });
    expect(await calls.get(h, id)).toMatchObject({ status: 4, paymentMethodTypeId: 1, totalAmount: 125 });
    await tab.close();
  });

  it('pays by bank account with the keyboard: consent ticked, the server records when it arrived', async () => {
    const id = await publish();
    const tab = await open(id);
    await tab.getByLabel('Routing number').fill('021000021');
    await tab.getByLabel('Account number').fill('1234567890');
    await tab.getByLabel('Account type').selectOption({ label: 'Savings' });
    await tab.getByLabel('First name').fill('Jane');
    await tab.getByLabel('Last name').fill('Doe');
    await tab.getByLabel('Email (optional)').fill('jane.doe@example.com');
    // Keyboard only: Tab from the last field to the box, Space ticks it, Enter in a field submits.
    await tab.getByLabel('Postal code (optional)').focus();
    await tab.keyboard.press('Tab');
    expect(await tab.evaluate('document.activeElement && document.activeElement.id')).toBe('ach-authorize');
    await tab.keyboard.press('Space');
    expect(await tab.locator('#ach-authorize').isChecked()).toBe(true);
    // The consent time is the server's, when the authorization arrives: the page has no field for it.
    expect(await tab.locator('[name="authorizationConsentTimestamp"]').count()).toBe(0);
    const before = (await businessNow(s, 0)).toISOString();
    await tab.getByLabel('Last name').focus();
    await Promise.all([tab.waitForURL(`${origin}/pay/invoices/${id}`), tab.keyboard.press('Enter')]);
    await tab.locator('#paid').waitFor();
    expect(await tab.locator('#status').innerText()).toBe('Paid');
    expect(await tab.locator('#paid').innerText()).toContain('Paid by bank account');
    await tab.screenshot({ path: path.join(artifacts, 'paid-by-bank-account.png'), fullPage: true });
    const invoice = await calls.get(h, id);
    expect(invoice).toMatchObject({ status: 4, paymentMethodTypeId: 2 });
    const debit = (await s.db('transactions').where({ id: invoice.transactionId }).first()) as { authorization_consent_on: string; account_type: number | null };
    const after = (await businessNow(s, 0)).toISOString();
    expect(debit.authorization_consent_on >= before && debit.authorization_consent_on <= after, debit.authorization_consent_on).toBe(true);
    await tab.close();
  });

  it('shows the decline of a magic card; the invoice stays Due and the card number is not shown again', async () => {
    const id = await publish();
    const tab = await open(id);
    await tab.getByLabel('Card number').fill('4000000000009995');
    await tab.getByLabel('Expiry month').selectOption('11');
    await tab.getByLabel('Expiry year').fill('2031');
    await tab.getByLabel('Security code').fill('321');
    await Promise.all([tab.waitForURL(`${origin}/pay/invoices/${id}/card`), tab.locator('#card-pay').click()]);
    const alert = tab.getByRole('alert');
    await alert.waitFor();
    expect(await alert.innerText()).toMatch(/Your payment was declined: .+ \(051\)\. The invoice is not paid/);
    // The page the decline loads opens at its top: the message is there, in view, as the paid message is.
    expect(await inView(tab, alert)).toBe(true);
    expect(await tab.locator('#status').innerText()).toBe('Due');
    expect(await tab.getByLabel('Card number').inputValue()).toBe('');
    expect(await tab.content()).not.toContain('4000000000009995');
    await tab.screenshot({ path: path.join(artifacts, 'declined.png'), fullPage: true });
    expect(await calls.get(h, id)).toMatchObject({ status: 2, paymentDate: null, transactionId: null });
    await tab.close();
  });

  it('ran no script but its own and broke no CSP rule', () => {
    expect(problems).toEqual([]);
  });
});
