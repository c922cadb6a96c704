// Builds docs/index.html: one self-contained Redoc page (scripts inlined) that renders offline.
import { existsSync } from 'node:fs';
import path from 'node:path';
import { root, runBin } from './lib/run.ts';

const output = path.join(root, 'docs', 'index.html');
// `--if-missing` (used before `npm start`): keep a page that is already built.
if (process.argv.includes('--if-missing') && existsSync(output)) process.exit(0);
runBin('tsx', ['scripts/bundle.ts']);
runBin('redocly', [
  'build-docs',
  'spec/dist/openapi.json',
  '--inlineBundle',
  '--output',
  output,
  '--title',
  'Payment Gateway API',
]);
