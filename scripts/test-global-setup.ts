// Vitest global setup: bundles the spec so every suite reads the current contract.
import { root, runBin } from './lib/run.ts';

export default function setup(): void {
  process.chdir(root);
  runBin('tsx', ['scripts/bundle.ts']);
}
