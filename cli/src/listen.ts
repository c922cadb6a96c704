// `pgw listen`: follows the merchant's sandbox event stream (or, with --partner, the stream of every merchant of
// the partner: a sandbox merchant's merchant.created arrives there) and forwards each event to a local URL, signed
// with Standard Webhooks headers and the local secret, one line per event. Nothing is registered on the
// server, so stopping (Ctrl-C) leaves nothing behind.
import { Webhook } from 'standardwebhooks';
import { ok, type Session } from './api.ts';
import { listenSecret, secretPath } from './config.ts';
import { UsageError } from './errors.ts';
import { follow, type StreamMessage } from './stream.ts';

export interface ListenOptions {
  forwardTo: string;
  events: string | undefined;
  /** Resume after this event id instead of from now. */
  after: string | undefined;
  /** The session holds a partner's key: follow all its merchants (no x-merchant-id). */
  partner?: boolean;
}

/** As the server's webhook deliveries: a receiver gets 15 seconds. */
const FORWARD_TIMEOUT_MS = 15_000;

export function forwardUrl(text: string): string {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new UsageError(`--forward-to "${text}" is not a URL (e.g. http://127.0.0.1:8080/hooks)`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new UsageError(`--forward-to must be an http or https URL, not ${url.protocol}`);
  return url.href;
}

interface Forwarded { status: string; durationMs: number }

async function forward(url: string, hook: Webhook, message: StreamMessage): Promise<Forwarded> {
  const started = performance.now();
  const elapsed = (): number => Math.round(performance.now() - started);
  const now = new Date();
  try {
    const res = await fetch(url, {
      method: 'POST',
      redirect: 'manual',
      signal: AbortSignal.timeout(FORWARD_TIMEOUT_MS),
      headers: {
        'content-type': 'application/json',
        'user-agent': 'pgw-listen/1',
        // webhook-id is the event id, as in the server's deliveries: a receiver drops repeats by it.
        'webhook-id': message.id,
        'webhook-timestamp': String(Math.floor(now.getTime() / 1000)),
        'webhook-signature': hook.sign(message.id, now, message.data),
      },
      body: message.data,
    });
    await res.arrayBuffer().catch(() => undefined);
    return { status: String(res.status), durationMs: elapsed() };
  } catch (error) {
    const cause = (error as { cause?: { code?: string } }).cause?.code;
    const name = (error as { name?: string }).name;
    return { status: name === 'TimeoutError' ? 'timeout' : cause === 'ECONNREFUSED' ? 'refused' : `failed (${cause ?? (error instanceof Error ? error.message : String(error))})`, durationMs: elapsed() };
  }
}

const line = (message: StreamMessage, result: Forwarded): string =>
  `${new Date().toISOString().replace(/\.\d{3}Z$/, 'Z')}  ${message.type.padEnd(27)} ${message.id}  ${result.status.padStart(3)}  ${String(result.durationMs)} ms`;

/** Runs until SIGINT/SIGTERM (or `stop` aborts): then closes the stream, waits for forwards in flight, returns. */
export async function listen(session: Session, options: ListenOptions, out: (text: string) => void, stop: AbortSignal): Promise<void> {
  const url = forwardUrl(options.forwardTo);
  const file = secretPath(session.config);
  const { secret, created } = listenSecret(file);
  // Who and where: also checks the credentials and that the server serves the sandbox before streaming (a
  // partner's key reads its sandbox merchants: the clock is a merchant's).
  const whose = options.partner === true
    ? (await ok(session.config, "listing the partner's sandbox merchants", () => session.api.GET('/sandbox/v1/merchants', { params: { query: { pageSize: 1 } } })),
      'every merchant of the partner (the sandbox merchants it creates included)')
    : `merchant ${(await ok(session.config, 'reading the sandbox clock', () => session.api.GET('/sandbox/v1/clock'))).merchantId}`;
  if (created) {
    out(`> Your local signing secret is ${secret}`);
    out(`>   (shown this once; kept in ${file}, mode 0600; verify forwarded events with it)`);
  } else {
    out(`> Signing with the local secret kept in ${file}`);
  }
  const hook = new Webhook(secret);
  // Forwards run one after another, in the stream's order (a receiver sees scheduled before cleared).
  let queue = Promise.resolve();
  let forwarded = 0;
  const ready = { said: false };
  await follow(session, {
    types: options.events,
    after: options.after,
    signal: stop,
    onNotice: (text) => { out(`> ${text}`); },
    onMessage: (message) => {
      queue = queue.then(async () => {
        out(line(message, await forward(url, hook, message)));
        forwarded++;
      });
    },
    onConnected: () => {
      if (ready.said) return;
      ready.said = true;
      out(`> Ready: events of ${whose} (${options.events ?? 'every type'}) from ${session.config.baseUrl} to ${url}. Ctrl-C to stop.`);
    },
  });
  await queue;
  out(`> Stopped: ${String(forwarded)} event${forwarded === 1 ? '' : 's'} forwarded; nothing was registered on the server.`);
}
