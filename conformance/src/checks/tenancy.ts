// Tenancy on every operation that addresses a record by id: merchant B gets 404 on each of merchant A's
// records (customers and their payment methods, invoices, invoice settings, API keys, devices, terminals, payment links,
// subscriptions), and A's
// records are unchanged afterwards.
import { randomUUID } from 'node:crypto';
import { OperationId } from '@pgw/client/operations';
import { AccountHolderType, AccountType } from '@pgw/client/enums';
import { bodyOf, createdId, expectStatus, expectThat, failWithAll, type Check, type CheckContext } from '../check.ts';
import { approvingCard } from '../fixtures.ts';
import type { CallOptions, Exchange } from '../http.ts';
import { SpecReader } from '../negative-cases.ts';

interface Records { customerId: string; paymentMethodId: string; invoiceId: string; merchantId: string; clientId: string; deviceId: string; terminalId: string; quickPaymentId: string; subscriptionId: string }

async function recordsOfA(ctx: CheckContext): Promise<Records> {
  const customer = await ctx.call(OperationId.createCustomer, { body: { firstName: 'Tenant', lastName: ctx.unique('tenant') } });
  const customerId = createdId(customer, 'customer');
  const card = await ctx.call(OperationId.addCardPaymentMethod, {
    path: { customerId }, body: { name: 'Visa', pan: approvingCard, expirationMonth: 12, expirationYear: new Date().getUTCFullYear() + 3, securityCode: '123' },
  });
  const paymentMethodId = createdId(card, 'card payment method');
  const read = await ctx.call(OperationId.getCustomer, { path: { customerId } });
  expectStatus(read, 200, OperationId.getCustomer);
  const merchantId = String(bodyOf(read).merchantId);
  const invoice = await ctx.call(OperationId.publishInvoice, {
    body: {
      id: null, dueDate: ctx.daysAhead(30), customerId,
      customer: { firstName: 'Tenant', lastName: 'Check', email: 'tenant@example.com' },
      lineItems: [{ lineItemId: null, productName: 'Tenancy check', unitTypeId: 1, unitPrice: 10, quantity: 1 }],
    },
  });
  const invoiceId = createdId(invoice, 'invoice');
  const key = await ctx.call(OperationId.createApiKey, { body: { name: ctx.unique('tenant-key') } });
  expectStatus(key, 200, OperationId.createApiKey);
  const deviceId = randomUUID();
  expectStatus(await ctx.call(OperationId.issueTapToPayToken, { body: { deviceId } }), 200, 'issueTapToPayToken registers a device');
  const terminal = await ctx.call(OperationId.registerTerminal, { body: { serialNumber: ctx.unique('TENANT'), model: 'Tenancy' } });
  expectStatus(terminal, 200, OperationId.registerTerminal);
  const link = await ctx.call(OperationId.createQuickPayment, { body: { amount: 10, description: 'Tenancy check' } });
  expectStatus(link, 200, OperationId.createQuickPayment);
  const subscription = await ctx.call(OperationId.createSubscription, { body: { customerId, paymentMethodId, amount: 5, frequency: 'Monthly', startDate: ctx.daysAhead(30) } });
  expectStatus(subscription, 200, OperationId.createSubscription);
  return {
    customerId, paymentMethodId, invoiceId, merchantId, clientId: String(bodyOf(key).clientId), deviceId, terminalId: String(bodyOf(terminal).terminalId),
    quickPaymentId: String(bodyOf(link).id), subscriptionId: String(bodyOf(subscription).subscriptionId),
  };
}

/** Every operation that addresses one of A's records, as merchant B calls it. */
function attempts(r: Records): [OperationId, CallOptions][] {
  const customer = { customerId: r.customerId };
  const method = { ...customer, paymentMethodId: r.paymentMethodId };
  const invoice = { invoiceId: r.invoiceId };
  return [
    [OperationId.getCustomer, { path: customer }],
    [OperationId.updateCustomer, { path: customer, body: { firstName: 'Mallory', lastName: 'Mallory' } }],
    [OperationId.listPaymentMethods, { path: customer }],
    [OperationId.addCardPaymentMethod, { path: customer, body: { pan: approvingCard, expirationMonth: 12, expirationYear: new Date().getUTCFullYear() + 3 } }],
    [OperationId.addAchPaymentMethod, { path: customer, body: { accountNumber: '123456789', routingNumber: '021000021', accountType: AccountType.Checking, accountHolderType: AccountHolderType.Personal } }],
    [OperationId.updatePaymentMethod, { path: method, body: { name: 'Mallory' } }],
    [OperationId.makeDefaultPaymentMethod, { path: method }],
    [OperationId.deletePaymentMethod, { path: method }],
    [OperationId.getInvoice, { path: invoice }],
    [OperationId.updateInvoice, { path: invoice, body: { customer: { firstName: 'M', lastName: 'M' }, lineItems: [{ lineItemId: null, productName: 'x', unitTypeId: 1, unitPrice: 1, quantity: 1 }] } }],
    [OperationId.getInvoiceCalculations, { path: invoice }],
    [OperationId.cancelInvoice, { path: invoice }],
    [OperationId.markInvoiceAsPaid, { path: invoice, body: {} }],
    [OperationId.sendInvoiceEmailNotification, { path: invoice, body: { phoneNumber: '+15555550123', customerConsent: true } }],
    [OperationId.sendInvoiceSmsNotification, { path: invoice, body: { receiverEmail: 'm@example.com', customerConsent: true } }],
    [OperationId.downloadInvoicePdf, { path: invoice }],
    [OperationId.deleteInvoice, { path: invoice }],
    [OperationId.getInvoiceSettings, { path: { merchantId: r.merchantId } }],
    [OperationId.updateInvoiceSettings, { path: { merchantId: r.merchantId }, body: { notes: 'Mallory' } }],
    [OperationId.deleteApiKey, { path: { clientId: r.clientId } }],
    [OperationId.getDevice, { path: { deviceId: r.deviceId } }],
    [OperationId.activateTapToPayDevice, { path: { deviceId: r.deviceId } }],
    [OperationId.getTerminal, { path: { terminalId: r.terminalId } }],
    // A sandbox control: a production target answers 404 to it anyway.
    [OperationId.setSandboxTerminalPaperStatus, { path: { terminalId: r.terminalId }, body: { paperStatus: 'Empty' } }],
    [OperationId.getQuickPayment, { path: { quickPaymentId: r.quickPaymentId } }],
    [OperationId.cancelQuickPayment, { path: { quickPaymentId: r.quickPaymentId } }],
    // A sandbox control: a production target answers 404 to it anyway.
    [OperationId.paySandboxQuickPayment, { path: { quickPaymentId: r.quickPaymentId } }],
    [OperationId.getSubscription, { path: { subscriptionId: r.subscriptionId } }],
    [OperationId.updateSubscription, { path: { subscriptionId: r.subscriptionId }, body: { amount: 1 } }],
    [OperationId.cancelSubscription, { path: { subscriptionId: r.subscriptionId }, body: { atPeriodEnd: false } }],
    [OperationId.deleteCustomer, { path: customer }],
  ];
}

export const tenancyChecks: Check[] = [
  {
    id: 'tenancy/every_operation_with_an_id', group: 'tenancy', designed: true,
    tags: ['Customers', 'Payment Methods', 'Invoices', 'API Keys', 'Devices', 'Terminals', 'Quick Payments', 'Subscriptions'],
    title: 'Merchant B gets 404 on every operation that addresses one of merchant A\'s records, which stay unchanged',
    async run(ctx) {
      const r = await recordsOfA(ctx);
      const before = {
        customer: JSON.stringify(bodyOf(await ctx.call(OperationId.getCustomer, { path: { customerId: r.customerId } }))),
        invoice: JSON.stringify({ ...bodyOf(await ctx.call(OperationId.getInvoice, { path: { invoiceId: r.invoiceId } })), history: null }),
        settings: JSON.stringify(bodyOf(await ctx.call(OperationId.getInvoiceSettings, { path: { merchantId: r.merchantId } }))),
        device: JSON.stringify(bodyOf(await ctx.call(OperationId.getDevice, { path: { deviceId: r.deviceId } }))),
        terminal: JSON.stringify(bodyOf(await ctx.call(OperationId.getTerminal, { path: { terminalId: r.terminalId } }))),
        quickPayment: JSON.stringify(bodyOf(await ctx.call(OperationId.getQuickPayment, { path: { quickPaymentId: r.quickPaymentId } }))),
        subscription: JSON.stringify(bodyOf(await ctx.call(OperationId.getSubscription, { path: { subscriptionId: r.subscriptionId } }))),
      };
      for (const [operationId, options] of attempts(r)) {
        expectStatus(await ctx.call(operationId, { ...options, as: 'B' }), 404, `${operationId} of merchant A's record with merchant B's token`);
      }
      const after = {
        customer: JSON.stringify(bodyOf(await ctx.call(OperationId.getCustomer, { path: { customerId: r.customerId } }))),
        invoice: JSON.stringify({ ...bodyOf(await ctx.call(OperationId.getInvoice, { path: { invoiceId: r.invoiceId } })), history: null }),
        settings: JSON.stringify(bodyOf(await ctx.call(OperationId.getInvoiceSettings, { path: { merchantId: r.merchantId } }))),
        device: JSON.stringify(bodyOf(await ctx.call(OperationId.getDevice, { path: { deviceId: r.deviceId } }))),
        terminal: JSON.stringify(bodyOf(await ctx.call(OperationId.getTerminal, { path: { terminalId: r.terminalId } }))),
        quickPayment: JSON.stringify(bodyOf(await ctx.call(OperationId.getQuickPayment, { path: { quickPaymentId: r.quickPaymentId } }))),
        subscription: JSON.stringify(bodyOf(await ctx.call(OperationId.getSubscription, { path: { subscriptionId: r.subscriptionId } }))),
      };
      for (const key of Object.keys(before) as (keyof typeof before)[]) {
        expectThat(after[key] === before[key], `merchant A's ${key} is unchanged after merchant B's attempts`);
      }
      const keys = await ctx.call(OperationId.listApiKeys, { query: { search: r.clientId } });
      expectThat(JSON.stringify(bodyOf(keys)).includes(`"clientId":"${r.clientId}","name"`) && !JSON.stringify(bodyOf(keys)).includes('"isActive":false'),
        'merchant A\'s API key is still active', keys);
      // A live subscription would keep its customer from being deleted by a clean-up run.
      expectStatus(await ctx.call(OperationId.cancelSubscription, { path: { subscriptionId: r.subscriptionId }, body: {} }), 200, "cancelling merchant A's subscription");
    },
  },
  {
    id: 'tenancy/every_list', group: 'tenancy', designed: true,
    tags: ['Customers', 'Payment Methods', 'Invoices', 'API Keys', 'Devices', 'Terminals', 'Quick Payments', 'Subscriptions'],
    title: "Merchant B's lists never hold one of merchant A's records: every list operation of the spec, without a filter and with each filter that can name A's record",
    async run(ctx) {
      const r = await recordsOfA(ctx);
      // A's record ids (the merchant's own id aside: some lists name the caller's merchant).
      const ids: [string, string][] = Object.entries({ ...r } as Record<string, string>).filter(([name]) => name !== 'merchantId');
      const reader = new SpecReader(ctx.spec.document);
      const failures: [string, Exchange | undefined][] = [];
      let read = 0;
      for (const op of ctx.spec.operations.values()) {
        if (op.method !== 'get' || op.path.includes('{') || !op.secured) continue;
        const found = reader.operation(op.operationId);
        // Lists answer JSON; an event stream (text/event-stream) never ends and is judged by its own checks.
        const ok = reader.deref((found?.op.responses as Record<string, unknown> | undefined)?.['200']) as { content?: Record<string, unknown> } | undefined;
        if (ok?.content?.['application/json'] === undefined) continue;
        const names = (found?.params ?? []).filter((p) => p.in === 'query').map((p) => String(p.name));
        // Without a filter, and with each filter named as one of A's records is (customerId, subscriptionId, ...),
        // or a free-text search given A's record id.
        const variants: Record<string, string>[] = [{}];
        for (const name of names) {
          const own = ids.find(([field]) => field === name);
          if (own) variants.push({ [name]: own[1] });
          else if (name === 'search') variants.push({ search: r.customerId });
        }
        for (const query of variants) {
          const res = await ctx.call(op, { as: 'B', query });
          if (res.response?.status !== 200) continue;
          read++;
          const leaked = ids.filter(([, id]) => res.response?.text.includes(id) === true).map(([name]) => name);
          if (leaked.length > 0) failures.push([`${op.operationId}${Object.keys(query).length > 0 ? ` with ${JSON.stringify(query)}` : ''} as merchant B lists merchant A's ${leaked.join(', ')}`, res]);
        }
      }
      expectStatus(await ctx.call(OperationId.cancelSubscription, { path: { subscriptionId: r.subscriptionId }, body: {} }), 200, "cancelling merchant A's subscription");
      expectThat(read >= 10, `merchant B could read at least 10 lists (read ${String(read)})`);
      failWithAll(failures);
    },
  },
];
