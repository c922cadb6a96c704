// Owner-side flows of the families the generic resource checks cannot address alone (nested under a customer,
// made by a side effect, or credentials): what was written reads back field by field, an update reads back
// changed, the caller's list holds it and another merchant's does not, a delete is gone.
import { randomUUID } from 'node:crypto';
import { OperationId } from '@pgw/client/operations';
import { TapToPayStatus, TransactionCreatorType } from '@pgw/client/enums';
import { CheckFailure, bodyOf, createdId, expectStatus, expectThat, type Check, type CheckContext } from '../check.ts';
import type { Exchange } from '../http.ts';
import { testCard } from '../fixtures.ts';
import { findListed } from '../paging.ts';

type JsonObject = Record<string, unknown>;
const itemsOf = (exchange: Exchange): JsonObject[] => {
  const items = bodyOf(exchange).items;
  return Array.isArray(items) ? items.filter((i): i is JsonObject => typeof i === 'object' && i !== null) : [];
};

/** Each field written reads back equal (arrays compared as sets of values). */
function readsBack(written: JsonObject, read: Exchange, what: string): void {
  const body = bodyOf(read);
  for (const [field, value] of Object.entries(written)) {
    const got = body[field];
    const sorted = (list: unknown[]): string => JSON.stringify(list.map((v) => JSON.stringify(v)).sort());
    const same = Array.isArray(value) && Array.isArray(got) ? sorted(value as unknown[]) === sorted(got as unknown[]) : JSON.stringify(got) === JSON.stringify(value);
    if (!same) throw new CheckFailure(`${what}: ${field} reads back ${JSON.stringify(got)}, written ${JSON.stringify(value)}`, read);
  }
}

async function token(ctx: CheckContext, clientId: string, clientSecret: string): Promise<Exchange> {
  return ctx.raw('POST', `${ctx.authUrl}/oauth2/token`, { form: { grant_type: 'client_credentials', scope: 'offline_access', client_id: clientId, client_secret: clientSecret } });
}

export const familyChecks: readonly Check[] = [
  {
    id: 'families/webhook_endpoints', group: 'resources', designed: false,
    tags: ['Webhooks', OperationId.createWebhookEndpoint, OperationId.getWebhookEndpoint, OperationId.updateWebhookEndpoint, OperationId.listWebhookEndpoints, OperationId.deleteWebhookEndpoint],
    title: 'a webhook endpoint reads back as written and as updated, is listed for its owner only, and is gone once deleted',
    async run(ctx) {
      const written = { name: ctx.unique('hook'), endpointUrl: 'http://127.0.0.1:9/conformance', eventTypes: ['payment.card.authorized', 'invoice.paid'] };
      const webhookId = createdId(await ctx.call(OperationId.createWebhookEndpoint, { body: written }), 'a webhook endpoint');
      const read = await ctx.call(OperationId.getWebhookEndpoint, { path: { webhookId } });
      expectStatus(read, 200, OperationId.getWebhookEndpoint);
      readsBack(written, read, 'the webhook');
      expectThat(/^whsec_/.test(String(bodyOf(read).signingSecret)), 'the owner sees the signing secret (whsec_…)', read);
      const changed = { name: ctx.unique('hook2'), endpointUrl: 'http://127.0.0.1:9/conformance/v2', eventTypes: ['payment.ach.cleared'] };
      expectStatus(await ctx.call(OperationId.updateWebhookEndpoint, { path: { webhookId }, body: changed }), 200, OperationId.updateWebhookEndpoint);
      readsBack(changed, await ctx.call(OperationId.getWebhookEndpoint, { path: { webhookId } }), 'the updated webhook');
      // Paged through: a merchant that keeps data has more endpoints than a page holds.
      const mine = await findListed(ctx, OperationId.listWebhookEndpoints, {}, (i) => i.id === webhookId);
      expectThat(mine.item !== undefined, 'the owner lists it', mine.exchange);
      const theirs = await findListed(ctx, OperationId.listWebhookEndpoints, { as: 'B' }, (i) => i.id === webhookId);
      expectThat(theirs.item === undefined, "another merchant's list does not hold it", theirs.exchange);
      expectStatus(await ctx.call(OperationId.getWebhookEndpoint, { as: 'B', path: { webhookId } }), 404, "another merchant reads the webhook");
      expectStatus(await ctx.call(OperationId.deleteWebhookEndpoint, { path: { webhookId } }), 200, OperationId.deleteWebhookEndpoint);
      expectStatus(await ctx.call(OperationId.getWebhookEndpoint, { path: { webhookId } }), 404, 'getWebhookEndpoint after delete');
    },
  },
  {
    id: 'families/payment_methods', group: 'resources', designed: false,
    tags: ['Payment Methods', OperationId.addCardPaymentMethod, OperationId.listPaymentMethods, OperationId.updatePaymentMethod, OperationId.makeDefaultPaymentMethod, OperationId.deletePaymentMethod],
    title: "a customer's card reads back in the list, an update reads back, it becomes the default, and a delete is gone",
    async run(ctx) {
      const customerId = createdId(await ctx.call(OperationId.createCustomer, { body: { firstName: 'Methods', lastName: ctx.unique('pm') } }), 'a customer');
      const year = new Date().getUTCFullYear() + 4;
      const added = await ctx.call(OperationId.addCardPaymentMethod, { path: { customerId }, body: { name: 'Travel Visa', pan: '4111111111111111', expirationMonth: 7, expirationYear: year, securityCode: '123' } });
      const paymentMethodId = createdId(added, 'a card payment method');
      const find = async (): Promise<JsonObject | undefined> => itemsOf(await ctx.call(OperationId.listPaymentMethods, { path: { customerId }, query: { pageSize: 100 } })).find((i) => i.id === paymentMethodId);
      const listed = await find();
      expectThat(listed !== undefined, 'listPaymentMethods holds the card', added);
      expectThat(listed.name === 'Travel Visa' && listed.expirationMonth === 7 && listed.expirationYear === year && String(listed.panMask).endsWith('1111') && !String(listed.panMask).includes('41111111'),
        `the card reads back (name, expiry, a masked number ending 1111): ${JSON.stringify(listed)}`, added);
      expectStatus(await ctx.call(OperationId.updatePaymentMethod, { path: { customerId, paymentMethodId }, body: { name: 'Renamed Visa', expirationMonth: 9, expirationYear: year } }), 200, OperationId.updatePaymentMethod);
      const updated = await find();
      expectThat(updated?.name === 'Renamed Visa' && updated.expirationMonth === 9, `the update reads back: ${JSON.stringify(updated)}`);
      expectStatus(await ctx.call(OperationId.makeDefaultPaymentMethod, { path: { customerId, paymentMethodId } }), 200, OperationId.makeDefaultPaymentMethod);
      expectThat((await find())?.isDefault === true, 'the card is the default after make-default');
      expectStatus(await ctx.call(OperationId.listPaymentMethods, { as: 'B', path: { customerId } }), 404, "another merchant lists the customer's methods");
      expectStatus(await ctx.call(OperationId.deletePaymentMethod, { path: { customerId, paymentMethodId } }), 200, OperationId.deletePaymentMethod);
      expectThat((await find()) === undefined, 'a deleted payment method is no longer listed');
    },
  },
  {
    id: 'families/api_keys', group: 'auth', designed: true,
    tags: ['API Keys', OperationId.createApiKey, OperationId.listApiKeys, OperationId.deleteApiKey],
    title: "a new API key is listed without its secret and gets tokens; once deleted, its tokens stop working and it gets no new one",
    async run(ctx) {
      const name = ctx.unique('key');
      const created = await ctx.call(OperationId.createApiKey, { body: { name } });
      expectStatus(created, 200, OperationId.createApiKey);
      const { clientId, clientSecret } = bodyOf(created) as { clientId?: string; clientSecret?: string };
      expectThat(typeof clientId === 'string' && typeof clientSecret === 'string' && clientSecret.length > 0, 'the new key shows its client id and secret once', created);
      // Searched by its unique name and paged through: earlier runs' keys fill the first page of an unfiltered list.
      const { item: entry, exchange: listed } = await findListed(ctx, OperationId.listApiKeys, { query: { search: name } }, (i) => i.clientId === clientId);
      expectThat(entry?.name === name && !JSON.stringify(listed.response?.body ?? {}).includes(clientSecret), 'the list names the key and never shows a secret', listed);
      const issued = await token(ctx, clientId, clientSecret);
      expectStatus(issued, 200, "a token for the new key");
      const bearer = String(bodyOf(issued).access_token);
      expectStatus(await ctx.call(OperationId.searchCustomers, { as: 'none', headers: { authorization: `Bearer ${bearer}` } }), 200, "the new key's token works");
      expectStatus(await ctx.call(OperationId.deleteApiKey, { path: { clientId } }), 200, OperationId.deleteApiKey);
      expectStatus(await ctx.call(OperationId.searchCustomers, { as: 'none', headers: { authorization: `Bearer ${bearer}` } }), 401, "a deleted key's token");
      expectStatus(await token(ctx, clientId, clientSecret), 401, 'a token request with a deleted key');
    },
  },
  {
    id: 'families/devices', group: 'resources', designed: true,
    tags: ['Devices', OperationId.issueTapToPayToken, OperationId.listDevices, OperationId.getDevice, OperationId.activateTapToPayDevice],
    title: 'a device registered by a tap-to-pay token is listed and read by its owner only, and activation makes it Active',
    async run(ctx) {
      const deviceId = randomUUID();
      expectStatus(await ctx.call(OperationId.issueTapToPayToken, { body: { deviceId } }), 200, 'issueTapToPayToken registers a device');
      const list = await findListed(ctx, OperationId.listDevices, {}, (i) => i.deviceId === deviceId);
      expectThat(list.item !== undefined, 'listDevices holds the new device', list.exchange);
      expectStatus(await ctx.call(OperationId.getDevice, { path: { deviceId } }), 200, OperationId.getDevice);
      expectStatus(await ctx.call(OperationId.getDevice, { as: 'B', path: { deviceId } }), 404, "another merchant reads the device");
      expectStatus(await ctx.call(OperationId.activateTapToPayDevice, { path: { deviceId } }), 200, OperationId.activateTapToPayDevice);
      const read = await ctx.call(OperationId.getDevice, { path: { deviceId } });
      expectThat(bodyOf(read).tapToPayStatusId === TapToPayStatus.Active && bodyOf(read).tapToPayEnabled === true, 'an activated device is Active (2) with tap-to-pay enabled', read);
    },
  },
  {
    id: 'families/quick-payments', group: 'resources', designed: true,
    tags: ['Quick Payments', OperationId.createQuickPayment, OperationId.listQuickPayments, OperationId.getQuickPayment, OperationId.cancelQuickPayment, OperationId.paySandboxQuickPayment],
    title: "a payment link reads back as written with its page's address, is listed and read by its owner only, is cancelled once, and the sandbox's payment makes it Paid by a QuickPayment transaction",
    async run(ctx) {
      const written = { amount: 21.5, description: ctx.unique('link') };
      const made = await ctx.call(OperationId.createQuickPayment, { body: written });
      expectStatus(made, 200, OperationId.createQuickPayment);
      const id = String(bodyOf(made).id);
      const read = await ctx.call(OperationId.getQuickPayment, { path: { quickPaymentId: id } });
      expectStatus(read, 200, OperationId.getQuickPayment);
      readsBack({ ...written, id, status: 'Active', transactionId: null, paidOn: null, expiresOn: null }, read, 'the payment link');
      const url = String(bodyOf(read).url);
      expectThat(/^https?:\/\//.test(url) && url.includes(id), "the link's url is an absolute address naming the link", read);
      const mine = await findListed(ctx, OperationId.listQuickPayments, { query: { search: written.description } }, (i) => i.id === id);
      expectThat(mine.item !== undefined, 'the owner lists it (searched by its description)', mine.exchange);
      const theirs = await findListed(ctx, OperationId.listQuickPayments, { as: 'B', query: { search: written.description } }, (i) => i.id === id);
      expectThat(theirs.item === undefined, "another merchant's list does not hold it", theirs.exchange);
      expectStatus(await ctx.call(OperationId.getQuickPayment, { as: 'B', path: { quickPaymentId: id } }), 404, 'another merchant reads the link');
      const past = await ctx.call(OperationId.createQuickPayment, { body: { ...written, expiresOn: '2001-01-01T00:00:00Z' } });
      expectThat(past.response?.status === 400, 'an expiresOn in the past answers 400', past);
      const cancelled = await ctx.call(OperationId.cancelQuickPayment, { path: { quickPaymentId: id } });
      expectThat(cancelled.response?.status === 200 && bodyOf(cancelled).status === 'Cancelled', 'cancelQuickPayment answers the link Cancelled', cancelled);
      const again = await ctx.call(OperationId.cancelQuickPayment, { path: { quickPaymentId: id } });
      expectThat(again.response?.status === 400 && bodyOf(again).errorCode === 'quick_payment_not_active', 'cancelling it again answers 400 quick_payment_not_active', again);
      const other = await ctx.call(OperationId.createQuickPayment, { body: { amount: 3.25, description: ctx.unique('paid link') } });
      expectStatus(other, 200, OperationId.createQuickPayment);
      const otherId = String(bodyOf(other).id);
      const paid = await ctx.call(OperationId.paySandboxQuickPayment, { path: { quickPaymentId: otherId } });
      // The payment is a sandbox control (designed): a production target answers 404.
      if (paid.response?.status === 404 && ctx.spec.operation(OperationId.paySandboxQuickPayment).designed) return;
      expectThat(paid.response?.status === 200 && bodyOf(paid).status === 'Paid' && typeof bodyOf(paid).transactionId === 'string', 'the sandbox payment answers the link Paid with its transaction', paid);
      const payment = await ctx.call(OperationId.getTransactionStatus, { path: { transactionId: String(bodyOf(paid).transactionId) } });
      expectThat(payment.response?.status === 200 && bodyOf(payment).amount === 3.25 && bodyOf(payment).creatorTypeId === TransactionCreatorType.QuickPayment,
        'the transaction that paid the link is for its amount, with creator type QuickPayment (5)', payment);
    },
  },
  {
    id: 'families/terminals', group: 'resources', designed: true,
    tags: ['Terminals', OperationId.registerTerminal, OperationId.listTerminals, OperationId.getTerminal, OperationId.setSandboxTerminalPaperStatus],
    title: "a registered terminal reads back as written, is listed and read by its owner only, refuses its serial number again, and the sandbox's paper report reads back",
    async run(ctx) {
      const written = { serialNumber: ctx.unique('FAM').toUpperCase(), model: 'PX7', name: ctx.unique('counter') };
      const registered = await ctx.call(OperationId.registerTerminal, { body: written });
      expectStatus(registered, 200, OperationId.registerTerminal);
      const terminalId = String(bodyOf(registered).terminalId);
      const read = await ctx.call(OperationId.getTerminal, { path: { terminalId } });
      expectStatus(read, 200, OperationId.getTerminal);
      readsBack({ ...written, terminalId, paperStatus: 'Ok', lastSeenAt: null }, read, 'the terminal');
      const mine = await findListed(ctx, OperationId.listTerminals, { query: { search: written.serialNumber } }, (i) => i.terminalId === terminalId);
      expectThat(mine.item !== undefined, 'the owner lists it (searched by its serial number)', mine.exchange);
      const theirs = await findListed(ctx, OperationId.listTerminals, { as: 'B', query: { search: written.serialNumber } }, (i) => i.terminalId === terminalId);
      expectThat(theirs.item === undefined, "another merchant's list does not hold it", theirs.exchange);
      expectStatus(await ctx.call(OperationId.getTerminal, { as: 'B', path: { terminalId } }), 404, 'another merchant reads the terminal');
      const again = await ctx.call(OperationId.registerTerminal, { body: { ...written, serialNumber: written.serialNumber.toLowerCase() } });
      expectThat(again.response?.status === 400 && bodyOf(again).errorCode === 'duplicate_terminal_serial', 'its serial number again (in lower case) answers 400 duplicate_terminal_serial', again);
      const reported = await ctx.call(OperationId.setSandboxTerminalPaperStatus, { path: { terminalId }, body: { paperStatus: 'Empty' } });
      // The paper report is a sandbox control (designed): a production target answers 404.
      if (reported.response?.status === 404 && ctx.spec.operation(OperationId.setSandboxTerminalPaperStatus).designed) return;
      expectStatus(reported, 200, OperationId.setSandboxTerminalPaperStatus);
      const after = await ctx.call(OperationId.getTerminal, { path: { terminalId } });
      expectThat(bodyOf(after).paperStatus === 'Empty' && typeof bodyOf(after).lastSeenAt === 'string', 'the reported paper status reads back, with the time the terminal was last seen', after);
    },
  },
  {
    id: 'families/subscriptions', group: 'resources', designed: true,
    tags: ['Subscriptions', OperationId.createSubscription, OperationId.listSubscriptions, OperationId.getSubscription, OperationId.updateSubscription, OperationId.cancelSubscription],
    title: "a subscription reads back as written, is listed and read by its owner only, counts on its customer while it collects, changes, refuses a start in the past, and is cancelled once",
    async run(ctx) {
      const customer = await ctx.call(OperationId.createCustomer, { body: { firstName: 'Family', lastName: ctx.unique('subscriber') } });
      const customerId = createdId(customer, 'customer');
      const card = await ctx.call(OperationId.addCardPaymentMethod, { path: { customerId }, body: { name: 'Visa', ...testCard() } });
      const paymentMethodId = createdId(card, 'card payment method');
      const written = { customerId, paymentMethodId, amount: 19.5, frequency: 'Monthly', startDate: ctx.daysAhead(10), description: ctx.unique('plan') };
      const made = await ctx.call(OperationId.createSubscription, { body: written });
      expectStatus(made, 200, OperationId.createSubscription);
      const subscriptionId = String(bodyOf(made).subscriptionId);
      const read = await ctx.call(OperationId.getSubscription, { path: { subscriptionId } });
      expectStatus(read, 200, OperationId.getSubscription);
      expectThat(bodyOf(read).status === 'Active' && bodyOf(read).amount === 19.5 && bodyOf(read).paymentMethodId === paymentMethodId
        && Date.parse(String(bodyOf(read).nextPaymentDate)) === Date.parse(written.startDate) && bodyOf(read).paymentsCount === 0, 'the subscription reads back Active, its first payment due at startDate', read);
      const mine = await findListed(ctx, OperationId.listSubscriptions, { query: { customerId } }, (i) => i.subscriptionId === subscriptionId);
      expectThat(mine.item !== undefined, "the owner lists it (by its customer)", mine.exchange);
      const theirs = await findListed(ctx, OperationId.listSubscriptions, { as: 'B' }, (i) => i.subscriptionId === subscriptionId);
      expectThat(theirs.item === undefined, "another merchant's list does not hold it", theirs.exchange);
      expectStatus(await ctx.call(OperationId.getSubscription, { as: 'B', path: { subscriptionId } }), 404, 'another merchant reads the subscription');
      const counted = bodyOf(await ctx.call(OperationId.getCustomer, { path: { customerId } }));
      expectThat(counted.numberOfSubscriptions === 1, "the customer's numberOfSubscriptions counts it");
      const changed = await ctx.call(OperationId.updateSubscription, { path: { subscriptionId }, body: { amount: 21 } });
      expectThat(changed.response?.status === 200 && bodyOf(changed).amount === 21, 'a new amount reads back', changed);
      const past = await ctx.call(OperationId.createSubscription, { body: { ...written, startDate: '2001-01-01T00:00:00Z' } });
      expectThat(past.response?.status === 400, 'a startDate in the past answers 400', past);
      const cancelled = await ctx.call(OperationId.cancelSubscription, { path: { subscriptionId }, body: { atPeriodEnd: false } });
      expectThat(cancelled.response?.status === 200 && bodyOf(cancelled).status === 'Cancelled' && bodyOf(cancelled).nextPaymentDate === null, 'cancelled at once: Cancelled, nothing more due', cancelled);
      const again = await ctx.call(OperationId.cancelSubscription, { path: { subscriptionId }, body: {} });
      expectThat(again.response?.status === 400 && bodyOf(again).errorCode === 'subscription_not_open', 'a second cancel answers 400 subscription_not_open', again);
      const uncounted = bodyOf(await ctx.call(OperationId.getCustomer, { path: { customerId } }));
      expectThat(uncounted.numberOfSubscriptions === 0, "a cancelled subscription no longer counts on its customer");
      expectStatus(await ctx.call(OperationId.deleteCustomer, { path: { customerId } }), 200, 'the customer of a cancelled subscription is deleted');
    },
  },
];
