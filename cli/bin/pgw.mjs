#!/usr/bin/env node
// The `pgw` command: loads tsx in this process and runs the TypeScript CLI (in-process, so Ctrl-C reaches it directly).
import { register } from 'tsx/esm/api';

register();
await import('../src/main.ts');
