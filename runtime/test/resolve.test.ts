// The workspace packages resolve to their sources in this repository (the pgw-source condition), here and in a spawned process.
import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { verifyWebhook } from '@pgw/runtime/webhooks';

describe('source resolution', () => {
  it('imports @pgw/runtime from its TypeScript sources', () => {
    expect(typeof verifyWebhook).toBe('function');
    const resolved = execFileSync(process.execPath, ['--import', 'tsx', '-e', "console.log(import.meta.resolve('@pgw/client/openapi.json'))"], { encoding: 'utf8' });
    expect(resolved.trim()).toMatch(/generated\/src\/openapi\.json$/);
  });
});
