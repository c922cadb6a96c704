// The documentation page at /docs, kept in step with the spec the server serves: the page records the hash of
// the spec it was built from (`<meta name="pgw-spec-sha256">`, written by scripts/docs.ts); a page built from
// another spec is rebuilt in the background, once however many requests ask, and the old one is not shown as
// if it were current.
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
    if (html !== undefined && STAMP.exec(html)?.[1] === this.hash) return { kind: 'page', html };
    // A rebuild that failed (no build tools in this installation, say): the page there is better than none.
    if (this.failed) return html === undefined ? { kind: 'missing', text: 'The documentation page is not built: run `npm run docs`.' } : { kind: 'page', html };
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
