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

  // The oracle: the first whole minute after `after` whose local time in the zone is the slot's (brute force).
  const oracle = (after: number, hours: number, minutes: number, timeZone: string): number => {
    const format = new Intl.DateTimeFormat('en-US', { timeZone, hourCycle: 'h23', hour: 'numeric', minute: 'numeric' });
    for (let t = Math.floor(after / 60_000) * 60_000 + 60_000; ; t += 60_000) {
      const parts = Object.fromEntries(format.formatToParts(new Date(t)).map((p) => [p.type, p.value]));
      if (Number(parts.hour) === hours && Number(parts.minute) === minutes) return t;
    }
  };

  it.each([
    ['New York, spring change', 'America/New_York', '2026-03-07T00:00:00.000Z', 23, 0],
    ['New York, autumn change', 'America/New_York', '2026-10-31T00:00:00.000Z', 23, 0],
    ['New York, a slot the spring change skips (02:30)', 'America/New_York', '2026-03-07T00:00:00.000Z', 2, 30],
    ['New York, a slot the autumn change shows twice (01:30)', 'America/New_York', '2026-10-31T00:00:00.000Z', 1, 30],
    ['Lord Howe (30-minute change), a slot near it', 'Australia/Lord_Howe', '2026-04-03T12:00:00.000Z', 1, 45],
    ['Kathmandu (+05:45)', 'Asia/Kathmandu', '2026-06-01T00:00:00.000Z', 0, 15],
  ])('%s: every 7 minutes over three days, the slot the zone\'s own clock gives (offsets kept per quarter hour)', (_name, zone, from, hours, minutes) => {
    const slots = [{ hours, minutes, timezoneName: zone }];
    for (let at = Date.parse(from); at < Date.parse(from) + 3 * 86_400_000; at += 7 * 60_000) {
      const got = nextBatchSlot(new Date(at), slots).getTime();
      // A day whose clock skips the slot's time has none; a time the clock shows twice is a slot twice.
      if (got !== oracle(at, hours, minutes, zone)) expect([new Date(at).toISOString(), new Date(got).toISOString()]).toEqual([new Date(at).toISOString(), new Date(oracle(at, hours, minutes, zone)).toISOString()]);
    }
  });
});
