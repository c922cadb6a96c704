// Every decimal field of every request (amounts, percentages, quantities) against every JSON spelling of a
// number, on both engines: a spelling outside the field's rule is 400 naming the field and changes no row of
// any table; one inside it is accepted and kept exactly (never rounded, never read through a lossy double).
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiSpec } from '@pgw/client/spec';
import { engines, startServer, type TestServer } from '../harness.ts';
import { snapshot } from '../../../scripts/lib/db-snapshot.ts';
import { INVOICES, invoiceBody, manualLine } from './invoice-helpers.ts';
import { ACH, CARD, achCreditBody, achDebitBody, card, cardBody, paymentCalls } from './payment-helpers.ts';

type Kind = 'payment' | 'money' | 'lineTotal' | 'percentage' | 'quantity';

/** Spellings every decimal field refuses, whatever its rule. */
const REFUSED_EVERYWHERE = [
  '4.99e25', '4.99E+25', '1e2', '1.5e1', '12.5e0', '1e-7', '0.0000001', '1e308', '1.7976931348623157e308', '1e400', '-1e400',
  '1.0000000000000001', '12.000000000000001', '12345678901234567890', '-0', '-0.00', '-0.0e0', '-1', '-0.01',
];
const RULES: Record<Kind, { refused: string[]; accepted: { text: string; value: number }[] }> = {
  payment: {
    refused: ['0', '0.00', '0.001', '0.009', '1.005', '4.999', '12.345', '999999.991', '1000000', '1000000.00', '99999999999999.99'],
    accepted: [{ text: '12', value: 12 }, { text: '12.5', value: 12.5 }, { text: '12.50', value: 12.5 }, { text: '12.500', value: 12.5 }, { text: '0.01', value: 0.01 }, { text: '4.99', value: 4.99 }, { text: '999999.99', value: 999999.99 }],
  },
  money: {
    refused: ['0.001', '1.005', '12.345', '999999.991', '1000000'],
    accepted: [{ text: '0', value: 0 }, { text: '0.00', value: 0 }, { text: '4.99', value: 4.99 }, { text: '12.340', value: 12.34 }, { text: '999999.99', value: 999999.99 }],
  },
  lineTotal: {
    refused: ['0.001', '1.005', '999999990000.01'],
    accepted: [{ text: '0', value: 0 }, { text: '12.34', value: 12.34 }],
  },
  percentage: {
    refused: ['0.0001', '8.8755', '100.001', '101', '100.0001'],
    accepted: [{ text: '0', value: 0 }, { text: '8.875', value: 8.875 }, { text: '12.5000', value: 12.5 }, { text: '100', value: 100 }],
  },
  quantity: {
    refused: ['0', '0.0001', '1.0005', '1000000.001', '1000001'],
    accepted: [{ text: '0.001', value: 0.001 }, { text: '1.5', value: 1.5 }, { text: '1000000', value: 1000000 }],
  },
};

/** One decimal field of one operation: how to make a valid request with `value` (a raw JSON text) in the field. */
interface Case {
  operationId: string;
  /** The field as the standard body's `errors` names it. */
  field: string;
  kind: Kind;
  /** The accepted spellings, when the operation's own rules narrow the field's (a tip is at most the amount). */
  accepted?: { text: string; value: number }[];
  /** Makes what the request acts on, then returns the request, made valid around the field's text. */
  make(s: TestServer): Promise<(text: string) => Promise<request.Response>>;
}

const MARK = '__DECIMAL__';
/** A JSON body with the raw `text` where the body has the mark (exactly once: a body without it is a broken case). */
function rawBody(body: unknown, text: string): string {
  const json = JSON.stringify(body);
  const parts = json.split(`"${MARK}"`);
  if (parts.length !== 2) throw new Error(`the body must hold the mark once: ${json}`);
  return parts.join(text);
}
const post = (s: TestServer, path: string, body: unknown, text: string, headers: Record<string, string>, method: 'post' | 'put' = 'post') =>
  request(s.app)[method](path).set(headers).set('Content-Type', 'application/json').send(rawBody(body, text));
const at = (value: unknown) => value;

// One record each case may act on, made once per server (the refused requests change nothing; the accepted
// ones may consume a record, so commands on a transaction make their own).
async function newAuthorization(s: TestServer): Promise<string> {
  return (await paymentCalls(() => s).cardCreate(await s.as(0), 'authorization', cardBody('4111111111111111', { amount: 999999.99 }))).transactionId;
}
async function newSale(s: TestServer): Promise<string> {
  return (await paymentCalls(() => s).cardCreate(await s.as(0), 'sale', cardBody('4111111111111111', { amount: 5000 }))).transactionId;
}
async function newLineItem(s: TestServer): Promise<string> {
  const res = await request(s.app).post('/pay-int-api/line-items').set(await s.as(0)).send({ productName: 'Widget', unitPrice: 10, unitTypeId: 1 });
  expect(res.status, res.text).toBe(200);
  return (res.body as { id: string }).id;
}
/** A customer with a stored card, for a subscription's payments. */
async function newPayer(s: TestServer): Promise<{ customerId: string; paymentMethodId: string }> {
  const h = await s.as(0);
  const customer = await request(s.app).post('/pay-api/v1/customers').set(h).send({ firstName: 'Sub', lastName: 'Scriber' });
  const customerId = (customer.body as { id: string }).id;
  const card = await request(s.app).post(`/pay-api/v1/customers/${customerId}/payment-methods/cards`).set(h).send({ pan: '4111111111111111', expirationMonth: 12, expirationYear: 2040 });
  expect(card.status, card.text).toBe(200);
  return { customerId, paymentMethodId: (card.body as { id: string }).id };
}
async function newSubscription(s: TestServer): Promise<string> {
  const res = await request(s.app).post('/pay-api/v1/subscriptions').set(await s.as(0)).send({ ...(await newPayer(s)), amount: 10, frequency: 'Monthly' });
  expect(res.status, res.text).toBe(200);
  return (res.body as { subscriptionId: string }).subscriptionId;
}
async function newDraft(s: TestServer): Promise<string> {
  const res = await request(s.app).post(INVOICES).set(await s.as(0)).send(invoiceBody());
  expect(res.status, res.text).toBe(200);
  return (res.body as { id: string }).id;
}
async function newDueInvoice(s: TestServer, total: number): Promise<string> {
  const res = await request(s.app).post(`${INVOICES}/publish`).set(await s.as(0)).send(invoiceBody({ lineItems: [manualLine({ unitPrice: total, quantity: 1 })] }));
  expect(res.status, res.text).toBe(200);
  return (res.body as { id: string }).id;
}

const invoiceFields: { field: string; kind: Kind; body: (mark: unknown) => Record<string, unknown> }[] = [
  // An invoice's total must stay within the largest payment (bounds.test.ts): the other figures leave room for
  // the largest spelling of the field under test.
  { field: 'shippingAmount', kind: 'money', body: (m) => invoiceBody({ shippingAmount: m, lineItems: [manualLine({ unitPrice: 0, quantity: 1 })] }) },
  { field: 'taxPercentage', kind: 'percentage', body: (m) => invoiceBody({ taxPercentage: m }) },
  { field: 'feesPercentage', kind: 'percentage', body: (m) => invoiceBody({ feesPercentage: m }) },
  { field: 'discountPercentage', kind: 'percentage', body: (m) => invoiceBody({ discountPercentage: m }) },
  { field: 'lineItems.0.unitPrice', kind: 'money', body: (m) => invoiceBody({ lineItems: [manualLine({ unitPrice: m, quantity: 1 })] }) },
  { field: 'lineItems.0.quantity', kind: 'quantity', body: (m) => invoiceBody({ lineItems: [manualLine({ quantity: m, unitPrice: 0 })] }) },
  { field: 'lineItems.0.discountPercentage', kind: 'percentage', body: (m) => invoiceBody({ lineItems: [manualLine({ discountPercentage: m })] }) },
  { field: 'lineItems.0.totalAmount', kind: 'lineTotal', body: (m) => invoiceBody({ lineItems: [manualLine({ totalAmount: m })] }) },
];
const settingsPath = (s: TestServer): string => `/pay-int-api/merchants/${s.merchantId(0)}/invoices/settings`;
const invoiceCard = { accountNumber: '4111111111111111', expirationYear: 2030, expirationMonth: 12, securityCode: '123', billingCountryId: 1, billingPostalCode: '78701', savePaymentMethod: false };

const CASES: Case[] = [
  ...(['sale', 'authorization'] as const).flatMap((kind): Case[] => [
    { operationId: kind === 'sale' ? 'createCardSale' : 'authorizeCard', field: 'amount', kind: 'payment', make: async (s) => { const h = await s.as(0); return (t) => post(s, `${CARD}/${kind}`, cardBody('4111111111111111', { amount: at(MARK) }), t, h); } },
    { operationId: kind === 'sale' ? 'createCardSale' : 'authorizeCard', field: 'tipAmount', kind: 'money', accepted: RULES.money.accepted.filter((a) => a.value <= 10), make: async (s) => { const h = await s.as(0); return (t) => post(s, `${CARD}/${kind}`, cardBody('4111111111111111', { amount: 10, tipAmount: at(MARK) }), t, h); } },
  ]),
  { operationId: 'captureCardTransaction', field: 'amount', kind: 'payment', make: async (s) => { const h = await s.as(0); const id = await newAuthorization(s); return (t) => post(s, `${CARD}/${id}/capture`, { amount: at(MARK) }, t, h); } },
  { operationId: 'refundCardTransaction', field: 'amount', kind: 'payment', make: async (s) => { const h = await s.as(0); const id = await newSale(s); return (t) => post(s, `${CARD}/${id}/refund`, { amount: at(MARK) }, t, h); } },
  { operationId: 'refundCardWithoutReference', field: 'amount', kind: 'payment', make: async (s) => { const h = await s.as(0); return (t) => post(s, `${CARD}/refund`, { amount: at(MARK), card: card() }, t, h); } },
  { operationId: 'createAchDebit', field: 'amount', kind: 'payment', make: async (s) => { const h = await s.as(0); return (t) => post(s, `${ACH}/payment`, achDebitBody(s, 0, { amount: at(MARK) }), t, h); } },
  { operationId: 'createAchCredit', field: 'amount', kind: 'payment', make: async (s) => { const h = await s.as(0); return (t) => post(s, `${ACH}/payment/credit`, achCreditBody(s, 0, { amount: at(MARK) }), t, h); } },
  {
    operationId: 'refundAchTransaction', field: 'amount', kind: 'payment', make: async (s) => {
      const calls = paymentCalls(() => s);
      const h = await s.as(0);
      const debit = await calls.achDebit(h, achDebitBody(s, 0, { amount: 5000 }));
      await calls.simulate(h, debit.transactionId, { outcome: 'settle' });
      return (t) => post(s, `${ACH}/${debit.transactionId}/refund`, { amount: at(MARK) }, t, h);
    },
  },
  { operationId: 'createQuickPayment', field: 'amount', kind: 'payment', make: async (s) => { const h = await s.as(0); return (t) => post(s, '/pay-api/v1/quick-payments', { amount: at(MARK), description: 'Spelling' }, t, h); } },
  // The bounds of a payer's amount: the suggested amount set at the other end, so that every accepted bound holds it.
  { operationId: 'createQuickPayment', field: 'customAmount.minimum', kind: 'payment', make: async (s) => { const h = await s.as(0); return (t) => post(s, '/pay-api/v1/quick-payments', { amount: 999999.99, description: 'Spelling', customAmount: { minimum: at(MARK), maximum: 999999.99 } }, t, h); } },
  { operationId: 'createQuickPayment', field: 'customAmount.maximum', kind: 'payment', make: async (s) => { const h = await s.as(0); return (t) => post(s, '/pay-api/v1/quick-payments', { amount: 0.01, description: 'Spelling', customAmount: { minimum: 0.01, maximum: at(MARK) } }, t, h); } },
  { operationId: 'createSubscription', field: 'amount', kind: 'payment', make: async (s) => { const h = await s.as(0); const payer = await newPayer(s); return (t) => post(s, '/pay-api/v1/subscriptions', { ...payer, amount: at(MARK), frequency: 'Monthly' }, t, h); } },
  { operationId: 'updateSubscription', field: 'amount', kind: 'payment', make: async (s) => { const h = await s.as(0); const id = await newSubscription(s); return (t) => post(s, `/pay-api/v1/subscriptions/${id}`, { amount: at(MARK) }, t, h, 'put'); } },
  { operationId: 'createLineItem', field: 'unitPrice', kind: 'money', make: async (s) => { const h = await s.as(0); return (t) => post(s, '/pay-int-api/line-items', { productName: 'Widget', unitPrice: at(MARK), unitTypeId: 1 }, t, h); } },
  { operationId: 'createLineItem', field: 'taxRate', kind: 'percentage', make: async (s) => { const h = await s.as(0); return (t) => post(s, '/pay-int-api/line-items', { productName: 'Widget', unitPrice: 10, unitTypeId: 1, taxRate: at(MARK) }, t, h); } },
  { operationId: 'updateLineItem', field: 'unitPrice', kind: 'money', make: async (s) => { const h = await s.as(0); const id = await newLineItem(s); return (t) => post(s, `/pay-int-api/line-items/${id}`, { productName: 'Widget', unitPrice: at(MARK), unitTypeId: 1 }, t, h, 'put'); } },
  { operationId: 'updateLineItem', field: 'taxRate', kind: 'percentage', make: async (s) => { const h = await s.as(0); const id = await newLineItem(s); return (t) => post(s, `/pay-int-api/line-items/${id}`, { productName: 'Widget', unitPrice: 10, unitTypeId: 1, taxRate: at(MARK) }, t, h, 'put'); } },
  ...invoiceFields.flatMap((f): Case[] => [
    { operationId: 'createInvoice', field: f.field, kind: f.kind, make: async (s) => { const h = await s.as(0); return (t) => post(s, INVOICES, f.body(MARK), t, h); } },
    { operationId: 'publishInvoice', field: f.field, kind: f.kind, make: async (s) => { const h = await s.as(0); return (t) => post(s, `${INVOICES}/publish`, f.body(MARK), t, h); } },
    { operationId: 'updateInvoice', field: f.field, kind: f.kind, make: async (s) => { const h = await s.as(0); const id = await newDraft(s); return (t) => post(s, `${INVOICES}/${id}`, f.body(MARK), t, h, 'put'); } },
  ]),
  ...(['taxPercentage', 'feesPercentage', 'discountPercentage', 'shippingFeeAmount'] as const).map((field): Case => ({
    operationId: 'updateInvoiceSettings', field, kind: field === 'shippingFeeAmount' ? 'money' : 'percentage',
    make: async (s) => { const h = await s.as(0); return (t) => post(s, settingsPath(s), { [field]: at(MARK) }, t, h, 'put'); },
  })),
  {
    operationId: 'submitInvoiceCardPayment', field: 'totalAmount', kind: 'payment',
    // An invoice of $12.50: an accepted spelling of another total is refused by the business rule (400
    // invoice_amount_mismatch), so the accepted spellings of this case are those of 12.50.
    accepted: [{ text: '12.5', value: 12.5 }, { text: '12.50', value: 12.5 }, { text: '12.500', value: 12.5 }],
    make: async (s) => { const h = await s.as(0); const id = await newDueInvoice(s, 12.5); return (t) => post(s, `${INVOICES}/${id}/submit`, { totalAmount: at(MARK), ...invoiceCard }, t, h); },
  },
];

/** Every (operation, field) of the document whose number states its decimal places: the cases must cover each. */
function decimalFieldsOfSpec(): string[] {
  const doc = apiSpec as { paths: Record<string, Record<string, { operationId?: string; requestBody?: { content?: Record<string, { schema?: unknown }> } }>>; components: { schemas: Record<string, unknown> } };
  const resolve = (node: unknown): Record<string, unknown> => {
    let current = node as Record<string, unknown>;
    while (typeof current.$ref === 'string') current = doc.components.schemas[current.$ref.split('/').pop() ?? ''] as Record<string, unknown>;
    return current;
  };
  const found = new Set<string>();
  const walk = (operationId: string, node: unknown, path: string[], depth: number): void => {
    if (depth > 6 || node === undefined) return;
    const schema = resolve(node);
    if (typeof schema['x-decimal-places'] === 'number') found.add(`${operationId} ${path.join('.')}`);
    for (const [name, child] of Object.entries((schema.properties ?? {}) as Record<string, unknown>)) walk(operationId, child, [...path, name], depth + 1);
    if (schema.items !== undefined) walk(operationId, schema.items, [...path, '0'], depth + 1);
    for (const part of [...((schema.allOf ?? []) as unknown[]), ...((schema.oneOf ?? []) as unknown[]), ...((schema.anyOf ?? []) as unknown[])]) walk(operationId, part, path, depth + 1);
  };
  for (const item of Object.values(doc.paths)) {
    for (const op of Object.values(item)) {
      const schema = op.requestBody?.content?.['application/json']?.schema;
      if (op.operationId && schema) walk(op.operationId, schema, [], 0);
    }
  }
  return [...found].sort();
}

/** The field named by either error body: the standard one (`errors.amount`) or the JSON-type one (`errors['$.amount']`). */
const namedFields = (body: unknown): string[] => Object.keys((body as { errors?: Record<string, unknown> | null }).errors ?? {}).map((k) => k.replace(/^\$\./, '').replace(/\[(\d+)\]/g, '.$1'));

describe('the decimal fields the tests cover', () => {
  it('are every field of the document with an x-decimal-places rule', () => {
    expect(CASES.map((c) => `${c.operationId} ${c.field}`).sort()).toEqual(decimalFieldsOfSpec());
  });
});

describe.each(engines())('every spelling of every decimal field (%s)', (engine) => {
  let s: TestServer;
  beforeAll(async () => {
    s = await startServer(engine);
    // A subscription above the merchant's maxTransactionAmount is refused (every payment would decline:
    // bounds.test.ts); the spellings of the contract's largest amount need a merchant without a limit.
    await s.db('merchants').where({ id: s.merchantId(0) }).update({ max_transaction_amount_cents: null });
  });
  afterAll(async () => { await s.close(); });

  it.each(CASES.map((c) => [`${c.operationId} ${c.field}`, c] as const))('%s: refused spellings are 400 naming the field, and change nothing', async (_name, c) => {
    const failures: string[] = [];
    const send = await c.make(s);
    // Each request's "after" is the next one's "before": a refused request changes nothing, so the snapshot
    // between two of them stands for both (one snapshot a request instead of two; they read every table).
    let before = await snapshot(s.db);
    for (const text of [...REFUSED_EVERYWHERE, ...RULES[c.kind].refused]) {
      const res = await send(text);
      const after = await snapshot(s.db);
      if (res.status !== 400) failures.push(`${text}: ${String(res.status)} ${res.text.slice(0, 200)}`);
      else if (!namedFields(res.body).includes(c.field)) failures.push(`${text}: the error names ${namedFields(res.body).join(', ')}, not ${c.field}`);
      const changed = after.changedSince(before);
      if (changed.length > 0) failures.push(`${text}: the refused request changed ${changed.join(', ')}`);
      before = after;
    }
    expect(failures).toEqual([]);
  });

  it.each(CASES.map((c) => [`${c.operationId} ${c.field}`, c] as const))('%s: accepted spellings are kept exactly', async (_name, c) => {
    const failures: string[] = [];
    for (const { text, value } of c.accepted ?? RULES[c.kind].accepted) {
      // A fresh record for each accepted request (a capture or a refund consumes its transaction).
      const res = await (await c.make(s))(text);
      if (res.status !== 200) failures.push(`${text}: ${String(res.status)} ${res.text.slice(0, 300)}`);
      else if (c.operationId === 'createQuickPayment' || c.operationId.endsWith('Subscription')) {
        // A link and a subscription keep the amount (or the bound) as they answer it.
        const kept = c.field.split('.').reduce<unknown>((o, k) => (o as Record<string, unknown> | undefined)?.[k], res.body);
        if (kept !== value) failures.push(`${text}: kept as ${String(kept)}, not ${String(value)}`);
      } else if (c.kind === 'payment' && c.operationId !== 'submitInvoiceCardPayment') {
        const result = res.body as { transactionId: string; responseCode: string };
        const details = await request(s.app).post(`/pay-api/v1/transactions/${result.transactionId}`).set(await s.as(0));
        const stored = details.body as { amount: number; processedAmount: number };
        // A capture or refund keeps its amount as the processed amount of the command; a new payment as `amount`.
        const kept = /capture|refund/i.test(c.operationId) ? undefined : stored.amount;
        if (kept !== undefined && kept !== value) failures.push(`${text}: kept as ${String(kept)}, not ${String(value)}`);
      }
    }
    expect(failures).toEqual([]);
  });
});
