// /docs follows the spec: a page built from another spec is rebuilt once (however many ask meanwhile) and
// served when done; a current page is served as it is; a failed rebuild falls back to the page there.
import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { DocsPage } from '../../src/platform/docs-page.ts';
import { plainHeadings, specHash } from '../../../scripts/docs.ts';

const dir = mkdtempSync(path.join(tmpdir(), 'pgw-docs-page-'));
afterAll(() => { rmSync(dir, { recursive: true, force: true }); });
const quiet = { info: () => undefined, error: () => undefined };
const pageFor = (spec: unknown, text: string): string =>
  `<html><head>\n<meta name="pgw-spec-sha256" content="${createHash('sha256').update(JSON.stringify(spec)).digest('hex')}"></head><body>${text}</body></html>`;

describe('the /docs page', () => {
  it('serves a page built from the spec it serves', () => {
    const spec = { openapi: '3.1.0', info: { title: 'v1' } };
    const file = path.join(dir, 'current.html');
    writeFileSync(file, pageFor(spec, 'current'));
    let rebuilds = 0;
    const docs = new DocsPage({ file, spec, rebuild: () => { rebuilds++; return Promise.resolve(); }, log: quiet });
    expect(docs.answer()).toEqual({ kind: 'page', html: expect.stringContaining('current') as unknown });
    expect(rebuilds).toBe(0);
  });

  it('rebuilds a page built from another spec once, then serves the new one', async () => {
    const before = { openapi: '3.1.0', info: { title: 'v1' } };
    const after = { openapi: '3.1.0', info: { title: 'v1' }, paths: { '/refunds': {} } };
    const file = path.join(dir, 'stale.html');
    writeFileSync(file, pageFor(before, 'old operations'));
    let rebuilds = 0;
    const docs = new DocsPage({
      file, spec: after, log: quiet,
      rebuild: async () => { rebuilds++; await new Promise((r) => setTimeout(r, 50)); writeFileSync(file, pageFor(after, 'with /refunds')); },
    });
    const first = docs.answer();
    const second = docs.answer();
    expect([first.kind, second.kind]).toEqual(['rebuilding', 'rebuilding']);
    expect(JSON.stringify(first)).not.toContain('old operations');
    await docs.settled();
    expect(rebuilds).toBe(1);
    expect(docs.answer()).toEqual({ kind: 'page', html: expect.stringContaining('with /refunds') as unknown });
  });

  it('falls back to the page there when a rebuild fails (no build tools installed)', async () => {
    const file = path.join(dir, 'fallback.html');
    writeFileSync(file, pageFor({ other: true }, 'older page'));
    const docs = new DocsPage({ file, spec: { current: true }, rebuild: () => Promise.reject(new Error('no redocly')), log: quiet });
    expect(docs.answer().kind).toBe('rebuilding');
    await docs.settled();
    expect(docs.answer()).toEqual({ kind: 'page', html: expect.stringContaining('older page') as unknown });
  });

  it('stamps the page with the hash the server computes', () => {
    const spec = { a: 1, b: [2, 3] };
    expect(specHash(spec)).toBe(createHash('sha256').update(JSON.stringify(spec)).digest('hex'));
  });

  it('writes headings as plain text, so the side menu shows them whole', () => {
    expect(plainHeadings('## Response codes (designed, except `000`)\nText with `code` stays.')).toBe('## Response codes (designed, except 000)\nText with `code` stays.');
  });
});
