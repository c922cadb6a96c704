// Form tokens of the public pages: a hidden field, made per render, that binds a form to one subject (the
// invoice and the form's kind) until a wall-clock expiry, signed with an HMAC under the server's key. A
// customer has no bearer token; this one proves the POST comes from a page the server rendered, and its
// nonce is the form's idempotency key (a double submit acts once).
import { createHmac, hkdfSync, randomBytes, timingSafeEqual } from 'node:crypto';
import type { Clock } from './time.ts';

/** How long a rendered form may be submitted: long enough to find a card, short enough to go stale. */
export const FORM_TOKEN_TTL_MS = 30 * 60 * 1000;

export type FormTokenProblem = 'missing' | 'forged' | 'expired';

export class FormTokens {
  private readonly key: Buffer;

  /** `serverKey`: the server's keyed-hash key; this purpose gets a key of its own derived from it. */
  constructor(serverKey: Buffer, private readonly wall: Clock, private readonly ttlMs = FORM_TOKEN_TTL_MS) {
    this.key = Buffer.from(hkdfSync('sha256', serverKey, Buffer.alloc(0), 'payment-gateway form token', 32));
  }

  private mac(subject: string, nonce: string, expires: number): string {
    return createHmac('sha256', this.key).update(`v1|${subject}|${nonce}|${String(expires)}`).digest('base64url');
  }

  /** A new token for `subject` (e.g. `invoice:<id>:card`). */
  issue(subject: string): string {
    const nonce = randomBytes(16).toString('base64url');
    const expires = this.wall.now().getTime() + this.ttlMs;
    return `${nonce}.${String(expires)}.${this.mac(subject, nonce, expires)}`;
  }

  /** The token's nonce when it was issued for `subject` and has not expired; else what is wrong with it. */
  verify(token: unknown, subject: string): { nonce: string } | { problem: FormTokenProblem } {
    if (typeof token !== 'string' || token === '') return { problem: 'missing' };
    const match = /^([A-Za-z0-9_-]{22})\.(\d{1,16})\.([A-Za-z0-9_-]{43})$/.exec(token);
    if (!match?.[1] || !match[2] || !match[3]) return { problem: 'forged' };
    const [nonce, expires, mac] = [match[1], Number(match[2]), match[3]];
    const wanted = Buffer.from(this.mac(subject, nonce, expires));
    const given = Buffer.from(mac);
    if (given.length !== wanted.length || !timingSafeEqual(given, wanted)) return { problem: 'forged' };
    // Checked after the signature, so an expiry date cannot be probed with a made-up token.
    if (this.wall.now().getTime() > expires) return { problem: 'expired' };
    return { nonce };
  }
}
