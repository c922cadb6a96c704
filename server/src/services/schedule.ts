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

/** The zone's offset from UTC (ms) at an instant. An unknown zone name counts as UTC. */
function zoneOffsetMs(timeZone: string, at: number): number {
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

/** The instant at which the zone's clock shows `hours:minutes` on the zone's calendar day of `dayAt`. */
function slotOnDay(slot: TimeSlot, dayAt: number): number {
  const offset = zoneOffsetMs(slot.timezoneName, dayAt);
  const local = new Date(dayAt + offset);
  const wall = Date.UTC(local.getUTCFullYear(), local.getUTCMonth(), local.getUTCDate(), slot.hours, slot.minutes);
  // Resolve the zone offset at the slot itself (daylight saving may differ from the offset at dayAt).
  const guess = wall - offset;
  return wall - zoneOffsetMs(slot.timezoneName, guess);
}

/** The first batch time slot strictly after `after`. */
export function nextBatchSlot(after: Date, slots: readonly TimeSlot[]): Date {
  const from = after.getTime();
  let best = Number.POSITIVE_INFINITY;
  for (const slot of slots.length > 0 ? slots : DEFAULT_SLOTS) {
    for (let day = -1; day <= 2; day++) {
      const at = slotOnDay(slot, from + day * DAY_MS);
      if (at > from && at < best) best = at;
    }
  }
  return new Date(best);
}
