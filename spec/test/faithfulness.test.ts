// The bundled spec says what the interface says; and changing any one kind of fact is caught.
import { describe, expect, it } from 'vitest';
import { bodySchema, checkFaithfulness, deref, fieldAt, operation, type JsonObject } from './faithfulness.ts';
import { loadBundle } from './bundled.ts';

const obj = (value: unknown): JsonObject => {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new Error('not an object');
  return value as JsonObject;
};
const op = (doc: JsonObject, method: string, path: string): JsonObject => {
  const found = operation(doc, method, path);
  if (!found) throw new Error(`no ${method} ${path}`);
  return found;
};
const schema = (doc: JsonObject, name: string): JsonObject => obj(obj(obj(doc.components).schemas)[name]);
const field = (doc: JsonObject, method: string, path: string, where: 'request' | '200' | '404', name: string): JsonObject =>
  obj(deref(doc, fieldAt(doc, bodySchema(doc, op(doc, method, path), where), name)));
const webhook = (doc: JsonObject, type: string): JsonObject => obj(obj(deref(doc, obj(doc.webhooks)[type])).post);

describe('the bundled spec against the interface', () => {
  it('holds every fact of the interface', () => {
    expect(checkFaithfulness(loadBundle())).toEqual([]);
  });
});

// Each row changes one fact, as an author's slip would, and names what the checker must then report.
const mutations: [string, (doc: JsonObject) => void, RegExp][] = [
  ['an operation removed', (doc) => {
    delete obj(deref(doc, obj(doc.paths)['/pay-api/v1/customers/{customerId}'])).delete;
  }, /DELETE \/pay-api\/v1\/customers\/\{customerId\} is missing/],
  ['an enumeration name changed', (doc) => {
    (schema(doc, 'AccountType')['x-enum-varnames'] as string[])[0] = 'Chequing';
  }, /AccountType names 1 Chequing/],
  ['an enumeration id changed', (doc) => {
    (schema(doc, 'AchTransactionStatus').enum as number[])[3] = 30; // 29 is PartiallyRefunded, designed
  }, /AchTransactionStatus/],
  ['a value added to a closed enumeration', (doc) => {
    (schema(doc, 'PaymentMethodType').enum as number[]).push(3);
    (schema(doc, 'PaymentMethodType')['x-enum-varnames'] as string[]).push('Crypto');
  }, /PaymentMethodType has 3 values/],
  ['the name of transaction type 15 changed', (doc) => {
    const s = schema(doc, 'TransactionType');
    (s['x-enum-varnames'] as string[])[(s.enum as number[]).indexOf(15)] = 'AchVoid';
  }, /TransactionType value 15 must begin AchCan/],
  ['an event id changed', (doc) => { webhook(doc, 'payment.card.authorized')['x-event-id'] = 4; }, /payment.card.authorized has event id 4/],
  ['an event category changed', (doc) => { webhook(doc, 'invoice.paid')['x-event-category'] = 'Billing'; }, /invoice.paid has category Billing/],
  ['an event removed', (doc) => { delete obj(doc.webhooks)['terminal.out_of_paper']; }, /terminal.out_of_paper is missing/],
  ['the default page size changed', (doc) => {
    obj(obj(obj(obj(doc.components).parameters).PageSize).schema).default = 20;
  }, /pageSize defaults to 20/],
  ['the default page changed', (doc) => {
    obj(obj(obj(obj(doc.components).parameters).Page).schema).default = 1;
  }, /page defaults to 1/],
  ['a required field made optional', (doc) => {
    const body = obj(deref(doc, bodySchema(doc, op(doc, 'post', '/pay-api/v1/customers'), 'request')));
    body.required = (body.required as string[]).filter((name) => name !== 'lastName');
  }, /POST \/pay-api\/v1\/customers request field lastName must be required/],
  ['a record field removed', (doc) => {
    const cards = obj(deref(doc, fieldAt(doc, bodySchema(doc, op(doc, 'get', '/pay-api/v1/customers/{customerId}'), '200'), 'cards[]')));
    delete obj(cards.properties).panMask;
  }, /lacks field cards\[\]\.panMask/],
  ['a nullable field made non-nullable', (doc) => {
    field(doc, 'get', '/pay-api/v1/customers/{customerId}', '200', 'defaultPaymentMethodId').type = 'string';
  }, /defaultPaymentMethodId must be nullable/],
  ['a field rule changed', (doc) => {
    field(doc, 'post', '/pay-api/v1/transactions/ach/payment', 'request', 'requesterIPaddress').maxLength = 50;
  }, /requesterIPaddress: maxLength is 50, not 45/],
  ['the error body lost a field', (doc) => {
    delete obj(schema(doc, 'ErrorResponse').properties).correlationId;
  }, /standard error body lacks correlationId/],
  ['an error field made non-nullable', (doc) => {
    obj(obj(schema(doc, 'ErrorResponse').properties).details).type = 'string';
  }, /standard error body details must be nullable/],
  ['the alternative error body lost a field', (doc) => {
    delete obj(schema(doc, 'ValidationProblemDetails').properties).traceId;
  }, /alternative body/],
  ['a country code changed', (doc) => {
    const data = obj(obj(doc.components).examples);
    const countries = Object.values(data).map(obj).find((e) => Array.isArray(e.value) && e.value.length === 250);
    obj((countries?.value as unknown[])[0]).isoCode = 'XX';
  }, /250 codes/],
  ['the version header dropped from an operation', (doc) => {
    const getInvoice = op(doc, 'get', '/pay-int-api/invoices/{invoiceId}');
    getInvoice.parameters = (getInvoice.parameters as unknown[]).filter((p) => obj(deref(doc, p)).name !== 'x-api-version');
  }, /GET \/pay-int-api\/invoices\/\{invoiceId\} lacks the optional x-api-version header/],
  ['bearer security removed from an operation', (doc) => { op(doc, 'get', '/pay-int-api/categories').security = []; }, /does not require the bearer token/],
  ['a designed operation not marked', (doc) => {
    delete op(doc, 'post', '/pay-api/v1/transactions/card/sale')['x-provenance'];
  }, /card\/sale is not in the interface and not marked/],
  ['a token grant removed', (doc) => {
    const tokenBody = obj(deref(doc, bodySchema(doc, op(doc, 'post', '/crm/oauth2/token'), 'request')));
    tokenBody.oneOf = (tokenBody.oneOf as unknown[]).slice(0, 1);
  }, /\{crm_auth_url\}\/oauth2\/token grants/],
  ['an event payload field not required', (doc) => {
    const envelope = Object.values(obj(obj(doc.components).schemas)).map(obj).find((s) => s.title === 'WebhookEventEnvelope');
    if (!envelope) throw new Error('no WebhookEventEnvelope');
    envelope.required = (envelope.required as string[]).filter((name) => name !== 'merchantId');
  }, /payload field merchantId is not required/],
];

describe('a changed fact is caught', () => {
  it.each(mutations)('%s', (_name, mutate, expected) => {
    const doc = loadBundle();
    mutate(doc);
    const problems = checkFaithfulness(doc);
    expect(problems.join('\n')).toMatch(expected);
  });
});
