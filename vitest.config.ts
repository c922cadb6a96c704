// Vitest configuration: every *.test.ts in the toolkit; the bundled spec is built once before the run.
import { BaseSequencer, type TestSpecification } from 'vitest/node';
import { defineConfig } from 'vitest/config';

/**
 * The longest files first (the long-lived suite runs minutes, one file per engine), then Vitest's own order: on a
 * clean clone Vitest has no durations and would start these small files last, after everything else.
 */
class LongestFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files);
    // The files that take minutes start first (each on a worker of its own), so none of them ends the run alone.
    const long = (file: TestSpecification): boolean => /(long-lived-(sqlite|postgres)|conformance\/test\/prism)\.test\.ts$/.test(file.moduleId);
    return [...sorted.filter(long), ...sorted.filter((file) => !long(file))];
  }
}

// The workspace packages resolve to their TypeScript sources here (the `pgw-source` export condition), to their
// built dist/ in a tarball. Vitest's resolver takes the condition from the config; the servers, CLIs and scripts the
// tests spawn, from NODE_OPTIONS, which they inherit.
const SOURCE = '--conditions=pgw-source';
if (!(process.env.NODE_OPTIONS ?? '').includes(SOURCE)) process.env.NODE_OPTIONS = `${process.env.NODE_OPTIONS ?? ''} ${SOURCE}`.trim();
// Vite's own server conditions, after ours.
const conditions = ['pgw-source', 'module', 'node', 'development|production'];

export default defineConfig({
  resolve: { conditions },
  ssr: { resolve: { conditions, externalConditions: ['pgw-source'] } },
  test: {
    include: ['{spec,scripts,generator,runtime,server,conformance,cli}/**/*.test.ts'],
    globalSetup: ['scripts/test-global-setup.ts'],
    // Vitest's default is one worker fewer than the CPUs: one worker on this project's 2-core machines, which left
    // the second core to PostgreSQL and the spawned servers alone. Most files wait on sockets, PostgreSQL and
    // child processes more than they compute, so two share two cores well (PGW_TEST_WORKERS sets another number).
    maxWorkers: Number(process.env.PGW_TEST_WORKERS ?? 2),
    sequence: { sequencer: LongestFirst },
    // The files of a worker share its module cache: CI spent 199 s importing the same server, generated and
    // conformance modules once per file (139 files), on two cores that the run keeps busy. Safe here because no
    // test mocks a module or changes process.env, and the server keeps no module-level state (architecture test).
    isolate: false,
    // Limits end a test or a hook that hangs; they never judge speed. CI runs three files at once on two cores, and a
    // busy machine runs the suite ~3x slower still: tests that run `pgw` a few times took 20-25 s in CI against a
    // 30 s limit, and 30-40 s beside `stress --cpu 2`. So five times the longest test without a limit of its own;
    // hooks start servers and browsers (a spawned server: 3.5 s idle, 4.5-8 s beside `stress --cpu 2` alone).
    testTimeout: 120_000,
    hookTimeout: 180_000,
  },
});
