// The coverage walk: every operation of the spec called once as its owner with a valid request, built from the
// operation's own example with the ids of records the walk created, in an order that gives each operation the
// state it needs. Operations the order does not name are called last the same way, so a new operation of the
// spec is exercised without new code. Every response is checked against the spec by the runner.
import { OperationId } from '@pgw/client/operations';
import { AccountHolderType, AccountType, PaymentMethodType, PaymentProcessorType } from '@pgw/client/enums';
import { failWithAll, CheckSkipped, bodyOf, type Check, type CheckContext } from '../check.ts';
import { operationIdOf, type CallOptions, type Exchange, type Operation } from '../http.ts';
import { testCard } from '../fixtures.ts';
import { SpecReader } from '../negative-cases.ts';
import { differences } from './event-log.ts';
import { readOf } from './negative.ts';

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
const isRecord = (v: unknown): v is Record<string, Json> => typeof v === 'object' && v !== null && !Array.isArray(v);
const listOf = (v: unknown): unknown[] => (Array.isArray(v) ? (v as unknown[]) : []);
const firstOf = (v: unknown): unknown => listOf(v)[0];

/** Replaces, at any depth, the value of each key the walk knows an id for (only keys the example has). */
function substitute(value: Json, ids: Readonly<Record<string, string>>): Json {
  if (Array.isArray(value)) return value.map((v) => substitute(v, ids));
  if (!isRecord(value)) return value;
  return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, ids[k] !== undefined && (typeof v === 'string' || v === null) ? ids[k] : substitute(v, ids)]));
}

interface Step {
  /** Named here by its generated operationId, or (after the order) found in the document. */
  readonly op: Operation;
  /** The identity the step needs; without its credentials the run skips the step (its operation is not called). */
  readonly needs?: string;
  /** Changes to the example request; ids fill path parameters and id fields by name. */
  readonly request?: (w: Walk) => Partial<CallOptions> | Promise<Partial<CallOptions>>;
  /** Statuses that count as the operation answering a valid request (default: its 2xx). */
  readonly accept?: readonly number[];
  /** Keeps what the answer says for later steps. */
  readonly keep?: (w: Walk, body: Record<string, unknown>) => void;
}

class Walk {
  readonly ids: Record<string, string> = {};
  readonly called = new Map<string, number>();
  readonly failures: [string, Exchange][] = [];
  private readonly reader: SpecReader;
  constructor(readonly ctx: CheckContext) {
    this.reader = new SpecReader(ctx.spec.document);
  }

  /** The operation's example request with the walk's ids in it. */
  example(op: string): CallOptions {
    const found = this.reader.operation(op);
    if (!found) throw new Error(`the spec has no operation ${op}`);
    const path: Record<string, string> = {};
    for (const p of found.params.filter((x) => x.in === 'path')) path[String(p.name)] = this.ids[String(p.name)] ?? '';
    const json = this.reader.jsonBody(found.op);
    return { path, ...(json?.example === undefined ? {} : { body: substitute(structuredClone(json.example) as Json, this.ids) }) };
  }

  /** Of a record read back, the fields the operation's body names: a read-modify-write sends what the write takes. */
  writable(op: string, record: Json): Json {
    const found = this.reader.operation(op);
    const properties = found ? this.reader.jsonBody(found.op)?.schema.properties : undefined;
    if (!isRecord(record) || !isRecord(properties)) return record;
    return Object.fromEntries(Object.entries(record).filter(([name]) => name in properties));
  }

  async step(step: Step): Promise<Exchange | undefined> {
    if (step.needs !== undefined && !this.ctx.identities.includes(step.needs)) return undefined;
    const id = operationIdOf(step.op);
    const base = this.example(id);
    const extra = step.request ? await step.request(this) : {};
    const request: CallOptions = { ...base, ...extra, path: { ...base.path, ...extra.path } };
    // A step of the partner's (the sandbox operations) without partner credentials is not called: the coverage
    // table shows it NOT CALLED, rather than the whole run stopping for want of a token.
    if (request.as !== undefined && request.as !== 'none' && !this.ctx.identities.includes(request.as)) {
      this.called.set(id, -1);
      return { operationId: id, request: { method: '', url: '', headers: {} }, response: undefined, problems: [], durationMs: 0 };
    }
    const exchange = await this.ctx.call(step.op, request);
    const status = exchange.response?.status ?? 0;
    this.called.set(id, status);
    // A designed operation (the sandbox controls, say) that the target does not serve is not a failure.
    if (status === 404 && this.ctx.spec.operation(id).designed) {
      this.called.set(id, -404);
      return exchange;
    }
    const ok = step.accept ? step.accept.includes(status) : status >= 200 && status < 300;
    if (!ok) {
      const said = exchange.response ? `${String(status)} ${exchange.response.text.slice(0, 160)}` : String(exchange.error);
      this.failures.push([`${id}: expected ${step.accept ? step.accept.join(' or ') : 'a 2xx'} for a valid request, got ${said}`, exchange]);
    }
    else {
      step.keep?.(this, bodyOf(exchange));
      await this.readBack(id, request, exchange);
    }
    return exchange;
  }

  /**
   * The effect of a write where the spec shows it: the record it made or changed (the GET on the change's path,
   * or on the create's path and the new id) holds each scalar field the request set that the read carries.
   */
  private async readBack(id: string, request: CallOptions, exchange: Exchange): Promise<void> {
    const op = this.ctx.spec.operation(id);
    if (!isRecord(request.body) || !['post', 'put', 'patch'].includes(op.method)) return;
    let read = readOf(this.ctx.spec, id);
    let path = request.path ?? {};
    if (!read && op.method === 'post' && !op.path.includes('{')) {
      // The read of one record made there: GET on the create's path and one parameter more.
      read = [...this.ctx.spec.operations.values()].find((o) => o.method === 'get' && o.path.startsWith(`${op.path}/{`) && o.path.endsWith('}') && !o.path.slice(op.path.length + 1).includes('/'));
      const param = read ? /\{([^}]+)\}$/.exec(read.path)?.[1] : undefined;
      const made = param === undefined ? undefined : bodyOf(exchange)[param] ?? bodyOf(exchange).id;
      if (param === undefined || typeof made !== 'string') return;
      path = { [param]: made };
    }
    if (!read) return;
    const written = Object.fromEntries(Object.entries(request.body).filter(([, v]) => v === null || typeof v !== 'object'));
    const after = await this.ctx.call(read, { ...(request.as === undefined ? {} : { as: request.as }), ...(request.headers ? { headers: request.headers } : {}), path });
    if (after.response?.status !== 200) return;
    const differ = differences(written, bodyOf(after));
    if (differ.length > 0) this.failures.push([`${id} wrote what ${read.operationId} does not read back: ${differ.slice(0, 4).join('; ')}`, after]);
  }
}

const keepId = (name: string, field = 'id') => (w: Walk, body: Record<string, unknown>): void => {
  const value = body[field];
  if (typeof value === 'string') w.ids[name] = value;
};
/** A version 4 UUID from the run's seeded random numbers, so a run can be repeated. */
const seededUuid = (random: () => number): string => {
  const hex = Array.from({ length: 32 }, () => Math.floor(random() * 16).toString(16));
  hex[12] = '4';
  hex[16] = (8 + Math.floor(random() * 4)).toString(16);
  const h = hex.join('');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
};
const card = testCard();
const manualLine = { lineItemId: null, productName: 'Walk', unitTypeId: 1, unitPrice: 20, quantity: 1 };

/** Records an invoice to publish: a customer's invoice due in 30 days with one manual line. */
const invoiceBody = (w: Walk): Partial<CallOptions> => ({ body: { id: null, dueDate: w.ctx.daysAhead(30), customerId: w.ids.customerId ?? null, lineItems: [manualLine] } });
const publishAs = (name: string): Step => ({ op: OperationId.publishInvoice, request: invoiceBody, keep: keepId(name) });
const at = (name: string, key: string) => (w: Walk): Partial<CallOptions> => ({ path: { [key]: w.ids[name] ?? '' } });
const total = async (w: Walk, invoice: string, kind: 'creditCard' | 'ach'): Promise<number> => {
  const calc = bodyOf(await w.ctx.call(OperationId.getInvoice, { path: { invoiceId: w.ids[invoice] ?? '' } })).invoiceCalculations;
  const part = isRecord(calc) ? calc[kind] : undefined;
  return isRecord(part) && typeof part.totalAmount === 'number' ? part.totalAmount : 0;
};

/** The order: lookups and settings, then each family from creation to deletion. */
const steps: readonly Step[] = [
  { op: OperationId.getPaymentConfiguration, keep: (w, b) => {
    for (const p of listOf(b.availablePaymentProcessors)) {
      if (!isRecord(p) || typeof p.id !== 'string') continue;
      const kind = p.typeId === PaymentProcessorType.CardProcessor || p.type === 'CardProcessor' ? 'cardPaymentProcessorId' : p.typeId === PaymentProcessorType.Eft || p.type === 'Eft' ? 'achPaymentProcessorId' : undefined;
      if (kind !== undefined && !(kind in w.ids)) w.ids[kind] = p.id;
    }
  } },
  { op: OperationId.listContactInfos, keep: (w, b) => { const first = firstOf(b.contactInfos); if (isRecord(first) && typeof first.id === 'string') w.ids.merchantContactInfoId = first.id; } },
  { op: OperationId.listCountries }, { op: OperationId.listStates }, { op: OperationId.listEnumerations }, { op: OperationId.listUnitTypes },
  { op: OperationId.listApiKeys }, { op: OperationId.listDevices }, { op: OperationId.listWebhookEventTypes },
  // Customers and their payment methods.
  { op: OperationId.createCustomer, request: (w) => ({ body: { firstName: 'Walk', lastName: w.ctx.unique('walk'), paymentMethodsCards: [{ name: 'Visa', ...card }], paymentMethodsAchAccounts: [{ accountNumber: '000123456789', routingNumber: '021000021', accountType: AccountType.Checking, accountHolderType: AccountHolderType.Personal, name: 'Checking' }] } }), keep: keepId('customerId') },
  { op: OperationId.searchCustomers },
  { op: OperationId.getCustomer, keep: (w, b) => { if (typeof b.merchantId === 'string') w.ids.merchantId = b.merchantId; } },
  { op: OperationId.updateCustomer, request: (w) => ({ body: { firstName: 'Walk', lastName: w.ctx.unique('walk-updated') } }) },
  { op: OperationId.listPaymentMethods },
  { op: OperationId.addCardPaymentMethod, request: () => ({ body: { name: 'Second', ...card } }), keep: keepId('paymentMethodId') },
  { op: OperationId.addAchPaymentMethod, keep: keepId('achPaymentMethodId') },
  { op: OperationId.updatePaymentMethod, request: () => ({ body: { name: 'Renamed' } }) },
  { op: OperationId.makeDefaultPaymentMethod },
  { op: OperationId.deletePaymentMethod, request: at('achPaymentMethodId', 'paymentMethodId') },
  // The catalogue.
  { op: OperationId.listCategories },
  { op: OperationId.createCategory, request: (w) => ({ body: { name: w.ctx.unique('walk-cat'), defaultUnitTypeId: 1 } }), keep: keepId('categoryId') },
  { op: OperationId.updateCategory, request: (w) => ({ body: { name: w.ctx.unique('walk-cat2'), defaultUnitTypeId: 1 } }) },
  { op: OperationId.listLineItems },
  { op: OperationId.createLineItem, request: (w) => ({ body: { productName: w.ctx.unique('walk-item'), unitPrice: 12.5, unitTypeId: 1, categoryId: w.ids.categoryId ?? null } }), keep: keepId('lineItemId') },
  { op: OperationId.updateLineItem, request: (w) => ({ body: { productName: w.ctx.unique('walk-item2'), unitPrice: 13, unitTypeId: 1, categoryId: w.ids.categoryId ?? null } }) },
  // Invoices.
  { op: OperationId.getInvoiceSettings, request: at('merchantId', 'merchantId'), keep: (w, b) => { w.ids.settings = JSON.stringify(b); } },
  { op: OperationId.updateInvoiceSettings, request: (w) => ({ path: { merchantId: w.ids.merchantId ?? '' }, body: w.writable(operationIdOf(OperationId.updateInvoiceSettings), JSON.parse(w.ids.settings ?? '{}') as Json) }) },
  { op: OperationId.listInvoices },
  { op: OperationId.createInvoice, request: (w) => ({ body: { customerId: w.ids.customerId ?? null, lineItems: [{ lineItemId: w.ids.lineItemId ?? null, quantity: 2 }] } }), keep: keepId('invoiceId') },
  { op: OperationId.getInvoice },
  { op: OperationId.updateInvoice, request: (w) => ({ body: { customerId: w.ids.customerId ?? null, lineItems: [manualLine] } }) },
  { op: OperationId.getInvoiceCalculations },
  { op: OperationId.deleteInvoice },
  { ...publishAs('invoiceId') },
  { op: OperationId.downloadInvoicePdf },
  { op: OperationId.sendInvoiceEmailNotification },
  { op: OperationId.sendInvoiceSmsNotification },
  { op: OperationId.submitInvoiceCardPayment, request: async (w) => ({ body: { totalAmount: await total(w, 'invoiceId', 'creditCard'), accountNumber: card.pan, expirationMonth: card.expirationMonth, expirationYear: card.expirationYear, securityCode: card.securityCode, billingCountryId: 1 } }) },
  publishAs('achInvoiceId'),
  { op: OperationId.submitInvoiceAchPayment, request: (w) => ({ path: { invoiceId: w.ids.achInvoiceId ?? '' }, body: { ...(w.example(OperationId.submitInvoiceAchPayment).body as Record<string, Json>), authorizationConsentTimestamp: new Date().toISOString() } }) },
  publishAs('cancelInvoiceId'),
  { op: OperationId.cancelInvoice, request: at('cancelInvoiceId', 'invoiceId') },
  publishAs('paidInvoiceId'),
  { op: OperationId.markInvoiceAsPaid, request: at('paidInvoiceId', 'invoiceId') },
  // ACH.
  { op: OperationId.createAchDebit, request: (w) => ({ body: { ...(w.example(OperationId.createAchDebit).body as Record<string, Json>), paymentProcessorId: w.ids.achPaymentProcessorId ?? '' } }), keep: keepId('transactionId', 'transactionId') },
  { op: OperationId.getTransactionStatus },
  { op: OperationId.holdAchTransaction }, { op: OperationId.unholdAchTransaction }, { op: OperationId.voidAchTransaction },
  { op: OperationId.createAchCredit, request: async (w) => {
    const methods = bodyOf(await w.ctx.call(OperationId.listPaymentMethods, { path: { customerId: w.ids.customerId ?? '' } }));
    const ach = listOf(methods.items).find((m) => isRecord(m) && m.paymentMethodTypeId === PaymentMethodType.ElectronicCheck);
    return { body: { ...(w.example(OperationId.createAchCredit).body as Record<string, Json>), paymentProcessorId: w.ids.achPaymentProcessorId ?? '', paymentMethodId: isRecord(ach) && typeof ach.id === 'string' ? ach.id : '', customerId: w.ids.customerId ?? null } };
  }, keep: keepId('creditId', 'transactionId') },
  { op: OperationId.simulateTransaction, request: (w) => ({ path: { transactionId: w.ids.creditId ?? '' }, body: { outcome: 'settle' } }) },
  { op: OperationId.refundAchTransaction, request: (w) => ({ path: { transactionId: w.ids.creditId ?? '' }, body: { amount: 1 } }) },
  // Webhooks: a receiver that does not answer (a closed port), so a delivery ends Failed for retryDelivery.
  { op: OperationId.listWebhookEndpoints },
  { op: OperationId.createWebhookEndpoint, request: (w) => ({ body: { name: w.ctx.unique('walk-hook'), endpointUrl: 'http://127.0.0.1:9/walk', eventTypes: ['payment.card.authorized'] } }), keep: keepId('webhookId') },
  { op: OperationId.getWebhookEndpoint },
  { op: OperationId.updateWebhookEndpoint, request: (w) => ({ body: { name: w.ctx.unique('walk-hook2'), endpointUrl: 'http://127.0.0.1:9/walk', eventTypes: ['payment.card.authorized'] } }) },
  { op: OperationId.pingWebhookEndpoint },
  { op: OperationId.listDeliveryLogs }, { op: OperationId.exportDeliveryLogs },
  // Cards (the webhook above subscribes to payment.card.authorized).
  { op: OperationId.authorizeCard, request: (w) => ({ body: { amount: 20, paymentProcessorId: w.ids.cardPaymentProcessorId ?? '', card } }), keep: keepId('authorizationId', 'transactionId') },
  { op: OperationId.captureCardTransaction, request: at('authorizationId', 'transactionId') },
  { op: OperationId.createCardSale, request: (w) => ({ body: { amount: 30, paymentProcessorId: w.ids.cardPaymentProcessorId ?? '', card } }), keep: keepId('saleId', 'transactionId') },
  { op: OperationId.voidCardTransaction, request: at('saleId', 'transactionId') },
  { op: OperationId.createCardSale, request: (w) => ({ body: { amount: 40, paymentProcessorId: w.ids.cardPaymentProcessorId ?? '', card } }), keep: keepId('settledSaleId', 'transactionId') },
  { op: OperationId.advanceSandboxClock, request: () => ({ body: { seconds: 2 * 86_400 } }) },
  { op: OperationId.refundCardTransaction, request: (w) => ({ path: { transactionId: w.ids.settledSaleId ?? '' }, body: { amount: 5 } }) },
  { op: OperationId.refundCardWithoutReference, request: (w) => ({ body: { amount: 5, paymentProcessorId: w.ids.cardPaymentProcessorId ?? '', card } }) },
  { op: OperationId.getSandboxClock },
  // Disposable sandboxes (designed): the partner makes one, resets and deletes it; merchant A is never reset.
  { op: OperationId.createSandboxMerchant, needs: 'partner', request: (w) => ({ as: 'partner', body: { name: w.ctx.unique('walk-sandbox'), expiresInSeconds: 600 } }), keep: keepId('sandboxMerchantId', 'merchantId') },
  { op: OperationId.listSandboxMerchants, needs: 'partner', request: () => ({ as: 'partner' }) },
  { op: OperationId.resetSandbox, needs: 'partner', request: (w) => ({ as: 'partner', headers: { 'x-merchant-id': w.ids.sandboxMerchantId ?? '' } }) },
  { op: OperationId.deleteSandboxMerchant, needs: 'partner', request: (w) => ({ as: 'partner', path: { merchantId: w.ids.sandboxMerchantId ?? '' } }) },
  // Devices, terminals, payment links, subscriptions and API keys.
  // A token for a device id the walk chooses registers that device (the answer does not name the device).
  { op: OperationId.issueTapToPayToken, request: (w) => { w.ids.deviceId = seededUuid(() => w.ctx.random()); return { body: { deviceId: w.ids.deviceId } }; } },
  { op: OperationId.getDevice }, { op: OperationId.activateTapToPayDevice },
  // Terminals (designed): a serial number of the run's own (a repeated run would be refused a duplicate), in
  // capitals as the terminal keeps it.
  { op: OperationId.registerTerminal, request: (w) => ({ body: { serialNumber: w.ctx.unique('WALK').toUpperCase(), model: 'Walk', name: 'Walk terminal' } }), keep: keepId('terminalId', 'terminalId') },
  { op: OperationId.listTerminals }, { op: OperationId.getTerminal }, { op: OperationId.setSandboxTerminalPaperStatus },
  // Payment links (designed): one read and paid by the sandbox, another cancelled (an expiry in the future).
  { op: OperationId.createQuickPayment, request: (w) => ({ body: { amount: 12.5, description: 'Walk link', expiresOn: w.ctx.daysAhead(30) } }), keep: keepId('quickPaymentId') },
  { op: OperationId.listQuickPayments }, { op: OperationId.getQuickPayment }, { op: OperationId.paySandboxQuickPayment }, { op: OperationId.listQuickPaymentPayments },
  { op: OperationId.createQuickPayment, request: () => ({ body: { amount: 7, description: 'Walk link to cancel' } }), keep: keepId('quickPaymentId') },
  { op: OperationId.cancelQuickPayment },
  // Subscriptions (designed): on the customer's second card, cancelled at once so that the customer may be deleted last.
  { op: OperationId.createSubscription, request: (w) => ({ body: { customerId: w.ids.customerId ?? '', paymentMethodId: w.ids.paymentMethodId ?? '', amount: 29.99, frequency: 'Monthly', description: 'Walk plan' } }), keep: keepId('subscriptionId', 'subscriptionId') },
  { op: OperationId.listSubscriptions }, { op: OperationId.getSubscription },
  { op: OperationId.updateSubscription, request: () => ({ body: { amount: 31 } }) },
  // Paused and resumed before it is cancelled (both need it open).
  { op: OperationId.pauseSubscription }, { op: OperationId.resumeSubscription },
  { op: OperationId.cancelSubscription, request: () => ({ body: { atPeriodEnd: false } }) },
  // The merchant's dunning settings, written back as read (the walk changes no merchant's settings).
  { op: OperationId.getSubscriptionSettings, keep: (w, b) => { w.ids.subscriptionSettings = JSON.stringify(b); } },
  { op: OperationId.updateSubscriptionSettings, request: (w) => ({ body: w.writable(operationIdOf(OperationId.updateSubscriptionSettings), JSON.parse(w.ids.subscriptionSettings ?? '{}') as Json) }) },
  { op: OperationId.createApiKey, request: (w) => ({ body: { name: w.ctx.unique('walk-key') } }), keep: keepId('clientId', 'clientId') },
  { op: OperationId.deleteApiKey },
  { op: OperationId.listWebhookDeliveryLogs, keep: (w, b) => { const first = firstOf(b.items); if (isRecord(first) && typeof first.id === 'string') w.ids.id = first.id; } },
  // The first delivery of the log: a Pending or Failed one is retried (200), a Succeeded one without force answers
  // the documented 400, and one whose attempt is in flight (the clock advance above queued its retries) 409.
  { op: OperationId.retryDelivery, accept: [200, 400, 409] },
  { op: OperationId.deleteWebhookEndpoint },
  // Deletions last.
  { op: OperationId.deleteLineItem }, { op: OperationId.deleteCategory }, { op: OperationId.deleteCustomer },
];

export const walkChecks: readonly Check[] = [{
  id: 'coverage/walk',
  group: 'resources',
  title: 'every operation answers a valid request from its owner (built from its examples and the records the walk made)',
  tags: [],
  designed: false,
  run: async (ctx) => {
    if (ctx.spec.operations.size === 0) throw new CheckSkipped('the spec has no operations');
    const walk = new Walk(ctx);
    for (const step of steps) await walk.step(step);
    // Operations the order does not name (a new one in the spec): their example, the walk's ids. Never a
    // destructive one (it would act on the merchant the suite was given), nor one the order skipped.
    const named = new Set(steps.map((s) => operationIdOf(s.op)));
    for (const op of ctx.spec.operations.values()) {
      if (!walk.called.has(op.operationId) && !named.has(op.operationId) && !op.destructive && !op.path.includes('oauth2')) await walk.step({ op });
    }
    failWithAll(walk.failures);
  },
}];
