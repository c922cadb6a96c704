// When the network acts: the next settlement batch time slot of a processor (its local times of day in
// their time zones; 00:00 UTC daily when it has none), ACH clearing 24 hours after submission (2 with
// faster processing), and card authorizations expiring 7 days after their creation.

export interface TimeSlot {
  hours: number;
  minutes: number;
  timezoneName: string;
}

export const HOUR_MS = 3600 * 1000;
export const DAY_MS = 24 * HOUR_MS;
export const AUTHORIZATION_LIFETIME_MS = 7 * DAY_MS;

export const clearingDelayMs = (isFasterProcessing: boolean): number => (isFasterProcessing ? 2 : 24) * HOUR_MS;

const DEFAULT_SLOTS: readonly TimeSlot[] = [{ hours: 0, minutes: 0, timezoneName: 'UTC' }];

const formatters = new Map<string, Intl.DateTimeFormat>();

/** Offsets known constant over a quarter hour, by zone and quarter hour (at most OFFSETS_KEPT, oldest first out). */
const offsets = new Map<string, number>();
const QUARTER_HOUR_MS = 15 * 60 * 1000;
const OFFSETS_KEPT = 10_000;

/**
 * The zone's offset from UTC (ms) at an instant. An unknown zone name counts as UTC. Asking Intl costs ~10 us
 * (formatToParts), twice for each slot of each payment: an offset is kept for its quarter hour when it is the
 * same at both ends of it (zones change offset on quarter hours; a quarter hour holding a change is not kept).
 */
function zoneOffsetMs(timeZone: string, at: number): number {
  const start = Math.floor(at / QUARTER_HOUR_MS) * QUARTER_HOUR_MS;
  const key = `${timeZone} ${String(start)}`;
  const known = offsets.get(key);
  if (known !== undefined) return known;
  const offset = offsetFromIntl(timeZone, at);
  if (offsetFromIntl(timeZone, start) === offset && offsetFromIntl(timeZone, start + QUARTER_HOUR_MS - 1000) === offset) {
    if (offsets.size >= OFFSETS_KEPT) {
      const oldest = offsets.keys().next().value;
      if (oldest !== undefined) offsets.delete(oldest);
    }
    offsets.set(key, offset);
  }
  return offset;
}

/** The zone's offset from UTC (ms) at an instant, from Intl. */
function offsetFromIntl(timeZone: string, at: number): number {
  let format = formatters.get(timeZone);
  if (!format) {
    try {
      format = new Intl.DateTimeFormat('en-US', { timeZone, hourCycle: 'h23', year: 'numeric', month: 'numeric', day: 'numeric', hour: 'numeric', minute: 'numeric', second: 'numeric' });
    } catch {
      format = new Intl.DateTimeFormat('en-US', { timeZone: 'UTC', hourCycle: 'h23', year: 'numeric', month: 'numeric', day: 'numeric', hour: 'numeric', minute: 'numeric', second: 'numeric' });
    }
    formatters.set(timeZone, format);
  }
  const parts = Object.fromEntries(format.formatToParts(new Date(at)).map((p) => [p.type, Number(p.value)]));
  const local = Date.UTC(parts.year ?? 1970, (parts.month ?? 1) - 1, parts.day ?? 1, parts.hour ?? 0, parts.minute ?? 0, parts.second ?? 0);
  return local - Math.floor(at / 1000) * 1000;
}

/**
 * The instants at which the zone's clock shows `hours:minutes` on the local calendar day `day` (days since
 * 1970-01-01 on that clock): none when the clock skips that time that day (a spring change), two when it shows
 * it twice (an autumn change).
 */
function slotOnDay(slot: TimeSlot, day: number): number[] {
  const wall = day * DAY_MS + (slot.hours * 60 + slot.minutes) * 60_000;
  // The offsets in force half a day either side cover any change near the slot.
  const candidates = [wall - zoneOffsetMs(slot.timezoneName, wall - DAY_MS / 2), wall - zoneOffsetMs(slot.timezoneName, wall + DAY_MS / 2)];
  return [...new Set(candidates)].filter((at) => at + zoneOffsetMs(slot.timezoneName, at) === wall);
}

/** The first batch time slot strictly after `after`: the first instant after it at which a slot's zone shows its time. */
export function nextBatchSlot(after: Date, slots: readonly TimeSlot[]): Date {
  const from = after.getTime();
  let best = Number.POSITIVE_INFINITY;
  for (const slot of slots.length > 0 ? slots : DEFAULT_SLOTS) {
    // Calendar days of the zone's clock, from the day before `after`'s local day: days, not 24-hour steps,
    // since a day with a change is 23 or 25 hours long.
    const today = Math.floor((from + zoneOffsetMs(slot.timezoneName, from)) / DAY_MS);
    for (let day = today - 1; day <= today + 2; day++) {
      for (const at of slotOnDay(slot, day)) if (at > from && at < best) best = at;
    }
  }
  return new Date(best);
}
