// The subscription schedule: dates from the anchor with month ends clamped, and the retry schedule of the spec.
import { describe, expect, it } from 'vitest';
import { ATTEMPTS, paymentDate, retryAt } from './subscription-schedule.ts';

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

  it('retries 1 day after the first failure and 2 days after the second; the third is the last', () => {
    const failed = d('2025-05-14T00:00:00.000Z');
    expect(iso(retryAt(failed, 1))).toBe('2025-05-15T00:00:00.000Z');
    expect(iso(retryAt(d('2025-05-15T00:00:00.000Z'), 2))).toBe('2025-05-17T00:00:00.000Z');
    expect(retryAt(failed, ATTEMPTS)).toBeUndefined();
  });
});
