// The spec's webhook event types, in its order: what `pgw trigger`, `listen --events` and `logs --type` accept.
import { webhookEvents, type WebhookEventName } from '@pgw/client/webhooks';

export const eventTypes = (): readonly WebhookEventName[] => webhookEvents.map((e) => e.name);
