// The suite against a long-lived server on SQLite (long-lived-suite.ts says what it checks).
import { longLivedSuite } from './long-lived-suite.ts';

longLivedSuite('sqlite', undefined);
