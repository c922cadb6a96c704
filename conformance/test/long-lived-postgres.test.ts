// The suite against a long-lived server on PostgreSQL, in a fresh schema (long-lived-suite.ts says what it checks).
import { describe, it } from 'vitest';
import { longLivedSuite } from './long-lived-suite.ts';

const postgresUrl = process.env.PGW_TEST_DATABASE_URL;
if (postgresUrl) longLivedSuite('postgres', postgresUrl);
else {
  console.warn('\n*** SKIPPING long-lived-postgres.test.ts: PGW_TEST_DATABASE_URL is not set (.ci/run sets it) ***\n');
  describe.skip('the suite on a long-lived server (postgres)', () => { it('needs PostgreSQL', () => undefined); });
}
