// Durations of `pgw clock advance` and `pgw sandbox create --expires`: 30s, 15m, 2h, 1d, 1w, and combinations such as 1d12h.
import { UsageError } from './errors.ts';

const UNIT_SECONDS: Record<string, number> = { s: 1, m: 60, h: 3600, d: 86_400, w: 604_800 };
/** The server's bound for one advance (one year). */
export const MAX_SECONDS = 31_536_000;

/** Bounds of a duration, and what it is (for the message). */
export interface DurationBounds { min: number; max: number; what: string }

const CLOCK_ADVANCE: DurationBounds = { min: 1, max: MAX_SECONDS, what: 'a clock advance' };

const words = (seconds: number): string => (seconds >= 86_400 && seconds % 86_400 === 0 ? `${String(seconds / 86_400)} days` : `${String(seconds)} s`);

export function parseDuration(text: string, bounds: DurationBounds = CLOCK_ADVANCE): number {
  const trimmed = text.trim().toLowerCase();
  if (!/^(\d+[smhdw])+$/.test(trimmed)) {
    throw new UsageError(`"${text}" is not a duration: use a number and a unit (s, m, h, d, w), e.g. 30s, 15m, 2h, 1d, 1w or 1d12h`);
  }
  let seconds = 0;
  for (const [, amount, unit] of trimmed.matchAll(/(\d+)([smhdw])/g)) seconds += Number(amount) * (UNIT_SECONDS[unit ?? ''] ?? 0);
  if (seconds < bounds.min || seconds > bounds.max) {
    throw new UsageError(`"${text}" is ${String(seconds)} s: ${bounds.what} is ${words(bounds.min)} to ${words(bounds.max)} (${String(bounds.max)} s)`);
  }
  return seconds;
}
