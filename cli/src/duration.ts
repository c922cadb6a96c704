// Durations of `pgw clock advance`: 30s, 15m, 2h, 1d, 1w, and combinations such as 1d12h.
import { UsageError } from './errors.ts';

const UNIT_SECONDS: Record<string, number> = { s: 1, m: 60, h: 3600, d: 86_400, w: 604_800 };
/** The server's bound for one advance (one year). */
export const MAX_SECONDS = 31_536_000;

export function parseDuration(text: string): number {
  const trimmed = text.trim().toLowerCase();
  if (!/^(\d+[smhdw])+$/.test(trimmed)) {
    throw new UsageError(`"${text}" is not a duration: use a number and a unit (s, m, h, d, w), e.g. 30s, 15m, 2h, 1d, 1w or 1d12h`);
  }
  let seconds = 0;
  for (const [, amount, unit] of trimmed.matchAll(/(\d+)([smhdw])/g)) seconds += Number(amount) * (UNIT_SECONDS[unit ?? ''] ?? 0);
  if (seconds < 1 || seconds > MAX_SECONDS) throw new UsageError(`"${text}" is ${String(seconds)} s: a clock advance is 1 s to 365 days (${String(MAX_SECONDS)} s)`);
  return seconds;
}
