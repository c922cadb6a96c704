// Every handler group of the spec, as the generated router takes them.
import type { Handlers } from '../../../generated/handlers.ts';
import type { ServerContext } from '../platform/context.ts';
import { withIdempotency } from '../platform/idempotency.ts';
import { authenticationHandlers } from './authentication.ts';
import { unavailable } from './unavailable.ts';

export function handlers(): Handlers<ServerContext> {
  return withIdempotency({
    authentication: authenticationHandlers,
    transactions: unavailable('transactions'),
    achPayments: unavailable('achPayments'),
    cardPayments: unavailable('cardPayments'),
    customers: unavailable('customers'),
    paymentMethods: unavailable('paymentMethods'),
    configuration: unavailable('configuration'),
    devices: unavailable('devices'),
    apiKeys: unavailable('apiKeys'),
    categories: unavailable('categories'),
    lineItems: unavailable('lineItems'),
    invoices: unavailable('invoices'),
    webhooks: unavailable('webhooks'),
    lookups: unavailable('lookups'),
    sandbox: unavailable('sandbox'),
  });
}
