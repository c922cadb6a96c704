// The documentation page at /docs, kept in step with the spec the server serves: the page records the hash of
// the spec it was built from (`<meta name="pgw-spec-sha256">`, written by scripts/docs.ts); a page built from
// another spec is rebuilt in the background, once however many requests ask, and the old one is not shown as
// if it were current. The page is served naming the server's own address where the spec names the sandbox's
// default one (the Servers panel, the token services' defaults, the code samples).
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import type { Logger } from './log.ts';

const STAMP = /<meta name="pgw-spec-sha256" content="([0-9a-f]{64})">/;

export type DocsAnswer =
  | { kind: 'page'; html: string }
  | { kind: 'rebuilding'; html: string }
  | { kind: 'missing'; text: string };

export interface DocsPageOptions {
  /** The built page. */
  file: string;
  /** The spec the server serves; the page must have been built from it. */
  spec: unknown;
  /** Rebuilds the page; resolves when done (rejects on failure). */
  rebuild: () => Promise<void>;
  log: Pick<Logger, 'info' | 'error'>;
  /** The server's base URL, shown where the page names the spec's sandbox server (built with the default port). */
  baseUrl?: string;
}

/** The spec's own sandbox address (its first server, a plain URL without variables), which the page names. */
export function sandboxServerUrl(spec: unknown): string | undefined {
  const servers = (spec as { servers?: { url?: unknown }[] } | null)?.servers;
  const url = Array.isArray(servers) ? servers[0]?.url : undefined;
  return typeof url === 'string' && /^https?:\/\/[^{}\s]+$/.test(url) ? url.replace(/\/$/, '') : undefined;
}

/**
 * A base URL that may be written into the page as it is: in HTML text, attributes and the JSON of the embedded
 * spec alike (no quote, angle bracket, backslash or ampersand); anything else leaves the page unchanged.
 */
const PLAIN_URL = /^https?:\/\/[A-Za-z0-9.\-[\]:]+(\/[A-Za-z0-9._~\-/%]*)?$/;

/** The page as a server at `baseUrl` serves it: the spec's sandbox address replaced by the server's own. */
export function servedAt(html: string, spec: unknown, baseUrl: string | undefined): string {
  const sandbox = sandboxServerUrl(spec);
  if (sandbox === undefined || baseUrl === undefined || !PLAIN_URL.test(baseUrl)) return html;
  const own = baseUrl.replace(/\/$/, '');
  // Only the address itself: followed by a path, a quote or the end of the text, never by another digit.
  return html.replace(new RegExp(`${sandbox.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}(?![0-9])`, 'g'), () => own);
}

const waiting = `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta http-equiv="refresh" content="3">
<title>Rebuilding the documentation</title></head><body><main><h1>Rebuilding the documentation</h1>
<p>The spec changed since the page was built; it is being rebuilt. This page reloads itself in a few seconds.</p></main></body></html>`;

export class DocsPage {
  private readonly hash: string;
  private rebuilding: Promise<void> | undefined;
  private failed = false;

  constructor(private readonly options: DocsPageOptions) {
    this.hash = createHash('sha256').update(JSON.stringify(options.spec)).digest('hex');
  }

  /** What /docs answers now; starts a rebuild when the page is missing or stale. */
  answer(): DocsAnswer {
    const html = existsSync(this.options.file) ? readFileSync(this.options.file, 'utf8') : undefined;
    const served = (page: string): string => servedAt(page, this.options.spec, this.options.baseUrl);
    if (html !== undefined && STAMP.exec(html)?.[1] === this.hash) return { kind: 'page', html: served(html) };
    // A rebuild that failed (no build tools in this installation, say): the page there is better than none.
    if (this.failed) return html === undefined ? { kind: 'missing', text: 'The documentation page is not built: run `npm run docs`.' } : { kind: 'page', html: served(html) };
    this.rebuilding ??= this.options.rebuild().then(
      () => { this.options.log.info('documentation page rebuilt for the current spec'); },
      (error: unknown) => {
        this.failed = true;
        this.options.log.error({ err: error }, 'the documentation page could not be rebuilt; run `npm run docs`');
      },
    ).finally(() => { this.rebuilding = undefined; });
    return { kind: 'rebuilding', html: waiting };
  }

  /** Resolves when a rebuild in progress ends (for tests and shutdown). */
  async settled(): Promise<void> {
    await this.rebuilding;
  }
}

/**
 * Where the page is, for the server package at packageRoot: in a checkout of the toolkit, the repository's docs/,
 * rebuilt by its script when the spec changed; installed from a tarball, the docs/ packed with it (built from the
 * same document), which nothing here can rebuild.
 */
export function docsLocation(packageRoot: string): { file: string; rebuild: () => Promise<void> } {
  const repository = path.dirname(packageRoot);
  if (existsSync(path.join(repository, 'scripts', 'docs.ts'))) return { file: path.join(repository, 'docs', 'index.html'), rebuild: rebuildWithScript(repository) };
  return { file: path.join(packageRoot, 'docs', 'index.html'), rebuild: () => Promise.reject(new Error('the installed package carries its documentation page built')) };
}

/** The rebuild of the repository's page: `scripts/docs.ts --if-stale` in a child process. */
export function rebuildWithScript(root: string): () => Promise<void> {
  return () => new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', path.join(root, 'scripts', 'docs.ts'), '--if-stale'], {
      cwd: root, stdio: 'ignore', env: { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true' },
    });
    child.once('error', reject);
    child.once('exit', (code) => { if (code === 0) resolve(); else reject(new Error(`scripts/docs.ts exited with ${String(code)}`)); });
  });
}
