// What the Chromium tests of the hosted payment pages share: whether Chromium is there (CI requires it), and the
// app listening on a loopback port beside a headless browser, with the one way to stop both.
import { existsSync, mkdirSync } from 'node:fs';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium, type Browser } from 'playwright-core';
import { startServer, type TestServer } from '../harness.ts';

const chromiumPath = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

/** True when Chromium is installed; CI sets PGW_REQUIRE_CHROMIUM, so there a missing browser fails instead of skipping. */
export function chromiumAvailable(what: string): boolean {
  const available = existsSync(chromiumPath);
  if (!available && process.env.PGW_REQUIRE_CHROMIUM) throw new Error(`Chromium not found at ${chromiumPath}`);
  if (!available) console.warn(`\n*** SKIPPING ${what} in Chromium: no Chromium at ${chromiumPath} (apt-get install chromium) ***\n`);
  return available;
}

/** test-artifacts/<name>/, made: where a test leaves its screenshots. */
export function artifactsDir(name: string): string {
  const dir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..', '..', 'test-artifacts', name);
  mkdirSync(dir, { recursive: true });
  return dir;
}

export interface BrowserServer {
  readonly s: TestServer;
  /** The app's origin on its loopback port (what the browser opens). */
  readonly origin: string;
  readonly browser: Browser;
  close(): Promise<void>;
}

/** A fresh SQLite server listening on 127.0.0.1 and a headless Chromium. */
export async function startBrowserServer(): Promise<BrowserServer> {
  const s = await startServer('sqlite');
  const server: Server = s.app.listen(0, '127.0.0.1');
  await new Promise<void>((resolve) => server.once('listening', resolve));
  const browser = await chromium.launch({
    executablePath: chromiumPath,
    args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
  return {
    s, browser, origin: `http://127.0.0.1:${String((server.address() as AddressInfo).port)}`,
    async close() {
      await browser.close();
      await new Promise<void>((resolve, reject) => { server.close((err) => { if (err) reject(err); else resolve(); }); });
      await s.close();
    },
  };
}
