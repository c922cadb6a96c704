// Every handler group of the spec, as the generated router takes them.
import type { Handlers } from '@pgw/client/handlers';
import type { ServerContext } from '../platform/context.ts';
import { withIdempotency } from '../platform/idempotency.ts';
import { apiKeysHandlers } from './api-keys.ts';
import { authenticationHandlers } from './authentication.ts';
import { categoriesHandlers } from './categories.ts';
import { configurationHandlers } from './configuration.ts';
import { customersHandlers } from './customers.ts';
import { devicesHandlers } from './devices.ts';
import { invoicesHandlers } from './invoices.ts';
import { lineItemsHandlers } from './line-items.ts';
import { lookupsHandlers } from './lookups.ts';
import { paymentMethodsHandlers } from './payment-methods.ts';
import { achPaymentsHandlers, cardPaymentsHandlers, transactionsHandlers } from './payments.ts';
import { quickPaymentsHandlers } from './quick-payments.ts';
import { sandboxHandlers } from './sandbox.ts';
import { subscriptionsHandlers } from './subscriptions.ts';
import { terminalsHandlers } from './terminals.ts';
import { webhooksHandlers } from './webhooks.ts';

export function handlers(): Handlers<ServerContext> {
  return withIdempotency({
    authentication: authenticationHandlers,
    transactions: transactionsHandlers,
    achPayments: achPaymentsHandlers,
    cardPayments: cardPaymentsHandlers,
    customers: customersHandlers,
    paymentMethods: paymentMethodsHandlers,
    configuration: configurationHandlers,
    devices: devicesHandlers,
    terminals: terminalsHandlers,
    quickPayments: quickPaymentsHandlers,
    subscriptions: subscriptionsHandlers,
    apiKeys: apiKeysHandlers,
    categories: categoriesHandlers,
    lineItems: lineItemsHandlers,
    invoices: invoicesHandlers,
    webhooks: webhooksHandlers,
    lookups: lookupsHandlers,
    sandbox: sandboxHandlers,
  });
}
