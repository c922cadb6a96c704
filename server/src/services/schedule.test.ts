// The batch time slots: local times of day in their zones, daylight saving included, and the default.
import { describe, expect, it } from 'vitest';
import { nextBatchSlot } from './schedule.ts';

const ny = [{ hours: 23, minutes: 0, timezoneName: 'America/New_York' }];

describe('nextBatchSlot', () => {
  it.each([
    ['winter (UTC-5)', '2026-01-15T12:00:00.000Z', ny, '2026-01-16T04:00:00.000Z'],
    ['summer (UTC-4)', '2026-07-15T12:00:00.000Z', ny, '2026-07-16T03:00:00.000Z'],
    ['just after a slot: the next day', '2026-07-16T03:00:00.001Z', ny, '2026-07-17T03:00:00.000Z'],
    ['exactly at a slot: the next one', '2026-07-16T03:00:00.000Z', ny, '2026-07-17T03:00:00.000Z'],
    ['no slots: 00:00 UTC', '2026-03-01T10:00:00.000Z', [], '2026-03-02T00:00:00.000Z'],
    ['several slots: the earliest after', '2026-03-01T10:00:00.000Z',
      [{ hours: 18, minutes: 30, timezoneName: 'UTC' }, { hours: 11, minutes: 0, timezoneName: 'UTC' }], '2026-03-01T11:00:00.000Z'],
    ['across the spring change (New York)', '2026-03-08T05:00:00.000Z', ny, '2026-03-09T03:00:00.000Z'],
  ])('%s', (_name, after, slots, want) => {
    expect(nextBatchSlot(new Date(after), slots).toISOString()).toBe(want);
  });
});
