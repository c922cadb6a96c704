// verifyWebhookEvent (the client's webhook helper) on every event of the contract: each event's documented
// example, signed, comes back as the event; each class of bad delivery is refused with WebhookVerificationError:
// a bad or missing signature, a stale or future timestamp, a body that is not JSON, and a signed body that is not
// an event of the contract (an unknown type, a required field missing, a field of the wrong JSON type, a constant
// broken), whichever event it claims to be.
import { describe, expect, it } from 'vitest';
import { apiSpec } from '@pgw/client/server';
import { WebhookVerificationError, verifyWebhookEvent, webhookEventShapes, webhookEvents, webhookHeaders } from '@pgw/client';
import { shapeProblem, type EventShape } from '@pgw/runtime/webhooks';

const SECRET = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';
const now = Math.floor(Date.now() / 1000);
type Json = Record<string, unknown>;

/** Each event's documented example: the `examples` of the schema its delivery body names. */
function example(name: string): Json {
  const hooks = apiSpec.webhooks as Record<string, { post: { requestBody: { content: Record<string, { schema: { $ref: string } }> } } }>;
  const ref = hooks[name]?.post.requestBody.content['application/json']?.schema.$ref ?? '';
  const schemas = (apiSpec.components as { schemas: Record<string, { examples?: Json[] }> }).schemas;
  const found = schemas[ref.split('/').pop() ?? '']?.examples?.[0];
  if (!found) throw new Error(`${name}: no example`);
  return found;
}

const signed = (body: string, id = 'msg_1', at = now): [Record<string, string>, string] => [webhookHeaders(SECRET, id, at, body), body];
const refusal = (headers: Record<string, string>, body: string | Uint8Array): string => {
  try {
    verifyWebhookEvent(SECRET, headers, body, { nowSeconds: now });
    return 'accepted';
  } catch (error) {
    if (error instanceof WebhookVerificationError) return error.message;
    throw error;
  }
};

/** Ways to make an event body not one of the contract's, from its shape: each required field dropped or given the wrong JSON type, each constant changed. */
function breakages(event: Json, shape: EventShape, at: string[] = []): { what: string; body: Json }[] {
  const out: { what: string; body: Json }[] = [];
  const edit = (change: (target: Json) => void, what: string): void => {
    const body = structuredClone(event);
    let target: Json = body;
    for (const key of at) target = target[key] as Json;
    change(target);
    out.push({ what, body });
  };
  const value = at.reduce<unknown>((acc, key) => (acc as Json)[key], event) as Json;
  for (const name of shape.required ?? []) if (name in value) edit((t) => { Reflect.deleteProperty(t, name); }, `${[...at, name].join('.')} removed`);
  for (const [name, inner] of Object.entries(shape.properties ?? {})) {
    if (!(name in value)) continue;
    if (inner.types && !inner.types.includes('array') && !inner.types.includes('object')) edit((t) => { t[name] = [t[name]]; }, `${[...at, name].join('.')} as an array`);
    if (inner.types && !inner.types.includes('string') && !inner.types.includes('null')) edit((t) => { t[name] = 'text'; }, `${[...at, name].join('.')} as a string`);
    if (inner.const !== undefined && name !== 'type') edit((t) => { t[name] = `${String(t[name])}-other`; }, `${[...at, name].join('.')} another constant`);
    if (inner.properties && typeof value[name] === 'object' && value[name] !== null && at.length < 1) out.push(...breakages(event, inner, [...at, name]));
  }
  return out;
}

describe('verifyWebhookEvent', () => {
  it('knows every event of the contract', () => {
    expect(Object.keys(webhookEventShapes).sort()).toEqual(webhookEvents.map((e) => e.name).sort());
    expect(webhookEvents).toHaveLength(29);
  });

  describe.each(webhookEvents.map((e) => e.name))('%s', (name) => {
    const event = example(name);
    const shape = webhookEventShapes[name] ?? {};

    it('returns its documented example, signed, as the event (from a string or from the bytes received)', () => {
      const [headers, body] = signed(JSON.stringify(event));
      expect(verifyWebhookEvent(SECRET, headers, body, { nowSeconds: now })).toEqual(event);
      expect(verifyWebhookEvent(SECRET, new Headers(headers), Buffer.from(body), { nowSeconds: now })).toEqual(event);
      expect(shapeProblem(event, shape)).toBeUndefined();
    });

    it('refuses it when a required field is missing, a field has the wrong type or a constant is broken', () => {
      const broken = breakages(event, shape);
      expect(broken.length).toBeGreaterThan(3);
      for (const { what, body } of broken) {
        const [headers, text] = signed(JSON.stringify(body));
        expect(refusal(headers, text), what).toMatch(/^the payload is not an event of the contract/);
      }
    });
  });

  it('refuses a body of an event type the contract does not have, and one that is not an object', () => {
    for (const body of [{ ...example('invoice.paid'), type: 'invoice.burned' }, [1, 2], 'text', null, 42]) {
      const [headers, text] = signed(JSON.stringify(body));
      expect(refusal(headers, text)).toMatch(/^the payload is not an event of the contract/);
    }
  });

  it('refuses a signature that does not match, a missing header, a stale or future timestamp, and a body that is not JSON', () => {
    const [headers, body] = signed(JSON.stringify(example('payment.card.captured')));
    expect(refusal(headers, `${body} `)).toBe('no matching signature found');
    expect(refusal({ ...headers, 'webhook-signature': 'v1,AAAA' }, body)).toBe('no matching signature found');
    expect(refusal(webhookHeaders('whsec_b3RoZXIgc2VjcmV0IG9mIGVub3VnaCBieXRlcw==', 'msg_1', now, body), body)).toBe('no matching signature found');
    expect(refusal(Object.fromEntries(Object.entries(headers).filter(([name]) => name !== 'webhook-signature')), body)).toBe('missing webhook headers');
    expect(refusal(...signed(body, 'msg_1', now - 301))).toBe('message timestamp too old');
    expect(refusal(...signed(body, 'msg_1', now + 301))).toBe('message timestamp too new');
    expect(refusal(...signed('{"type":'))).toBe('the payload is not JSON');
  });
});
