// The idempotency record's request fingerprint is keyed: without the server's key nobody can test guesses
// of a card number or security code against it.
import { createHash, randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { requestHash } from './idempotency.ts';

const input = {
  path: { customerId: '3b2c1d4e-5f60-4a7b-8c9d-0e1f2a3b4c5d' },
  query: {},
  headers: {},
  body: { pan: '4111111111111111', securityCode: '737', expirationMonth: 12, expirationYear: 2030 },
};

describe('the request fingerprint', () => {
  it('is an HMAC under the server key: stable for one key, different under another, not a plain hash', () => {
    const key = randomBytes(32);
    const hash = requestHash(key, 'addCardPaymentMethod', input, 'm1');
    expect(requestHash(key, 'addCardPaymentMethod', input, 'm1')).toBe(hash);
    expect(requestHash(randomBytes(32), 'addCardPaymentMethod', input, 'm1')).not.toBe(hash);
    const plain = createHash('sha256')
      .update(JSON.stringify({ operationId: 'addCardPaymentMethod', acting: 'm1', path: input.path, query: input.query, body: input.body }))
      .digest('hex');
    expect(hash).not.toBe(plain);
  });

  it('tells requests apart by operation, merchant and body', () => {
    const key = randomBytes(32);
    const base = requestHash(key, 'addCardPaymentMethod', input, 'm1');
    expect(requestHash(key, 'addAchPaymentMethod', input, 'm1')).not.toBe(base);
    expect(requestHash(key, 'addCardPaymentMethod', input, 'm2')).not.toBe(base);
    expect(requestHash(key, 'addCardPaymentMethod', { ...input, body: { ...input.body, securityCode: '738' } }, 'm1')).not.toBe(base);
  });
});
