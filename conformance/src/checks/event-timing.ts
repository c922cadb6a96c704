// Events over time: the sandbox event stream message after message (its `event:` line is its payload's type,
// its `id:` the event id), the retry schedule row after row (nextRetryAt = lastAttemptAt + the table's delay),
// and one merchant's sandbox clock moving no other merchant's.
import { OperationId } from '@pgw/client/operations';
import { CheckFailure, CheckSkipped, bodyOf, createdId, expectStatus, failWithAll, type Check, type CheckContext } from '../check.ts';
import type { Exchange } from '../http.ts';
import { paymentProcessors, testCard } from '../fixtures.ts';
import { describeNetworkError } from '../network-errors.ts';
import { Receiver } from '../receiver.ts';
import { openStream, type OpenStream } from '../transport.ts';
import { currentReceiverOptions } from './webhooks.ts';

type Failures = [string, Exchange | undefined][];
const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** The spec's retry table (description "Delivery and retries"): the delay before attempts 2 to 7, in seconds. */
export const RETRY_DELAYS = [60, 300, 1800, 7200, 28_800, 86_400] as const;

/** A fresh access token of an identity, by the token service (the stream is read here, not through `call`). */
async function tokenOf(ctx: CheckContext, who: string): Promise<string> {
  const credentials = ctx.credentials[who];
  if (!credentials) throw new CheckSkipped(`no credentials for ${who}`);
  const issued = await ctx.raw('POST', `${ctx.authUrl}/oauth2/token`, { form: { grant_type: 'client_credentials', scope: 'offline_access', client_id: credentials.clientId, client_secret: credentials.clientSecret } });
  expectStatus(issued, 200, 'a token for the event stream');
  return String(bodyOf(issued).access_token);
}

interface StreamMessage { id: string | undefined; event: string | undefined; data: string }

/** Reads messages of a server-sent event stream until `count` came or the time is up; comments are skipped. */
async function readMessages(stream: OpenStream, count: number, timeoutMs: number, counts: (m: StreamMessage) => boolean = () => true): Promise<StreamMessage[]> {
  const collected = collect(stream);
  try {
    return await collected.until(count, timeoutMs, counts);
  } finally {
    collected.close();
  }
}

/** The delivery log entry of an event at a webhook, polled until `ready` holds (or 20 s passed). */
async function logEntry(ctx: CheckContext, webhookId: string, eventId: string, ready: (e: Record<string, unknown>) => boolean): Promise<{ log: Exchange; entry: Record<string, unknown> | undefined }> {
  const until = Date.now() + 20_000;
  for (;;) {
    const log = await ctx.call(OperationId.listWebhookDeliveryLogs, { path: { webhookId }, query: { pageSize: 100 } });
    expectStatus(log, 200, OperationId.listWebhookDeliveryLogs);
    const entry = (Array.isArray(bodyOf(log).items) ? (bodyOf(log).items as unknown[]) : []).filter(isObject).find((i) => i.eventId === eventId && i.triggerType !== 'Manual');
    if ((entry !== undefined && ready(entry)) || Date.now() > until) return { log, entry };
    await sleep(100);
  }
}

/** A token of credentials not in the credentials file (a sandbox merchant the check made). */
async function tokenFor(ctx: CheckContext, clientId: string, clientSecret: string): Promise<string> {
  const issued = await ctx.raw('POST', `${ctx.authUrl}/oauth2/token`, { form: { grant_type: 'client_credentials', scope: 'offline_access', client_id: clientId, client_secret: clientSecret } });
  expectStatus(issued, 200, "a token of the check's sandbox merchant");
  return String(bodyOf(issued).access_token);
}

/**
 * The stream once its first block came (the server has taken its starting point): events made from then on are
 * after it. What was read is handed on with the rest.
 */
async function started(stream: OpenStream): Promise<OpenStream> {
  const iterator = stream.text[Symbol.asyncIterator]();
  let head = '';
  while (!head.includes('\n\n')) {
    const next = await iterator.next();
    if (next.done === true) break;
    head += next.value;
  }
  const text: AsyncIterable<string> = {
    async *[Symbol.asyncIterator]() {
      yield head;
      for (;;) {
        const next = await iterator.next();
        if (next.done === true) return;
        yield next.value;
      }
    },
  };
  return { ...stream, text };
}

/** A stream read in the background: its messages so far, waited for by count; closed when asked. */
function collect(stream: OpenStream): { until: (count: number, timeoutMs: number, counts?: (m: StreamMessage) => boolean) => Promise<StreamMessage[]>; close: () => void } {
  const messages: StreamMessage[] = [];
  let wake: (() => void) | undefined;
  void (async () => {
    let buffer = '';
    try {
      for await (const value of stream.text) {
        buffer += value.replace(/\r\n?/g, '\n');
        let end: number;
        while ((end = buffer.indexOf('\n\n')) >= 0) {
          const fields = buffer.slice(0, end).split('\n').filter((l) => l !== '' && !l.startsWith(':'));
          buffer = buffer.slice(end + 2);
          const field = (name: string): string[] => fields.filter((l) => l.startsWith(`${name}:`)).map((l) => l.slice(name.length + 1).replace(/^ /, ''));
          // A block without data (a `retry:` advice, the starting point) dispatches no event (the SSE standard).
          if (field('data').length > 0) messages.push({ id: field('id')[0], event: field('event')[0], data: field('data').join('\n') });
        }
        wake?.();
      }
    } catch {
      // Closed: what came is what is judged.
    }
  })();
  return {
    until: async (count, timeoutMs, counts = () => true) => {
      const deadline = Date.now() + timeoutMs;
      while (messages.filter(counts).length < count && Date.now() < deadline) {
        await new Promise<void>((resolve) => { wake = resolve; setTimeout(resolve, 100); });
      }
      return [...messages];
    },
    close: () => { stream.close(); },
  };
}

/** The ids of the transactions a stream's messages are about, in order. */
const transactionsOf = (messages: readonly StreamMessage[]): string[] => messages.flatMap((m) => {
  try {
    const id = (JSON.parse(m.data) as { data?: { transactionId?: unknown } }).data?.transactionId;
    return typeof id === 'string' ? [id] : [];
  } catch {
    return [];
  }
});

export const eventTimingChecks: readonly Check[] = [
  {
    id: 'webhooks/event_stream',
    group: 'resources',
    title: "every message of the sandbox event stream, not only the first, names its payload's type on its event: line and its id on its id: line",
    tags: ['Sandbox', OperationId.streamSandboxEvents],
    designed: true,
    run: async (ctx) => {
      const processor = (await paymentProcessors(ctx)).card;
      if (processor === '') throw new CheckSkipped('the merchant has no card processor');
      const token = await tokenOf(ctx, 'A');
      const op = ctx.spec.operation(OperationId.streamSandboxEvents);
      // A stream's headers come at once; a proxy that buffers whole responses never relays them.
      const res = await openStream({ method: 'GET', url: `${ctx.baseUrl}${op.path}`, headers: { accept: 'text/event-stream', authorization: `Bearer ${token}` }, timeoutMs: 10_000 })
        .catch((error: unknown) => { throw new CheckFailure(`the event stream answers with its headers at once (none within 10 s: ${describeNetworkError(error, 10_000)})`); });
      try {
        if (res.status === 404) throw new CheckSkipped('the target serves no sandbox event stream (designed; 404)');
        if (res.status !== 200) throw new CheckFailure(`the event stream answers 200 (got ${String(res.status)})`);
        // Six events of two types, made after the stream opened: the stream sends each of them, in order.
        const made: string[] = [];
        const mine = new Set<string>();
        for (let i = 0; i < 3; i++) {
          const auth = await ctx.call(OperationId.authorizeCard, { body: { amount: 7 + i, paymentProcessorId: processor, card: testCard() } });
          expectStatus(auth, 200, OperationId.authorizeCard);
          made.push('payment.card.authorized');
          const id = bodyOf(auth).transactionId;
          if (typeof id === 'string') {
            mine.add(id);
            expectStatus(await ctx.call(OperationId.voidCardTransaction, { path: { transactionId: id } }), 200, OperationId.voidCardTransaction);
            made.push('payment.card.voided');
          }
        }
        // A long-lived target's merchant may have other events on the stream: the check's own are those about
        // its transactions (every message is still held to its event: and id: lines).
        const isMine = (m: { data: string }): boolean => {
          try {
            const payload = JSON.parse(m.data) as { data?: { transactionId?: unknown } };
            return typeof payload.data?.transactionId === 'string' && mine.has(payload.data.transactionId);
          } catch {
            return false;
          }
        };
        const messages = await readMessages(res, made.length, 10_000, isMine);
        const failures: Failures = [];
        if (messages.filter(isMine).length < made.length) failures.push([`the stream sends the ${String(made.length)} events made after it opened (got ${String(messages.filter(isMine).length)} of them in 10 s)`, undefined]);
        messages.forEach((m, i) => {
          let payload: unknown;
          try { payload = JSON.parse(m.data); } catch { failures.push([`message ${String(i + 1)}'s data is one JSON envelope (got ${m.data.slice(0, 80)})`, undefined]); return; }
          if (!isObject(payload)) return;
          if (m.event !== payload.type) failures.push([`message ${String(i + 1)}: its event: line (${String(m.event)}) is its payload's type (${String(payload.type)})`, undefined]);
          if (m.id !== payload.id) failures.push([`message ${String(i + 1)}: its id: line (${String(m.id)}) is its payload's id (${String(payload.id)})`, undefined]);
        });
        const types = messages.filter(isMine).map((m) => m.event);
        if (types.length >= made.length && JSON.stringify(types.slice(0, made.length)) !== JSON.stringify(made)) failures.push([`the stream sends the events in commit order: ${made.join(', ')} (got ${types.join(', ')})`, undefined]);
        failWithAll(failures);
      } finally {
        res.close();
      }
    },
  },
  {
    id: 'webhooks/stream_positions',
    group: 'resources',
    title: 'stream positions are never reused: after a sandbox reset the open stream sends the new events; a Last-Event-ID resumes with exactly what followed it, once, also when its event was deleted',
    tags: ['Sandbox', OperationId.streamSandboxEvents, OperationId.resetSandbox],
    designed: true,
    run: async (ctx) => {
      if (!ctx.identities.includes('partner')) throw new CheckSkipped("needs a partner's key (a sandbox merchant of the check's own is reset, never A or B)");
      const made = await ctx.call(OperationId.createSandboxMerchant, { as: 'partner', body: { name: ctx.unique('stream-positions'), expiresInSeconds: 600 } });
      if (made.response?.status === 404) throw new CheckSkipped('the target makes no sandbox merchants (designed; 404)');
      expectStatus(made, 200, OperationId.createSandboxMerchant);
      const box = bodyOf(made);
      const merchantId = String(box.merchantId);
      try {
        const token = await tokenFor(ctx, String(box.clientId), String(box.clientSecret));
        const auth = { authorization: `Bearer ${token}` };
        const op = ctx.spec.operation(OperationId.streamSandboxEvents);
        // A stream's headers come at once; a proxy that buffers whole responses never relays them.
        const open = (extra: Record<string, string> = {}): Promise<OpenStream> => openStream({ method: 'GET', url: `${ctx.baseUrl}${op.path}?types=payment.card.authorized`, headers: { accept: 'text/event-stream', ...auth, ...extra }, timeoutMs: 10_000 })
          .catch((error: unknown) => { throw new CheckFailure(`the event stream answers with its headers at once (none within 10 s: ${describeNetworkError(error, 10_000)})`); });
        const authorize = async (amount: number): Promise<string> => {
          const sent = await ctx.raw('POST', `${ctx.baseUrl}${ctx.spec.operation(OperationId.authorizeCard).path}`, { headers: auth, body: { amount, paymentProcessorId: String(box.cardProcessorId), card: testCard() } });
          expectStatus(sent, 200, OperationId.authorizeCard);
          return String(bodyOf(sent).transactionId);
        };
        const opened = await open();
        if (opened.status !== 200) throw new CheckSkipped(`the target serves no sandbox event stream (${String(opened.status)})`);
        const live = await started(opened);
        const collected = collect(live);
        const before = [await authorize(11), await authorize(12), await authorize(13)];
        // The events are streamed before the reset deletes them (an event deleted unread is never sent).
        await collected.until(3, 15_000);
        const reset = await ctx.raw('POST', `${ctx.baseUrl}${ctx.spec.operation(OperationId.resetSandbox).path}`, { headers: auth });
        expectStatus(reset, 200, OperationId.resetSandbox);
        const after = [await authorize(14), await authorize(15), await authorize(16)];
        const messages = await collected.until(6, 15_000);
        collected.close();
        const failures: Failures = [];
        const seen = transactionsOf(messages);
        if (JSON.stringify(seen) !== JSON.stringify([...before, ...after])) failures.push([`the open stream sends the 3 events made before a sandbox reset and the 3 made after it, in order (got ${String(seen.length)}: ${seen.map((id) => (before.includes(id) ? 'before' : after.includes(id) ? 'after' : 'other')).join(', ')})`, reset]);
        // Resumed from an event still there (the first after the reset): exactly what followed it, nothing again.
        const keptId = messages[3]?.id;
        if (keptId !== undefined) {
          const resumed = await open({ 'last-event-id': keptId });
          const again = resumed.status === 200 ? transactionsOf(await readMessages(await started(resumed), 2, 15_000)) : [];
          if (JSON.stringify(again) !== JSON.stringify(after.slice(1))) failures.push([`a stream resumed after an event sends exactly the events that followed it, once, in order (${String(after.length - 1)}; got ${String(again.length)}${again.includes(after[0] ?? '') ? ', the resumed event itself again' : ''})`, undefined]);
        }
        const deletedId = messages[2]?.id;
        if (deletedId !== undefined) {
          const resumed = await open({ 'last-event-id': deletedId });
          if (resumed.status !== 200) failures.push([`a stream resumed after an event the reset deleted answers 200 and goes on from its position (got ${String(resumed.status)})`, undefined]);
          else {
            const again = transactionsOf(await readMessages(await started(resumed), 3, 15_000));
            if (JSON.stringify(again) !== JSON.stringify(after)) failures.push([`resumed after the last event before the reset, the stream sends exactly the 3 made after it, once (got ${String(again.length)})`, undefined]);
          }
        }
        failWithAll(failures);
      } finally {
        await ctx.call(OperationId.deleteSandboxMerchant, { as: 'partner', path: { merchantId } });
      }
    },
  },
  {
    id: 'webhooks/retry_schedule',
    group: 'resources',
    title: "a delivery that keeps failing is retried on the spec's schedule (1 min, 5 min, 30 min, 2 h, 8 h, 24 h): nextRetryAt row by row, then Failed",
    tags: ['Webhooks', 'Sandbox', OperationId.listWebhookDeliveryLogs, OperationId.advanceSandboxClock],
    designed: true,
    run: async (ctx) => {
      const processor = (await paymentProcessors(ctx)).card;
      if (processor === '') throw new CheckSkipped('the merchant has no card processor');
      const receiver = new Receiver();
      await receiver.start(currentReceiverOptions());
      let webhookId: string | undefined;
      try {
        const path = `/failing/${ctx.unique('r')}`;
        receiver.answer(path, 500);
        const created = await ctx.call(OperationId.createWebhookEndpoint, { body: { name: ctx.unique('retry-hook'), endpointUrl: receiver.url(path), eventTypes: ['payment.card.authorized'] } });
        webhookId = createdId(created, 'a webhook endpoint that always fails');
        expectStatus(await ctx.call(OperationId.authorizeCard, { body: { amount: 11, paymentProcessorId: processor, card: testCard() } }), 200, OperationId.authorizeCard);
        const first = (await receiver.waitFor(path, 1, 20_000))[0];
        if (first === undefined) throw new CheckFailure('the endpoint gets the authorized event (within 20 s)');
        const eventId = String(first.headers['webhook-id']);
        const failures: Failures = [];
        for (const [row, delay] of RETRY_DELAYS.entries()) {
          const attempt = row + 2;
          const { log, entry } = await logEntry(ctx, webhookId, eventId, (e) => Number(e.attemptNumber) === attempt && e.lastAttemptAt !== null);
          if (entry === undefined || Number(entry.attemptNumber) !== attempt || entry.status !== 'Pending') {
            throw new CheckFailure(`after ${String(attempt - 1)} failed attempt(s) the delivery is Pending with attemptNumber ${String(attempt)} (got ${JSON.stringify(entry ?? null)})`, log);
          }
          const gap = (Date.parse(String(entry.nextRetryAt)) - Date.parse(String(entry.lastAttemptAt))) / 1000;
          // Exact to the second: one row off is minutes or hours off.
          if (!Number.isFinite(gap) || Math.abs(gap - delay) > 1) failures.push([`attempt ${String(attempt)} is due ${String(delay)} s after the failed attempt ${String(attempt - 1)} (nextRetryAt ${String(entry.nextRetryAt)} - lastAttemptAt ${String(entry.lastAttemptAt)} = ${String(gap)} s)`, log]);
          const advanced = await ctx.call(OperationId.advanceSandboxClock, { body: { seconds: delay + 1 } });
          if (advanced.response?.status === 404) throw new CheckSkipped('the target has no sandbox clock (designed): the schedule is not walked');
          expectStatus(advanced, 200, OperationId.advanceSandboxClock);
          const got = await receiver.waitFor(path, attempt, 20_000);
          if (got.length < attempt) throw new CheckFailure(`attempt ${String(attempt)} is made once ${String(delay)} s of the sandbox clock passed (the receiver got ${String(got.length)} attempts)`, advanced);
        }
        const { log, entry } = await logEntry(ctx, webhookId, eventId, (e) => e.status === 'Failed');
        if (entry?.status !== 'Failed' || entry.nextRetryAt !== null || Number(entry.attemptNumber) !== RETRY_DELAYS.length + 1) {
          failures.push([`after the 7th failed attempt the delivery is Failed, attemptNumber 7, nextRetryAt null (got ${JSON.stringify(entry ?? null)})`, log]);
        }
        failWithAll(failures);
      } finally {
        if (webhookId !== undefined) await ctx.call(OperationId.deleteWebhookEndpoint, { path: { webhookId } });
        await receiver.stop();
      }
    },
  },
  {
    id: 'tenancy/clock_isolation',
    group: 'tenancy',
    title: "advancing one merchant's sandbox clock moves that clock only: another merchant's stays where real time takes it",
    tags: ['Sandbox', OperationId.getSandboxClock, OperationId.advanceSandboxClock],
    designed: true,
    run: async (ctx) => {
      if (!ctx.identities.includes('B')) throw new CheckSkipped('a second merchant (B) is needed');
      const read = async (who: string): Promise<{ at: number; exchange: Exchange }> => {
        const exchange = await ctx.call(OperationId.getSandboxClock, { as: who });
        if (exchange.response?.status === 404) throw new CheckSkipped('the target has no sandbox clock (designed)');
        expectStatus(exchange, 200, `getSandboxClock as ${who}`);
        return { at: Date.parse(String(bodyOf(exchange).now)), exchange };
      };
      const seconds = 3600;
      const failures: Failures = [];
      // Both ways round: A's advance leaves B's clock, B's leaves A's.
      for (const [mover, other] of [['A', 'B'], ['B', 'A']] as const) {
        const started = Date.now();
        const before = await read(other);
        const moverBefore = await read(mover);
        const advanced = await ctx.call(OperationId.advanceSandboxClock, { as: mover, body: { seconds } });
        expectStatus(advanced, 200, `advanceSandboxClock as ${mover}`);
        const moverAfter = await read(mover);
        const after = await read(other);
        const real = Date.now() - started;
        if (moverAfter.at - moverBefore.at < seconds * 1000) failures.push([`${mover}'s clock moves ${String(seconds)} s forward when ${mover} advances it (moved ${String((moverAfter.at - moverBefore.at) / 1000)} s)`, moverAfter.exchange]);
        // The other clock may only have moved as real time did (plus a second for rounding).
        if (after.at - before.at > real + 1000) failures.push([`${other}'s clock stays when ${mover} advances its own: it moved ${String((after.at - before.at) / 1000)} s in ${String(real / 1000)} s of real time`, after.exchange]);
      }
      failWithAll(failures);
    },
  },
];
