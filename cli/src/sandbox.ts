// `pgw sandbox create|list|delete` (a partner's key) and `pgw reset` (a merchant's): thin wrappers of the
// disposable sandbox operations. `create` prints the new merchant's client secret once and can write a
// credentials file that every other command reads with --credentials, as it reads any merchant's.
import { chmodSync, existsSync, mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { done, ok, type Session } from './api.ts';
import { ConfigError } from './errors.ts';

type Say = (text: string) => void;

export interface CreateOptions {
  name: string | undefined;
  expiresInSeconds: number | undefined;
  /** A file to write the new merchant's credentials to (mode 0600); refused if it exists. */
  write: string | undefined;
}

/** An existing file is never overwritten: it may hold another merchant's secret. */
function refuseExisting(file: string): void {
  if (existsSync(file)) throw new ConfigError(`--write ${file}: the file exists; name a new one (it may hold another merchant's secret)`);
}

/** Writes the one-key credentials file (`pgw --credentials FILE`), owner-only. */
function writeCredentials(file: string, content: Record<string, string>): void {
  refuseExisting(file);
  mkdirSync(path.dirname(path.resolve(file)), { recursive: true });
  writeFileSync(file, `${JSON.stringify(content, null, 2)}\n`, { mode: 0o600, flag: 'wx' });
  chmodSync(file, 0o600);
}

export async function createSandbox(s: Session, options: CreateOptions, say: Say): Promise<void> {
  // Checked before the merchant is made: a file that cannot be written must not lose the only copy of the secret.
  if (options.write !== undefined) refuseExisting(options.write);
  const made = await ok(s.config, 'creating a sandbox merchant', () => s.api.POST('/sandbox/v1/merchants', { body: {
    ...(options.name === undefined ? {} : { name: options.name }),
    ...(options.expiresInSeconds === undefined ? {} : { expiresInSeconds: options.expiresInSeconds }),
  } }));
  say(`created sandbox merchant ${made.merchantId} "${made.name}", expires ${made.expiresAt}`);
  say(`  card processor ${made.cardProcessorId}`);
  say(`  ACH processor  ${made.achProcessorId}`);
  if (options.write !== undefined) {
    writeCredentials(options.write, {
      baseUrl: s.config.baseUrl, authUrl: s.config.authUrl, merchantId: made.merchantId,
      clientId: made.clientId, clientSecret: made.clientSecret,
      cardProcessorId: made.cardProcessorId, achProcessorId: made.achProcessorId, expiresAt: made.expiresAt,
    });
    say(`  credentials written to ${options.write} (mode 0600): pgw --credentials ${options.write} listen|trigger|clock|logs|reset`);
  } else {
    say(`  client id      ${made.clientId}`);
    say(`  client secret  ${made.clientSecret}   (shown once: store it now)`);
  }
}

export async function listSandboxes(s: Session, say: Say): Promise<void> {
  const found: { merchantId: string; name: string; expiresAt: string; createdOn: string }[] = [];
  // A partner holds at most 20: one page; paged anyway, so that a larger limit needs no change here.
  for (let page = 0; ; page++) {
    const got = await ok(s.config, 'listing sandbox merchants', () => s.api.GET('/sandbox/v1/merchants', { params: { query: { page, pageSize: 100 } } }));
    found.push(...got.items);
    if (got.items.length < 100) break;
  }
  const total = found.length;
  if (found.length === 0) {
    say('No sandbox merchants (pgw sandbox create makes one).');
    return;
  }
  say(`${'merchant id'.padEnd(36)}  ${'created'.padEnd(24)}  ${'expires'.padEnd(24)}  name`);
  for (const m of found) say(`${m.merchantId}  ${m.createdOn.padEnd(24)}  ${m.expiresAt.padEnd(24)}  ${m.name}`);
  say(`${String(total)} sandbox merchant${total === 1 ? '' : 's'}.`);
}

export async function deleteSandbox(s: Session, merchantId: string, say: Say): Promise<void> {
  await done(s.config, `deleting sandbox merchant ${merchantId}`, () => s.api.DELETE('/sandbox/v1/merchants/{merchantId}', { params: { path: { merchantId } } }));
  say(`deleted sandbox merchant ${merchantId} and everything it held`);
}

export async function resetSandbox(s: Session, say: Say): Promise<void> {
  const reset = await ok(s.config, 'resetting the sandbox', () => s.api.POST('/sandbox/v1/reset', {}));
  const removed = Object.entries(reset.removed).filter(([, n]) => n > 0).map(([k, n]) => `${k} ${String(n)}`);
  say(`reset merchant ${reset.merchantId}: clock at ${reset.now} (0 s ahead of real time)`);
  say(`removed: ${removed.length > 0 ? removed.join(', ') : 'nothing (it held no records)'}`);
}
