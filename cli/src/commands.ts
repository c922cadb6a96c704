// `pgw clock`, `pgw clock advance`, `pgw logs` and `pgw events resend`: thin, readable wrappers of the API.
// What they print holds the server's text (ids, statuses, event types): each line is made terminal-safe.
import { describeError, guard, ok, type Session } from './api.ts';
import { ApiError } from './errors.ts';
import { logTable } from './log-table.ts';
import { safePrinter } from './terminal.ts';

type Say = (text: string) => void;

export async function showClock(s: Session, print: Say): Promise<void> {
  const say = safePrinter(print);
  const clock = await ok(s.config, 'reading the sandbox clock', () => s.api.GET('/sandbox/v1/clock'));
  say(`${clock.now}  (merchant ${clock.merchantId}, ${String(clock.offsetSeconds)} s ahead of real time)`);
}

export async function advanceClock(s: Session, seconds: number, print: Say): Promise<void> {
  const say = safePrinter(print);
  const run = await ok(s.config, 'advancing the sandbox clock', () => s.api.POST('/sandbox/v1/clock/advance', { body: { seconds } }));
  say(`${run.now}  (merchant ${run.merchantId}, ${String(run.offsetSeconds)} s ahead of real time)`);
  const ran = Object.entries(run.ran).filter(([, n]) => n > 0).map(([k, n]) => `${k} ${String(n)}`);
  say(`ran: ${ran.length > 0 ? ran.join(', ') : 'nothing fell due'}`);
}

export interface LogOptions { limit: number; status: string | undefined; type: string | undefined }

export async function showLogs(s: Session, options: LogOptions, print: Say): Promise<void> {
  const say = safePrinter(print);
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
 * Resends a delivery by its id: one that has not succeeded (Failed, or Pending: still being retried, its schedule
 * kept), or with `force` a Succeeded one. Given an event id, resends the event once to each webhook that has not
 * received it (with `force`, to each webhook), among the recent deliveries: its Scheduled delivery, whose success
 * also stops its retries (a Manual entry only where no Scheduled one is listed).
 */
export async function resend(s: Session, id: string, force: boolean, print: Say): Promise<void> {
  const say = safePrinter(print);
  const query = force ? { force: true } : {};
  const direct = await guard(s.config, () => s.api.POST('/v2/webhooks/delivery-logs/{id}/retry', { params: { path: { id }, query } }));
  if (direct.data) {
    say(`resent delivery ${id}: new delivery ${direct.data.id} (${direct.data.status}) of event ${direct.data.eventId}`);
    return;
  }
  if (direct.response.status !== 404) {
    throw new ApiError(`resending delivery ${id} failed: ${String(direct.response.status)} ${describeError(direct.error)}`, direct.response.status, direct.error);
  }
  const ofEvent: { id: string; webhookId: string; status: string; triggerType: string }[] = [];
  for (let page = 0; page < SEARCH_PAGES; page++) {
    const found = await ok(s.config, 'listing the delivery logs', () => s.api.GET('/v2/webhooks/delivery-logs', { params: { query: { page, pageSize: 100, orderBy: 'createdOn', asc: false } } }));
    ofEvent.push(...found.items.filter((e) => e.eventId === id));
    if (found.items.length < 100) break;
  }
  if (ofEvent.length === 0) throw new ApiError(`no delivery has the id ${id}, and no recent delivery is of an event with that id (pgw logs lists them)`, 404, undefined);
  const chosen = [...new Set(ofEvent.map((e) => e.webhookId))].flatMap((webhookId) => {
    const mine = ofEvent.filter((e) => e.webhookId === webhookId);
    if (!force && mine.some((e) => e.status === 'Succeeded')) return [];
    const pick = mine.find((e) => e.triggerType === 'Scheduled') ?? mine[0];
    return pick === undefined ? [] : [pick];
  });
  if (chosen.length === 0) {
    throw new ApiError(`event ${id} was delivered to each of its webhooks (${ofEvent.map((e) => e.status).join(', ')}): add --force to resend it`, 400, undefined);
  }
  for (const delivery of chosen) {
    const r = await ok(s.config, `resending delivery ${delivery.id}`, () => s.api.POST('/v2/webhooks/delivery-logs/{id}/retry', { params: { path: { id: delivery.id }, query } }));
    say(`resent delivery ${delivery.id} of event ${id}: new delivery ${r.id} (${r.status})`);
  }
}
