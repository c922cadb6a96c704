#!/usr/bin/env node
// The `pgw-sandbox` command: the reference gateway on embedded SQLite (or PostgreSQL by DATABASE_URL), built (dist/) from a tarball, its sources in a checkout of the toolkit.
import { existsSync } from 'node:fs';

const source = new URL('../src/main.ts', import.meta.url);
if (existsSync(source)) await (await import('../../scripts/lib/source-entry.mjs')).runSource(source);
else await import('../dist/main.js');
