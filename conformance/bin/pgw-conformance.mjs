#!/usr/bin/env node
// The `pgw-conformance` command: runs the TypeScript CLI with tsx, passing the arguments and the exit code on.
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const main = fileURLToPath(new URL('../src/main.ts', import.meta.url));
const result = spawnSync(process.execPath, ['--import', 'tsx', main, ...process.argv.slice(2)], { stdio: 'inherit' });
process.exit(result.status ?? 2);
