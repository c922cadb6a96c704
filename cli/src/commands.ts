// `pgw clock`, `pgw clock advance`, `pgw logs` and `pgw events resend`: thin, readable wrappers of the API.
import { describeError, guard, ok, type Session } from './api.ts';
import { ApiError } from './errors.ts';
import { logTable } from './log-table.ts';

type Say = (text: string) => void;

export async function showClock(s: Session, say: Say): Promise<void> {
  const clock = await ok(s.config, 'reading the sandbox clock', () => s.api.GET('/sandbox/v1/clock'));
  say(`${clock.now}  (merchant ${clock.merchantId}, ${String(clock.offsetSeconds)} s ahead of real time)`);
}

export async function advanceClock(s: Session, seconds: number, say: Say): Promise<void> {
  const run = await ok(s.config, 'advancing the sandbox clock', () => s.api.POST('/sandbox/v1/clock/advance', { body: { seconds } }));
  say(`${run.now}  (merchant ${run.merchantId}, ${String(run.offsetSeconds)} s ahead of real time)`);
  const ran = Object.entries(run.ran).filter(([, n]) => n > 0).map(([k, n]) => `${k} ${String(n)}`);
  say(`ran: ${ran.length > 0 ? ran.join(', ') : 'nothing fell due'}`);
}

export interface LogOptions { limit: number; status: string | undefined; type: string | undefined }

export async function showLogs(s: Session, options: LogOptions, say: Say): Promise<void> {
  const page = await ok(s.config, 'listing the delivery logs', () => s.api.GET('/v2/webhooks/delivery-logs', { params: { query: {
    pageSize: options.limit, orderBy: 'createdOn', asc: false,
    ...(options.status === undefined ? {} : { status: options.status as never }), ...(options.type === undefined ? {} : { eventType: options.type as never }),
  } } }));
  if (page.items.length === 0) {
    say('No deliveries yet (deliveries go to registered webhook endpoints; pgw listen registers none).');
    return;
  }
  for (const line of logTable(page.items)) say(line);
  say(`${String(page.items.length)} of ${String(page.total)} deliveries, newest first.`);
}

/** How many recent deliveries an event id is looked for in. */
const SEARCH_PAGES = 10;

/**
 * Resends a Failed delivery, by its id; or, given an event id, every Failed delivery of that event among the
 * recent ones. Only a Failed delivery can be resent (the API's rule); a pending one is retried anyway.
 */
export async function resend(s: Session, id: string, say: Say): Promise<void> {
  const direct = await guard(s.config, () => s.api.POST('/v2/webhooks/delivery-logs/{id}/retry', { params: { path: { id } } }));
  if (direct.data) {
    say(`resent delivery ${id}: new delivery ${direct.data.id} (${direct.data.status}) of event ${direct.data.eventId}`);
    return;
  }
  if (direct.response.status !== 404) {
    throw new ApiError(`resending delivery ${id} failed: ${String(direct.response.status)} ${describeError(direct.error)}`, direct.response.status, direct.error);
  }
  const ofEvent: { id: string; status: string }[] = [];
  for (let page = 0; page < SEARCH_PAGES; page++) {
    const found = await ok(s.config, 'listing the delivery logs', () => s.api.GET('/v2/webhooks/delivery-logs', { params: { query: { page, pageSize: 100, orderBy: 'createdOn', asc: false } } }));
    ofEvent.push(...found.items.filter((e) => e.eventId === id));
    if (found.items.length < 100) break;
  }
  if (ofEvent.length === 0) throw new ApiError(`no delivery has the id ${id}, and no recent delivery is of an event with that id (pgw logs lists them)`, 404, undefined);
  const failed = ofEvent.filter((e) => e.status === 'Failed');
  if (failed.length === 0) {
    throw new ApiError(`event ${id} has ${String(ofEvent.length)} deliver${ofEvent.length === 1 ? 'y' : 'ies'} (${ofEvent.map((e) => e.status).join(', ')}), none Failed: only a Failed delivery can be resent`, 400, undefined);
  }
  for (const delivery of failed) {
    const r = await ok(s.config, `resending delivery ${delivery.id}`, () => s.api.POST('/v2/webhooks/delivery-logs/{id}/retry', { params: { path: { id: delivery.id } } }));
    say(`resent delivery ${delivery.id} of event ${id}: new delivery ${r.id} (${r.status})`);
  }
}
