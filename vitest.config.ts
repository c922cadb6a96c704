// Vitest configuration: every *.test.ts in the toolkit; the bundled spec is built once before the run.
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['{spec,scripts,generator,server,conformance,cli}/**/*.test.ts'],
    globalSetup: ['scripts/test-global-setup.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
  },
});
