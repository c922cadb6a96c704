// Details of the contract the schema validation alone lets through: fields an answer must not carry (the spec
// leaves them out of that answer's schema), the API key list (no secrets, no other merchant's keys, found by
// paging through, never by position), and `Cache-Control: no-store` on every answer the spec says carries it.
import { randomBytes } from 'node:crypto';
import { OperationId } from '@pgw/client/operations';
import { AccountHolderType, AccountType, SecCode } from '@pgw/client/enums';
import { CheckSkipped, bodyOf, expectStatus, failWithAll, type Check, type CheckContext } from '../check.ts';
import { undocumentedFields } from '../documented-fields.ts';
import type { Exchange } from '../http.ts';
import { paymentProcessors, testCard } from '../fixtures.ts';

type Failures = [string, Exchange | undefined][];
const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Records a failure for each field of an answer its schema does not document. */
function undocumented(ctx: CheckContext, exchange: Exchange, failures: Failures): void {
  if (exchange.operationId === undefined || exchange.response === undefined) return;
  const extra = undocumentedFields(ctx.spec, exchange.operationId, exchange.response.status, exchange.response.body);
  if (extra.length > 0) failures.push([`${String(exchange.response.status)} of ${exchange.operationId} carries ${extra.join(', ')}, which its schema does not document (the spec leaves a field out where the answer must not carry it)`, exchange]);
}

const ACH_DEBIT = {
  secCode: SecCode.PPD, requesterIPaddress: '203.0.113.24', routingNumber: '021000021', accountNumber: '000123456789', accountType: AccountType.Checking, accountHolderType: AccountHolderType.Personal,
  billingAddress: { city: 'Austin', countryId: 1, line1: '100 Congress Ave', line2: null, postalCode: '78701', stateName: 'Texas', stateId: 44 },
  shippingAddress: null, contactInfo: { firstName: 'Contract', lastName: 'Fields', companyName: '', email: 'fields@example.com', mobilePhoneNumber: '+15555550123', smsNotification: false },
  isFasterProcessing: false, taxId: null,
};

/** Every item of a paged list, page after page (at most `maxPages`): records are found by id, never by position. */
async function everyItem(ctx: CheckContext, operationId: OperationId, as: string, seen: Exchange[], maxPages = 200): Promise<Record<string, unknown>[]> {
  const items: Record<string, unknown>[] = [];
  // Pages are zero-based (spec/components/parameters.yaml Page).
  for (let page = 0; page < maxPages; page++) {
    const read = await ctx.call(operationId, { as, query: { page, pageSize: 100 } });
    expectStatus(read, 200, operationId);
    seen.push(read);
    const got = Array.isArray(bodyOf(read).items) ? (bodyOf(read).items as unknown[]).filter(isObject) : [];
    items.push(...got);
    const total = bodyOf(read).total;
    if (got.length === 0 || (typeof total === 'number' && items.length >= total)) break;
  }
  return items;
}

export const contractDetailChecks: readonly Check[] = [
  {
    id: 'contract/documented_fields',
    group: 'resources',
    title: "the transaction commands' answers carry only the fields their schema documents (no processedAmount on hold and unhold)",
    tags: ['ACH Payments', 'Card Payments', OperationId.holdAchTransaction, OperationId.unholdAchTransaction, OperationId.voidAchTransaction, OperationId.getTransactionStatus],
    designed: true,
    run: async (ctx) => {
      const processors = await paymentProcessors(ctx);
      const failures: Failures = [];
      const seen: Exchange[] = [];
      const call = async (op: OperationId, options: Parameters<CheckContext['call']>[1]): Promise<Exchange> => {
        const exchange = await ctx.call(op, options);
        seen.push(exchange);
        return exchange;
      };
      if (processors.ach === '' && processors.card === '') throw new CheckSkipped('the merchant has no processor');
      if (processors.ach !== '') {
        const debit = bodyOf(await call(OperationId.createAchDebit, { body: { ...ACH_DEBIT, amount: 12.34, paymentProcessorId: processors.ach } })).transactionId;
        if (typeof debit === 'string') {
          for (const op of [OperationId.holdAchTransaction, OperationId.unholdAchTransaction, OperationId.getTransactionStatus, OperationId.voidAchTransaction, OperationId.holdAchTransaction]) await call(op, { path: { transactionId: debit } });
        }
      }
      if (processors.card !== '') {
        const auth = bodyOf(await call(OperationId.authorizeCard, { body: { amount: 12.34, paymentProcessorId: processors.card, card: testCard() } })).transactionId;
        if (typeof auth === 'string') {
          for (const op of [OperationId.captureCardTransaction, OperationId.getTransactionStatus, OperationId.voidCardTransaction]) await call(op, { path: { transactionId: auth } });
        }
      }
      for (const exchange of seen) undocumented(ctx, exchange, failures);
      failWithAll(failures);
    },
  },
  {
    id: 'contract/api_key_list',
    group: 'tenancy',
    title: "the API key list shows no secret and, unfiltered, only the caller's own keys (found by paging, not by position)",
    tags: ['Merchant', OperationId.listApiKeys, OperationId.createApiKey, OperationId.deleteApiKey],
    designed: true,
    run: async (ctx) => {
      if (!ctx.identities.includes('B')) throw new CheckSkipped('a second merchant (B) is needed');
      const failures: Failures = [];
      const made: { as: string; clientId: string }[] = [];
      try {
        const keys: Record<string, { clientId: string; clientSecret: string }> = {};
        for (const who of ['A', 'B']) {
          const created = await ctx.call(OperationId.createApiKey, { as: who, body: { name: ctx.unique(`list-key-${who}`) } });
          expectStatus(created, 200, `createApiKey as ${who}`);
          const { clientId, clientSecret } = bodyOf(created);
          if (typeof clientId !== 'string' || typeof clientSecret !== 'string') throw new CheckSkipped('createApiKey answers no clientId and clientSecret');
          keys[who] = { clientId, clientSecret };
          made.push({ as: who, clientId });
        }
        const own = keys.A;
        const other = keys.B;
        if (!own || !other) return;
        const seen: Exchange[] = [];
        const items = await everyItem(ctx, OperationId.listApiKeys, 'A', seen);
        const last = seen[seen.length - 1];
        if (!items.some((k) => k.clientId === own.clientId)) failures.push([`A's new key ${own.clientId} is on one of the pages of A's key list`, last]);
        if (items.some((k) => k.clientId === other.clientId)) failures.push([`B's key ${other.clientId} is not on any page of A's unfiltered key list`, last]);
        for (const page of seen) {
          if (page.response?.text.includes(own.clientSecret)) failures.push(["the key list does not show a key's secret", page]);
          undocumented(ctx, page, failures);
        }
      } finally {
        // What the check made, it removes (a gateway that keeps data is left as it was found).
        for (const { as, clientId } of made) await ctx.call(OperationId.deleteApiKey, { as, path: { clientId } });
      }
      failWithAll(failures);
    },
  },
  {
    id: 'contract/no_store',
    group: 'auth',
    title: 'every answer the spec says carries Cache-Control: no-store (tokens, secrets) carries it, refusals of the token service too',
    tags: ['OAuth', OperationId.requestToken, OperationId.createApiKey, OperationId.listWebhookEndpoints],
    designed: false,
    run: async (ctx) => {
      const failures: Failures = [];
      const seen: Exchange[] = [];
      const own = ctx.credentials.A;
      if (!own) throw new CheckSkipped('no credentials for merchant A');
      const tokenUrl = `${ctx.authUrl}/oauth2/token`;
      const issued = await ctx.raw('POST', tokenUrl, { form: { grant_type: 'client_credentials', scope: 'offline_access', client_id: own.clientId, client_secret: own.clientSecret } });
      seen.push(issued);
      const refresh = bodyOf(issued).refresh_token;
      if (typeof refresh === 'string') seen.push(await ctx.raw('POST', tokenUrl, { form: { grant_type: 'refresh_token', refresh_token: refresh } }));
      seen.push(await ctx.raw('POST', tokenUrl, { form: { grant_type: 'client_credentials', client_id: own.clientId, client_secret: randomBytes(16).toString('hex') } }));
      seen.push(await ctx.raw('POST', tokenUrl, { form: { grant_type: 'password' } }));
      const key = await ctx.call(OperationId.createApiKey, { body: { name: ctx.unique('no-store-key') } });
      seen.push(key);
      const clientId = bodyOf(key).clientId;
      if (typeof clientId === 'string') await ctx.call(OperationId.deleteApiKey, { path: { clientId } });
      seen.push(await ctx.call(OperationId.listWebhookEndpoints, {}));
      for (const exchange of seen) {
        if (exchange.operationId === undefined || exchange.response === undefined) continue;
        for (const [name, value] of ctx.spec.fixedHeaders(exchange.operationId, exchange.response.status)) {
          const got = exchange.response.headers[name] ?? '';
          if (!got.split(',').map((d) => d.trim().toLowerCase()).includes(value.toLowerCase())) {
            failures.push([`${String(exchange.response.status)} of ${exchange.operationId} carries ${name}: ${value} (got ${got === '' ? 'none' : JSON.stringify(got)})`, exchange]);
          }
        }
      }
      failWithAll(failures);
    },
  },
];
