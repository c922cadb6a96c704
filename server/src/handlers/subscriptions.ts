// HTTP of the subscriptions: create, list, read, change, cancel, pause and resume, and the merchant's dunning
// settings (the payments are the worker's).
import type { SubscriptionsHandlers } from '@pgw/client/handlers';
import type * as op from '@pgw/client/operations';
import type { ServerContext } from '../platform/context.ts';
import * as plans from '../services/subscription-plans.ts';
import * as settings from '../services/subscription-settings.ts';
import * as subscriptions from '../services/subscriptions.ts';

export const subscriptionsHandlers = {
  async createSubscription(input: op.CreateSubscriptionInput, context: ServerContext): Promise<op.CreateSubscriptionResult> {
    return { status: 200, body: await subscriptions.createSubscription(context.merchant(), input.body) };
  },
  async listSubscriptions(input: op.ListSubscriptionsInput, context: ServerContext): Promise<op.ListSubscriptionsResult> {
    return { status: 200, body: await subscriptions.listSubscriptions(context.merchant(), input.query) };
  },
  async getSubscription(input: op.GetSubscriptionInput, context: ServerContext): Promise<op.GetSubscriptionResult> {
    return { status: 200, body: await subscriptions.getSubscription(context.merchant(), input.path.subscriptionId) };
  },
  async updateSubscription(input: op.UpdateSubscriptionInput, context: ServerContext): Promise<op.UpdateSubscriptionResult> {
    return { status: 200, body: await plans.updateSubscription(context.merchant(), input.path.subscriptionId, input.body) };
  },
  async cancelSubscription(input: op.CancelSubscriptionInput, context: ServerContext): Promise<op.CancelSubscriptionResult> {
    return { status: 200, body: await subscriptions.cancelSubscription(context.merchant(), input.path.subscriptionId, input.body) };
  },
  async pauseSubscription(input: op.PauseSubscriptionInput, context: ServerContext): Promise<op.PauseSubscriptionResult> {
    return { status: 200, body: await subscriptions.pauseSubscription(context.merchant(), input.path.subscriptionId) };
  },
  async resumeSubscription(input: op.ResumeSubscriptionInput, context: ServerContext): Promise<op.ResumeSubscriptionResult> {
    return { status: 200, body: await subscriptions.resumeSubscription(context.merchant(), input.path.subscriptionId) };
  },
  async getSubscriptionSettings(_input: op.GetSubscriptionSettingsInput, context: ServerContext): Promise<op.GetSubscriptionSettingsResult> {
    return { status: 200, body: await settings.getSubscriptionSettings(context.merchant()) };
  },
  async updateSubscriptionSettings(input: op.UpdateSubscriptionSettingsInput, context: ServerContext): Promise<op.UpdateSubscriptionSettingsResult> {
    return { status: 200, body: await settings.updateSubscriptionSettings(context.merchant(), input.body) };
  },
} satisfies SubscriptionsHandlers<ServerContext>;
