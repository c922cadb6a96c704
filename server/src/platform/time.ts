// Time: two clocks. The wall clock (real time; tests move it) is for tokens, idempotency expiry and leases.
// The business clock of a merchant is the wall clock plus the merchant's sandbox offset (0 in production):
// every business date (createdOn, due dates, ACH batches, card expiry, webhook retries) reads it, so
// advancing one merchant's sandbox clock never expires a token or touches another merchant.
import { invalid } from './errors.ts';

export interface Clock {
  now(): Date;
}

export const systemClock: Clock = { now: () => new Date() };


/** `2026-01-02T03:04:05.678Z`: the stored form of every date-time. */
export const iso = (date: Date): string => date.toISOString();

/**
 * A date-time of a request (any ISO 8601 offset) in the stored form. One the format admits but a Date cannot
 * hold (a leap second, 23:59:60) is a 400 naming the field, not a fault.
 */
export function normalizeDateTime(text: string, field: string): string {
  const date = new Date(text);
  if (Number.isNaN(date.getTime())) throw invalid(field, 'is not a date-time this server can represent (a leap second?)');
  return date.toISOString();
}
