// Follows the sandbox event stream (server-sent events): parses messages, reconnects after a drop with
// Last-Event-ID (so nothing is lost), and treats a silent connection (no heartbeat) as dropped.
import { setTimeout as sleep } from 'node:timers/promises';
import { describeError, guard, type Session } from './api.ts';
import { ApiError, UnreachableError } from './errors.ts';

export interface StreamMessage { id: string; type: string; data: string }

export interface FollowOptions {
  types: string | undefined;
  signal: AbortSignal;
  onMessage: (message: StreamMessage) => void;
  onNotice: (text: string) => void;
  /** Each successful connection (the first says the listener is ready). */
  onConnected?: () => void;
  /** Resume after this event (Last-Event-ID) instead of from now. */
  after?: string | undefined;
  /** No byte for this long (the server sends a heartbeat every 15 s): the connection is taken as dead. */
  silenceMs?: number;
}

/**
 * Splits SSE text into messages (blank-line separated); returns the unfinished rest. An `id:` without data
 * (the stream's starting point) goes to onId only.
 */
export function parseEvents(buffer: string, onMessage: (m: StreamMessage) => void, onId: (id: string) => void = () => undefined): string {
  const blocks = buffer.replace(/\r\n?/g, '\n').split('\n\n');
  const rest = blocks.pop() ?? '';
  for (const block of blocks) {
    let id: string | undefined;
    let type = 'message';
    const data: string[] = [];
    for (const line of block.split('\n')) {
      if (line === '' || line.startsWith(':')) continue;
      const colon = line.indexOf(':');
      const field = colon < 0 ? line : line.slice(0, colon);
      const value = colon < 0 ? '' : line.slice(colon + 1).replace(/^ /, '');
      if (field === 'id') id = value;
      else if (field === 'event') type = value;
      else if (field === 'data') data.push(value);
    }
    if (id !== undefined && data.length > 0) onMessage({ id, type, data: data.join('\n') });
    else if (id !== undefined) onId(id);
  }
  return rest;
}

/** Reads one connection until it ends, is silent too long, or the signal aborts. */
async function readConnection(body: ReadableStream<Uint8Array>, silenceMs: number, connection: AbortController, onMessage: (m: StreamMessage) => void, onId: (id: string) => void): Promise<'ended' | 'silent'> {
  const reader = body.pipeThrough(new TextDecoderStream()).getReader();
  // Cancelling the reader closes the connection whatever the request's signal does.
  const cancel = (): void => { void reader.cancel().catch(() => undefined); };
  connection.signal.addEventListener('abort', cancel, { once: true });
  // An object: the timer's callback sets it while this function awaits.
  const state = { silent: false };
  const silence = (): void => { state.silent = true; connection.abort(); };
  let timer = setTimeout(silence, silenceMs);
  let buffer = '';
  try {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) return state.silent ? 'silent' : 'ended';
      clearTimeout(timer);
      timer = setTimeout(silence, silenceMs);
      buffer = parseEvents(buffer + value, onMessage, onId);
    }
  } catch (error) {
    if (state.silent) return 'silent';
    throw error;
  } finally {
    clearTimeout(timer);
    connection.signal.removeEventListener('abort', cancel);
  }
}

/**
 * Follows the stream until the signal aborts. The first connection must succeed (a refusal or an unreachable
 * server is thrown); later drops are retried with back-off, resuming after the last event received.
 */
export async function follow(session: Session, options: FollowOptions): Promise<void> {
  let lastId = options.after;
  let connected = false;
  // A function, not the property: the signal aborts while this function awaits.
  const stopped = (): boolean => options.signal.aborted;
  let delay = 250;
  while (!stopped()) {
    // One controller a connection, aborted by the caller's signal through a listener: a signal from
    // AbortSignal.any() that only the request refers to may be garbage-collected, and its abort lost.
    const connection = new AbortController();
    const signal = connection.signal;
    const stopConnection = (): void => { connection.abort(); };
    options.signal.addEventListener('abort', stopConnection, { once: true });
    try {
      const { response, error } = await guard(session.config, () => session.api.GET('/sandbox/v1/events/stream', {
        params: { query: options.types === undefined ? {} : { types: options.types }, header: lastId === undefined ? {} : { 'Last-Event-ID': lastId } },
        parseAs: 'stream', signal, headers: { accept: 'text/event-stream' },
      }));
      if (!response.ok || !response.body) {
        const body: unknown = error ?? (await response.text().catch(() => ''));
        const refusal = new ApiError(`the event stream was refused: ${String(response.status)} ${describeError(body)}`.trim(), response.status, body);
        // A 4xx will not change by retrying (a bad filter, a production server's 404); a 5xx may.
        if (!connected || response.status < 500) throw refusal;
        options.onNotice(`${refusal.message}; retrying`);
      } else {
        if (connected) options.onNotice(`reconnected${lastId === undefined ? '' : ` (resuming after ${lastId})`}`);
        connected = true;
        delay = 250;
        options.onConnected?.();
        const how = await readConnection(response.body, options.silenceMs ?? 45_000, connection, (m) => { lastId = m.id; options.onMessage(m); }, (id) => { lastId = id; });
        if (stopped()) return;
        options.onNotice(how === 'silent' ? 'the stream went silent; reconnecting' : 'the server closed the stream; reconnecting');
      }
    } catch (error) {
      if (stopped()) return;
      if (!connected || !(error instanceof UnreachableError || error instanceof TypeError)) throw error;
      options.onNotice(`lost the stream (${error instanceof Error ? error.message : String(error)}); reconnecting`);
    } finally {
      options.signal.removeEventListener('abort', stopConnection);
      connection.abort();
    }
    try {
      await sleep(delay, undefined, { signal: options.signal });
    } catch {
      return;
    }
    delay = Math.min(delay * 2, 5000);
  }
}
