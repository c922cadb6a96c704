// The generated Standard Webhooks helpers agree with the third-party `standardwebhooks` package and with the
// public test vectors in fixtures/standard-webhooks-vectors.json (copied from the workplace's shared/data; the
// upstream vectors come from the standard-webhooks/standard-webhooks repository's library tests, as the file says).
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Webhook } from 'standardwebhooks';
import { describe, expect, it } from 'vitest';
import {
  WebhookVerificationError,
  generateWebhookSecret,
  signWebhook,
  verifyWebhook,
  verifyWebhookEvent,
  webhookEvents,
  webhookHeaders,
  type PaymentAchChargedBackEvent,
  type WebhookEvent,
} from '@pgw/client/webhooks';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const vectorsFile = path.resolve(root, 'generator', 'test', 'fixtures', 'standard-webhooks-vectors.json');

interface Vector { name: string; secret: string; msg_id: string; timestamp: number; payload: string; expected_signature: string }
const vectors = JSON.parse(readFileSync(vectorsFile, 'utf8')) as {
  upstream: Vector[];
  derived: Vector[];
  upstream_negative_cases: { case: string; header?: string }[];
  derived_rotation: { secrets: string[]; msg_id: string; timestamp: number; payload: string; webhook_signature_header: string };
};

describe('signing against the Standard Webhooks vectors', () => {
  it.each([...vectors.upstream, ...vectors.derived].map((v) => [v.name, v] as const))('%s', (_name, v) => {
    expect(signWebhook(v.secret, v.msg_id, v.timestamp, v.payload)).toBe(v.expected_signature);
    const headers = { 'webhook-id': v.msg_id, 'webhook-timestamp': String(v.timestamp), 'webhook-signature': v.expected_signature };
    expect(() => verifyWebhook(v.secret, headers, v.payload, { nowSeconds: v.timestamp })).not.toThrow();
  });

  const valid = vectors.upstream[0];
  if (!valid) throw new Error('no upstream vector');
  const at = { nowSeconds: valid.timestamp };
  const headers = (signature: string, timestamp = String(valid.timestamp)): Record<string, string> => ({
    'webhook-id': valid.msg_id, 'webhook-timestamp': timestamp, 'webhook-signature': signature,
  });

  it.each(vectors.upstream_negative_cases.filter((c) => c.header !== undefined).map((c) => [c.case, c.header ?? ''] as const))(
    'rejects: %s',
    (_case, header) => {
      const secret = _case.includes('rust vector') ? 'whsec_C2FVsBQIhrscChlQIMV+b5sSYspob7oD' : valid.secret;
      expect(() => verifyWebhook(secret, headers(header), valid.payload, at)).toThrow(WebhookVerificationError);
    },
  );

  it('accepts a valid signature among decoys', () => {
    const decoy = 'v1,Ceo5qEr07ixe2NLpvHk3FH9bwy/WavXrAFQ/9tdO6mc=';
    const header = `${decoy} v2,Ceo5qEr07ixe2NLpvHk3FH9bwy/WavXrAFQ/9tdO6mc= ${valid.expected_signature} ${decoy}`;
    expect(() => verifyWebhook(valid.secret, headers(header), valid.payload, at)).not.toThrow();
  });

  it.each(['hello', '161426533.0', '-161426533', ''])('rejects the timestamp %j', (timestamp) => {
    expect(() => verifyWebhook(valid.secret, headers(valid.expected_signature, timestamp), valid.payload, at)).toThrow(WebhookVerificationError);
  });

  it('rejects a timestamp more than 300 s from the clock either way', () => {
    const signature = signWebhook(valid.secret, valid.msg_id, valid.timestamp, valid.payload);
    expect(() => verifyWebhook(valid.secret, headers(signature), valid.payload, { nowSeconds: valid.timestamp + 301 })).toThrow(/too old/);
    expect(() => verifyWebhook(valid.secret, headers(signature), valid.payload, { nowSeconds: valid.timestamp - 301 })).toThrow(/too new/);
    expect(() => verifyWebhook(valid.secret, headers(signature), valid.payload, { nowSeconds: valid.timestamp + 300 })).not.toThrow();
  });

  it.each(['webhook-id', 'webhook-timestamp', 'webhook-signature'])('rejects a delivery without %s', (name) => {
    const partial = Object.fromEntries(Object.entries(headers(valid.expected_signature)).filter(([key]) => key !== name));
    expect(() => verifyWebhook(valid.secret, partial, valid.payload, at)).toThrow(/missing/);
  });

  it('accepts either secret of a key rotation', () => {
    const r = vectors.derived_rotation;
    for (const secret of r.secrets) {
      const h = { 'webhook-id': r.msg_id, 'webhook-timestamp': String(r.timestamp), 'webhook-signature': r.webhook_signature_header };
      expect(() => verifyWebhook(secret, h, r.payload, { nowSeconds: r.timestamp })).not.toThrow();
    }
  });

  it('refuses an empty secret', () => {
    expect(() => signWebhook('', 'id', 1, '{}')).toThrow();
    expect(() => signWebhook('whsec_', 'id', 1, '{}')).toThrow();
  });
});

describe('interoperability with the standardwebhooks package', () => {
  const secret = generateWebhookSecret();
  // The example event the spec gives for a charge-back.
  const spec = JSON.parse(readFileSync(path.join(root, 'generated', 'src', 'openapi.json'), 'utf8')) as {
    webhooks: Record<string, { post: { requestBody: { content: Record<string, { example: unknown }> } } }>;
  };
  const event = spec.webhooks['payment.ach.charged_back']?.post.requestBody.content['application/json']?.example as PaymentAchChargedBackEvent;
  const body = JSON.stringify(event);
  const now = Math.floor(Date.now() / 1000);

  it('makes secrets in the whsec_ form with 32 random bytes', () => {
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(Buffer.from(secret.slice(6), 'base64')).toHaveLength(32);
    expect(generateWebhookSecret()).not.toBe(secret);
  });

  it('signs what the package verifies', () => {
    const headers = webhookHeaders(secret, event.id, now, body);
    expect(new Webhook(secret).verify(body, headers)).toEqual(event);
  });

  it('verifies what the package signs', () => {
    const signature = new Webhook(secret).sign(event.id, new Date(now * 1000), body);
    const headers = { 'webhook-id': event.id, 'webhook-timestamp': String(now), 'webhook-signature': signature };
    const verified: WebhookEvent = verifyWebhookEvent(secret, headers, body);
    expect(verified.type).toBe('payment.ach.charged_back');
  });

  it('and the package rejects a body changed after signing', () => {
    const headers = webhookHeaders(secret, event.id, now, body);
    expect(() => new Webhook(secret).verify(body.replace('}', ' }'), headers)).toThrow();
  });

  it('lists every event type of the spec with its id and category', () => {
    expect(webhookEvents).toHaveLength(29);
    expect(webhookEvents.find((e) => e.name === 'payment.ach.charged_back')).toMatchObject({ id: 15, category: 'ACH Payments' });
  });
});
