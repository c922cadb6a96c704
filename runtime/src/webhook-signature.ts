// Standard Webhooks v1 signatures: sign a payload, verify a delivery, make a signing secret; and the check that a verified payload is an event of the contract.
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
export function signWebhook(secret: string, id: string, timestamp: number, payload: string | Uint8Array): string {
  return `v1,${mac(secret, id, timestamp, payload).toString('base64')}`;
}

// Over the payload's bytes as given: a body received as bytes is verified without decoding it first.
function mac(secret: string, id: string, timestamp: number, payload: string | Uint8Array): Buffer {
  return createHmac('sha256', secretKey(secret)).update(`${id}.${String(timestamp)}.`).update(payload).digest();
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
 * the tolerance, no `v1` signature matches (compared in constant time), or the signed body is not JSON.
 */
export function verifyWebhook(secret: string, headers: HeaderBag, body: string | Uint8Array, options: VerifyOptions = {}): unknown {
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
  // The signature covers the bytes as sent; a Buffer from express.raw() or a stream is taken as it is.
  const expected = mac(secret, id, timestamp, body);
  const matched = signatures.split(' ').some((entry) => {
    const [version, signature] = entry.split(',', 2);
    if (version !== 'v1' || signature === undefined) return false;
    const given = Buffer.from(signature, 'base64');
    return given.length === expected.length && timingSafeEqual(given, expected);
  });
  if (!matched) throw new WebhookVerificationError('no matching signature found');
  const text = typeof body === 'string' ? body : new TextDecoder().decode(body);
  if (text === '') return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw new WebhookVerificationError('the payload is not JSON');
  }
}

export type JsonType = 'object' | 'array' | 'string' | 'number' | 'integer' | 'boolean' | 'null';
type Scalar = string | number | boolean | null;

/**
 * What an event body must look like, read from its schema by the generator: the JSON types a value may have, a
 * constant or allowed values, the required properties and the shapes of the properties it has (to a few levels).
 * It needs no validator at run time, so the typed client keeps openapi-fetch as its only dependency.
 */
export interface EventShape {
  readonly types?: readonly JsonType[];
  readonly const?: Scalar;
  readonly enum?: readonly Scalar[];
  readonly required?: readonly string[];
  readonly properties?: Readonly<Record<string, EventShape>>;
  readonly items?: EventShape;
}

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

function typeMatches(value: unknown, type: JsonType): boolean {
  switch (type) {
    case 'object': return isObject(value);
    case 'array': return Array.isArray(value);
    case 'null': return value === null;
    case 'integer': return typeof value === 'number' && Number.isInteger(value);
    case 'number': return typeof value === 'number' && Number.isFinite(value);
    default: return typeof value === type;
  }
}

/** The first way value departs from shape, as `at: problem`; undefined when it fits. */
export function shapeProblem(value: unknown, shape: EventShape, at = '(body)'): string | undefined {
  if (shape.types !== undefined && !shape.types.some((type) => typeMatches(value, type))) return `${at}: must be ${shape.types.join(' or ')}`;
  if (shape.const !== undefined && value !== shape.const) return `${at}: must be ${JSON.stringify(shape.const)}`;
  if (shape.enum !== undefined && !shape.enum.some((allowed) => allowed === value)) return `${at}: must be one of ${shape.enum.map((v) => JSON.stringify(v)).join(', ')}`;
  if (Array.isArray(value) && shape.items !== undefined) {
    for (const [i, item] of value.entries()) {
      const problem = shapeProblem(item, shape.items, `${at}[${String(i)}]`);
      if (problem !== undefined) return problem;
    }
  }
  if (!isObject(value)) return undefined;
  for (const name of shape.required ?? []) if (!(name in value)) return `${at}: the property ${name} is required`;
  for (const [name, inner] of Object.entries(shape.properties ?? {})) {
    if (!(name in value)) continue;
    const problem = shapeProblem(value[name], inner, at === '(body)' ? name : `${at}.${name}`);
    if (problem !== undefined) return problem;
  }
  return undefined;
}

/**
 * The payload as one of the contract's events, or a WebhookVerificationError saying why it is none: judged
 * against the event its `type` names when a shape fixes `type` to that name, else against every event.
 */
export function contractEvent(payload: unknown, shapes: Readonly<Record<string, EventShape>>): unknown {
  const named = isObject(payload) && typeof payload.type === 'string'
    ? Object.entries(shapes).filter(([, shape]) => shape.properties?.type?.const === payload.type)
    : [];
  const candidates = named.length > 0 ? named : Object.entries(shapes);
  const problems: string[] = [];
  for (const [name, shape] of candidates) {
    const problem = shapeProblem(payload, shape);
    if (problem === undefined) return payload;
    problems.push(`${name}: ${problem}`);
  }
  const typeName = isObject(payload) && typeof payload.type === 'string' ? ` (type ${JSON.stringify(payload.type)})` : '';
  const why = named.length > 0 ? problems[0] : candidates.length === 0 ? 'the contract declares no events' : `it matches none of the ${String(candidates.length)} event types`;
  throw new WebhookVerificationError(`the payload is not an event of the contract${typeName}: ${why ?? 'no event matches'}`);
}
