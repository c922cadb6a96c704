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

export function createLogger(level: string, destination?: pino.DestinationStream): Logger {
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
