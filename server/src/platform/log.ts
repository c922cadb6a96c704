// Structured logs (pino): JSON lines, or readable lines in a terminal (pino-pretty). Secrets never reach a
// log line: credentials, tokens and card data are redacted by key wherever they appear (before either format
// is written), and request bodies are never logged.
import pino, { type Logger as PinoLogger } from 'pino';
import pretty from 'pino-pretty';

export type Logger = PinoLogger;

/** Keys whose values are never written, at any depth the redaction reaches. */
export const SECRET_KEYS = [
  'authorization', 'client_secret', 'clientSecret', 'password', 'refresh_token', 'access_token', 'token',
  'pan', 'securityCode', 'accountNumber', 'signingSecret', 'secret',
];

/** A readable destination: time, level and message on one line, the fields after it. */
export function prettyDestination(destination?: NodeJS.WritableStream): pino.DestinationStream {
  return pretty({
    colorize: destination === undefined && process.stdout.isTTY,
    translateTime: 'SYS:HH:MM:ss.l',
    ignore: 'pid,hostname,service',
    singleLine: true,
    sync: true,
    ...(destination === undefined ? {} : { destination }),
  });
}

/** How long a JSON log line may wait in the buffer before it is written. */
const FLUSH_MS = 100;

/**
 * Standard output for JSON lines, written in batches: a line a request written one system call at a time
 * cost more than the request's own work under load. Lines wait at most FLUSH_MS; pino writes what is left
 * when the process exits.
 */
function bufferedStdout(): pino.DestinationStream {
  const destination = pino.destination({ dest: 1, sync: false, minLength: 8192 });
  setInterval(() => { destination.flush(); }, FLUSH_MS).unref();
  return destination;
}

export function createLogger(level: string, destination: pino.DestinationStream = bufferedStdout()): Logger {
  const paths = SECRET_KEYS.flatMap((key) => [key, `*.${key}`, `*.*.${key}`]);
  return pino(
    {
      level,
      base: { service: 'payment-gateway' },
      timestamp: pino.stdTimeFunctions.isoTime,
      redact: { paths, censor: '[redacted]' },
    },
    destination,
  );
}

/**
 * A new logger of the access line (method, path, status, duration, correlation id: fields that never hold a
 * secret, and neither a body nor a query string), written to the same destination at the same level without
 * the redaction pass, which cost 3-5% of a request. Anything else goes through the redacting logger. Made
 * once, by the app at start.
 */
export function accessLogger(log: Logger): Logger {
  const destination = (log as unknown as Record<symbol, unknown>)[pino.symbols.streamSym] as pino.DestinationStream;
  // The log's bindings (the service, and the instance of several) name the access lines too.
  return pino({ level: log.level, base: { service: 'payment-gateway', ...log.bindings() }, timestamp: pino.stdTimeFunctions.isoTime }, destination);
}
