// The merchant's business clock as the checks move it: read its now, advance it, and step just past a time a
// record names (a next payment, an expiry, a due date). A target without a sandbox clock skips the check.
import { OperationId } from '@pgw/client/operations';
import { CheckSkipped, bodyOf, expectStatus, type CheckContext } from '../check.ts';
import type { CallOptions } from '../http.ts';

/** The business now of the caller (merchant A unless `as` says otherwise), in milliseconds. */
export async function businessNow(ctx: CheckContext, as: CallOptions = {}): Promise<number> {
  const clock = await ctx.call(OperationId.getSandboxClock, { ...as });
  if (clock.response?.status === 404) throw new CheckSkipped('the target has no sandbox clock (designed)');
  expectStatus(clock, 200, OperationId.getSandboxClock);
  const now = Date.parse(String(bodyOf(clock).now));
  if (Number.isNaN(now)) throw new CheckSkipped('the sandbox clock reads no date-time');
  return now;
}

/** The most one advance may move (the contract's maximum: 365 days); a longer move is made in steps. */
const LONGEST_STEP = 31_536_000;

export async function advance(ctx: CheckContext, seconds: number, as: CallOptions = {}): Promise<void> {
  for (let left = seconds; left > 0; left -= LONGEST_STEP) {
    const step = Math.min(left, LONGEST_STEP);
    const moved = await ctx.call(OperationId.advanceSandboxClock, { ...as, body: { seconds: step } });
    if (moved.response?.status === 404) throw new CheckSkipped('the target has no sandbox clock (designed)');
    expectStatus(moved, 200, `${OperationId.advanceSandboxClock} by ${String(step)} s`);
  }
}

/** Moves the clock to `offset` seconds after a date-time (negative: before it), if that is ahead of now. */
export async function advanceTo(ctx: CheckContext, at: unknown, offset = 1, as: CallOptions = {}): Promise<void> {
  const seconds = Math.ceil((Date.parse(String(at)) - (await businessNow(ctx, as))) / 1000) + offset;
  if (seconds > 0) await advance(ctx, seconds, as);
}

/** A date-time `days` after the caller's business now. */
export async function daysFromNow(ctx: CheckContext, days: number, as: CallOptions = {}): Promise<string> {
  return new Date((await businessNow(ctx, as)) + days * 86_400_000).toISOString();
}
