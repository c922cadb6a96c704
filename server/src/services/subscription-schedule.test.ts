// The subscription schedule: dates from the anchor with month ends clamped, and the retry schedule of the spec.
import { describe, expect, it } from 'vitest';
import { firstScheduledFrom, paymentDate, retryAt } from './subscription-schedule.ts';

const d = (text: string): Date => new Date(text);
const iso = (date: Date | undefined): string | undefined => date?.toISOString();

describe('the subscription schedule', () => {
  it('counts months from the anchor, clamping month ends (Jan 31 -> Feb 29 -> Mar 31 -> Apr 30)', () => {
    const start = d('2028-01-31T10:00:00.000Z');
    expect([0, 1, 2, 3, 13].map((n) => iso(paymentDate(start, 'Monthly', n)))).toEqual([
      '2028-01-31T10:00:00.000Z', '2028-02-29T10:00:00.000Z', '2028-03-31T10:00:00.000Z', '2028-04-30T10:00:00.000Z', '2029-02-28T10:00:00.000Z',
    ]);
  });

  it('adds days for weekly and biweekly, months for quarterly and yearly', () => {
    const start = d('2027-11-30T00:00:00.000Z');
    expect(iso(paymentDate(start, 'Weekly', 2))).toBe('2027-12-14T00:00:00.000Z');
    expect(iso(paymentDate(start, 'BiWeekly', 1))).toBe('2027-12-14T00:00:00.000Z');
    expect(iso(paymentDate(start, 'Quarterly', 1))).toBe('2028-02-29T00:00:00.000Z');
    expect(iso(paymentDate(start, 'Yearly', 1))).toBe('2028-11-30T00:00:00.000Z');
  });

  it('retries by the merchant\'s schedule (days after each failure); the failure after the last retry is the last', () => {
    const failed = d('2025-05-14T00:00:00.000Z');
    expect(iso(retryAt(failed, 1, [1, 2]))).toBe('2025-05-15T00:00:00.000Z');
    expect(iso(retryAt(d('2025-05-15T00:00:00.000Z'), 2, [1, 2]))).toBe('2025-05-17T00:00:00.000Z');
    expect(retryAt(failed, 3, [1, 2])).toBeUndefined();
    expect(retryAt(failed, 1, [])).toBeUndefined();
    expect(iso(retryAt(failed, 8, [1, 1, 1, 1, 1, 1, 1, 30]))).toBe('2025-06-13T00:00:00.000Z');
    expect(retryAt(failed, 9, [1, 1, 1, 1, 1, 1, 1, 30])).toBeUndefined();
  });

  it('resumes at the first schedule date at or after the resume, from the schedule index on', () => {
    const s = { anchorDate: '2028-01-31T10:00:00.000Z', frequency: 'Monthly' as const, scheduleIndex: 1 };
    expect(firstScheduledFrom(s, d('2028-02-10T00:00:00.000Z'))).toEqual({ index: 1, at: d('2028-02-29T10:00:00.000Z') });
    expect(firstScheduledFrom(s, d('2028-02-29T10:00:00.000Z'))).toEqual({ index: 1, at: d('2028-02-29T10:00:00.000Z') });
    expect(firstScheduledFrom(s, d('2028-04-30T10:00:01.000Z'))).toEqual({ index: 4, at: d('2028-05-31T10:00:00.000Z') });
  });
});
