// The contract's info block says only what is true of the repository: the license it names is the LICENSE
// file's, and it links to no address the project does not have (the docs page shows both).
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { root } from '../../scripts/lib/run.ts';

interface Info { license?: { name?: string; identifier?: string; url?: string }; contact?: { name?: string; url?: string; email?: string } }
const info = (JSON.parse(readFileSync(path.join(root, 'spec', 'dist', 'openapi.json'), 'utf8')) as { info: Info }).info;

describe('the info block', () => {
  it('names the license of the LICENSE file, whose text is the whole Apache License 2.0', () => {
    expect(info.license?.identifier).toBe('Apache-2.0');
    const file = path.join(root, 'LICENSE');
    expect(existsSync(file), 'LICENSE is missing').toBe(true);
    const text = readFileSync(file, 'utf8').replace(/\s+/g, ' ');
    expect(text).toContain('Apache License Version 2.0, January 2004');
    // The first and last of the nine sections and the appendix: the whole text, not a pointer to it.
    expect(text).toContain('1. Definitions.');
    expect(text).toContain('9. Accepting Warranty or Additional Liability.');
    expect(text).toContain('END OF TERMS AND CONDITIONS');
    expect(text).toContain('APPENDIX: How to apply the Apache License to your work.');
    const pkg = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8')) as { license?: string };
    expect(pkg.license).toBe(info.license?.identifier);
  });

  it('links to no placeholder: a contact names no address the project does not own', () => {
    expect(info.contact?.name).toBeTruthy();
    // The toolkit publishes no web address or mailbox of its own; the placeholder organisation page
    // (github.com/payment-gateway-toolkit) was a dead link on the docs page.
    expect(info.contact?.url).toBeUndefined();
    expect(info.contact?.email).toBeUndefined();
  });
});
