// /docs follows the spec: a page built from another spec is rebuilt once (however many ask meanwhile) and
// served when done; a current page is served as it is; a failed rebuild falls back to the page there.
import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { DocsPage, sandboxServerUrl, servedAt } from '../../src/platform/docs-page.ts';
import { apiSpec } from '@pgw/client/server';
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

  it('names the server\'s own address where the page names the spec\'s sandbox server (any port)', () => {
    const spec = { openapi: '3.1.0', servers: [{ url: 'http://127.0.0.1:4000' }, { url: '{base_url}' }] };
    const file = path.join(dir, 'servers.html');
    // As Redoc writes it: the Servers panel's text, a code sample, the embedded spec (a token service default).
    writeFileSync(file, pageFor(spec, '<div>http://127.0.0.1:4000</div><pre>curl http://127.0.0.1:4000/oauth2/token</pre>'
      + '<script>{"servers":[{"url":"http://127.0.0.1:4000"}],"default":"http://127.0.0.1:4000","other":"http://127.0.0.1:40001"}</script>'));
    const docs = new DocsPage({ file, spec, rebuild: () => Promise.resolve(), log: quiet, baseUrl: 'http://127.0.0.1:51234' });
    const answer = docs.answer();
    expect(answer.kind).toBe('page');
    const html = answer.kind === 'page' ? answer.html : '';
    expect(html).not.toMatch(/127\.0\.0\.1:4000(?![0-9])/);
    expect(html.match(/http:\/\/127\.0\.0\.1:51234/g)).toHaveLength(4);
    // Another address that starts alike is left alone; the stamp still names the spec.
    expect(html).toContain('http://127.0.0.1:40001');
    expect(html).toContain('pgw-spec-sha256');
  });

  it('writes only a plain URL into the page, and reads the sandbox address from the contract', () => {
    const spec = { servers: [{ url: 'http://127.0.0.1:4000' }] };
    const page = '<div>http://127.0.0.1:4000</div>';
    expect(servedAt(page, spec, 'https://gw.example.com/sandbox')).toBe('<div>https://gw.example.com/sandbox</div>');
    for (const hostile of ['http://x/"><script>alert(1)</script>', 'http://x/$&', 'javascript:alert(1)']) {
      expect(servedAt(page, spec, hostile)).toBe(page);
    }
    expect(sandboxServerUrl({ servers: [{ url: '{base_url}' }] })).toBeUndefined();
    expect(sandboxServerUrl(apiSpec)).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
  });
});
