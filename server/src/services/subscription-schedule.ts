// The subscription schedule, as the spec's SubscriptionFrequency and SubscriptionStatus say: payment n falls due
// at the anchor (startDate, or where a change of frequency set it) plus n intervals (from the anchor, not the previous payment; month ends clamped, so Jan 31 ->
// Feb 28/29 -> Mar 31), and a failed payment is retried on the merchant's retry schedule (days after each
// failure; the failure after the last retry is the last). Pure functions of business times.
import type { Frequency, SubscriptionRecord } from '../repositories/subscriptions.ts';

const DAY_MS = 86_400_000;

/** Each frequency as days or months. */
const INTERVAL: Readonly<Record<Frequency, { days: number } | { months: number }>> = {
  Weekly: { days: 7 }, BiWeekly: { days: 14 }, Monthly: { months: 1 }, Quarterly: { months: 3 }, Yearly: { months: 12 },
};

/** Days in a month of a UTC year (month 0-11, any integer: it is normalized). */
const daysIn = (year: number, month: number): number => new Date(Date.UTC(year, month + 1, 0)).getUTCDate();

/** When payment `n` (0: the first) falls due: the start plus n intervals, the day clamped to the month's last. */
export function paymentDate(start: Date, frequency: Frequency, n: number): Date {
  const interval = INTERVAL[frequency];
  if ('days' in interval) return new Date(start.getTime() + n * interval.days * DAY_MS);
  const months = start.getUTCMonth() + n * interval.months;
  const year = start.getUTCFullYear() + Math.floor(months / 12);
  const month = ((months % 12) + 12) % 12;
  const day = Math.min(start.getUTCDate(), daysIn(year, month));
  return new Date(Date.UTC(year, month, day, start.getUTCHours(), start.getUTCMinutes(), start.getUTCSeconds(), start.getUTCMilliseconds()));
}

/**
 * When the retry after the `failures`-th failure falls due, by the merchant's retry schedule (days after the
 * previous failed attempt); undefined after the last attempt (1 + retryDays.length).
 */
export function retryAt(failedAt: Date, failures: number, retryDays: readonly number[]): Date | undefined {
  const days = retryDays[failures - 1];
  return days === undefined ? undefined : new Date(failedAt.getTime() + days * DAY_MS);
}

/**
 * The first payment of the subscription's schedule (from its scheduleIndex on) due at or after `at`: its index
 * and date (the resume rule: the periods that began while paused are skipped).
 */
export function firstScheduledFrom(s: Pick<SubscriptionRecord, 'anchorDate' | 'frequency' | 'scheduleIndex'>, at: Date): { index: number; at: Date } {
  const start = new Date(s.anchorDate);
  let index = s.scheduleIndex;
  let date = paymentDate(start, s.frequency, index);
  // At most a few hundred steps: a year of weekly periods is 53 (the clock advance is bounded too).
  while (date < at) {
    index += 1;
    date = paymentDate(start, s.frequency, index);
  }
  return { index, at: date };
}
