// Webhook deliveries, received by the suite's own receiver: each signed as Standard Webhooks says with the
// endpoint's secret, `webhook-id` the event's id on every attempt, a fresh timestamp, the payload valid
// against the spec's schema for its event type; a failed attempt retried on the schedule (moved along with the
// sandbox clock where served); the delivery log and its export; the ping.
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import * as formats from 'ajv-formats';
import { verifyWebhook } from '@pgw/client/webhooks';
import { OperationId } from '@pgw/client/operations';
import { CheckFailure, bodyOf, createdId, expectStatus, expectThat, type Check } from '../check.ts';
import { paymentProcessors, testCard } from '../fixtures.ts';
import { Receiver, type Delivery, type ReceiverOptions } from '../receiver.ts';

const addFormats = formats.default as unknown as (ajv: Ajv2020) => Ajv2020;
type JsonObject = Record<string, unknown>;
const isObject = (v: unknown): v is JsonObject => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Where the receiver listens and how the target reaches it (set from --webhook-host / --webhook-port). */
let receiverOptions: ReceiverOptions = {};
export function configureReceiver(options: ReceiverOptions): void {
  receiverOptions = options;
}
/** The receiver options configured, for the other checks that start a receiver. */
export const currentReceiverOptions = (): ReceiverOptions => receiverOptions;

/** The payload schema of each event type: the request body of the spec's webhook of that name. */
function payloadValidators(document: JsonObject): Map<string, ValidateFunction> {
  const ajv = new Ajv2020({ strict: false, allErrors: true, multipleOfPrecision: 6 });
  addFormats(ajv);
  for (const format of ['int32', 'int64', 'double', 'float']) ajv.addFormat(format, true);
  ajv.addSchema({ ...document, $id: 'spec' });
  const validators = new Map<string, ValidateFunction>();
  for (const [name, item] of Object.entries(isObject(document.webhooks) ? document.webhooks : {})) {
    const body = isObject(item) && isObject(item.post) ? item.post.requestBody : undefined;
    const content = isObject(body) && isObject(body.content) ? body.content['application/json'] : undefined;
    const schema = isObject(content) ? content.schema : undefined;
    if (isObject(schema) && typeof schema.$ref === 'string') validators.set(name, ajv.compile({ $ref: `spec${schema.$ref}` }));
  }
  return validators;
}

/** What is wrong with one delivery, or undefined. */
function deliveryProblem(d: Delivery, secret: string, validators: Map<string, ValidateFunction>): string | undefined {
  let payload: unknown;
  try {
    payload = verifyWebhook(secret, d.headers, d.body, { toleranceSeconds: 300 });
  } catch (error) {
    return `a delivery does not verify with the endpoint's secret: ${error instanceof Error ? error.message : String(error)}`;
  }
  if (!isObject(payload)) return 'a delivery body is not a JSON object';
  if (payload.id !== d.headers['webhook-id']) return `webhook-id ${String(d.headers['webhook-id'])} is not the event id ${String(payload.id)}`;
  const type = String(payload.type);
  const validate = validators.get(type);
  if (!validate) return `the spec has no webhook for event type ${type}`;
  if (!validate(payload)) return `the ${type} payload does not match its schema: ${(validate.errors ?? []).slice(0, 3).map((e) => `${e.instancePath} ${e.message ?? ''}`).join('; ')}`;
  return undefined;
}

const card = testCard();

export const webhookChecks: readonly Check[] = [{
  id: 'webhooks/deliveries',
  group: 'resources',
  title: 'deliveries are signed, carry the event id, match their schema, are retried after a failure, logged and exported; the ping is signed too',
  tags: ['Webhooks', OperationId.createWebhookEndpoint, OperationId.pingWebhookEndpoint, OperationId.listWebhookDeliveryLogs, OperationId.exportDeliveryLogs],
  designed: false,
  run: async (ctx) => {
    const validators = payloadValidators(ctx.spec.document);
    const receiver = new Receiver();
    await receiver.start(receiverOptions);
    const made: string[] = [];
    try {
      const plain = `/plain/${ctx.unique('w')}`;
      const flaky = `/flaky/${ctx.unique('w')}`;
      receiver.answer(flaky, 500, 204);
      const endpoint = async (path: string, eventTypes: string[]): Promise<{ id: string; secret: string }> => {
        const created = await ctx.call(OperationId.createWebhookEndpoint, { body: { name: ctx.unique('conf-hook'), endpointUrl: receiver.url(path), eventTypes } });
        const id = createdId(created, 'a webhook endpoint at the receiver');
        made.push(id);
        return { id, secret: String(bodyOf(created).signingSecret) };
      };
      const first = await endpoint(plain, ['payment.card.authorized', 'payment.card.voided']);
      const second = await endpoint(flaky, ['payment.card.captured']);
      const processor = (await paymentProcessors(ctx)).card;
      const auth = await ctx.call(OperationId.authorizeCard, { body: { amount: 12, paymentProcessorId: processor, card } });
      expectStatus(auth, 200, OperationId.authorizeCard);
      expectStatus(await ctx.call(OperationId.voidCardTransaction, { path: { transactionId: String(bodyOf(auth).transactionId) } }), 200, OperationId.voidCardTransaction);
      expectStatus(await ctx.call(OperationId.createCardSale, { body: { amount: 13, paymentProcessorId: processor, card } }), 200, OperationId.createCardSale);

      const plainDeliveries = await receiver.waitFor(plain, 2, 20_000);
      expectThat(plainDeliveries.length >= 2, `the receiver got the authorized and voided events (got ${String(plainDeliveries.length)} deliveries in 20 s)`);
      for (const d of plainDeliveries) {
        const problem = deliveryProblem(d, first.secret, validators);
        if (problem) throw new CheckFailure(problem);
      }
      const types = plainDeliveries.map((d) => (JSON.parse(d.body) as { type?: string }).type).sort();
      expectThat(JSON.stringify(types) === JSON.stringify(['payment.card.authorized', 'payment.card.voided']), `one delivery per subscribed event (got ${JSON.stringify(types)})`);

      // The flaky receiver fails the first attempt: the retry comes a minute later on the merchant's clock.
      const failed = await receiver.waitFor(flaky, 1, 20_000);
      const firstAttempt = failed[0];
      expectThat(firstAttempt !== undefined, 'the receiver got the captured event');
      const advanced = await ctx.call(OperationId.advanceSandboxClock, { body: { seconds: 65 } });
      if (advanced.response?.status === 200) {
        const attempts = await receiver.waitFor(flaky, 2, 20_000);
        const retry = attempts[1];
        expectThat(retry !== undefined, 'a failed attempt is retried after a minute of the sandbox clock');
        const problem = deliveryProblem(retry, second.secret, validators);
        if (problem) throw new CheckFailure(`the retry: ${problem}`);
        expectThat(retry.headers['webhook-id'] === firstAttempt.headers['webhook-id'], 'a retry carries the same webhook-id');
        expectThat(Number(retry.headers['webhook-timestamp']) >= Number(firstAttempt.headers['webhook-timestamp']), 'a retry carries a fresh webhook-timestamp');
        // The attempt is recorded once the receiver has answered it: the log is polled until it shows the retry
        // (a clock advance queues the attempts that fell due; the gateway makes and logs them afterwards).
        const logged = async (): Promise<{ log: Awaited<ReturnType<typeof ctx.call>>; entry: JsonObject | undefined }> => {
          const log = await ctx.call(OperationId.listWebhookDeliveryLogs, { path: { webhookId: second.id } });
          expectStatus(log, 200, OperationId.listWebhookDeliveryLogs);
          const items = (Array.isArray(bodyOf(log).items) ? (bodyOf(log).items as unknown[]) : []).filter(isObject);
          return { log, entry: items.find((i) => i.eventId === firstAttempt.headers['webhook-id']) };
        };
        let { log, entry } = await logged();
        for (const until = Date.now() + 20_000; entry?.status !== 'Succeeded' && Date.now() < until;) {
          await new Promise((resolve) => setTimeout(resolve, 100));
          ({ log, entry } = await logged());
        }
        expectThat(entry !== undefined && Number(entry.attemptNumber) >= 2 && entry.status === 'Succeeded',
          `the delivery log shows the retried delivery Succeeded with attemptNumber 2 or more (within 20 s): ${JSON.stringify(entry ?? null)}`, log);
        const exported = await ctx.call(OperationId.exportDeliveryLogs, { query: { format: 'json' } });
        expectStatus(exported, 200, OperationId.exportDeliveryLogs);
        expectThat(exported.response?.text.includes(String(firstAttempt.headers['webhook-id'])) === true, 'the JSON export holds the delivery', exported);
      }

      const ping = await ctx.call(OperationId.pingWebhookEndpoint, { path: { webhookId: first.id } });
      expectStatus(ping, 200, OperationId.pingWebhookEndpoint);
      expectThat(bodyOf(ping).success === true, 'the ping reached the receiver (success true)', ping);
      const pinged = receiver.at(plain).map((d) => ({ d, payload: JSON.parse(d.body) as { type?: string } })).find((x) => x.payload.type === 'webhook.ping');
      expectThat(pinged !== undefined, 'the receiver got the ping');
      try {
        verifyWebhook(first.secret, pinged.d.headers, pinged.d.body, { toleranceSeconds: 300 });
      } catch (error) {
        throw new CheckFailure(`the ping does not verify: ${error instanceof Error ? error.message : String(error)}`);
      }
    } finally {
      for (const id of made) await ctx.call(OperationId.deleteWebhookEndpoint, { path: { webhookId: id } });
      await receiver.stop();
    }
  },
}];
