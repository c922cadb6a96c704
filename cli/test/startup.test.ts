// `pgw` loads a command's modules when that command runs: its entry module imports (as values) only what parsing
// the command line, the help and the usage errors need. Loaded eagerly, the generated client, the fixtures' schema
// and the route table cost every invocation ~0.35 s of CPU on top of tsx's own ~0.42 s (`pgw --help`: 0.76 s ->
// 0.41 s, measured).
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { pgw } from './helpers.ts';

const main = readFileSync(new URL('../src/main.ts', import.meta.url), 'utf8');
/** The modules main.ts imports as values at load time (`import type` erases; `await import()` is at run time). */
const eager = [...main.matchAll(/^import\s+(?!type\s)[^;]*?from\s+'([^']+)';/gm)].map((m) => m[1]);

describe('pgw start-up', () => {
  it('imports no command module, client or fixture code before a command runs', () => {
    // argv.ts: global options before the command, part of parsing the command line (imports nothing at run time).
    expect(eager.sort()).toEqual(['./argv.ts', './config.ts', './duration.ts', './errors.ts', './event-types.ts', './help.ts', 'node:util']);
    for (const lazy of ['./api.ts', './commands.ts', './listen.ts', './fixtures.ts', './recipes.ts', './sandbox.ts']) {
      expect(main, lazy).toContain(`import('${lazy}')`);
    }
  });

  it('still answers --help, a usage error and an unknown event type without the command modules', async () => {
    const helpRun = await pgw(['--help']);
    expect(helpRun.code).toBe(0);
    expect(helpRun.stdout).toMatch(/^ {2}listen --forward-to URL/m);
    const usage = await pgw(['clock', 'advance']);
    expect(usage.code).toBe(2);
    expect(usage.stderr).toMatch(/the duration \(e\.g\. 1d\) is missing/);
    const unknown = await pgw(['logs', '--type', 'payment.nope']);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toMatch(/unknown event type "payment\.nope"/);
  });
});
