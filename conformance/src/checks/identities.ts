// Identities: the partner acting for its merchants through x-merchant-id (and refused for another), a refresh
// token that is not an access token, and Idempotency-Keys that belong to one tenant.
import { OperationId } from '@pgw/client/operations';
import { CheckSkipped, bodyOf, createdId, expectStatus, expectThat, type Check } from '../check.ts';

const UNKNOWN_MERCHANT = '5f0e2c3d-4b1a-4c9e-8d7f-6a5b4c3d2e1f';

export const identityChecks: readonly Check[] = [
  {
    id: 'identities/partner_acts_for_its_merchant',
    group: 'tenancy',
    title: 'a partner token acts on the merchant x-merchant-id names (that merchant sees the record, another does not); an unknown merchant answers 400',
    tags: ['Customers', OperationId.createCustomer, OperationId.getCustomer],
    designed: true,
    run: async (ctx) => {
      if (!ctx.identities.includes('partner')) throw new CheckSkipped('no partner credentials (--partner-client-id / the credentials file)');
      const mine = await ctx.call(OperationId.getPaymentConfiguration, {});
      expectStatus(mine, 200, "merchant A's payment configuration");
      const readA = await ctx.call(OperationId.createCustomer, { body: { firstName: 'Partner', lastName: ctx.unique('probe') } });
      const probeId = createdId(readA, "a customer of merchant A");
      const merchantId = String(bodyOf(await ctx.call(OperationId.getCustomer, { path: { customerId: probeId } })).merchantId);
      const created = await ctx.call(OperationId.createCustomer, { as: 'partner', headers: { 'x-merchant-id': merchantId }, body: { firstName: 'Partner', lastName: ctx.unique('for-a') } });
      const customerId = createdId(created, 'a customer the partner creates for merchant A');
      expectStatus(await ctx.call(OperationId.getCustomer, { path: { customerId } }), 200, 'merchant A reads the customer its partner created for it');
      expectStatus(await ctx.call(OperationId.getCustomer, { as: 'B', path: { customerId } }), 404, 'merchant B does not see it');
      const foreign = await ctx.call(OperationId.createCustomer, { as: 'partner', headers: { 'x-merchant-id': UNKNOWN_MERCHANT }, body: { firstName: 'Partner', lastName: ctx.unique('nobody') } });
      expectStatus(foreign, 400, 'a partner naming a merchant that is not its own');
    },
  },
  {
    id: 'identities/crm_token_service',
    group: 'auth',
    title: "the CRM token service: the password grant and the refresh grant give tokens; a wrong password answers 400 invalid_grant",
    tags: ['Authentication', OperationId.requestCrmToken],
    designed: false,
    run: async (ctx) => {
      // The credentials file's merchant entry carries its management API user beside the key.
      const a: { clientId: string; clientSecret: string; userEmail?: string; userPassword?: string } | undefined = ctx.credentials.A;
      if (!ctx.crmAuthUrl || !a?.userEmail || !a.userPassword) throw new CheckSkipped('no CRM token service or user credentials (--crm-auth-url and a credentials file with the merchant user)');
      const url = `${ctx.crmAuthUrl}/oauth2/token`;
      const grant = (form: Record<string, string>) => ctx.raw('POST', url, { form: { client_id: a.clientId, client_secret: a.clientSecret, ...form } });
      const issued = await grant({ grant_type: 'password', username: a.userEmail, password: a.userPassword, scope: 'offline_access' });
      expectStatus(issued, 200, 'the password grant');
      const refresh = bodyOf(issued).refresh_token;
      expectThat(typeof bodyOf(issued).access_token === 'string' && typeof refresh === 'string', 'the password grant gives an access and a refresh token', issued);
      const refreshed = await grant({ grant_type: 'refresh_token', refresh_token: refresh });
      expectStatus(refreshed, 200, 'the refresh grant');
      const wrong = await grant({ grant_type: 'password', username: a.userEmail, password: `${a.userPassword}-wrong`, scope: 'offline_access' });
      expectStatus(wrong, 400, 'a wrong password');
      expectThat(bodyOf(wrong).error === 'invalid_grant', 'a wrong password answers error invalid_grant', wrong);
    },
  },
  {
    id: 'identities/refresh_token_is_not_a_bearer',
    group: 'auth',
    title: 'a refresh token presented as a bearer token answers 401',
    tags: ['Customers', OperationId.searchCustomers],
    designed: false,
    run: async (ctx) => {
      const credentials = ctx.credentials.A;
      if (!credentials) throw new CheckSkipped('no credentials for merchant A');
      const token = await ctx.raw('POST', `${ctx.authUrl}/oauth2/token`, { form: { grant_type: 'client_credentials', scope: 'offline_access', client_id: credentials.clientId, client_secret: credentials.clientSecret } });
      expectStatus(token, 200, 'a token with scope offline_access');
      const refresh = bodyOf(token).refresh_token;
      expectThat(typeof refresh === 'string', 'the token response carries a refresh_token', token);
      const used = await ctx.call(OperationId.searchCustomers, { as: 'none', headers: { authorization: `Bearer ${refresh}` } });
      expectStatus(used, 401, 'a refresh token used as an access token');
    },
  },
  {
    id: 'identities/idempotency_key_per_tenant',
    group: 'idempotency',
    title: "merchant B's request with merchant A's Idempotency-Key acts for B and does not replay A's response",
    tags: ['Customers', OperationId.createCustomer],
    designed: true,
    run: async (ctx) => {
      const key = ctx.unique('idem-tenant');
      const first = await ctx.call(OperationId.createCustomer, { headers: { 'idempotency-key': key }, body: { firstName: 'Idem', lastName: ctx.unique('a') } });
      const a = createdId(first, "merchant A's customer");
      const second = await ctx.call(OperationId.createCustomer, { as: 'B', headers: { 'idempotency-key': key }, body: { firstName: 'Idem', lastName: ctx.unique('b') } });
      const b = createdId(second, "merchant B's customer with the same key");
      expectThat(a !== b && second.response?.headers['idempotent-replayed'] !== 'true', "B's request acted (a new record, no Idempotent-Replayed)", second);
      expectStatus(await ctx.call(OperationId.getCustomer, { as: 'B', path: { customerId: b } }), 200, 'B reads its own customer');
    },
  },
];
