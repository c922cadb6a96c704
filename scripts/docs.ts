// Builds docs/index.html: one self-contained Redoc page (scripts inlined) that renders offline.
import path from 'node:path';
import { root, runBin } from './lib/run.ts';

const output = path.join(root, 'docs', 'index.html');
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
