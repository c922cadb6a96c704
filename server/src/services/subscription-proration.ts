// The arithmetic of a prorated plan change (the spec's SubscriptionPlanChange): over the current period, the
// unused time of the old price credited and the remaining time of the new price charged, by whole seconds, each
// rounded to the cent half away from zero; a new frequency charges a whole new period instead. Pure.
import { type Cents, fractionOf, minusCents } from '../platform/money.ts';

export interface Proration {
  periodSeconds: number;
  remainingSeconds: number;
  unusedCredit: Cents;
  remainingCharge: Cents;
  /** remainingCharge - unusedCredit: charged when positive, credited when negative. */
  net: Cents;
}

/**
 * The proration at `at` of a change from `previous` to `next` cents a period over [start, end); `newPeriod`: the
 * change starts a new period now (a new frequency), so the whole `next` is charged.
 */
export function prorate(previous: Cents, next: Cents, start: Date, end: Date, at: Date, newPeriod: boolean): Proration {
  const periodSeconds = Math.max(1, Math.floor((end.getTime() - start.getTime()) / 1000));
  const remainingSeconds = Math.min(periodSeconds, Math.max(0, Math.floor((end.getTime() - at.getTime()) / 1000)));
  const unusedCredit = fractionOf(previous, remainingSeconds, periodSeconds);
  const remainingCharge = newPeriod ? next : fractionOf(next, remainingSeconds, periodSeconds);
  return { periodSeconds, remainingSeconds, unusedCredit, remainingCharge, net: minusCents(remainingCharge, unusedCredit) };
}
