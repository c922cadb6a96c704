#!/usr/bin/env node
// The `pgw` command: the built CLI (dist/) from a tarball; in a checkout of the toolkit, its sources (in-process, so Ctrl-C reaches it directly).
import { existsSync } from 'node:fs';

const source = new URL('../src/main.ts', import.meta.url);
if (existsSync(source)) await (await import('../../scripts/lib/source-entry.mjs')).runSource(source);
else await import('../dist/main.js');
