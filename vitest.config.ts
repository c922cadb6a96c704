// Vitest configuration: every *.test.ts in the toolkit; the bundled spec is built once before the run.
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['{spec,scripts,generator,server,conformance,cli}/**/*.test.ts'],
    globalSetup: ['scripts/test-global-setup.ts'],
    // Vitest's default is one worker fewer than the CPUs: one worker on this project's 2-core machines, which left
    // the second core to PostgreSQL and the spawned servers alone. Most files wait on sockets, PostgreSQL and
    // child processes more than they compute, so two share two cores well (PGW_TEST_WORKERS sets another number).
    maxWorkers: Number(process.env.PGW_TEST_WORKERS ?? 2),
    testTimeout: 30_000,
    hookTimeout: 60_000,
  },
});
