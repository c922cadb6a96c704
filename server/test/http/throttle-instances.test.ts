// Two server instances on one PostgreSQL schema share each throttle budget: failures through either add up,
// and concurrent attempts through both cannot check more than the limit (each reserves its count atomically).
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { App } from '../../src/app.ts';
import { secondInstance, startServer, type TestServer } from '../harness.ts';
import { expectThrottled, succeeded, surfaces } from './throttle-helpers.ts';

const postgresUrl = process.env.PGW_TEST_DATABASE_URL;
if (!postgresUrl) console.warn('\n*** SKIPPING throttle-instances.test.ts: it needs PostgreSQL (PGW_TEST_DATABASE_URL is not set; .ci/run sets it) ***\n');

const LIMIT = 10;

describe.skipIf(!postgresUrl)('throttle budgets across instances (postgres)', () => {
  let a: TestServer;
  let second: Awaited<ReturnType<typeof secondInstance>>;
  let b: App;

  beforeAll(async () => {
    a = await startServer('postgres');
    second = await secondInstance(a);
    b = second.app;
  });
  afterAll(async () => {
    await second.close();
    await a.close();
  });
  beforeEach(() => { a.clock.advance(3600); });

  // The dashboard's sign-in needs its form's cookie from the same instance; the token surfaces are enough here.
  describe.each(surfaces.filter((x) => !x.page))('$name', (surface) => {
    it('adds failures through instance 1 and instance 2 to one budget', async () => {
      for (let i = 0; i < LIMIT; i++) {
        const res = await surface.attempt(a, false, {}, i % 2 === 0 ? a.app : b);
        expect([i, res.status]).toEqual([i, surface.wrongStatus]);
      }
      expectThrottled(surface, await surface.attempt(a, true, {}, b), 300);
      expectThrottled(surface, await surface.attempt(a, true, {}, a.app), 300);
      a.clock.advance(300);
      expect(succeeded(surface, await surface.attempt(a, true, {}, b))).toBe(true);
    });

    it('checks no more than the limit of concurrent wrong attempts through both instances', async () => {
      const answers = await Promise.all(Array.from({ length: 4 * LIMIT }, (_, i) => surface.attempt(a, false, {}, i % 2 === 0 ? a.app : b)));
      const counts = (status: number): number => answers.filter((x) => x.status === status).length;
      expect([counts(surface.wrongStatus), counts(429)]).toEqual([LIMIT, 3 * LIMIT]);
    });
  });
});
