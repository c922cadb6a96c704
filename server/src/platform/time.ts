// Time: one clock for the server (tests move it), and ISO 8601 UTC text of fixed width for the database.

export interface Clock {
  now(): Date;
}

export const systemClock: Clock = { now: () => new Date() };

/** `2026-01-02T03:04:05.678Z`: the stored form of every date-time. */
export const iso = (date: Date): string => date.toISOString();

/** A date-time of a request (any ISO 8601 offset) in the stored form. */
export const normalizeDateTime = (text: string): string => new Date(text).toISOString();
