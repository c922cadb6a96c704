// Structured JSON logs (pino). Secrets never reach a log line: credentials, tokens and card data are
// redacted by key wherever they appear, and request bodies are never logged.
import pino, { type Logger as PinoLogger } from 'pino';

export type Logger = PinoLogger;

/** Keys whose values are never written, at any depth the redaction reaches. */
export const SECRET_KEYS = [
  'authorization', 'client_secret', 'clientSecret', 'password', 'refresh_token', 'access_token', 'token',
  'pan', 'securityCode', 'accountNumber', 'signingSecret', 'secret',
];

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
