// The spec's webhook event types, in its order: what `pgw trigger`, `listen --events` and `logs --type` accept.
import { webhookEvents, type WebhookEventName } from '../../generated/webhooks.ts';

export const eventTypes = (): readonly WebhookEventName[] => webhookEvents.map((e) => e.name);
