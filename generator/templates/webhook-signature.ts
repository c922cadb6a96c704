// Standard Webhooks v1 signatures: sign a payload, verify a delivery, make a signing secret.
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

const PREFIX = 'whsec_';
/** How far a webhook-timestamp may be from the receiver's clock, in seconds (Standard Webhooks). */
export const DEFAULT_TOLERANCE_SECONDS = 300;

export class WebhookVerificationError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'WebhookVerificationError';
  }
}

/** The HMAC key of a secret: the base64 after `whsec_` (the prefix is optional), decoded. */
export function secretKey(secret: string): Buffer {
  const encoded = secret.startsWith(PREFIX) ? secret.slice(PREFIX.length) : secret;
  const key = Buffer.from(encoded, 'base64');
  if (encoded.length === 0 || key.length === 0) throw new Error('a webhook signing secret must not be empty');
  return key;
}

/** A new signing secret: `whsec_` and the base64 of 32 random bytes. */
export function generateWebhookSecret(): string {
  return PREFIX + randomBytes(32).toString('base64');
}

/** The `webhook-signature` value for one delivery attempt: `v1,<base64 HMAC-SHA256>`. */
export function signWebhook(secret: string, id: string, timestamp: number, payload: string): string {
  const mac = createHmac('sha256', secretKey(secret)).update(`${id}.${String(timestamp)}.${payload}`).digest('base64');
  return `v1,${mac}`;
}

/** The three headers of a delivery attempt. */
export function webhookHeaders(secret: string, id: string, timestamp: number, payload: string): Record<string, string> {
  return {
    'webhook-id': id,
    'webhook-timestamp': String(timestamp),
    'webhook-signature': signWebhook(secret, id, timestamp, payload),
  };
}

type HeaderBag = Record<string, string | string[] | undefined> | Headers;

function header(headers: HeaderBag, name: string): string | undefined {
  if (headers instanceof Headers) return headers.get(name) ?? undefined;
  const key = Object.keys(headers).find((k) => k.toLowerCase() === name);
  const value = key === undefined ? undefined : headers[key];
  return Array.isArray(value) ? value[0] : value;
}

export interface VerifyOptions {
  toleranceSeconds?: number;
  /** The receiver's clock, in seconds since the epoch. */
  nowSeconds?: number;
}

/**
 * Verifies a delivery against the raw body (as received, before any JSON parsing) and returns the
 * parsed payload (undefined for an empty body). Throws WebhookVerificationError when a header is missing, the timestamp is outside
 * the tolerance, or no `v1` signature matches (compared in constant time).
 */
export function verifyWebhook(secret: string, headers: HeaderBag, payload: string, options: VerifyOptions = {}): unknown {
  const id = header(headers, 'webhook-id');
  const timestampText = header(headers, 'webhook-timestamp');
  const signatures = header(headers, 'webhook-signature');
  if (!id || !timestampText || !signatures) throw new WebhookVerificationError('missing webhook headers');
  if (!/^\d+$/.test(timestampText)) throw new WebhookVerificationError('invalid webhook-timestamp');
  const timestamp = Number(timestampText);
  const now = options.nowSeconds ?? Math.floor(Date.now() / 1000);
  const tolerance = options.toleranceSeconds ?? DEFAULT_TOLERANCE_SECONDS;
  if (now - timestamp > tolerance) throw new WebhookVerificationError('message timestamp too old');
  if (timestamp - now > tolerance) throw new WebhookVerificationError('message timestamp too new');
  const expected = Buffer.from(signWebhook(secret, id, timestamp, payload).slice(3), 'base64');
  const matched = signatures.split(' ').some((entry) => {
    const [version, signature] = entry.split(',', 2);
    if (version !== 'v1' || signature === undefined) return false;
    const given = Buffer.from(signature, 'base64');
    return given.length === expected.length && timingSafeEqual(given, expected);
  });
  if (!matched) throw new WebhookVerificationError('no matching signature found');
  return payload === '' ? undefined : (JSON.parse(payload) as unknown);
}
